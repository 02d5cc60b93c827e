/* The measured target checked as a fit and an evaluation read it (for
 * evaluate.c and fit/problem.c). Private to the libraries. */
#ifndef PM_RESULTS_EVALUATE_H
#define PM_RESULTS_EVALUATE_H

#include "perfmodel/perfmodel.h"

/* Every t[r] of d's column c is a value > 0 of the target kind (a time, a
 * speedup, ...), or a time of 0 under an absolute loss (mae, mse: a count
 * or a region that took no time at a point is an ordinary value there), or
 * PM_EDOMAIN naming the first that is not by file, line and column:
 * relative errors (MAPE) and the log loss mean nothing over a zero or a
 * negative time, nor does 1/S over a zero speedup. A 0's message names the
 * loss or kind that refuses it and, for a time, the losses that take it. */
pm_status pm__times_check(const pm_dataset *d, size_t c, pm_target_kind kind, pm_loss loss,
			  const double *t, pm_error *err);
/* The same for row r's value v. */
pm_status pm__time_at(const pm_dataset *d, size_t r, size_t c, pm_target_kind kind, pm_loss loss,
		      double v, pm_error *err);

#endif
