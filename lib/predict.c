#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "model_impl.h"
#include "predict_impl.h"

/* Eq. 4.4 repeats every extrinsic factor in every term: a point's factor
 * values are computed once, before the terms are combined, in a stack
 * array of up to FACTOR_CACHE (predict stays allocation-free); a model
 * with more factors computes them where the terms use them. */
#define FACTOR_CACHE 64

/* A point is x with input vi (SIZE_MAX: none) replaced by vv, so that a
 * speedup can vary one input of a caller's const point without copying
 * it (pm__predict_at). */
struct point {
	const pm_model *m;
	const double *x;
	size_t vi;
	double vv;
	const double *fv;	/* factor values, or NULL */
};

static inline double value_of(const struct point *p, size_t i)
{
	return i == p->vi ? p->vv : p->x[i];
}

static double factor_at(const struct point *p, uint32_t f)
{
	const pm_model *m = p->m;
	const pm_factor *fa = &m->terms.factor[f];

	return pm__factor_eval(fa, m->value,
			       pm__factor_base(fa, value_of(p, fa->input),
					       m->inputs[fa->input].log_scale));
}

static double point_factor(const void *ctx, uint32_t f)
{
	const struct point *p = ctx;

	return p->fv ? p->fv[f] : factor_at(p, f);
}

static uint32_t point_level(const void *ctx, uint32_t i)
{
	const struct point *p = ctx;

	return (uint32_t)value_of(p, i);
}

/* The values a model cannot take, in the order of the inputs. */
static pm_status check_point(const struct point *p, pm_error *err)
{
	const pm_model *m = p->m;

	for (size_t i = 0; i < m->ninputs; i++) {
		const pm_input *in = &m->inputs[i];
		double v = value_of(p, i);

		if (isnan(v))
			return pm__fail(err, PM_EDOMAIN, "input '%s' has no value (NaN)", in->name);
		if (in->role == PM_ROLE_CATEGORICAL) {
			if (!(v >= 0 && v < (double)in->nlevels && v == floor(v)))
				return pm__fail(err, PM_EDOMAIN,
						"input '%s': level index %g is not one of 0..%zu",
						in->name, v, in->nlevels - 1);
		} else if (!(v > 0 && isfinite(v))) {
			return pm__fail(err, PM_EDOMAIN,
					"input '%s': %g is not a finite number > 0, as a power needs",
					in->name, v);
		}
	}
	for (size_t f = 0; f < m->terms.nfactors; f++) {
		const pm_factor *fa = &m->terms.factor[f];

		if (fa->kind == PM_FACTOR_LOG2 && !(value_of(p, fa->input) >= 1))
			return pm__fail(err, PM_EDOMAIN, "input '%s': %g is below 1, as log2() needs",
					m->inputs[fa->input].name, value_of(p, fa->input));
	}
	return PM_OK;
}

static double combine(struct point *p)
{
	return p->m->target_scale * pm__terms_combine(&p->m->terms, p->m->value, point_factor,
						      point_level, p);
}

pm_status pm__predict_at(const pm_model *m, const double *x, size_t vi, double vv,
			 double *out, pm_error *err)
{
	double fv[FACTOR_CACHE];
	struct point p = { m, x, vi, vv, NULL };
	pm_status st = check_point(&p, err);

	if (st)
		return st;
	if (m->terms.nfactors <= FACTOR_CACHE) {
		for (uint32_t f = 0; f < m->terms.nfactors; f++)
			fv[f] = factor_at(&p, f);
		p.fv = fv;
	}
	*out = combine(&p);
	return PM_OK;
}

pm_status pm_model_predict(const pm_model *m, const double *x, double *out, pm_error *err)
{
	/* x may be NULL for a model of no inputs */
	if (!m || (!x && m->ninputs) || !out)
		return pm__fail(err, PM_EINVAL, "pm_model_predict: a NULL argument");
	return pm__predict_at(m, x, SIZE_MAX, 0.0, out, err);
}

/* Points of a batch often share values (a grid over one or two inputs of
 * one job): a factor is recomputed only when its input's value changed
 * since the previous point; the same function of the same value, so the
 * same bits as pm_model_predict. */
pm_status pm_model_predict_batch(const pm_model *m, const double *x, size_t n, double *out,
				 pm_error *err)
{
	double fv[FACTOR_CACHE], fx[FACTOR_CACHE];
	size_t nf;

	if (!m || (n && ((!x && m->ninputs) || !out)))
		return pm__fail(err, PM_EINVAL, "pm_model_predict_batch: a NULL argument");
	nf = m->terms.nfactors;
	for (size_t k = 0; k < n; k++) {
		struct point p = { m, x + k * m->ninputs, SIZE_MAX, 0.0, NULL };
		pm_status st = check_point(&p, err);

		if (st) {
			if (err) {
				char msg[sizeof(err->msg)];

				snprintf(msg, sizeof(msg), "%s", err->msg);
				snprintf(err->msg, sizeof(err->msg), "point %zu: %.480s", k + 1, msg);
			}
			return st;
		}
		if (nf <= FACTOR_CACHE) {
			for (uint32_t f = 0; f < nf; f++) {
				double v = p.x[m->terms.factor[f].input];

				if (k == 0 || v != fx[f]) {
					fx[f] = v;
					fv[f] = factor_at(&p, f);
				}
			}
			p.fv = fv;
		}
		out[k] = combine(&p);
	}
	return PM_OK;
}
