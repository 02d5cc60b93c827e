/* Prediction intervals: what the fit stores and the predictor reads
 * (model/interval.c). Private to the libraries. */
#ifndef PM_INTERVAL_H
#define PM_INTERVAL_H

#include "core/json_read.h"
#include "model/model_impl.h"

/* Fewer fitted rows than this calibrate no intervals: a 90 % interval needs
 * 19 residuals for its 5 % tails alone (pm_model_predict_quantile). */
#define PM_INTERVAL_MIN_ROWS 20
/* Fewer rows than that are calibrated by leave-one-out, from this many up:
 * n residuals reach the quantiles 1/(n+1) to n/(n+1), a central interval
 * of 2/3 from 5 (fewer calibrate none, and the fit says so). */
#define PM_INTERVAL_MIN_LOO_ROWS 5
/* The grid the fit keeps quantiles at: probabilities k / PM_INTERVAL_STEPS,
 * k = 1 .. PM_INTERVAL_STEPS - 1 (0.005 to 0.995), fine enough that
 * linear interpolation between them is within the residuals' own
 * sampling error on thousands of rows. */
#define PM_INTERVAL_STEPS 200

/* model.json's optional "intervals" (absent: none) into m: {"method",
 * "folds", "residuals", "probabilities": [..], "quantiles": [..],
 * "ranges": {input: [lo, hi], ...} for every numeric input, optional
 * "widen": {input: rate, ...} for every numeric input}. PM_ESCHEMA
 * for a wrong shape, PM_ENOMEM. */
pm_status pm__model_read_intervals(const pm_jctx *top, const cJSON *root, pm_model *m);

/* Whether m can give its q-quantile: PM_EINVAL when it has no intervals
 * or q is not within what they calibrate (pm_model_predict_quantile's
 * messages). */
pm_status pm__intervals_check(const pm_model *m, double q, pm_error *err);

/* How far x lies beyond m's fitted ranges as a factor (a model with
 * intervals, which keep the ranges; x checked): over the numeric inputs,
 * the largest of v / hi above a range and lo / v below it (infinite where
 * the range or v is not > 0), 1 inside every range; *input gets the input
 * of it, the first of equals (0 inside). */
double pm__beyond_factor(const pm_model *m, const double *x, size_t *input);

/* The widening rate of a model.json without "widen" (written before the
 * fit measured one per input): the rule all inputs shared then, 1.12x the
 * spread at one range width out. It is also the smallest rate the fit
 * keeps: 5 fold fits that agree beyond a range do not prove the parameters
 * are exact (docs/maths.md, "Prediction intervals"). */
#define PM_WIDEN_DEFAULT 0.5

/* The "method" model.json names: the one the fit uses. */
#define PM_INTERVAL_METHOD "cv-log-residual-quantiles"

#endif
