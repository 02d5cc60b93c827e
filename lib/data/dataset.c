#include "data/dataset_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/csv.h"
#include "core/error.h"

struct pm_dataset {
	char *name;
	size_t ncols, nrows;
	/* Every name and cell as an offset into t.buf, row 0 holding the names.
	 * From a file: the tokenizer's in-place buffer, whose tables also give
	 * the places. From pm__dataset_build: a packed copy, the places in
	 * line/column (NULL: all 0). */
	pm_csv t;
	int from_file;
	unsigned *line, *column;
	/* Open addressing over the names, so that a wide table's duplicate
	 * check and lookups stay linear: column + 1, or 0 for a free slot. */
	size_t *slot;
	size_t mask;
	/* Per row, owned, NULL when absent: the fit's weights, and the runs
	 * behind an aggregated row (pm__dataset_set_rows). */
	double *weight;
	pm_weights weighting;
	unsigned *reps;
	double *cv;
};

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= FNV_PRIME;
	}
	return h;
}

static const char *text_at(const pm_dataset *d, size_t record, size_t col)
{
	return d->t.buf + pm__csv_offset(&d->t, record, col);
}

void pm_dataset_free(pm_dataset *d)
{
	if (!d)
		return;
	free(d->name);
	pm__csv_free(&d->t);
	free(d->line);
	free(d->column);
	free(d->slot);
	free(d->weight);
	free(d->reps);
	free(d->cv);
	free(d);
}

static pm_dataset *dataset_alloc(const char *name)
{
	pm_dataset *d = calloc(1, sizeof(*d));
	size_t n;

	if (!d)
		return NULL;
	if (!name)
		name = "<input>";
	n = strlen(name) + 1;
	d->name = malloc(n);
	if (!d->name) {
		free(d);
		return NULL;
	}
	memcpy(d->name, name, n);
	return d;
}

/* record 0 is the header */
static void place(const pm_dataset *d, size_t record, size_t col, unsigned *line,
		  unsigned *column)
{
	size_t k = record * d->ncols + col;

	if (d->from_file) {
		pm__csv_place(&d->t, record, pm__csv_offset(&d->t, record, col), line, column);
		return;
	}
	/* a built dataset has places for its cells only, not for its names */
	*line = d->line && record ? d->line[k - d->ncols] : 0;
	*column = d->column && record ? d->column[k - d->ncols] : 0;
}

/* Index the names, refusing an empty or repeated one with `code`. */
static pm_status index_names(pm_dataset *d, pm_status code, pm_error *err)
{
	size_t nslot = 8;
	unsigned line, column;

	while (nslot < d->ncols * 2) {
		if (nslot > SIZE_MAX / 4 / sizeof(*d->slot))
			return pm__fail(err, PM_ENOMEM, "out of memory");
		nslot *= 2;
	}
	d->slot = calloc(nslot, sizeof(*d->slot));
	if (!d->slot)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	d->mask = nslot - 1;
	for (size_t c = 0; c < d->ncols; c++) {
		const char *s = text_at(d, 0, c);
		size_t h = (size_t)fnv1a(FNV_OFFSET, s, strlen(s)) & d->mask;

		if (!*s) {
			place(d, 0, c, &line, &column);
			return pm__fail_at(err, code, d->name, line, column, "empty column name");
		}
		for (; d->slot[h]; h = (h + 1) & d->mask) {
			if (strcmp(text_at(d, 0, d->slot[h] - 1), s) == 0) {
				place(d, 0, c, &line, &column);
				return pm__fail_at(err, code, d->name, line, column,
						   "duplicate column name '%s'", s);
			}
		}
		d->slot[h] = c + 1;
	}
	return PM_OK;
}

