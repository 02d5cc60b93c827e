#include "data/dataset_impl.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/csv.h"
#include "core/error.h"

/*
 * A column as ingest typed it: each row's level (its distinct text, in the
 * order of first appearance) and, when every level is a finite number,
 * every row's number. Each level's text was parsed once, so nothing after
 * ingest parses a cell. Most columns have few levels: their codes take one
 * byte a row.
 */
typedef struct column {
	void *code;		/* per row, its level: `width` bytes each */
	unsigned width;		/* 1, 2 or 4: the fewest that hold every level; 0
				 * (no code) when each row has a level of its own:
				 * row r's is r, levels being numbered as they appear */
	size_t nlevels;
	/* each level's text: text + off[level]; 32 bits, as a column of a
	 * million distinct numbers has as many offsets (so a column's distinct
	 * texts must stay under 4 GiB) */
	uint32_t *off;
	char *text;
	double *num;		/* nrows numbers, or NULL when a level is no number */
	/* When num is NULL: each level's number, or why it is none (enum num),
	 * for pm_dataset_number's answer about one cell. */
	double *value;
	unsigned char *kind;
} column;

struct pm_dataset {
	char *name;
	size_t ncols, nrows;
	const char **names;	/* ncols, in names_text */
	char *names_text;
	/* Open addressing over the names, so that a wide table's duplicate
	 * check and lookups stay linear: column + 1, or 0 for a free slot. */
	size_t *slot;
	size_t mask;
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

static size_t code_at(const column *c, size_t row)
{
	switch (c->width) {
	case 0:
		return row;
	case 1:
		return ((const uint8_t *)c->code)[row];
	case 2:
		return ((const uint16_t *)c->code)[row];
	default:
		return ((const uint32_t *)c->code)[row];
	}
}

static const char *text_at(const pm_dataset *d, size_t row, size_t col)
{
	const column *c = &d->col[col];

	return c->text + c->off[code_at(c, row)];
}

static void column_free(column *c)
{
	free(c->code);
	free(c->off);
	free(c->text);
	free(c->num);
	free(c->value);
	free(c->kind);
}

void pm_dataset_free(pm_dataset *d)
{
	if (!d)
		return;
	free(d->name);
	free(d->names);
	free(d->names_text);
	free(d->slot);
	for (size_t c = 0; d->col && c < d->ncols; c++)
		column_free(&d->col[c]);
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
static pm_dataset *dataset_alloc(const char *name, size_t ncols)
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

/* What the columns are made from: the text of each cell, and the number of
 * a level first seen at a cell (parsed from its text, or a parent's). */
typedef struct source {
	const char *(*text)(const struct source *s, size_t row, size_t col);
	enum num (*number)(const struct source *s, size_t row, size_t col, const char *text,
			   double *v);
	const void *from;	/* the CSV record, the cells, or the parent dataset */
	const size_t *rows;	/* a subset's rows of the parent (NULL: all, in order) */
	size_t ncols;
	/* a column added after the parent's: its name, numbers, and room for
	 * one number's text */
	const char *name;
	const double *values;
	char *num;
} source;

static pm_status oom(pm_error *err)
{
	return pm__fail(err, PM_ENOMEM, "out of memory");
}

/* realloc to n elements of `size` bytes, NULL on overflow too */
static void *resize(void *p, size_t n, size_t size)
{
	return n > SIZE_MAX / size ? NULL : realloc(p, n * size);
}

/* A column while its rows are added, one at a time: the rows of a CSV
 * file are typed as they are read, so that the file's text is the only
 * other copy of the table ever held. */
typedef struct builder {
	column *c;
	size_t cap, len, size;	/* room for levels; the text's length and room */
	uint32_t *slot;		/* open addressing: level + 1, or 0 for a free slot */
	size_t mask;
	size_t room;		/* rows c->code (and c->num) have room for */
	int text;		/* a level is no number: c->num is not written */
} builder;

static int rehash(builder *b, size_t nslot)
{
	uint32_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return -1;
	free(b->slot);
	b->slot = slot;
	b->mask = nslot - 1;
	for (size_t v = 0; v < b->c->nlevels; v++) {
		const char *s = b->c->text + b->c->off[v];
		size_t h = (size_t)fnv1a(FNV_OFFSET, s, strlen(s)) & b->mask;

		while (b->slot[h])
			h = (h + 1) & b->mask;
		b->slot[h] = (uint32_t)(v + 1);
	}
	return 0;
}

/* The level of text s (found, or added with the number `number` gives),
 * or -1: out of memory, more levels than codes, or 4 GiB of text. */
static int64_t level_of(builder *b, const source *src, size_t row, size_t col, const char *s)
{
	column *c = b->c;
	size_t n = strlen(s), h = (size_t)fnv1a(FNV_OFFSET, s, n) & b->mask, v = c->nlevels;
	void *p;

	for (; b->slot[h]; h = (h + 1) & b->mask)
		if (strcmp(c->text + c->off[b->slot[h] - 1], s) == 0)
			return b->slot[h] - 1;
	if (v == UINT32_MAX - 1 || n >= UINT32_MAX - b->len)
		return -1;
	if (b->len + n + 1 > b->size) {
		size_t size = b->size * 2 > b->len + n + 1 ? b->size * 2 : b->len + n + 65;

		if (!(p = realloc(c->text, size)))
			return -1;
		c->text = p;
		b->size = size;
	}
	if (v == b->cap) {
		size_t cap = v ? v * 2 : 16;

		if (!(p = resize(c->off, cap, sizeof(*c->off))))
			return -1;
		c->off = p;
		if (!(p = resize(c->value, cap, sizeof(*c->value))))
			return -1;
		c->value = p;
		if (!(p = resize(c->kind, cap, sizeof(*c->kind))))
			return -1;
		c->kind = p;
		b->cap = cap;
	}
	memcpy(c->text + b->len, s, n + 1);
	c->off[v] = (uint32_t)b->len;
	b->len += n + 1;
	c->kind[v] = (unsigned char)src->number(src, row, col, s, &c->value[v]);
	c->nlevels = v + 1;
	/* at most 3/4 full: short probes, 4 to 8 bytes a level */
	if (c->nlevels * 4 > (b->mask + 1) * 3)
		return rehash(b, (b->mask + 1) * 2) ? -1 : (int64_t)v;
	b->slot[h] = (uint32_t)(v + 1);
	return (int64_t)v;
}

/* Codes one byte wide while there are at most 256 levels, then two, then
 * four: rows [0, n) rewritten in place from the top down. */
static int widen(column *c, size_t n, size_t room)
{
	unsigned w = c->width * 2;
	unsigned char *p = resize(c->code, room, w);

	if (!p)
		return -1;
	for (size_t r = n; r-- > 0;) {
		uint32_t v = c->width == 1 ? p[r] : ((uint16_t *)(void *)p)[r];

		if (w == 2)
			((uint16_t *)(void *)p)[r] = (uint16_t)v;
		else
			((uint32_t *)(void *)p)[r] = v;
	}
	c->code = p;
	c->width = w;
	return 0;
}

/* room: the rows expected (more may come; fewer leave the rest untouched) */
static int builder_init(builder *b, column *c, size_t room)
{
	*b = (builder){ .c = c, .room = room ? room : 1 };
	c->width = 1;
	c->code = malloc(b->room);
	/* numbers until a level is none */
	c->num = resize(NULL, b->room, sizeof(*c->num));
	return !c->code || !c->num || rehash(b, 16);
}

/* Row r (the next) of the column is text s, cell (row, col) of src. */
static pm_status builder_add(builder *b, size_t r, const char *s, const source *src,
			     size_t row, size_t col, pm_error *err)
{
	column *c = b->c;
	int64_t v = level_of(b, src, row, col, s);
	void *p;

	if (v < 0)
		return oom(err);
	if (r == b->room) {
		size_t room = b->room * 2;

		if (!(p = resize(c->code, room, c->width)))
			return oom(err);
		c->code = p;
		if (!b->text) {
			if (!(p = resize(c->num, room, sizeof(*c->num))))
				return oom(err);
			c->num = p;
		}
		b->room = room;
	}
	if ((c->nlevels == 257 && c->width == 1) || (c->nlevels == 65537 && c->width == 2))
		if (widen(c, r, b->room))
			return oom(err);
	if (c->width == 1)
		((uint8_t *)c->code)[r] = (uint8_t)v;
	else if (c->width == 2)
		((uint16_t *)c->code)[r] = (uint16_t)v;
	else
		((uint32_t *)c->code)[r] = (uint32_t)v;
	/* A column found to be text keeps its numbers' room until the last
	 * row: freed now, the block would make malloc serve the blocks that
	 * grow after it from the heap, and their old copies stay resident. */
	b->text |= c->kind[v] != NUM_OK;
	if (!b->text)
		c->num[r] = c->value[v];
	return PM_OK;
}

/* After the last of nrows rows: the text shrunk to fit (nothing points
 * into it, so it may move), the rows' arrays too, and a numeric column's
 * numbers per level dropped. */
static pm_status builder_finish(builder *b, size_t nrows, pm_error *err)
{
	column *c = b->c;
	char *text = realloc(c->text, b->len + 1);
	void *p;

	free(b->slot);
	b->slot = NULL;
	if (b->text) {
		free(c->num);
		c->num = NULL;
	}
	if (!text)
		return oom(err);
	c->text = text;
	if (c->nlevels == nrows && nrows) {
		/* a time or an id: no code says more than the row */
		free(c->code);
		c->code = NULL;
		c->width = 0;
	} else if ((p = realloc(c->code, nrows * c->width + 1))) {
		c->code = p;
	} else {
		return oom(err);
	}
	if (c->num) {
		if (!(p = realloc(c->num, nrows * sizeof(*c->num) + 1)))
			return oom(err);
		c->num = p;
	}
	if (c->num) {
		free(c->value);
		free(c->kind);
		c->value = NULL;
		c->kind = NULL;
	}
	return PM_OK;
}

/* Builders for every column of d, room rows each, or NULL (out of memory). */
static builder *builders_new(pm_dataset *d, size_t room)
{
	builder *b = calloc(d->ncols, sizeof(*b));

	for (size_t c = 0; b && c < d->ncols; c++) {
		if (builder_init(&b[c], &d->col[c], room)) {
			for (size_t k = 0; k <= c; k++)
				free(b[k].slot);
			free(b);
			return NULL;
		}
	}
	return b;
}

/* Each builder finished (on success) and freed. */
static pm_status builders_end(pm_dataset *d, builder *b, pm_status st, pm_error *err)
{
	for (size_t c = 0; c < d->ncols; c++) {
		if (!st)
			st = builder_finish(&b[c], d->nrows, err);
		free(b[c].slot);
	}
	free(b);
	return st;
}

/* Row r of d is row `row` of src. */
static pm_status add_row(pm_dataset *d, builder *b, size_t r, const source *src, size_t row,
			 pm_error *err)
{
	pm_status st;

	for (size_t c = 0; c < d->ncols; c++)
		if ((st = builder_add(&b[c], r, src->text(src, row, c), src, row, c, err)))
			return st;
	return PM_OK;
}

/* d's nrows rows, row r of d being row r of src. */
static pm_status build_rows(pm_dataset *d, const source *src, pm_error *err)
{
	builder *b = builders_new(d, d->nrows);
	pm_status st = PM_OK;

	if (!b)
		return oom(err);
	for (size_t r = 0; r < d->nrows && !st; r++)
		st = add_row(d, b, r, src, r, err);
	return builders_end(d, b, st, err);
}

/* The names, copied, and their index. An empty or repeated one is refused
 * with `code` at the place `where` gives (NULL: none). */
static pm_status set_names(pm_dataset *d, const source *src, pm_status code,
			   const pm_csv_row *where, pm_error *err)
{
	size_t nslot = 8, size = 0, pos = 0;
	unsigned line = 0, column = 0;

	for (size_t c = 0; c < d->ncols; c++) {
		size_t n = strlen(src->text(src, SIZE_MAX, c)) + 1;

		if (n > SIZE_MAX - size)
			return oom(err);
		size += n;
	}
	while (nslot < d->ncols * 2) {
		if (nslot > SIZE_MAX / 4 / sizeof(*d->slot))
			return oom(err);
		nslot *= 2;
	}
	d->names_text = malloc(size);
	d->names = malloc(d->ncols * sizeof(*d->names));
	d->slot = calloc(nslot, sizeof(*d->slot));
	if (!d->names_text || !d->names || !d->slot)
		return oom(err);
	d->mask = nslot - 1;
	for (size_t c = 0; c < d->ncols; c++) {
		const char *s = src->text(src, SIZE_MAX, c);
		size_t n = strlen(s), h = (size_t)fnv1a(FNV_OFFSET, s, n) & d->mask;

		if (where)
			pm__csv_row_place(where, c, &line, &column);
		if (!n)
			return pm__fail_at(err, code, d->name, line, column, "empty column name");
		for (; d->slot[h]; h = (h + 1) & d->mask)
			if (strcmp(d->names[d->slot[h] - 1], s) == 0)
				return pm__fail_at(err, code, d->name, line, column,
						   "duplicate column name '%s'", s);
		d->names[c] = memcpy(d->names_text + pos, s, n + 1);
		pos += n + 1;
		d->slot[h] = c + 1;
	}
	return PM_OK;
}

static enum num parse_level(const source *s, size_t row, size_t col, const char *text,
			    double *v)
{
	(void)s;
	(void)row;
	(void)col;
	*v = NAN;
	return parse_number(text, v);
}

/* row SIZE_MAX is the header, in every source; a CSV source is the
 * record at hand, whichever it is */
static const char *csv_text(const source *s, size_t row, size_t col)
{
	const pm_csv_row *t = s->from;

	(void)row;
	return t->buf + t->start + t->cell[col];
}

/* Room for one more exception row; *cap: rows there is room for. */
static pm_status add_exception(pm_dataset *d, size_t row, size_t *cap, pm_error *err)
{
	if (d->nexc == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		void *p;

		if (n > SIZE_MAX / d->ncols)
			return oom(err);
		if (!(p = resize(d->exc_row, n, sizeof(*d->exc_row))))
			return oom(err);
		d->exc_row = p;
		if (!(p = resize(d->exc_line, n * d->ncols, sizeof(*d->exc_line))))
			return oom(err);
		d->exc_line = p;
		if (!(p = resize(d->exc_column, n * d->ncols, sizeof(*d->exc_column))))
			return oom(err);
		d->exc_column = p;
		*cap = n;
	}
	d->exc_row[d->nexc++] = row;
	return PM_OK;
}

/* A CSV file being typed, record by record. */
typedef struct reading {
	const char *name;
	size_t rows;		/* records expected: one a line */
	pm_dataset *d;
	builder *b;
	source src;
	size_t ncap;		/* exceptions there is room for */
	size_t nlines;		/* rows d->row_line has room for */
} reading;

/* Row r's line: row + 2 as long as every record is one line. */
static pm_status row_line(reading *x, size_t r, unsigned line, pm_error *err)
{
	pm_dataset *d = x->d;

	if (!d->row_line && line == r + 2)
		return PM_OK;
	if (r >= x->nlines) {
		size_t n = r < 32 ? 64 : r * 2;
		unsigned *p = resize(d->row_line, n, sizeof(*p));

		if (!p)
			return oom(err);
		if (!d->row_line)
			for (size_t k = 0; k < r; k++)
				p[k] = (unsigned)(k + 2);
		d->row_line = p;
		x->nlines = n;
	}
	d->row_line[r] = line;
	return PM_OK;
}

/* Each data row's line, and as exceptions the rows whose cells' columns do
 * not follow from the texts before them: those with a quoted field before
 * the last (unquoting shortened it). */
static pm_status csv_places(reading *x, const pm_csv_row *t, size_t r, pm_error *err)
{
	pm_dataset *d = x->d;
	size_t at = t->start;
	unsigned line, column;
	int plain = 1;
	pm_status st;

	pm__csv_row_place(t, 0, &line, &column);
	if ((st = row_line(x, r, line, err)))
		return st;
	for (size_t c = 1; c < d->ncols && plain; c++) {
		at += strlen(t->buf + at) + 1;
		plain = at == t->start + t->cell[c];
	}
	if (plain)
		return PM_OK;
	if ((st = add_exception(d, r, &x->ncap, err)))
		return st;
	for (size_t c = 0, k = (d->nexc - 1) * d->ncols; c < d->ncols; c++, k++)
		pm__csv_row_place(t, c, &d->exc_line[k], &d->exc_column[k]);
	return PM_OK;
}

static pm_status csv_record(void *ctx, const pm_csv_row *t, pm_error *err)
{
	reading *x = ctx;
	size_t r = t->rec - 1;
	pm_status st;

	x->src.from = t;
	if (t->rec == 0) {
		if (!(x->d = dataset_alloc(x->name, t->ncols)))
			return oom(err);
		x->d->placed = 1;
		if ((st = set_names(x->d, &x->src, PM_EPARSE, t, err)))
			return st;
		return (x->b = builders_new(x->d, x->rows)) ? PM_OK : oom(err);
	}
	if ((st = csv_places(x, t, r, err)) || (st = add_row(x->d, x->b, r, &x->src, r, err)))
		return st;
	x->d->nrows = r + 1;
	return PM_OK;
}

/* Takes ownership of buf (len + 1 bytes) whatever happens. */
static pm_status from_buffer(char *buf, size_t len, const char *name, pm_dataset **out,
			     pm_error *err)
{
	reading x = { .name = name, .src = { .text = csv_text, .number = parse_level } };
	pm_status st;

	/* Sized once for as many rows as lines: growing columns of numbers
	 * would copy them, and the copies' pages stay with the process. Line
	 * ends in quotes make this an overestimate (never touched), CR-only
	 * files an underestimate (then they grow). */
	for (const char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf))); p++)
		x.rows++;
	st = pm__csv_scan(buf, len, name ? name : "<input>", csv_record, &x, err);
	/* the file's text is done with: the columns hold what is needed */
	free(buf);
	if (x.b)
		st = builders_end(x.d, x.b, st, err);
	if (st) {
		pm_dataset_free(x.d);
		return st;
	}
	*out = x.d;
	return PM_OK;
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
		return oom(err);
	if (len)
		memcpy(buf, text, len);
	return from_buffer(buf, len, name, out, err);
}

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
	const source src = { .text = cells_text, .number = parse_level, .from = &x,
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
		return oom(err);
	d = dataset_alloc(name, ncols);
	if (!d)
		return oom(err);
	d->nrows = nrows;
	if ((rc = set_names(d, &src, PM_ESCHEMA, NULL, err)))
		goto fail;
	/* cells placed one by one: every row is an exception */
	for (size_t r = 0; (line || column) && r < nrows; r++) {
		size_t k = r * ncols;

		if ((rc = add_exception(d, r, &cap, err)))
			goto fail;
		for (size_t c = 0; c < ncols; c++) {
			d->exc_line[k + c] = line ? line[k + c] : 0;
			d->exc_column[k + c] = column ? column[k + c] : 0;
		}
	}
	if ((rc = build_rows(d, &src, err)))
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
	return text_at(p, s->rows ? s->rows[row] : row, col);
}

