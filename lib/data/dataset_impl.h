/* Making a pm_dataset without a CSV file. Private to the libraries. */
#ifndef PM_DATASET_IMPL_H
#define PM_DATASET_IMPL_H

#include <stddef.h>

#include "perfmodel/perfmodel.h"

/*
 * A dataset from strings in memory, e.g. the "points" of a predict config.
 * names[ncols] are the column names; cells[nrows * ncols] the texts,
 * row-major (a NULL cell is empty); line and column, when not NULL, give
 * each cell's place in the file `name` (row-major too; NULL means 0 for
 * every cell). Everything is copied: the caller keeps its arrays.
 * `name` labels errors and is what pm_dataset_name() returns (NULL:
 * "<input>"). nrows may be 0.
 *
 * On success *out owns a new dataset (pm_dataset_free()); on failure *out is
 * NULL. Errors: PM_EINVAL (ncols == 0, or cells NULL with nrows > 0),
 * PM_ESCHEMA "empty column name" / "duplicate column name 'x'" (no place:
 * the names have none), PM_ENOMEM.
 */
pm_status pm__dataset_build(const char *name, size_t ncols, const char *const *names,
			    size_t nrows, const char *const *cells, const unsigned *line,
			    const unsigned *column, pm_dataset **out, pm_error *err);

/* d with one more column, `name`, of nrows numbers (written "%.17g" as
 * their text, which reads back exactly), each cell placed where cell
 * (row, at) of d is; the runs and weights are d's. A derived column
 * without a second parse of d's cells. Errors: PM_ESCHEMA "duplicate
 * column name 'x'", PM_ENOMEM; *out NULL on failure. */
pm_status pm__dataset_add_column(const pm_dataset *d, const char *name, const double *values,
				 size_t at, pm_dataset **out, pm_error *err);

/* A CSV dataset from buf[0, len), which must have one more byte after it:
 * what pm_dataset_read_csv does after reading the file, for readers that
 * read it themselves. Ownership of buf passes to the call whatever it
 * returns. Errors as pm_dataset_read_csv's. */
pm_status pm__dataset_from_buffer(char *buf, size_t len, const char *name, pm_dataset **out,
				  pm_error *err);

/* Each row's runs and their coefficient of variation, and the fit's
 * weights of the given kind, copied from reps[rows[i]], cv[...], w[...] for
 * row i (rows NULL: row i of the arrays; an array NULL: none). Replaces
 * what d had. PM_ENOMEM (d unchanged). */
pm_status pm__dataset_set_rows(pm_dataset *d, const unsigned *reps, const double *cv,
			       const double *w, pm_weights kind, const size_t *rows,
			       pm_error *err);
/* dst's rows are src's rows[0..): give them src's runs and weights. */
pm_status pm__dataset_copy_rows(pm_dataset *dst, const pm_dataset *src, const size_t *rows,
				pm_error *err);

#endif
