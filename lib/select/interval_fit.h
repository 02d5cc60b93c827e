/* Calibrating prediction intervals after a fit (select/interval_fit.c).
 * Private to the library. */
#ifndef PM_INTERVAL_FIT_H
#define PM_INTERVAL_FIT_H

#include "perfmodel/perfmodel.h"

/* After m was fitted by pm_fit(d, s, o): with o->intervals = K, K fits of
 * the rows m was fitted to (d, less those o holds out), each without one
 * fold of a stratified K-fold split seeded by o->split_seed, and the
 * quantiles of their held-out residuals into m (pm_model_predict_interval).
 * Fewer than PM_INTERVAL_MIN_ROWS rows are calibrated by leave-one-out
 * (of configurations): n residuals reach the quantiles 1/(n+1) to n/(n+1),
 * and the predictor refuses further ones; fewer than
 * PM_INTERVAL_MIN_LOO_ROWS keep none, with a warning saying so.
 * Nothing for o->intervals 0 or an interrupted m. Deterministic for any
 * thread count; m's fit is not touched. A calibration that cannot be made
 * (a fold's fit fails, or predicts a value <= 0) or that a stop request
 * cuts short keeps none and adds a warning to m saying why; PM_OK. Rows of
 * a time of 0 (mae, mse) have no log residual: they are left out, with a
 * warning, and count as none above. Errors: PM_ENOMEM. */
pm_status pm__fit_intervals(pm_model *m, const pm_dataset *d, const pm_spec *s,
			    const pm_fit_options *o, pm_error *err);

/* The p-quantile of sorted r[0..n), n >= 1 (Hyndman and Fan's type 6). */
double pm__quantile_sorted(const double *r, size_t n, double p);

#endif
