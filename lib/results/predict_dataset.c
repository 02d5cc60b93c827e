#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "model/interval.h"
#include "model/model_impl.h"

/* Row r's quantiles q[0..nq) in the model's own quantity into qo[0..nq),
 * and whether it extrapolates, at x whose prediction is y: a time's
 * quantiles are the model's, a kind's y = w / t falls as t grows, so its
 * q-quantile is the (1 - q)-quantile of t turned into y. */
static pm_status row_quantiles(const pm_model *m, const double *x, size_t nq, const double *q,
			       double *qo, int *extrapolated, pm_error *err)
{
	int flip = m->kind != PM_TARGET_TIME;
	double dist, t;
	pm_status st = PM_OK;

	for (size_t j = 0; j < nq && !st; j++)
		if (!(st = pm_model_predict_quantile(m, x, flip ? 1 - q[j] : q[j], &t, err)))
			st = pm_model_target_value(m, x, t, &qo[j], err);
	if (!st && extrapolated)
		st = pm_model_extrapolation(m, x, &dist, extrapolated, err);
	return st;
}

pm_status pm_model_predict_dataset(const pm_model *m, const pm_dataset *d, double *out,
				   pm_error *err)
{
	if (!m || !d || !out)
		return pm__fail(err, PM_EINVAL, "pm_model_predict_dataset: a NULL argument");
	return pm_model_predict_dataset_quantiles(m, d, 0, NULL, out, NULL, NULL, err);
}

/* Map the model's inputs to d's columns, then predict row by row through
 * pm_model_predict_target, so that a file and the library give the same
 * numbers, in the model's own quantity (a speedup for a speedup model). */
pm_status pm_model_predict_dataset_quantiles(const pm_model *m, const pm_dataset *d, size_t nq,
					     const double *q, double *out, double *qout,
					     int *extrapolated, pm_error *err)
{
	size_t *col, nin;
	double *x;
	pm_status st = PM_OK;

	if (!m || !d || !out || (nq && (!q || !qout)))
		return pm__fail(err, PM_EINVAL,
				"pm_model_predict_dataset_quantiles: a NULL argument");
	nin = m->ninputs;
	col = malloc((nin + 1) * sizeof(*col));
	x = malloc((nin + 1) * sizeof(*x));
	if (!col || !x) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	/* a quantile the model cannot give is no fault of a row: say so first */
	for (size_t j = 0; j < nq && !st; j++)
		st = pm__intervals_check(m, m->kind != PM_TARGET_TIME ? 1 - q[j] : q[j], err);
	if (!st && extrapolated && !pm_model_has_intervals(m))
		st = pm__intervals_check(m, 0.5, err);
	if (st)
		goto out;
	for (size_t i = 0; i < m->ninputs; i++) {
		if ((st = pm_dataset_col_index(d, m->inputs[i].name, &col[i], err)))
			goto out;
	}
	for (size_t r = 0; r < pm_dataset_nrows(d); r++) {
		for (size_t i = 0; i < m->ninputs; i++) {
			size_t level;

			if (m->inputs[i].role == PM_ROLE_CATEGORICAL) {
				st = pm_model_level_index(m, i, pm_dataset_cell(d, r, col[i]), &level,
							  err);
				x[i] = (double)level;
			} else {
				st = pm_dataset_number(d, r, col[i], &x[i], err);
				if (!st)
					st = pm__input_check(&m->inputs[i], x[i], err);
			}
			if (st) {
				/* Give the model's message the cell's place. */
				if (err && err->line == 0) {
					err->line = pm_dataset_cell_line(d, r, col[i]);
					err->column = pm_dataset_cell_column(d, r, col[i]);
					pm__err_set_file(err, pm_dataset_name(d));
				}
				goto out;
			}
		}
		/* a prediction that overflows, or no speedup (a time scale <= 0):
		 * the row's line, the message names the inputs */
		if ((st = pm_model_predict_target(m, x, &out[r], err)) ||
		    (st = row_quantiles(m, x, nq, q, qout ? qout + r * nq : NULL,
					extrapolated ? &extrapolated[r] : NULL, err))) {
			if (err && err->line == 0 && m->ninputs) {
				err->line = pm_dataset_cell_line(d, r, col[0]);
				pm__err_set_file(err, pm_dataset_name(d));
			}
			goto out;
		}
	}
out:
	free(col);
	free(x);
	return st;
}
