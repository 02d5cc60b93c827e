#include <stdlib.h>

#include "core/error.h"
#include "model/model_impl.h"

pm_status pm_model_evaluate(const pm_model *m, const pm_dataset *d, pm_metrics *out,
			    pm_error *err)
{
	size_t n = pm_dataset_nrows(d), c;
	double *t = malloc((n + 1) * sizeof(*t));
	double *pred = malloc((n + 1) * sizeof(*pred));
	pm_status st;

	if (!t || !pred) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = pm_dataset_col_index(d, m->target, &c, err)) ||
	    (st = pm_dataset_col_numbers(d, c, t, err)) ||
	    (st = pm_model_predict_dataset(m, d, pred, err)))
		goto out;
	st = pm_metrics_compute(t, pred, n, m->nparams, out, err);
out:
	free(t);
	free(pred);
	return st;
}
