#include "data/dataset_table.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset_impl.h"
#include "core/numcodec.h"

/* The cells of pm__dataset_build: row-major, NULL for empty; names likewise. */
typedef struct cells {
	const char *const *names, *const *cells;
} cells;

static const char *cells_text(const source *s, size_t row, size_t col)
{
	const cells *x = s->from;
	const char *t = row == SIZE_MAX ? x->names[col] : x->cells[row * s->ncols + col];

	return t ? t : "";
}

pm_status pm__dataset_build(const char *name, size_t ncols, const char *const *names,
			    size_t nrows, const char *const *cells_, const unsigned *line,
			    const unsigned *column, pm_dataset **out, pm_error *err)
{
	const cells x = { names, cells_ };
	const source src = { .text = cells_text, .number = pm__level_number, .from = &x,
			     .ncols = ncols };
	size_t cap = 0;
	pm_dataset *d;
	pm_status rc;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the dataset");
	*out = NULL;
	if (ncols == 0 || !names)
		return pm__fail(err, PM_EINVAL, "a dataset needs at least one column");
	if (nrows && !cells_)
		return pm__fail(err, PM_EINVAL, "no cells");
	if (nrows > SIZE_MAX / sizeof(size_t) / ncols)
		return pm__oom(err);
	d = pm__dataset_alloc(name, ncols);
	if (!d)
		return pm__oom(err);
	d->nrows = nrows;
	if ((rc = pm__dataset_set_names(d, &src, PM_ESCHEMA, NULL, err)))
		goto fail;
	/* cells placed one by one: every row is an exception */
	for (size_t r = 0; (line || column) && r < nrows; r++) {
		size_t k = r * ncols;

		if ((rc = pm__dataset_add_exception(d, r, &cap, err)))
			goto fail;
		for (size_t c = 0; c < ncols; c++) {
			d->exc_line[k + c] = line ? line[k + c] : 0;
			d->exc_column[k + c] = column ? column[k + c] : 0;
		}
	}
	if ((rc = pm__build_rows(d, &src, err)))
		goto fail;
	*out = d;
	return PM_OK;
fail:
	pm_dataset_free(d);
	return rc;
}

/* A subset's cells are its parent's, numbers included: nothing is parsed. */
static const char *parent_text(const source *s, size_t row, size_t col)
{
	const pm_dataset *p = s->from;

	if (row == SIZE_MAX)
		return p->names[col];
	return pm__text_at(p, s->rows ? s->rows[row] : row, col);
}

static pm_num parent_number(const source *s, size_t row, size_t col, const char *text,
			     double *v)
{
	const column *c = &((const pm_dataset *)s->from)->col[col];
	size_t level;

	(void)text;
	level = pm__code_at(c, s->rows ? s->rows[row] : row);
	*v = c->value[level];
	return c->numeric ? PM_NUM_OK : (pm_num)c->kind[level];
}


static pm_status subset_places(pm_dataset *d, const pm_dataset *p, const size_t *rows,
			       pm_error *err)
{
	size_t cap = 0, n = d->nrows, ncols = d->ncols;
	pm_status st;

	d->placed = p->placed;
	if (p->placed) {
		d->row_line = malloc(n * sizeof(*d->row_line) + 1);
		if (!d->row_line)
			return pm__oom(err);
		for (size_t i = 0; i < n; i++)
			d->row_line[i] = p->row_line ? p->row_line[rows[i]] : (unsigned)(rows[i] + 2);
	}
	for (size_t i = 0; i < n; i++) {
		size_t e = pm__dataset_find_exception(p, rows[i]);

		if (e == SIZE_MAX)
			continue;
		if ((st = pm__dataset_add_exception(d, i, &cap, err)))
			return st;
		memcpy(d->exc_line + (d->nexc - 1) * ncols, p->exc_line + e * ncols,
		       ncols * sizeof(*d->exc_line));
		memcpy(d->exc_column + (d->nexc - 1) * ncols, p->exc_column + e * ncols,
		       ncols * sizeof(*d->exc_column));
	}
	return PM_OK;
}

pm_status pm_dataset_subset(const pm_dataset *d, const size_t *rows, size_t n,
			    pm_dataset **out, pm_error *err)
{
	const source src = { .text = parent_text, .number = parent_number, .from = d,
			     .rows = rows };
	pm_dataset *s;
	pm_status rc;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the dataset");
	*out = NULL;
	if (!d || (n && !rows))
		return pm__fail(err, PM_EINVAL, "no dataset or rows");
	for (size_t i = 0; i < n; i++)
		if (rows[i] >= d->nrows)
			return pm__fail(err, PM_EINVAL, "row %zu is out of range: %s has %zu rows",
					rows[i], d->name, d->nrows);
	if (n > SIZE_MAX / sizeof(size_t) / d->ncols)
		return pm__oom(err);
	s = pm__dataset_alloc(d->name, d->ncols);
	if (!s)
		return pm__oom(err);
	s->nrows = n;
	if ((rc = pm__dataset_set_names(s, &src, PM_ESCHEMA, NULL, err)) ||
	    (rc = subset_places(s, d, rows, err)) || (rc = pm__build_rows(s, &src, err)) ||
	    (rc = pm__dataset_copy_rows(s, d, rows, err))) {
		pm_dataset_free(s);
		return rc;
	}
	*out = s;
	return PM_OK;
}

/* The parent's columns, then the added one: numbers written so that they
 * read back exactly, as any derived number in a dataset. */
static const char *added_text(const source *s, size_t row, size_t col)
{
	if (col < ((const pm_dataset *)s->from)->ncols)
		return parent_text(s, row, col);
	if (row == SIZE_MAX)
		return s->name;
	pm_snprintf(s->num, 32, "%.17g", s->values[row]);
	return s->num;
}

static pm_num added_number(const source *s, size_t row, size_t col, const char *text,
			    double *v)
{
	if (col < ((const pm_dataset *)s->from)->ncols)
		return parent_number(s, row, col, text, v);
	*v = s->values[row];
	/* what its text, "inf" or "nan", would have parsed to */
	return isfinite(*v) ? PM_NUM_OK : PM_NUM_INFINITE;
}

pm_status pm__dataset_add_column(const pm_dataset *d, const char *name, const double *values,
				 size_t at, pm_dataset **out, pm_error *err)
{
	char num[32];	/* "%.17g" needs at most 24 */
	const source src = { .text = added_text, .number = added_number, .from = d,
			     .name = name, .values = values, .num = num };
	size_t cap = 0;
	pm_dataset *s;
	pm_status rc;

	*out = NULL;
	if (d->nrows > SIZE_MAX / sizeof(size_t) / (d->ncols + 1))
		return pm__oom(err);
	s = pm__dataset_alloc(d->name, d->ncols + 1);
	if (!s)
		return pm__oom(err);
	s->nrows = d->nrows;
	if ((rc = pm__dataset_set_names(s, &src, PM_ESCHEMA, NULL, err)))
		goto fail;
	/* the added cells have the places of others: every row is an exception */
	for (size_t r = 0; r < d->nrows; r++) {
		if ((rc = pm__dataset_add_exception(s, r, &cap, err)))
			goto fail;
		for (size_t c = 0, k = r * s->ncols; c < s->ncols; c++)
			pm__dataset_place(d, r, c < d->ncols ? c : at, &s->exc_line[k + c],
					  &s->exc_column[k + c]);
	}
	if ((rc = pm__build_rows(s, &src, err)) || (rc = pm__dataset_copy_rows(s, d, NULL, err)))
		goto fail;
	*out = s;
	return PM_OK;
fail:
	pm_dataset_free(s);
	return rc;
}