static enum num parent_number(const source *s, size_t row, size_t col, const char *text,
			      double *v)
{
	const column *c = &((const pm_dataset *)s->from)->col[col];
	size_t level;

	(void)text;
	row = s->rows ? s->rows[row] : row;
	if (c->num) {
		*v = c->num[row];
		return NUM_OK;
	}
	level = code_at(c, row);
	*v = c->value[level];
	return (enum num)c->kind[level];
}

/* The exception of row `row`, or SIZE_MAX when it has none. */
static size_t find_exception(const pm_dataset *d, size_t row)
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

static void place(const pm_dataset *d, size_t row, size_t col, unsigned *line,
		  unsigned *column)
{
	size_t e = find_exception(d, row), at = 1;

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
		at += strlen(text_at(d, row, c)) + 1;
	*line = d->row_line ? d->row_line[row] : (unsigned)(row + 2);
	*column = at > UINT_MAX ? UINT_MAX : (unsigned)at;
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
			return oom(err);
		for (size_t i = 0; i < n; i++)
			d->row_line[i] = p->row_line ? p->row_line[rows[i]] : (unsigned)(rows[i] + 2);
	}
	for (size_t i = 0; i < n; i++) {
		size_t e = find_exception(p, rows[i]);

		if (e == SIZE_MAX)
			continue;
		if ((st = add_exception(d, i, &cap, err)))
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
		return oom(err);
	s = dataset_alloc(d->name, d->ncols);
	if (!s)
		return oom(err);
	s->nrows = n;
	if ((rc = set_names(s, &src, PM_ESCHEMA, NULL, err)) ||
	    (rc = subset_places(s, d, rows, err)) || (rc = build_rows(s, &src, err)) ||
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
	snprintf(s->num, 32, "%.17g", s->values[row]);
	return s->num;
}

static enum num added_number(const source *s, size_t row, size_t col, const char *text,
			     double *v)
{
	if (col < ((const pm_dataset *)s->from)->ncols)
		return parent_number(s, row, col, text, v);
	*v = s->values[row];
	/* what its text, "inf" or "nan", would have parsed to */
	return isfinite(*v) ? NUM_OK : NUM_INFINITE;
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
		return oom(err);
	s = dataset_alloc(d->name, d->ncols + 1);
	if (!s)
		return oom(err);
	s->nrows = d->nrows;
	if ((rc = set_names(s, &src, PM_ESCHEMA, NULL, err)))
		goto fail;
	/* the added cells have the places of others: every row is an exception */
	for (size_t r = 0; r < d->nrows; r++) {
		if ((rc = add_exception(s, r, &cap, err)))
			goto fail;
		for (size_t c = 0, k = r * s->ncols; c < s->ncols; c++)
			place(d, r, c < d->ncols ? c : at, &s->exc_line[k + c], &s->exc_column[k + c]);
	}
	if ((rc = build_rows(s, &src, err)) || (rc = pm__dataset_copy_rows(s, d, NULL, err)))
		goto fail;
	*out = s;
	return PM_OK;
fail:
	pm_dataset_free(s);
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
	return d && col < d->ncols ? d->names[col] : NULL;
}

pm_status pm_dataset_col_index(const pm_dataset *d, const char *name, size_t *col,
			       pm_error *err)
{
	size_t h;

	if (!d || !name || !col)
		return pm__fail(err, PM_EINVAL, "no dataset, name or index");
	h = (size_t)fnv1a(FNV_OFFSET, name, strlen(name)) & d->mask;
	for (; d->slot[h]; h = (h + 1) & d->mask) {
		if (strcmp(d->names[d->slot[h] - 1], name) == 0) {
			*col = d->slot[h] - 1;
			return PM_OK;
		}
	}
	return pm__fail(err, PM_ESCHEMA, "no column '%s' in %s", name, d->name);
}

const char *pm_dataset_cell(const pm_dataset *d, size_t row, size_t col)
{
	return d && row < d->nrows && col < d->ncols ? text_at(d, row, col) : NULL;
}

unsigned pm_dataset_cell_line(const pm_dataset *d, size_t row, size_t col)
{
	unsigned line = 0, column = 0;

	if (d && row < d->nrows && col < d->ncols)
		place(d, row, col, &line, &column);
	return line;
}

unsigned pm_dataset_cell_column(const pm_dataset *d, size_t row, size_t col)
{
	unsigned line = 0, column = 0;

	if (d && row < d->nrows && col < d->ncols)
		place(d, row, col, &line, &column);
	return column;
}

int pm_dataset_col_is_numeric(const pm_dataset *d, size_t col)
{
	return d && col < d->ncols && d->col[col].num;
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
	if (c->num) {
		*value = c->num[row];
		return PM_OK;
	}
	level = code_at(c, row);
	s = c->text + c->off[level];
	switch ((enum num)c->kind[level]) {
	case NUM_OK:
		*value = c->value[level];
		return PM_OK;
	case NUM_EMPTY:
		place(d, row, col, &line, &column);
		return pm__fail_at(err, PM_ESCHEMA, d->name, line, column,
				   "column '%s': empty cell", d->names[col]);
	case NUM_TEXT:
		place(d, row, col, &line, &column);
		return pm__fail_at(err, PM_ESCHEMA, d->name, line, column,
				   "column '%s': '%.64s' is not a number", d->names[col], s);
	case NUM_INFINITE:
		break;
	}
	place(d, row, col, &line, &column);
	return pm__fail_at(err, PM_ESCHEMA, d->name, line, column,
			   "column '%s': '%.64s' is not a finite number", d->names[col], s);
}

pm_status pm_dataset_col_numbers(const pm_dataset *d, size_t col, const double **values,
				 pm_error *err)
{
	const column *c;
	size_t r = 0;

	if (!d || !values)
		return pm__fail(err, PM_EINVAL, "no dataset or values");
	if (col >= d->ncols)
		return pm__fail(err, PM_EINVAL, "no column %zu in %s", col, d->name);
	c = &d->col[col];
	*values = c->num;
	if (c->num)
		return PM_OK;
	/* not every level is a number, so some row's is not: say which first */
	while (c->kind[code_at(c, r)] == NUM_OK)
		r++;
	return pm_dataset_number(d, r, col, &(double){ 0 }, err);
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
		codes[r] = (uint32_t)code_at(&d->col[col], r);
}

/* Each name and cell is hashed with its NUL, and each row with a line end
 * after it, so that moving text between cells or rows changes the hash. */
void pm_dataset_fingerprint(const pm_dataset *d, char out[17])
{
	uint64_t h = FNV_OFFSET;

	if (d) {
		for (size_t r = 0; r <= d->nrows; r++) {
			for (size_t c = 0; c < d->ncols; c++) {
				const char *s = r ? text_at(d, r - 1, c) : d->names[c];

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
