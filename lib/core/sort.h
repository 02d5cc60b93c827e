/* Comparators for qsort that leave nothing to the C library: qsort is not
 * stable, and the order it gives elements that compare equal differs from
 * one C library (or version) to another, so where equal elements still
 * differ — -0 and +0, hypotheses of one score — which comes first must be
 * said by the comparator itself. */
#ifndef PM_CORE_SORT_H
#define PM_CORE_SORT_H

/* Doubles ascending, -0 before +0 (so that the zero a run of ties starts
 * with, which a de-duplication keeps or a median may take, is the same
 * everywhere). For finite or infinite values; NaN is never sorted. */
int pm__cmp_double(const void *a, const void *b);

#endif
