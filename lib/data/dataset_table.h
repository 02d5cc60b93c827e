/* The inside of a pm_dataset, shared by the files that make and read it:
 * dataset.c (the table, its places and accessors), dataset_csv.c (CSV
 * ingest), dataset_derive.c (datasets made from cells or other datasets),
 * column.c (the typed columns). Private to lib/data. */
#ifndef PM_DATASET_TABLE_H
#define PM_DATASET_TABLE_H

#include <stddef.h>

#include "core/strindex.h"
#include "data/column.h"
#include "data/csv.h"
#include "perfmodel/perfmodel.h"

struct pm_dataset {
	char *name;
	size_t ncols, nrows;
	const char **names;	/* ncols, in names_text */
	char *names_text;
	/* the names by text, so that a wide table's duplicate check and
	 * look-ups stay linear (item: the column) */
	pm__strindex by_name;
	column *col;
	/*
	 * Places, kept so that any later error can name the cell. A CSV row
	 * without quoted fields needs only the line where it starts (row + 2
	 * until a quoted field spans lines; then row_line): its cells' columns
	 * follow from the texts before them. Other rows (quoted fields, or
	 * every row of a dataset built from cells with places) are exceptions:
	 * exc_row ascending, ncols lines and columns each. Not placed and no
	 * exception: every place is 0.
	 */
	int placed;
	unsigned *row_line;
	size_t nexc, *exc_row;
	unsigned *exc_line, *exc_column;
	/* Per row, owned, NULL when absent: the fit's weights, and the runs
	 * behind an aggregated row (pm__dataset_set_rows). */
	double *weight;
	pm_weights weighting;
	unsigned *reps;
	double *cv;
};

/* The text of cell (row, col). */
static inline const char *pm__text_at(const pm_dataset *d, size_t row, size_t col)
{
	const column *c = &d->col[col];

	return c->text + c->off[pm__code_at(c, row)];
}

/* A dataset of ncols (> 0) columns, nothing in them yet; NULL: out of
 * memory. name NULL: "<input>". */
pm_dataset *pm__dataset_alloc(const char *name, size_t ncols);
/* The names, copied from src's header, and their index. An empty or
 * repeated one is refused with `code` at the place `where` gives (NULL:
 * none). */
pm_status pm__dataset_set_names(pm_dataset *d, const source *src, pm_status code,
				const pm_csv_row *where, pm_error *err);
/* Room for one more exception row, appended as `row`; *cap: rows there is
 * room for. */
pm_status pm__dataset_add_exception(pm_dataset *d, size_t row, size_t *cap, pm_error *err);
/* The exception of row `row`, or SIZE_MAX when it has none. */
size_t pm__dataset_find_exception(const pm_dataset *d, size_t row);
/* Where cell (row, col) was. */
void pm__dataset_place(const pm_dataset *d, size_t row, size_t col, unsigned *line,
		       unsigned *column);

#endif
