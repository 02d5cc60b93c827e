/* What the load-imbalance and S-SGD modules share. Private to the libraries. */
#ifndef PM_LIF_IMPL_H
#define PM_LIF_IMPL_H

#include <stddef.h>

#include "perfmodel/perfmodel.h"
#include "core/jsonw.h"

/* A time cell: *present = 0 for an empty cell (no such worker or phase),
 * else *v is its value. PM_ESCHEMA placed at the cell when it is text, not
 * finite or negative. */
pm_status pm__time_cell(const pm_dataset *d, size_t row, size_t col, int *present, double *v,
			pm_error *err);

/* The columns of d named by names (NULL: none) into *cols (malloc'd, caller
 * frees; NULL when *n is 0). PM_ESCHEMA for a name d lacks. */
pm_status pm__named_columns(const pm_dataset *d, const pm_names *names, size_t **cols,
			    size_t *n, pm_error *err);

/* 1 when rows a and b hold the same texts in every column of cols[n]. */
int pm__same_cells(const pm_dataset *d, size_t a, size_t b, const size_t *cols, size_t n);

/* The layout of lif's and ssgd's documents, a record per line: one line
 * object whose members "rows" (and "groups", "regression") start lines
 * indented by one space, each holding a one-line array whose records after
 * the first start lines indented by two. */
/* The names of columns cols[n] of d as a one-line array. */
void pm__json_names(pm_jw *w, const pm_dataset *d, const size_t *cols, size_t n);
/* Member `key` of the top object on a new line, an array of records opened. */
void pm__json_records(pm_jw *w, const char *key);
/* Open record i (0-based) of that array, on a new line but the first. */
void pm__json_record(pm_jw *w, size_t i);

#endif
