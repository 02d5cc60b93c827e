#include "data/dataset_table.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset_impl.h"

void pm_dataset_free(pm_dataset *d)
{
	if (!d)
		return;
	free(d->name);
	free(d->names);
	free(d->names_text);
	pm__strindex_free(&d->by_name);
	for (size_t c = 0; d->col && c < d->ncols; c++)
		pm__column_free(&d->col[c]);
	free(d->col);
	free(d->row_line);
	free(d->exc_row);
	free(d->exc_line);
	free(d->exc_column);
	free(d->weight);
	free(d->reps);
	free(d->cv);
	free(d);
}

/* A dataset of ncols (> 0) columns, nothing in them yet. */
pm_dataset *pm__dataset_alloc(const char *name, size_t ncols)
{
	pm_dataset *d = calloc(1, sizeof(*d));
	size_t n;

	if (!d)
		return NULL;
	if (!name)
		name = "<input>";
	n = strlen(name) + 1;
	d->name = malloc(n);
	d->col = calloc(ncols, sizeof(*d->col));
	if (!d->name || !d->col) {
		pm_dataset_free(d);
		return NULL;
	}
	memcpy(d->name, name, n);
	d->ncols = ncols;
	return d;
}
/* The names, copied, and their index. An empty or repeated one is refused
 * with `code` at the place `where` gives (NULL: none). */
pm_status pm__dataset_set_names(pm_dataset *d, const source *src, pm_status code,
				const pm_csv_row *where, pm_error *err)
{
	size_t size = 0, pos = 0;
	unsigned line = 0, column = 0;

	for (size_t c = 0; c < d->ncols; c++) {
		size_t n = strlen(src->text(src, SIZE_MAX, c)) + 1;

		if (n > SIZE_MAX - size)
			return pm__oom(err);
		size += n;
	}
	d->names_text = malloc(size);
	d->names = malloc(d->ncols * sizeof(*d->names));
	if (!d->names_text || !d->names ||
	    pm__strindex_init(&d->by_name, d->ncols, pm__key_of_array, d->names) != 0)
		return pm__oom(err);
	for (size_t c = 0; c < d->ncols; c++) {
		const char *s = src->text(src, SIZE_MAX, c);
		size_t n = strlen(s);

		if (where)
			pm__csv_row_place(where, c, &line, &column);
		if (!n)
			return pm__fail_at(err, code, d->name, line, column, "empty column name");
		d->names[c] = memcpy(d->names_text + pos, s, n + 1);
		pos += n + 1;
		if (pm__strindex_add(&d->by_name, c) != c)	/* room was made for all */
			return pm__fail_at(err, code, d->name, line, column,
					   "duplicate column name '%s'", s);
	}
	return PM_OK;
}
/* Room for one more exception row; *cap: rows there is room for. */
pm_status pm__dataset_add_exception(pm_dataset *d, size_t row, size_t *cap, pm_error *err)
{
	if (d->nexc == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		void *p;

		if (n > SIZE_MAX / d->ncols)
			return pm__oom(err);
		if (!(p = pm__resize(d->exc_row, n, sizeof(*d->exc_row))))
			return pm__oom(err);
		d->exc_row = p;
		if (!(p = pm__resize(d->exc_line, n * d->ncols, sizeof(*d->exc_line))))
			return pm__oom(err);
		d->exc_line = p;
		if (!(p = pm__resize(d->exc_column, n * d->ncols, sizeof(*d->exc_column))))
			return pm__oom(err);
		d->exc_column = p;
		*cap = n;
	}
	d->exc_row[d->nexc++] = row;
	return PM_OK;
}

/* The exception of row `row`, or SIZE_MAX when it has none. */
size_t pm__dataset_find_exception(const pm_dataset *d, size_t row)
{
	size_t lo = 0, hi = d->nexc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->exc_row[mid] < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nexc && d->exc_row[lo] == row ? lo : SIZE_MAX;
}

void pm__dataset_place(const pm_dataset *d, size_t row, size_t col, unsigned *line,
		       unsigned *column)
{
	size_t e = pm__dataset_find_exception(d, row), at = 1;

	if (e != SIZE_MAX) {
		*line = d->exc_line[e * d->ncols + col];
		*column = d->exc_column[e * d->ncols + col];
		return;
	}
	if (!d->placed) {
		*line = *column = 0;
		return;
	}
	/* a row without quotes: each cell and its comma, as they were in the file */
	for (size_t c = 0; c < col; c++)
		at += strlen(pm__text_at(d, row, c)) + 1;
	*line = d->row_line ? d->row_line[row] : (unsigned)(row + 2);
	*column = at > UINT_MAX ? UINT_MAX : (unsigned)at;
}


const char *pm_dataset_name(const pm_dataset *d)
{
	return d ? d->name : NULL;
}

size_t pm_dataset_nrows(const pm_dataset *d)
{
	return d ? d->nrows : 0;
}

