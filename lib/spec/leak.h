/* Whether a numeric column is a leak of the target: a part or a copy of
 * the measured time (a worker's time, the time in other units) rather than
 * a parameter of the run. Private to lib/fit; the criterion is
 * docs/formats.md's "Leaks". */
#ifndef PM_LEAK_H
#define PM_LEAK_H

#include <stddef.h>

#include "perfmodel/perfmodel.h"

typedef enum pm__leak_kind {
	PM__LEAK_NONE = 0,
	PM__LEAK_PART,	/* proportional to the target, which it explains alone */
	PM__LEAK_UNITS	/* the target times a factor of few values */
} pm__leak_kind;

typedef struct pm__leak {
	pm__leak_kind kind;
	size_t pairs;		/* rows where both are finite numbers > 0 */
	/* the column's distinct values over them, and the distinct ratios
	 * column / target (relative 1e-4): 0 when not needed (whole numbers;
	 * a grid's few values) */
	size_t distinct, ratios;
	double r2;		/* of the target on the column alone: the better of a
				 * linear and a log-log line (0 with too few pairs) */
	double slope;		/* of the log-log line */
	double factor;		/* the median ratio column / target (NaN: not needed) */
} pm__leak;

/* The criterion over x[r], t[r], r < n (NaN: no value on that row).
 * PM_ENOMEM; *out is zeroed first. */
pm_status pm__leak_check(const double *x, const double *t, size_t n, pm__leak *out,
			 pm_error *err);
/* The same for columns col and target of d (cells that are not finite
 * numbers: no value); a column with fewer levels than half the rows it
 * surely shares with the target is no leak, found without the statistics
 * (*out zeroed, kind PM__LEAK_NONE). */
pm_status pm__leak_of(const pm_dataset *d, size_t col, size_t target, pm__leak *out,
		      pm_error *err);
/* Why l is a leak, in words, for a warning: "alone it explains R² = ...". */
void pm__leak_why(const pm__leak *l, char *buf, size_t size);
/* The warnings of a fit of d with the resolved spec s, added to m: s's
 * notes, then each numeric input of s that is a leak of the target (named
 * explicitly, since inference leaves leaks out). PM_ENOMEM. */
pm_status pm__leak_warnings(const pm_dataset *d, const pm_spec *s, pm_model *m, pm_error *err);

#endif
