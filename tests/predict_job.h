/* One thread's share of predicting from a model shared between threads
 * (tests/test_point.c, tests/threads.c): every point of x, half by name
 * through a pm_point, half as batches of one. */
#ifndef PM_TEST_PREDICT_JOB_H
#define PM_TEST_PREDICT_JOB_H

#include "perfmodel/predict.h"

struct predict_job {
	const pm_model *m;
	const double *x;
	size_t n;
	double *out;
	int failed;
};

static void *predict_job_run(void *arg)
{
	struct predict_job *j = arg;
	size_t ni = pm_model_ninputs(j->m);
	pm_point *p = NULL;

	/* half by name, half in batches, all from one shared model */
	if (pm_point_new(j->m, &p, NULL)) {
		j->failed = 1;
		return NULL;
	}
	for (size_t k = 0; k < j->n; k++) {
		const double *x = j->x + k * ni;

		if (k % 2) {
			j->failed |= pm_model_predict_batch(j->m, x, 1, &j->out[k], NULL) != PM_OK;
			continue;
		}
		pm_point_clear(p);
		for (size_t i = 0; i < ni; i++) {
			const char *name = pm_model_input_name(j->m, i);

			j->failed |= (pm_model_input_role(j->m, i) == PM_ROLE_CATEGORICAL
					      ? pm_point_set_cat(p, name,
								 pm_model_level_name(j->m, i, (size_t)x[i]),
								 NULL)
					      : pm_point_set_num(p, name, x[i], NULL)) != PM_OK;
		}
		j->failed |= pm_model_predict_point(j->m, p, &j->out[k], NULL) != PM_OK;
	}
	pm_point_free(p);
	return NULL;
}

#endif
