/* Accuracy metrics (thesis eqs. 3.10-3.12, 4.13, plus SMAPE and adjusted R²).
 *
 * Every sum runs in index order over plain doubles, so the same inputs give
 * bit-identical metrics on every run and build (DESIGN.md §3).
 *
 * Edge cases, chosen so that nothing but adjusted R² and a MAPE of no row
 * can come out NaN from finite inputs:
 * - MAPE divides by the measured value: it is the mean over the rows with
 *   t != 0 alone (a relative error of a 0 is unbounded, and a fit under an
 *   absolute loss takes 0s, a count's), so that it still ranks models on
 *   the rest; MAE, RMSE and R² count every row. With every t == 0 it is NaN
 *   (JSON null): no row has a relative error.
 * - SMAPE: a row with t == p == 0 counts as 0 (its 0/0 has no error in it).
 * - R² with constant t (SS_tot == 0) is undefined; like scikit-learn's
 *   r2_score (force_finite) it is 1 for a perfect prediction and 0 otherwise.
 * - Adjusted R² needs n - nparams - 1 > 0 degrees of freedom; with fewer it
 *   is NAN, which callers show as "n/a" (and JSON writers as null).
 * Non-finite predictions propagate (an inf prediction gives inf errors). */
#include "perfmodel/perfmodel.h"

#include <math.h>

#include "core/error.h"

pm_status pm_metrics_compute(const double *t, const double *pred, size_t n, size_t nparams,
			     pm_metrics *out, pm_error *err)
{
	double sum_t = 0, sum_abs = 0, sum_sq = 0, sum_ape = 0, sum_sape = 0, ss_tot = 0;
	double mean, dn, r2;
	size_t nonzero = 0;	/* rows of t != 0: MAPE's */

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_metrics_compute: out is NULL");
	if (n == 0)
		return pm__fail(err, PM_EINVAL, "no rows to compute metrics on");
	if (!t || !pred)
		return pm__fail(err, PM_EINVAL, "pm_metrics_compute: NULL values");
	dn = (double)n;
	for (size_t k = 0; k < n; k++)
		sum_t += t[k];
	mean = sum_t / dn;
	for (size_t k = 0; k < n; k++) {
		double e = fabs(t[k] - pred[k]);
		double at = fabs(t[k]), den = at + fabs(pred[k]);
		double dev = t[k] - mean;

		sum_abs += e;
		sum_sq += e * e;
		ss_tot += dev * dev;
		nonzero += at != 0;
		if (e != 0 && at != 0)
			sum_ape += e / at;
		if (den != 0)
			sum_sape += 2 * e / den;
	}
	out->n = n;
	out->mae = sum_abs / dn;
	out->mse = sum_sq / dn;
	out->rmse = sqrt(out->mse);
	out->mape_n = nonzero;
	out->mape = nonzero ? 100 * sum_ape / (double)nonzero : NAN;
	out->smape = 100 * sum_sape / dn;
	if (ss_tot != 0)
		r2 = 1 - sum_sq / ss_tot;
	else
		r2 = sum_sq == 0 ? 1 : 0;
	out->r2 = r2;
	if (nparams < n && n - nparams > 1)
		out->adj_r2 = 1 - (1 - r2) * (dn - 1) / (double)(n - nparams - 1);
	else
		out->adj_r2 = NAN;
	return PM_OK;
}