/* Takes ownership of buf (len + 1 bytes) whatever happens. */
static pm_status from_buffer(char *buf, size_t len, const char *name, pm_dataset **out,
			     pm_error *err)
{
	pm_dataset *d = dataset_alloc(name);
	pm_status rc;

	if (!d) {
		free(buf);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	rc = pm__csv_tokenize(buf, len, d->name, &d->t, err);
	if (rc)
		goto fail;
	d->from_file = 1;
	d->ncols = d->t.ncols;
	d->nrows = d->t.nrecords - 1;
	rc = index_names(d, PM_EPARSE, err);
	if (rc)
		goto fail;
	*out = d;
	return PM_OK;
fail:
	pm_dataset_free(d);
	return rc;
}

pm_status pm__dataset_from_buffer(char *buf, size_t len, const char *name, pm_dataset **out,
				  pm_error *err)
{
	*out = NULL;
	return from_buffer(buf, len, name, out, err);
}

pm_status pm_dataset_parse_csv(const char *text, size_t len, const char *name,
			       pm_dataset **out, pm_error *err)
{
	char *buf;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the dataset");
	*out = NULL;
	if (!text && len)
		return pm__fail(err, PM_EINVAL, "no text");
	/* the tokenizer wants a spare byte for its sentinel */
	buf = len < SIZE_MAX ? malloc(len + 1) : NULL;
	if (!buf)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if (len)
		memcpy(buf, text, len);
	return from_buffer(buf, len, name, out, err);
}

pm_status pm_dataset_read_csv(const char *path, pm_dataset **out, pm_error *err)
{
	/* CSV as it is: no aggregation without a target, no conversion */
	pm_read_options o = pm_read_options_default();

	o.format = PM_FORMAT_CSV;
	return pm_dataset_read(path, &o, out, NULL, err);
}

pm_status pm__dataset_build(const char *name, size_t ncols, const char *const *names,
			    size_t nrows, const char *const *cells, const unsigned *line,
			    const unsigned *column, pm_dataset **out, pm_error *err)
{
	pm_dataset *d = NULL;
	size_t ncells, size = 0, pos = 0;
	pm_status rc;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the dataset");
	*out = NULL;
	if (ncols == 0 || !names)
		return pm__fail(err, PM_EINVAL, "a dataset needs at least one column");
	if (nrows && !cells)
		return pm__fail(err, PM_EINVAL, "no cells");
	/* every array below has at most (nrows + 1) * ncols entries of <= 8 bytes */
	if (SIZE_MAX / sizeof(size_t) / ncols == 0 ||
	    nrows > SIZE_MAX / sizeof(size_t) / ncols - 1)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	ncells = (nrows + 1) * ncols;
	for (size_t k = 0; k < ncells; k++) {
		const char *s = k < ncols ? names[k] : cells[k - ncols];
		size_t n = s ? strlen(s) + 1 : 1;

		if (n > SIZE_MAX - size)
			return pm__fail(err, PM_ENOMEM, "out of memory");
		size += n;
	}

	d = dataset_alloc(name);
	if (!d)
		goto oom;
	d->ncols = ncols;
	d->nrows = nrows;
	d->t.ncols = ncols;
	d->t.nrecords = nrows + 1;
	d->t.len = size;
	d->t.buf = malloc(size);
	d->t.row = malloc((nrows + 1) * sizeof(*d->t.row));
	d->t.cell = malloc(ncells * sizeof(*d->t.cell));
	if (!d->t.buf || !d->t.row || !d->t.cell)
		goto oom;
	for (size_t r = 0; r <= nrows; r++) {
		size_t start = pos;

		d->t.row[r] = start;
		for (size_t c = 0; c < ncols; c++) {
			size_t k = r * ncols + c;
			const char *s = k < ncols ? names[k] : cells[k - ncols];
			size_t n = s ? strlen(s) : 0;

			if (pos - start > UINT32_MAX) {
				rc = pm__fail(err, PM_EINVAL, "row %zu is longer than 4 GiB", r);
				goto fail;
			}
			d->t.cell[k] = (uint32_t)(pos - start);
			if (n)
				memcpy(d->t.buf + pos, s, n);
			d->t.buf[pos + n] = '\0';
			pos += n + 1;
		}
	}
	if (line && nrows) {
		d->line = malloc(nrows * ncols * sizeof(*d->line));
		if (!d->line)
			goto oom;
		memcpy(d->line, line, nrows * ncols * sizeof(*d->line));
	}
	if (column && nrows) {
		d->column = malloc(nrows * ncols * sizeof(*d->column));
		if (!d->column)
			goto oom;
		memcpy(d->column, column, nrows * ncols * sizeof(*d->column));
	}
	rc = index_names(d, PM_ESCHEMA, err);
	if (rc)
		goto fail;
	*out = d;
	return PM_OK;
oom:
	rc = pm__fail(err, PM_ENOMEM, "out of memory");
fail:
	pm_dataset_free(d);
	return rc;
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
	return d && col < d->ncols ? text_at(d, 0, col) : NULL;
}

pm_status pm_dataset_col_index(const pm_dataset *d, const char *name, size_t *col,
			       pm_error *err)
{
	size_t h;

	if (!d || !name || !col)
		return pm__fail(err, PM_EINVAL, "no dataset, name or index");
	h = (size_t)fnv1a(FNV_OFFSET, name, strlen(name)) & d->mask;
	for (; d->slot[h]; h = (h + 1) & d->mask) {
		if (strcmp(text_at(d, 0, d->slot[h] - 1), name) == 0) {
			*col = d->slot[h] - 1;
			return PM_OK;
		}
	}
	return pm__fail(err, PM_ESCHEMA, "no column '%s' in %s", name, d->name);
}

const char *pm_dataset_cell(const pm_dataset *d, size_t row, size_t col)
{
	return d && row < d->nrows && col < d->ncols ? text_at(d, row + 1, col) : NULL;
}

unsigned pm_dataset_cell_line(const pm_dataset *d, size_t row, size_t col)
{
	unsigned line = 0, column = 0;

	if (d && row < d->nrows && col < d->ncols)
		place(d, row + 1, col, &line, &column);
	return line;
}

unsigned pm_dataset_cell_column(const pm_dataset *d, size_t row, size_t col)
{
	unsigned line = 0, column = 0;

	if (d && row < d->nrows && col < d->ncols)
		place(d, row + 1, col, &line, &column);
	return column;
}

enum num { NUM_OK, NUM_EMPTY, NUM_TEXT, NUM_INFINITE };

/*
 * The common cell, a plain decimal such as "0.004301776", "-12" or "1e-05",
 * without strtod: Clinger's fast path. When the digits make an integer w <
 * 2^53 and the decimal exponent e has |e| <= 22, w and 10^|e| are exact
 * doubles, so w * 10^e (or w / 10^-e) is one correctly rounded operation:
 * the value strtod gives. Anything else (more digits, a larger exponent,
 * other syntax) returns 0 and is left to strtod. *end: after the number.
 */
static int fast_decimal(const char *s, double *value, const char **end)
{
	static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
		1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	uint64_t w = 0;
	int neg = 0, e = 0;
	size_t ndig;
	const char *start, *digits;
	double v;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	/* Leading zeros are not significant. The digits after them are
	 * accumulated with no check each: more than 19 (which may wrap w) send
	 * the cell to strtod anyway. */
	for (start = digits = s; *digits == '0'; digits++)
		;
	for (s = digits; (unsigned)(*s - '0') < 10; s++)
		w = w * 10 + (uint64_t)(*s - '0');
	ndig = (size_t)(s - digits);
	if (*s == '.') {
		const char *frac = ++s;

		if (ndig == 0)	/* 0.00123: nor are the zeros before its first digit */
			while (*s == '0')
				s++;
		for (digits = s; (unsigned)(*s - '0') < 10; s++)
			w = w * 10 + (uint64_t)(*s - '0');
		ndig += (size_t)(s - digits);
		if (s - frac > 1000)
			return 0;	/* far from the fast path, and e stays small */
		e = -(int)(s - frac);
		if (s == start + 1)
			return 0;	/* a lone '.' has no digits */
	} else if (s == start) {
		return 0;
	}
	if (ndig > 19)
		return 0;
	if (*s == 'e' || *s == 'E') {
		int eneg = 0, x = 0, edig = 0;

		s++;
		if (*s == '-' || *s == '+')
			eneg = *s++ == '-';
		for (; *s >= '0' && *s <= '9'; s++, edig++)
			if (x < 1000)
				x = x * 10 + (*s - '0');
		if (!edig)
			return 0;
		e += eneg ? -x : x;
	}
	if (w > (UINT64_C(1) << 53) || e < -22 || e > 22)
		return 0;
	v = e < 0 ? (double)w / pow10[-e] : (double)w * pow10[e];
	*value = neg ? -v : v;
	*end = s;
	return 1;
}

/*
 * strtod, but the whole cell must be the number. Spaces and tabs around it
 * are allowed, since hand-made CSV often reads "1, 2"; a cell of blanks only
 * counts as empty. Hexadecimal (which strtod takes) is refused: the API
 * promises decimal numbers, and "0x10" in a measurements file is more likely
 * a label than sixteen. Depends on the C locale's decimal point, like strtod.
 */
static enum num parse_number(const char *s, double *value)
{
	const char *end;
	char *e;
	double v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NUM_EMPTY;
	/* strtod would skip other white space, e.g. a line end in a quoted cell */
	if (*s == '\n' || *s == '\r' || *s == '\v' || *s == '\f')
		return NUM_TEXT;
	if (!fast_decimal(s, &v, &end)) {
		v = strtod(s, &e);
		if (e == s)
			return NUM_TEXT;
		for (const char *p = s; p < e; p++)
			if (*p == 'x' || *p == 'X')
				return NUM_TEXT;
		end = e;
	}
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end)
		return NUM_TEXT;
	if (!isfinite(v))
		return NUM_INFINITE;
	*value = v;
	return NUM_OK;
}

