/* Prediction with one input replaced, for speedups and advice without a
 * copy of the caller's point. Private to the libraries. */
#ifndef PM_PREDICT_IMPL_H
#define PM_PREDICT_IMPL_H

#include "perfmodel/predict.h"

/* pm_model_predict at x with input vi set to vv (vi = SIZE_MAX: x as is). */
pm_status pm__predict_at(const pm_model *m, const double *x, size_t vi, double vv,
			 double *out, pm_error *err);

/* At x with input i at `from` and at `to`: *t_to = t(to) and the speedup
 * t(from) / t(to) and efficiency speedup / (to / from) of going from one to
 * the other (any of the three may be NULL). The one place these are
 * computed: pm_model_speedup/efficiency, advice and the scaling report. */
pm_status pm__scaling_at(const pm_model *m, const double *x, size_t i, double from,
			 double to, double *t_to, double *speedup, double *efficiency,
			 pm_error *err);

#endif
