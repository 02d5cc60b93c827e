/* Making datasets from pieces. Private to the libraries.
 * pm_table: rows of text gathered one cell at a time (the JSON readers).
 * pm_grid: a table of known size whose cells are borrowed from other
 * datasets with their places, or numbers written as text (datasets derived
 * from others: aggregated runs, throughput turned into time). */
#ifndef PM_TABLE_H
#define PM_TABLE_H

#include <stddef.h>

#include "perfmodel/perfmodel.h"

typedef struct pm_table {
	size_t ncols;
	const char *const *names;	/* borrowed: must outlive pm__table_build */
	char **cell;			/* owned copies, row-major */
	unsigned *line, *column;	/* owned: each cell's place, 0 if none */
	size_t ncells, cap;
	unsigned at_line;	/* the line of cells added without a place (0: none) */
} pm_table;

/* Append a copy of s (NULL: empty) as the next cell, placed at line
 * t->at_line; rows fill left to right. PM_ENOMEM. */
pm_status pm__table_add(pm_table *t, const char *s, pm_error *err);
/* The same for a cell with a place in the file. */
pm_status pm__table_add_at(pm_table *t, const char *s, unsigned line, unsigned column,
			   pm_error *err);
/* The same for a number, written so that it reads back exactly. */
pm_status pm__table_add_number(pm_table *t, double v, pm_error *err);
/* The dataset of the whole rows so far, as
 * pm__dataset_build; PM_ESCHEMA "no measurements" when there are none. */
pm_status pm__table_build(const pm_table *t, const char *name, pm_dataset **out,
			  pm_error *err);
void pm__table_free(pm_table *t);

typedef struct pm_grid {
	size_t nrows, ncols;
	const char **names;	/* ncols, borrowed */
	const char **cells;	/* nrows * ncols, row-major, borrowed or in num */
	unsigned *line, *column;	/* each cell's place */
	char *num;		/* one number's text per row */
} pm_grid;

/* Room for nrows x ncols; every place 0. PM_ENOMEM (g then needs no free). */
pm_status pm__grid_alloc(pm_grid *g, size_t nrows, size_t ncols, pm_error *err);
/* Cell (row, col) is cell (drow, dcol) of d, with its place. */
void pm__grid_copy(pm_grid *g, size_t row, size_t col, const pm_dataset *d, size_t drow,
		   size_t dcol);
/* Cell (row, col) is v, written so that it reads back exactly (the row's
 * one number: a second call on the same row overwrites the first). */
void pm__grid_number(pm_grid *g, size_t row, size_t col, double v);
/* pm__dataset_build of the grid. */
pm_status pm__grid_build(const pm_grid *g, const char *name, pm_dataset **out,
			 pm_error *err);
void pm__grid_free(pm_grid *g);

#endif
