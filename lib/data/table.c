#include "data/table.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset_impl.h"
#include "core/error.h"
#include "core/numcodec.h"

static int grow(void **p, size_t cap, size_t size)
{
	void *q = cap < SIZE_MAX / size ? realloc(*p, cap * size) : NULL;

	if (q)
		*p = q;
	return !q;
}

pm_status pm__table_add_at(pm_table *t, const char *s, unsigned line, unsigned column,
			   pm_error *err)
{
	size_t n = s ? strlen(s) + 1 : 1;
	char *copy;

	if (t->ncells == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;

		if (grow((void **)&t->cell, cap, sizeof(*t->cell)) ||
		    grow((void **)&t->line, cap, sizeof(*t->line)) ||
		    grow((void **)&t->column, cap, sizeof(*t->column)))
			return pm__fail(err, PM_ENOMEM, "out of memory");
		t->cap = cap;
	}
	copy = malloc(n);
	if (!copy)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	memcpy(copy, s ? s : "", n);
	t->line[t->ncells] = line;
	t->column[t->ncells] = column;
	t->cell[t->ncells++] = copy;
	return PM_OK;
}

pm_status pm__table_add(pm_table *t, const char *s, pm_error *err)
{
	return pm__table_add_at(t, s, t->at_line, 0, err);
}

pm_status pm__table_add_number(pm_table *t, double v, pm_error *err)
{
	char buf[32];	/* "%.17g" needs at most 24 */

	pm_snprintf(buf, sizeof(buf), "%.17g", v);
	return pm__table_add(t, buf, err);
}

pm_status pm__table_build(const pm_table *t, const char *name, pm_dataset **out,
			  pm_error *err)
{
	size_t nrows = t->ncols ? t->ncells / t->ncols : 0;

	*out = NULL;
	if (!nrows)
		return pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "no measurements in the file");
	return pm__dataset_build(name, t->ncols, t->names, nrows, (const char *const *)t->cell,
				 t->line, t->column, out, err);
}

void pm__table_free(pm_table *t)
{
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->line);
	free(t->column);
	memset(t, 0, sizeof(*t));
}

/* "%.17g" reads back exactly and needs at most 24 bytes */
#define GRID_NUM 32

pm_status pm__grid_alloc(pm_grid *g, size_t nrows, size_t ncols, pm_error *err)
{
	size_t n = nrows * ncols;

	memset(g, 0, sizeof(*g));
	if (ncols && (nrows > SIZE_MAX / ncols || n > SIZE_MAX / GRID_NUM))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	g->nrows = nrows;
	g->ncols = ncols;
	/* +1: malloc(0) may answer NULL, which would read as out of memory */
	g->names = calloc(ncols + 1, sizeof(*g->names));
	g->cells = calloc(n + 1, sizeof(*g->cells));
	g->line = calloc(n + 1, sizeof(*g->line));
	g->column = calloc(n + 1, sizeof(*g->column));
	g->num = malloc(nrows * GRID_NUM + 1);
	if (!g->names || !g->cells || !g->line || !g->column || !g->num) {
		pm__grid_free(g);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	return PM_OK;
}

void pm__grid_copy(pm_grid *g, size_t row, size_t col, const pm_dataset *d, size_t drow,
		   size_t dcol)
{
	size_t k = row * g->ncols + col;

	g->cells[k] = pm_dataset_cell(d, drow, dcol);
	g->line[k] = pm_dataset_cell_line(d, drow, dcol);
	g->column[k] = pm_dataset_cell_column(d, drow, dcol);
}

void pm__grid_number(pm_grid *g, size_t row, size_t col, double v)
{
	char *text = g->num + row * GRID_NUM;

	pm_snprintf(text, GRID_NUM, "%.17g", v);
	g->cells[row * g->ncols + col] = text;
}

pm_status pm__grid_build(const pm_grid *g, const char *name, pm_dataset **out,
			 pm_error *err)
{
	return pm__dataset_build(name, g->ncols, g->names, g->nrows, g->cells, g->line,
				 g->column, out, err);
}

void pm__grid_free(pm_grid *g)
{
	free(g->names);
	free(g->cells);
	free(g->line);
	free(g->column);
	free(g->num);
	memset(g, 0, sizeof(*g));
}