size_t pm_dataset_ncols(const pm_dataset *d)
{
	return d ? d->ncols : 0;
}

/* Out-of-range indices are a caller bug; the accessors answer NULL or 0
 * rather than read out of bounds. */
const char *pm_dataset_col_name(const pm_dataset *d, size_t col)
{
	return d && col < d->ncols ? d->names[col] : NULL;
}

pm_status pm_dataset_col_index(const pm_dataset *d, const char *name, size_t *col,
			       pm_error *err)
{
	size_t c;

	if (!d || !name || !col)
		return pm__fail(err, PM_EINVAL, "no dataset, name or index");
	if ((c = pm__strindex_find(&d->by_name, name)) == SIZE_MAX)
		return pm__fail(err, PM_ESCHEMA, "no column '%s' in %s", name, d->name);
	*col = c;
	return PM_OK;
}

const char *pm_dataset_cell(const pm_dataset *d, size_t row, size_t col)
{
	return d && row < d->nrows && col < d->ncols ? pm__text_at(d, row, col) : NULL;
}

unsigned pm_dataset_cell_line(const pm_dataset *d, size_t row, size_t col)
{
	unsigned line = 0, column = 0;

	if (d && row < d->nrows && col < d->ncols)
		pm__dataset_place(d, row, col, &line, &column);
	return line;
}

unsigned pm_dataset_cell_column(const pm_dataset *d, size_t row, size_t col)
{
	unsigned line = 0, column = 0;

	if (d && row < d->nrows && col < d->ncols)
		pm__dataset_place(d, row, col, &line, &column);
	return column;
}

int pm_dataset_col_is_numeric(const pm_dataset *d, size_t col)
{
	return d && col < d->ncols && d->col[col].numeric;
}

pm_status pm_dataset_number(const pm_dataset *d, size_t row, size_t col, double *value,
			    pm_error *err)
{
	const column *c;
	const char *s;
	unsigned line, column;
	size_t level;

	if (!d || !value)
		return pm__fail(err, PM_EINVAL, "no dataset or value");
	if (row >= d->nrows || col >= d->ncols)
		return pm__fail(err, PM_EINVAL, "no cell (%zu, %zu) in %s", row, col, d->name);
	c = &d->col[col];
	level = pm__code_at(c, row);
	s = c->text + c->off[level];
	switch (c->numeric ? PM_NUM_OK : (pm_num)c->kind[level]) {
	case PM_NUM_OK:
		*value = c->value[level];
		return PM_OK;
	case PM_NUM_EMPTY:
		pm__dataset_place(d, row, col, &line, &column);
		return pm__fail_at(err, PM_ESCHEMA, d->name, line, column,
				   "column '%s': empty cell", d->names[col]);
	case PM_NUM_TEXT:
		pm__dataset_place(d, row, col, &line, &column);
		return pm__fail_at(err, PM_ESCHEMA, d->name, line, column,
				   "column '%s': '%.64s' is not a number", d->names[col], s);
	case PM_NUM_INFINITE:
		break;
	}
	pm__dataset_place(d, row, col, &line, &column);
	return pm__fail_at(err, PM_ESCHEMA, d->name, line, column,
			   "column '%s': '%.64s' is not a finite number", d->names[col], s);
}

pm_status pm_dataset_col_numbers(const pm_dataset *d, size_t col, double *values,
				 pm_error *err)
{
	const column *c;
	size_t r = 0;

	if (!d || !values)
		return pm__fail(err, PM_EINVAL, "no dataset or values");
	if (col >= d->ncols)
		return pm__fail(err, PM_EINVAL, "no column %zu in %s", col, d->name);
	c = &d->col[col];
	if (!c->numeric) {
		/* not every level is a number, so some row's is not: say which first */
		while (c->kind[pm__code_at(c, r)] == PM_NUM_OK)
			r++;
		return pm_dataset_number(d, r, col, &(double){ 0 }, err);
	}
	/* the widths apart, so that each loop is a plain gather */
	switch (c->width) {
	case 0:
		memcpy(values, c->value, d->nrows * sizeof(*values));
		break;
	case 1:
		for (r = 0; r < d->nrows; r++)
			values[r] = c->value[((const uint8_t *)c->code)[r]];
		break;
	case 2:
		for (r = 0; r < d->nrows; r++)
			values[r] = c->value[((const uint16_t *)c->code)[r]];
		break;
	default:
		for (r = 0; r < d->nrows; r++)
			values[r] = c->value[((const uint32_t *)c->code)[r]];
	}
	return PM_OK;
}

int pm_dataset_col_has_gaps(const pm_dataset *d, size_t col)
{
	const column *c = d && col < d->ncols ? &d->col[col] : NULL;
	int numbers = 0, gaps = 0;

	if (!c || c->numeric)
		return 0;
	for (size_t v = 0; v < c->nlevels; v++) {
		if (c->kind[v] == PM_NUM_TEXT)
			return 0;
		numbers |= c->kind[v] == PM_NUM_OK;
		gaps |= c->kind[v] != PM_NUM_OK;
	}
	return numbers && gaps;
}

