/* Whole jobs (model/job.c): the checks and the sum that pm_job_time,
 * pm_model_advise and pm_slurm_limits_at share. Private to the libraries. */
#ifndef PM_JOB_H
#define PM_JOB_H

#include "perfmodel/predict.h"

/* PM_EINVAL for a count or set-up pm_job_time refuses, or a job other than
 * the default of a model of a target kind. */
pm_status pm__job_check(const pm_model *m, const pm_job *job, pm_error *err);
/* job->setup + job->iterations * t into *value; PM_ERANGE when not finite. */
pm_status pm__job_sum(const pm_job *job, double t, double *value, pm_error *err);

#endif
