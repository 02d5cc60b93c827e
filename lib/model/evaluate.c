#include <stdlib.h>

#include "core/error.h"
#include "model/model_impl.h"

pm_status pm__times_check(const pm_dataset *d, size_t c, const double *t, pm_error *err)
{
	for (size_t r = 0; r < pm_dataset_nrows(d); r++)
		if (!(t[r] > 0))
			return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(d),
					   pm_dataset_cell_line(d, r, c), pm_dataset_cell_column(d, r, c),
					   "target '%s': %g is not a time > 0",
					   pm_dataset_col_name(d, c), t[r]);
	return PM_OK;
}

pm_status pm_model_evaluate(const pm_model *m, const pm_dataset *d, pm_metrics *out,
			    pm_error *err)
{
	size_t n = pm_dataset_nrows(d), c;
	const double *t;
	double *pred = malloc((n + 1) * sizeof(*pred));
	pm_status st;

	if (!pred) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = pm_dataset_col_index(d, m->target, &c, err)) ||
	    (st = pm_dataset_col_numbers(d, c, &t, err)) ||
	    (st = pm__times_check(d, c, t, err)) ||
	    (st = pm_model_predict_dataset(m, d, pred, err)))
		goto out;
	st = pm_metrics_compute(t, pred, n, m->nparams, out, err);
out:
	free(pred);
	return st;
}