size_t pm_dataset_col_present(const pm_dataset *d, size_t col, double *values)
{
	const column *c = d && col < d->ncols ? &d->col[col] : NULL;
	size_t n = 0;

	if (!c || !values)
		return 0;
	for (size_t r = 0; r < d->nrows; r++) {
		size_t v = pm__code_at(c, r);

		/* a text level's value is NaN already; an infinite one's is not */
		values[r] = c->numeric || c->kind[v] == PM_NUM_OK ? c->value[v] : NAN;
		n += !isnan(values[r]);
	}
	return n;
}

size_t pm_dataset_col_nlevels(const pm_dataset *d, size_t col)
{
	return d && col < d->ncols ? d->col[col].nlevels : 0;
}

const char *pm_dataset_level_name(const pm_dataset *d, size_t col, size_t level)
{
	const column *c = d && col < d->ncols ? &d->col[col] : NULL;

	return c && level < c->nlevels ? c->text + c->off[level] : NULL;
}

void pm_dataset_col_codes(const pm_dataset *d, size_t col, uint32_t *codes)
{
	if (!d || col >= d->ncols || !codes)
		return;
	for (size_t r = 0; r < d->nrows; r++)
		codes[r] = (uint32_t)pm__code_at(&d->col[col], r);
}

/* Each name and cell is hashed with its NUL, and each row with a line end
 * after it, so that moving text between cells or rows changes the hash. */
void pm_dataset_fingerprint(const pm_dataset *d, char out[17])
{
	uint64_t h = PM_FNV_OFFSET;

	if (d) {
		for (size_t r = 0; r <= d->nrows; r++) {
			for (size_t c = 0; c < d->ncols; c++) {
				const char *s = r ? pm__text_at(d, r - 1, c) : d->names[c];

				h = pm__fnv1a(h, s, strlen(s) + 1);
			}
			h = pm__fnv1a(h, "\n", 1);
		}
	}
	if (out)
		snprintf(out, 17, "%016" PRIx64, h);
}

/* A copy of a[rows[i]] (rows NULL: a[i]) for i < n, or NULL for a NULL a. */
static void *pick(const void *a, size_t size, const size_t *rows, size_t n, int *oom)
{
	unsigned char *out;

	if (!a)
		return NULL;
	out = malloc(n * size + 1);
	if (!out) {
		*oom = 1;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		memcpy(out + i * size, (const unsigned char *)a + (rows ? rows[i] : i) * size, size);
	return out;
}

pm_status pm__dataset_set_rows(pm_dataset *d, const unsigned *reps, const double *cv,
			       const double *w, pm_weights kind, const size_t *rows,
			       pm_error *err)
{
	int oom = 0;
	unsigned *r = pick(reps, sizeof(*reps), rows, d->nrows, &oom);
	double *c = pick(cv, sizeof(*cv), rows, d->nrows, &oom);
	double *wt = pick(w, sizeof(*w), rows, d->nrows, &oom);

	if (oom) {
		free(r);
		free(c);
		free(wt);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	free(d->reps);
	free(d->cv);
	free(d->weight);
	d->reps = r;
	d->cv = c;
	d->weight = wt;
	d->weighting = wt ? kind : PM_WEIGHTS_NONE;
	return PM_OK;
}

pm_status pm__dataset_copy_rows(pm_dataset *dst, const pm_dataset *src, const size_t *rows,
				pm_error *err)
{
	return pm__dataset_set_rows(dst, src->reps, src->cv, src->weight, src->weighting, rows,
				    err);
}

pm_status pm_dataset_set_weights(pm_dataset *d, const double *w, pm_error *err)
{
	double *copy;

	if (!d)
		return pm__fail(err, PM_EINVAL, "no dataset");
	for (size_t r = 0; w && r < d->nrows; r++)
		if (!(w[r] > 0) || isinf(w[r]))
			return pm__fail(err, PM_EINVAL, "weight %zu is %g: weights must be finite "
					"and > 0", r, w[r]);
	copy = pick(w, sizeof(*w), NULL, d->nrows, &(int){ 0 });
	if (w && !copy)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	free(d->weight);
	d->weight = copy;
	d->weighting = w ? PM_WEIGHTS_GIVEN : PM_WEIGHTS_NONE;
	return PM_OK;
}

const double *pm_dataset_weights(const pm_dataset *d, pm_weights *kind)
{
	if (kind)
		*kind = d ? d->weighting : PM_WEIGHTS_NONE;
	return d ? d->weight : NULL;
}

const unsigned *pm_dataset_reps(const pm_dataset *d)
{
	return d ? d->reps : NULL;
}

const double *pm_dataset_cv(const pm_dataset *d)
{
	return d ? d->cv : NULL;
}
