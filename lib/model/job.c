/* A whole job's time from a model of one iteration's (predict.h, "whole
 * jobs"; docs/maths.md): setup + N · t, and its quantiles the same sum of
 * the iteration's quantile, the error being the run's, shared by all its
 * iterations. */
#include <math.h>

#include "core/error.h"
#include "model/job.h"
#include "model/model_impl.h"

pm_job pm_job_default(void)
{
	return (pm_job){ .iterations = 1.0, .setup = 0.0 };
}

pm_status pm__job_check(const pm_model *m, const pm_job *job, pm_error *err)
{
	if (!(job->iterations > 0) || !isfinite(job->iterations))
		return pm__fail(err, PM_EINVAL, "a job of %g iterations: the count must be a "
				"finite number > 0", job->iterations);
	if (!(job->setup >= 0) || !isfinite(job->setup))
		return pm__fail(err, PM_EINVAL, "a set-up time of %g: it must be a finite number "
				">= 0", job->setup);
	if (m->kind != PM_TARGET_TIME && (job->iterations != 1 || job->setup != 0))
		return pm__fail(err, PM_EINVAL, "a job of iterations and set-up needs a model of a "
				"run time: the model's target is a %s (its times are relative)",
				pm_target_kind_name(m->kind));
	return PM_OK;
}

pm_status pm__job_sum(const pm_job *job, double t, double *value, pm_error *err)
{
	double v = job->setup + job->iterations * t;

	if (!isfinite(v))
		return pm__fail(err, PM_ERANGE, "a job of %g iterations of %g after a set-up of %g "
				"is more than a double holds", job->iterations, t, job->setup);
	*value = v;
	return PM_OK;
}

pm_status pm_job_time(const pm_model *m, const double *x, const pm_job *job, double q,
		      double *value, pm_error *err)
{
	pm_job one = pm_job_default();
	double t;
	pm_status st;

	if (!m || (!x && m->ninputs) || !value)
		return pm__fail(err, PM_EINVAL, "pm_job_time: a NULL argument");
	if (!job)
		job = &one;
	if (!(q >= 0 && q < 1))
		return pm__fail(err, PM_EINVAL, "the quantile %g is not 0 (the prediction) or in "
				"(0, 1)", q);
	if ((st = pm__job_check(m, job, err)) ||
	    (st = q > 0 ? pm_model_predict_quantile(m, x, q, &t, err)
			: pm_model_predict(m, x, &t, err)))
		return st;
	return pm__job_sum(job, t, value, err);
}
