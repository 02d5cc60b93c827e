/* The fit's cost (DESIGN.md §3, eqs. 4.9, 4.11, 4.12): the mean loss of the
 * model over the problem's rows (absolute error by default; pm_loss), plus
 * the penalty, in the scaled space; and a smoothed version with its gradient
 * for the polish.
 * The context is read-only once made, so any number of threads may evaluate
 * at once, each with its own scratch.
 *
 * pm__cost_init compiles the model's term list (terms.h) into a plan whose
 * per-row work is a few table lookups, adds and one multiply per group
 * (DESIGN.md §8); everything else is per table entry, once per trial:
 * - terms with the same "key" (the factors they share with other terms,
 *   e.g. eq. 4.4's Π E_j^q_j) form a group; the key's product is tabulated
 *   per combination of the key columns' codes that occurs in the rows;
 * - what is left of each term is its coefficient times at most one factor of
 *   its own or one level indicator: a table over one column's distinct
 *   values (a leaf). a_i·I_i^p_i becomes a table over I_i's values, all the
 *   b_{c,v} of a categorical one table over its levels; terms of a group on
 *   the same column share a leaf;
 * - two of a group's tables whose code combinations are few next to the
 *   rows merge into one table over those combinations, repeatedly, so a
 *   row looks up fewer tables (eq. 4.4 on data/lenet5_cpu.csv: 10 leaves,
 *   3 lookups and the key's).
 * Nothing in the plan is specific to eq. 4.4: any term list compiles, and
 * the plan depends on the data alone, never on a thread or a trial.
 * cost_plan.c builds the plan (pm__cost_init); cost_kernels.c fills its
 * tables and runs it over the rows per trial (pm__cost_value,
 * pm__cost_smooth). */
#ifndef PM_COST_H
#define PM_COST_H

#include <stddef.h>
#include <stdint.h>
#include "model/model_impl.h"
#include "fit/problem.h"

/* One term's share of a leaf table: x[coef]·F_factor[d] for every d, or
 * x[coef] at d == level alone when factor is PM_NONE (a level indicator). */
typedef struct pm_cost_part {
	uint32_t coef, factor, level;
} pm_cost_part;

/* A table gathered per row by a code. A leaf sums its parts per distinct
 * value of one column; a merged node is the sum of two earlier nodes,
 * tabulated over the combinations of their codes that occur in the rows
 * (few, when the columns have few values): one gather per row instead of
 * two, for a table built once per trial. */
typedef struct pm_cost_node {
	const uint32_t *code;	/* per row (a column's, or own_code); NULL once a
				 * merged node is another's child */
	uint32_t *own_code;	/* merged top: owned per-row codes */
	size_t nd;		/* table length */
	size_t tab_at, grad_at;	/* its table and gradient bucket, in scratch */
	size_t first, nparts;	/* leaf: part[first .. first+nparts) */
	uint32_t child[2];	/* merged: two earlier nodes; leaf: PM_NONE */
	uint32_t *child_code;	/* merged: nd x 2 codes of the children (owned) */
} pm_cost_node;

/* Terms sharing a key: per row (Σ scalar coefficients + Σ top nodes) times
 * the key's product, which is tabulated per combination of key column
 * codes. The group's nodes are node[first_node .. first_node+nnodes), of
 * which top[first_top .. first_top+ntops) are gathered per row. */
typedef struct pm_cost_group {
	size_t first_node, nnodes;
	size_t first_top, ntops;
	size_t first_scalar, nscalars;	/* coefficient indices in scalar[] */
	size_t first_key, nkeys;	/* factor indices in key[]; 0: product 1 */
	size_t ncombos;
	uint32_t *combo;	/* per row: its key combination (owned) */
	uint32_t *combo_code;	/* ncombos x nkeys column codes (owned) */
	size_t j_at;		/* key product per combination, in scratch */
} pm_cost_group;

typedef struct pm_cost {
	const pm_problem *p;
	const pm_model *m;	/* terms and parameter kinds */
	size_t *factor_at;	/* factor f's table starts at scratch[factor_at[f]] */
	/* per factor, at the same offsets as its table: its base per distinct
	 * value (pm__factor_base), and d log(value) / d exponent for the
	 * gradient (the base where finite, else 0) */
	double *base, *dlog;
	pm_cost_part *part;
	pm_cost_node *node;
	size_t nnodes;
	uint32_t *top;		/* node indices */
	pm_cost_group *group;
	size_t ngroups;
	uint32_t *scalar;	/* coefficients of terms that are a coefficient times a key */
	uint32_t *key;		/* factor indices, each group's sorted */
	uint32_t *bias;		/* coefficients of terms with no factor and no level */
	size_t nbias;
	/* in scratch: row arrays (acc: one per group), scatter buckets */
	size_t pred_at, acc_at, w_at, lanes_at, sums_at;
	size_t scratch_bytes;	/* what one evaluation needs */
	double lambda_coef, lambda_power;
	pm_reg reg;
	pm_loss loss;
} pm_cost;

/* Compile m's terms for p's rows. PM_ENOMEM (everything freed),
 * PM_EINVAL for a problem without rows, PM_EDOMAIN for a value below 1
 * under log2(). */
pm_status pm__cost_init(pm_cost *c, const pm_problem *p, const pm_model *m,
			const pm_fit_options *o, pm_error *err);
/* pm__cost_init, merging two tables only while their combinations are at
 * most 1/share of the rows (0: never); pm__cost_init's share is the one
 * bench/tune_bench found best. For that bench, which sweeps it. */
pm_status pm__cost_init_merging(pm_cost *c, const pm_problem *p, const pm_model *m,
				const pm_fit_options *o, unsigned share, pm_error *err);
void pm__cost_free(pm_cost *c);	/* copes with a zeroed or half-built c */

/* The cost of x: (1/N) Σ_k loss(t_k, t̂_k) + penalty (loss: |t − t̂|,
 * (t − t̂)², |t − t̂|/t or |log(t̂/t)|). t̂_k is formed in the
 * plan's fixed order and the rows are summed serially in one fixed order
 * (four running sums over rows k mod 4, then combined), so the value is a
 * function of x alone, whichever thread computes it; it agrees with
 * pm_model_predict() up to rounding. +inf instead of NaN. A pm_cost_fn
 * (de.h) with ctx = the pm_cost. */
double pm__cost_value(const double *x, void *ctx, void *scratch);

/* The same with each |e| (e: the residual, relative residual or log ratio)
 * replaced by sqrt(e² + eps²) − eps (and |x| in an L1 penalty likewise),
 * and its gradient into grad[nparams]; the predictions are bit for bit
 * pm__cost_value's, and so is the MSE cost, which needs no smoothing. A
 * pm_smooth_fn (smooth.h). */
double pm__cost_smooth(const double *x, double eps, double *grad, void *ctx, void *scratch);

#endif
