/* The gradient half of the polish: projected gradient descent on a smoothed
 * cost. The fit's cost, a mean absolute error (or relative or log error),
 * has a kink at every row's zero residual; replacing |r| by
 * sqrt(r² + eps²) − eps makes it smooth (cost.h; MSE needs nothing), and
 * the spectral projected gradient method (Birgin, Martínez & Raydan 2000)
 * then descends fast inside the bounds. eps shrinks level by level so the
 * smoothed optimum approaches the true one; a point is kept only if its
 * true cost is lower. Serial and deterministic. */
#ifndef PM_SMOOTH_H
#define PM_SMOOTH_H

#include <stddef.h>
#include <stdint.h>
#include "fit/de.h"

/* The smoothed cost at x, and its gradient into grad[dim]. */
typedef double (*pm_smooth_fn)(const double *x, double eps, double *grad, void *ctx,
			       void *scratch);

/* Improve x (in/out, inside [lo, hi]) whose true cost f is *cost (in/out).
 * eps0: the first smoothing width, in the cost's units. At most maxfev + 1
 * calls of fg and f together (the true cost after the last level may be the
 * one over); *nfev grows by the number made. stop (NULL: never) is polled
 * before every call of fg: once nonzero, the search ends after at most one
 * more call of f, keeping the best point so far. x and *cost change
 * only for a point inside the bounds with a strictly lower true cost.
 * PM_ENOMEM is the only error. */
pm_status pm__polish_smooth(size_t dim, const double *lo, const double *hi, pm_smooth_fn fg,
			    pm_cost_fn f, void *ctx, void *scratch, double eps0, size_t maxfev,
			    volatile sig_atomic_t *stop, double *x, double *cost, uint64_t *nfev,
			    pm_error *err);

#endif