int pm_dataset_col_is_numeric(const pm_dataset *d, size_t col)
{
	double v;

	if (!d || col >= d->ncols)
		return 0;
	for (size_t r = 0; r < d->nrows; r++)
		if (parse_number(text_at(d, r + 1, col), &v) != NUM_OK)
			return 0;
	return 1;
}

pm_status pm_dataset_number(const pm_dataset *d, size_t row, size_t col, double *value,
			    pm_error *err)
{
	const char *s, *cname;
	unsigned line, column;

	if (!d || !value)
		return pm__fail(err, PM_EINVAL, "no dataset or value");
	if (row >= d->nrows || col >= d->ncols)
		return pm__fail(err, PM_EINVAL, "no cell (%zu, %zu) in %s", row, col, d->name);
	s = text_at(d, row + 1, col);
	cname = text_at(d, 0, col);
	switch (parse_number(s, value)) {
	case NUM_OK:
		return PM_OK;
	case NUM_EMPTY:
		place(d, row + 1, col, &line, &column);
		return pm__fail_at(err, PM_ESCHEMA, d->name, line, column,
				   "column '%s': empty cell", cname);
	case NUM_TEXT:
		place(d, row + 1, col, &line, &column);
		return pm__fail_at(err, PM_ESCHEMA, d->name, line, column,
				   "column '%s': '%.64s' is not a number", cname, s);
	case NUM_INFINITE:
		break;
	}
	place(d, row + 1, col, &line, &column);
	return pm__fail_at(err, PM_ESCHEMA, d->name, line, column,
			   "column '%s': '%.64s' is not a finite number", cname, s);
}

/* Each name and cell is hashed with its NUL, and each row with a line end
 * after it, so that moving text between cells or rows changes the hash. */
void pm_dataset_fingerprint(const pm_dataset *d, char out[17])
{
	uint64_t h = FNV_OFFSET;

	if (d) {
		for (size_t r = 0; r <= d->nrows; r++) {
			for (size_t c = 0; c < d->ncols; c++) {
				const char *s = text_at(d, r, c);

				h = fnv1a(h, s, strlen(s) + 1);
			}
			h = fnv1a(h, "\n", 1);
		}
	}
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
