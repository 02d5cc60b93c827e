/* Scaling at a point: the exponent q_j, the model's effective exponent,
 * and the speedup and parallel efficiency of changing one input with the
 * others held. */
#include <stdint.h>

#include "core/error.h"
#include "model/model_impl.h"
#include "model/predict_impl.h"

pm_status pm_model_scaling_exponent(const pm_model *m, size_t i, double *q, pm_error *err)
{
	if (!m || !q)
		return pm__fail(err, PM_EINVAL, "pm_model_scaling_exponent: a NULL argument");
	if (i >= m->ninputs || m->inputs[i].role != PM_ROLE_EXTRINSIC)
		return pm__fail(err, PM_EINVAL, "input %zu is not an extrinsic input of the model",
				i);
	for (size_t k = 0; k < m->nparams; k++)
		if (m->params[k].desc.kind == PM_PARAM_SCALING && m->params[k].desc.input == i) {
			*q = pm_model_param_power(m, k);
			return PM_OK;
		}
	return pm__fail(err, PM_EDOMAIN, "input '%s' has no fitted scaling power in this model",
			m->inputs[i].name);
}

/* Factor f's value v at x, and its derivative d v / d log x_i into *dv (0
 * for a factor of another input). PM_EDOMAIN where it has none. */
static pm_status factor_at(const pm_model *m, const pm_factor *fa, const double *x, size_t i,
			   int on, double *v, double *dv, pm_error *err)
{
	double xi = x[fa->input], e = fa->kind == PM_FACTOR_INDICATOR ? 0.0
						: pm__factor_exponent(fa, m->value);
	const char *name = m->inputs[fa->input].name;

	*v = pm__factor_eval(fa, m->value, pm__factor_base(fa, xi, m->inputs[fa->input].log_scale));
	*dv = 0.0;
	if (fa->input != i)
		return PM_OK;
	switch (fa->kind) {
	case PM_FACTOR_POWER:
		*dv = e * *v;
		return PM_OK;
	case PM_FACTOR_LOG2:
		/* log2(x)^e: e log2(x)^(e-1) / ln 2 = e v / ln x; at x = 1, where
		 * it is taken as 0, that limit exists for e >= 1 only */
		if (xi != 1.0)
			*dv = e * *v / pm__log(xi);
		else if (e == 1.0)
			*dv = PM__INV_LN2;
		else if (!(e > 1.0))
			return pm__fail(err, PM_EDOMAIN, "log2(%s)^%g has no derivative at %s = 1",
					name, e, name);
		return PM_OK;
	case PM_FACTOR_INDICATOR:
		/* flat on either side of its threshold, a step at it */
		if (on && xi == fa->threshold)
			return pm__fail(err, PM_EDOMAIN, "an indicator on %s switches at %s = %g: the "
					"prediction jumps there", name, name, xi);
		return PM_OK;
	default: return PM_OK;
	}
}

pm_status pm_model_effective_exponent(const pm_model *m, const double *x, size_t i,
				      double *e, pm_error *err)
{
	const pm_terms *t;
	double checked, sum = 0.0, dsum = 0.0;
	pm_status st;

	if (!m || !x || !e)
		return pm__fail(err, PM_EINVAL, "pm_model_effective_exponent: a NULL argument");
	if (i >= m->ninputs || m->inputs[i].role == PM_ROLE_CATEGORICAL)
		return pm__fail(err, PM_EINVAL, "input %zu is not a numeric input of the model", i);
	/* checks the point as pm_model_predict does */
	if ((st = pm__predict_at(m, x, SIZE_MAX, 0.0, &checked, err)))
		return st;
	t = &m->terms;
	/* Σ over the terms on at x of coef Π v_f and of its derivative by the
	 * product rule, coef Σ_f dv_f Π_{g≠f} v_g */
	for (size_t k = 0; k < t->nterms; k++) {
		const pm_term *tm = &t->term[k];
		double c = m->value[tm->coef], v = c, dv = 0.0;

		if (tm->level_input != PM_NONE && (uint32_t)x[tm->level_input] != tm->level)
			continue;
		for (uint32_t r = 0; r < tm->nfactors; r++) {
			double fv, fdv;

			st = factor_at(m, &t->factor[t->ref[tm->first + r]], x, i, c != 0.0, &fv,
				       &fdv, err);
			if (st)
				return st;
			dv = dv * fv + v * fdv;
			v *= fv;
		}
		sum += v;
		dsum += dv;
	}
	if (!(sum > 0.0))
		return pm__fail(err, PM_EDOMAIN, "the prediction is %g at this point: no log of it",
				m->target_scale * sum);
	*e = dsum / sum;
	return PM_OK;
}

pm_status pm__scaling_at(const pm_model *m, const double *x, size_t i, double from,
			 double to, double *t_to, double *speedup, double *efficiency,
			 pm_error *err)
{
	double t0, t1, s;
	pm_status st;

	if (!m || !x)
		return pm__fail(err, PM_EINVAL, "a NULL model or point");
	if (i >= m->ninputs || m->inputs[i].role == PM_ROLE_CATEGORICAL)
		return pm__fail(err, PM_EINVAL, "input %zu is not a numeric input of the model", i);
	if ((st = pm__predict_at(m, x, i, from, &t0, err)) ||
	    (st = pm__predict_at(m, x, i, to, &t1, err)))
		return st;
	s = t0 / t1;
	if (t_to)
		*t_to = t1;
	if (speedup)
		*speedup = s;
	if (efficiency)
		*efficiency = s / (to / from);
	return PM_OK;
}

pm_status pm_model_speedup(const pm_model *m, const double *x, size_t i, double from,
			   double to, double *speedup, pm_error *err)
{
	if (!m || !x || !speedup)
		return pm__fail(err, PM_EINVAL, "pm_model_speedup: a NULL argument");
	return pm__scaling_at(m, x, i, from, to, NULL, speedup, NULL, err);
}

pm_status pm_model_efficiency(const pm_model *m, const double *x, size_t i, double from,
			      double to, double *efficiency, pm_error *err)
{
	if (!m || !x || !efficiency)
		return pm__fail(err, PM_EINVAL, "pm_model_efficiency: a NULL argument");
	return pm__scaling_at(m, x, i, from, to, NULL, NULL, efficiency, err);
}
