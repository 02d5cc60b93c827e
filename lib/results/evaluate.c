#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "model/model_impl.h"
#include "results/evaluate.h"

/* Whether a time of 0 can be fitted with loss: an absolute loss takes a 0
 * as any value; the relative ones divide by it or take its log. */
static int zero_ok(pm_target_kind kind, pm_loss loss)
{
	return kind == PM_TARGET_TIME && (loss == PM_LOSS_MAE || loss == PM_LOSS_MSE);
}

/* Why a 0 of the kind cannot be fitted with loss (zero_ok false), into
 * why[size]. */
static void why_not_zero(pm_target_kind kind, pm_loss loss, char *why, size_t size)
{
	const char *name = pm_loss_name(loss);

	if (kind != PM_TARGET_TIME)
		snprintf(why, size, " (its time scale would be infinite: a%s %s of 0 cannot be "
			 "modelled)", kind == PM_TARGET_EFFICIENCY ? "n" : "",
			 pm_target_kind_name(kind));
	else
		snprintf(why, size, " (loss %s %s; use --loss mae or mse to fit values that may "
			 "be 0)", name ? name : "?", loss == PM_LOSS_LOG ? "takes their log"
			 : "divides by the values");
}

pm_status pm__time_at(const pm_dataset *d, size_t r, size_t c, pm_target_kind kind, pm_loss loss,
		      double v, pm_error *err)
{
	char why[160] = "";

	/* finite too, past a time: 1/S of an infinite S would be a time of 0 */
	if ((v > 0 && (kind == PM_TARGET_TIME || isfinite(v))) || (v == 0 && zero_ok(kind, loss)))
		return PM_OK;
	/* a 0 is read where it may be a count (Extra-P's metrics): say why it
	 * stops here, where the target kind and the loss are known */
	if (v == 0)
		why_not_zero(kind, loss, why, sizeof(why));
	return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(d), pm_dataset_cell_line(d, r, c),
			   pm_dataset_cell_column(d, r, c), "target '%s': %g is not a%s %s %s 0%s",
			   pm_dataset_col_name(d, c), v, kind == PM_TARGET_EFFICIENCY ? "n" : "",
			   pm_target_kind_name(kind), zero_ok(kind, loss) ? ">=" : ">", why);
}

pm_status pm__times_check(const pm_dataset *d, size_t c, pm_target_kind kind, pm_loss loss,
			  const double *t, pm_error *err)
{
	pm_status st = PM_OK;

	for (size_t r = 0; r < pm_dataset_nrows(d) && !st; r++)
		st = pm__time_at(d, r, c, kind, loss, t[r], err);
	return st;
}

pm_status pm_model_evaluate(const pm_model *m, const pm_dataset *d, pm_metrics *out,
			    pm_error *err)
{
	size_t n = pm_dataset_nrows(d), c;
	double *t, *pred;
	pm_status st;

	if (!m || !d || !out)
		return pm__fail(err, PM_EINVAL, "pm_model_evaluate: a NULL argument");
	t = malloc((n + 1) * sizeof(*t));
	pred = malloc((n + 1) * sizeof(*pred));
	if (!t || !pred) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = pm_dataset_col_index(d, m->target, &c, err)) ||
	    (st = pm_dataset_col_numbers(d, c, t, err)) ||
	    (st = pm__times_check(d, c, m->kind, m->info.options.loss, t, err)) ||
	    (st = pm_model_predict_dataset(m, d, pred, err)))
		goto out;
	st = pm_metrics_compute(t, pred, n, m->nparams, out, err);
out:
	free(t);
	free(pred);
	return st;
}
