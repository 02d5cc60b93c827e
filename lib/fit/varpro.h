/* Variable projection (Golub & Pereyra 1973) for the fit's search: for
 * fixed nonlinear parameters (powers p, q, log multipliers), the model is
 * linear in its coefficients (a, b, C: every term is a coefficient times a
 * product of factors, DESIGN.md §2), so the search need only range over
 * the nonlinear ones and the coefficients are solved for each trial:
 *
 *   minimise over c in [lo, hi]:  (1/N) Σ_r w_r ρ(t_r − x_r(θ)·c) + penalty(c)
 *
 * with x_r(θ) the row's terms without their coefficients. ρ is the fit's
 * loss, approached by iteratively reweighted least squares (IRLS): the
 * first pass is least squares (relative least squares for the relative
 * and log losses), each further pass weights a row by its loss over its
 * squared residual of the pass before. Each pass's box-constrained
 * quadratic, with the L2 penalty (ridge) or the L1 penalty (lasso) on the
 * coefficients, is solved by cyclic coordinate descent on the normal
 * equations: exact per coordinate, bounds by clamping, L1 by soft
 * thresholding, and indifferent to the rank deficiency that level columns
 * bring (one per categorical beyond the first). The trial is then scored by
 * the fit's true cost (cost.h) at (θ, c): the search ranks points by what
 * the fit minimises, whatever the inner solve's approximations.
 * Serial per trial, deterministic, read-only context: any number of
 * threads may evaluate at once, each with its own scratch. */
#ifndef PM_VARPRO_H
#define PM_VARPRO_H

#include <stddef.h>
#include <stdint.h>
#include "fit/cost.h"

typedef struct pm_varpro {
	const pm_cost *cost;	/* scores trials; its problem and model */
	size_t nlin, nnon;
	uint32_t *lin;		/* nlin parameter indices: the coefficients */
	uint32_t *non;		/* nnon parameter indices: what the search varies */
	uint32_t *col;		/* per parameter: its coefficient column, or PM_NONE */
	double *lo, *hi;	/* nlin coefficient bounds */
	double *l1, *l2;	/* nlin penalty weights (C's are 0) */
	size_t ntab;		/* factor table entries (Σ distinct values) */
	size_t nchunks;		/* of CHUNK rows */
	int keep;		/* the design is kept across IRLS passes */
	size_t scratch_bytes;	/* what one evaluation needs, the cost's included */
	size_t full_at, tab_at, gram_at, coef_at, x_at, used_at;
} pm_varpro;

/* A trial's work per row, in cost evaluations at least (its IRLS passes
 * over the design, and the true cost): for sharing a generation among
 * threads (fit.c). On LeNet-5 a trial took about 100 evaluations' time. */
#define PM_VARPRO_ROW_WORK 16

/* The parameters the search varies: those that are no term's coefficient. */
size_t pm__varpro_searched(const pm_model *m);

/* Whether m can be searched this way: every coefficient of a term is a
 * parameter that is no factor's power. */
int pm__varpro_applies(const pm_model *m);

/* Prepare for the model and problem of cost c (kept, not copied: it must
 * outlive v). PM_ENOMEM (v left freeable), PM_EINVAL if !applies. */
pm_status pm__varpro_init(pm_varpro *v, const pm_cost *c, const pm_fit_options *o,
			  pm_error *err);
void pm__varpro_free(pm_varpro *v);	/* copes with a zeroed or half-built v */

/* The nonlinear parameters theta[nnon] completed with solved coefficients
 * into full[nparams]. scratch: scratch_bytes, 8-byte aligned. */
void pm__varpro_solve(const pm_varpro *v, const double *theta, double *full, void *scratch);

/* The true cost at pm__varpro_solve's point: a pm_cost_fn (de.h) over the
 * nonlinear parameters, ctx = the pm_varpro. */
double pm__varpro_value(const double *theta, void *ctx, void *scratch);

#endif
