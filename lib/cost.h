/* The fit's cost (DESIGN.md §3, eqs. 4.9, 4.11, 4.12): the mean absolute
 * error of the model over the problem's rows, plus the penalty, in the
 * scaled space; and a smoothed version with its gradient for the polish.
 * The context is read-only once made, so any number of threads may evaluate
 * at once, each with its own scratch. */
#ifndef PM_COST_H
#define PM_COST_H

#include <stddef.h>
#include "model_impl.h"
#include "problem.h"

typedef struct pm_cost {
	const pm_problem *p;
	const pm_model *m;	/* terms and parameter kinds */
	size_t *table_at;	/* factor f's x^p table starts at scratch[table_at[f]] */
	size_t scratch_bytes;	/* what one evaluation needs */
	double lambda_coef, lambda_power;
	pm_reg reg;
} pm_cost;

pm_status pm__cost_init(pm_cost *c, const pm_problem *p, const pm_model *m,
			const pm_fit_options *o, pm_error *err);
void pm__cost_free(pm_cost *c);

/* The cost of x: (1/N) Σ_k |t_k − t̂_k| + penalty, rows summed in order, so
 * the value does not depend on the thread. +inf instead of NaN. A pm_cost_fn
 * (de.h) with ctx = the pm_cost. */
double pm__cost_value(const double *x, void *ctx, void *scratch);

/* The same with |r| replaced by sqrt(r² + eps²) − eps (and |x| in an L1
 * penalty likewise), and its gradient into grad[nparams]. A pm_smooth_fn
 * (smooth.h). */
double pm__cost_smooth(const double *x, double eps, double *grad, void *ctx, void *scratch);

#endif
