/* Target kinds (predict.h): a speedup, efficiency or throughput is fitted
 * as the relative time it implies, t = w / y, and predicted back as
 * y = w / t̂. In the predictor, because a scheduler asking for a speedup
 * must get the same number as perfmodel predict. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "model/model_impl.h"

const char *const pm__target_kind_names[] = { "time", "speedup", "efficiency", "throughput",
					     NULL };
#define NKINDS 4

const char *pm_target_kind_name(pm_target_kind kind)
{
	return (unsigned)kind < NKINDS ? pm__target_kind_names[kind] : NULL;
}

pm_status pm_target_kind_from_name(const char *name, pm_target_kind *out, pm_error *err)
{
	if (!name)
		return pm__fail(err, PM_EINVAL, "pm_target_kind_from_name: name is NULL");
	for (size_t k = 0; k < NKINDS; k++)
		if (strcmp(name, pm__target_kind_names[k]) == 0) {
			if (out)
				*out = (pm_target_kind)k;
			return PM_OK;
		}
	return pm__fail(err, PM_EINVAL, "unknown target kind '%s': expected time, speedup, "
			"efficiency or throughput", name);
}

pm_target_kind pm_model_target_kind(const pm_model *m)
{
	return m ? m->kind : PM_TARGET_INVALID;
}

size_t pm_model_target_resource(const pm_model *m)
{
	return m ? m->resource : SIZE_MAX;
}

size_t pm_model_target_per(const pm_model *m)
{
	return m ? m->per : SIZE_MAX;
}

const char *pm_model_prediction_label(const pm_model *m)
{
	static const char *const label[] = { "predicted", "predicted_speedup",
					     "predicted_efficiency", "predicted_throughput" };

	return m && (unsigned)m->kind < NKINDS ? label[m->kind] : label[0];
}

/* The numeric input `name` names, into *i; PM_ESCHEMA naming what it is for. */
static pm_status numeric_input(const pm_model *m, const char *name, const char *what,
			       size_t *i, pm_error *err)
{
	if (pm_model_input_index(m, name, i, NULL) || m->inputs[*i].role == PM_ROLE_CATEGORICAL)
		return pm__fail(err, PM_ESCHEMA, "%s '%s' is not a numeric input of the model: "
				"the %s is predicted from it, so it must be one (name it "
				"with --extrinsic or --intrinsic)", what, name,
				pm_target_kind_name(m->kind));
	return PM_OK;
}

pm_status pm__model_set_target_kind(pm_model *m, pm_target_kind kind, const char *resource,
				    const char *per, pm_error *err)
{
	pm_target_kind old = m->kind;
	size_t r = SIZE_MAX, p = SIZE_MAX;
	pm_status st = PM_OK;

	if (!pm_target_kind_name(kind))
		return pm__fail(err, PM_ESCHEMA, "no such target kind (%d)", (int)kind);
	if (resource && kind != PM_TARGET_SPEEDUP && kind != PM_TARGET_EFFICIENCY)
		return pm__fail(err, PM_ESCHEMA, "a resource goes with target kind speedup or "
				"efficiency, not %s", pm_target_kind_name(kind));
	if (per && kind != PM_TARGET_THROUGHPUT)
		return pm__fail(err, PM_ESCHEMA, "per goes with target kind throughput, not %s",
				pm_target_kind_name(kind));
	if (kind == PM_TARGET_EFFICIENCY && !resource)
		return pm__fail(err, PM_ESCHEMA, "target kind efficiency needs its resource "
				"(the n of 1/(n·E))");
	m->kind = kind;	/* for the messages */
	if ((resource && (st = numeric_input(m, resource, "resource", &r, err))) ||
	    (per && (st = numeric_input(m, per, "per", &p, err)))) {
		m->kind = old;
		return st;
	}
	m->resource = r;
	m->per = p;
	return PM_OK;
}

/* The input value w reads, checked: > 0 and finite. */
static pm_status w_input(const pm_model *m, const double *x, size_t i, const char *what,
			 double *v, pm_error *err)
{
	*v = x[i];
	if (isfinite(*v) && *v > 0)
		return PM_OK;
	return pm__fail(err, PM_EDOMAIN, "%s '%s': %g is not a finite number > 0 (the %s is "
			"computed from it)", what, m->inputs[i].name, *v,
			pm_target_kind_name(m->kind));
}

pm_status pm_model_target_value(const pm_model *m, const double *x, double t, double *y,
				pm_error *err)
{
	double res = 1.0, per = 1.0, v;
	pm_status st;

	if (!m || !y || (!x && (m->kind == PM_TARGET_EFFICIENCY || m->per != SIZE_MAX)))
		return pm__fail(err, PM_EINVAL, "pm_model_target_value: a NULL argument");
	if (m->kind == PM_TARGET_TIME) {
		*y = t;
		return PM_OK;
	}
	if ((m->kind == PM_TARGET_EFFICIENCY &&
	     (st = w_input(m, x, m->resource, "resource", &res, err))) ||
	    (m->per != SIZE_MAX && (st = w_input(m, x, m->per, "per", &per, err))))
		return st;
	v = pm__target_swap(m->kind, t, pm__target_w(m->kind, res, per));
	if (!(t > 0) || !isfinite(v))
		return pm__fail(err, PM_ERANGE, "the model's time scale is %g here: no %s (it "
				"is w/t, which needs t > 0)", t, pm_target_kind_name(m->kind));
	*y = v;
	return PM_OK;
}

pm_status pm_model_predict_target(const pm_model *m, const double *x, double *out,
				  pm_error *err)
{
	double t;
	pm_status st;

	if (!m || (!x && m->ninputs) || !out)
		return pm__fail(err, PM_EINVAL, "pm_model_predict_target: a NULL argument");
	if ((st = pm_model_predict(m, x, &t, err)))
		return st;
	return pm_model_target_value(m, x, t, out, err);
}
