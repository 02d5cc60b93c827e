/* The fitting problem: a dataset's role columns turned into what the cost
 * function needs. Numeric columns repeat few distinct values, so each is kept
 * as its sorted distinct values (as u = log(x) - log_scale, computed once)
 * and a per-row code; x^p is then computed once per distinct value per trial
 * and gathered per row (DESIGN.md §8). Categorical columns are codes too:
 * the level index. */
#ifndef PM_PROBLEM_H
#define PM_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include "perfmodel/perfmodel.h"

typedef struct pm_column {
	const char *name;	/* the dataset's */
	pm_role role;
	size_t ndistinct;	/* distinct values, or levels */
	double *u;		/* numeric: log(x_d) - log_scale per distinct value
				 * (NaN in a column under no power) */
	double *x;		/* numeric: the distinct values x_d, ascending */
	char **levels;		/* categorical: sorted level names (owned) */
	double log_scale;	/* numeric: mean of log(x) over rows, or 0 (also
				 * for a column under no power or log2) */
	uint32_t *code;		/* per row: distinct-value or level index */
} pm_column;

typedef struct pm_problem {
	size_t nrows, ncols;
	pm_column *col;		/* model inputs: intrinsic, categorical, extrinsic */
	const char *target;
	double target_scale;	/* median of the target (of its values that are
				 * not 0, when half or more are), or 1 */
	double *t;		/* the target's time scale / target_scale, per row */
	double *t_raw;		/* the target as measured (a speedup, ...: its kind's) */
	/* per row: the dataset's weight scaled to mean 1 over these rows, so
	 * that Σ w = nrows and the cost stays a mean; NULL: unweighted */
	double *w;
} pm_problem;

/* Build from a dataset and a resolved spec, for a fit with loss. Errors
 * name FILE:LINE:COL: PM_ESCHEMA for an empty or non-numeric cell,
 * PM_EDOMAIN for a value <= 0 under a power or log2 (every numeric column
 * of the named forms; a formula's column used only in indicators may be
 * <= 0) or as the target (a time of 0 is one under mae and mse), and
 * naming FILE alone for a target that is 0 on every row. */
pm_status pm__problem_build(const pm_dataset *d, const pm_spec *s, pm_scale scale,
			    pm_loss loss, pm_problem *p, pm_error *err);
void pm__problem_free(pm_problem *p);	/* frees the arrays, keeps p */

/* Target column c of d (every row) as measured into t_raw, and the time
 * scale of s's target kind into t (docs/maths.md, "Target kinds": the
 * time itself, 1/S, 1/(n·E), per/X), unscaled; a time of 0 only if loss
 * takes one (mae, mse). Errors as pm__problem_build's for the target. */
pm_status pm__target_time_scale(const pm_dataset *d, size_t c, const pm_spec *s, pm_loss loss,
				double *t_raw, double *t, pm_error *err);

#endif
