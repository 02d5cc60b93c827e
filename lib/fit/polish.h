/* The middle stage of the local search that finishes DE ("polish", as
 * scipy's L-BFGS-B step; fit.c): a bounded Nelder–Mead simplex on the true
 * cost, between two runs of gradient descent on a smoothed one (smooth.h).
 * The MAE cost is not smooth, and the smoothed cost's minimum is not quite
 * the true one: a derivative-free method moves on the true cost itself.
 * Serial and deterministic. */
#ifndef PM_POLISH_H
#define PM_POLISH_H

#include <stddef.h>
#include <stdint.h>
#include "fit/de.h"

/* Improve x (in/out, inside [lo, hi]) whose cost is *cost (in/out), using at
 * most maxfev evaluations of f with `scratch`; *nfev is increased by the
 * number used. stop (NULL: never) is polled before every evaluation: once
 * nonzero, the search ends there with the best point so far. x and *cost
 * change only if a strictly better point inside the bounds is found.
 * PM_ENOMEM is the only error. */
pm_status pm__polish(size_t dim, const double *lo, const double *hi, pm_cost_fn f, void *ctx,
		     void *scratch, size_t maxfev, volatile sig_atomic_t *stop, double *x,
		     double *cost, uint64_t *nfev, pm_error *err);

#endif
