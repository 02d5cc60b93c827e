/* Scaling at a point: the exponent q_j, and the speedup and parallel
 * efficiency of changing one input with the others held. */
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
			*q = pm__model_param_exponent(m, k);
			return PM_OK;
		}
	return pm__fail(err, PM_EDOMAIN, "input '%s' has no fitted scaling power in this model",
			m->inputs[i].name);
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
	if (!speedup)
		return pm__fail(err, PM_EINVAL, "pm_model_speedup: out is NULL");
	return pm__scaling_at(m, x, i, from, to, NULL, speedup, NULL, err);
}

pm_status pm_model_efficiency(const pm_model *m, const double *x, size_t i, double from,
			      double to, double *efficiency, pm_error *err)
{
	if (!efficiency)
		return pm__fail(err, PM_EINVAL, "pm_model_efficiency: out is NULL");
	return pm__scaling_at(m, x, i, from, to, NULL, NULL, efficiency, err);
}
