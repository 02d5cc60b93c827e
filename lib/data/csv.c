#include "data/csv.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/prefault.h"

/* How long a row may be: cells are 32-bit offsets from their row's start.
 * A macro so that a test can try the limit without a 4 GiB file. */
#ifndef PM_CSV_ROW_MAX
#define PM_CSV_ROW_MAX UINT32_MAX
#endif

/* Measurements never need fields or headers this big; a file that has them
 * is a binary, a log pasted into a cell or a transposed table, and saying so
 * beats building tables of millions of columns. */
#define PM_CSV_FIELD_MAX ((size_t)1 << 20)
#define PM_CSV_COLS_MAX 10000

/* Bytes that end a run of plain text; one table lookup per byte keeps the
 * scan fast. NUL is in both because buf[end] is set to NUL as a sentinel, so
 * the loops need no bounds check of their own. */
static const unsigned char plain_stop[256] = {
	[0] = 1, [','] = 1, ['\n'] = 1, ['\r'] = 1,
};
static const unsigned char quoted_stop[256] = {
	[0] = 1, ['"'] = 1, ['\n'] = 1, ['\r'] = 1,
};

/* An array grown to hold `need` (> *cap) elements of `size` bytes, or NULL
 * with the old one untouched, as with realloc. */
static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap > SIZE_MAX / 2 ? SIZE_MAX : *cap ? *cap * 2 : 256;
	void *p;

	if (n < need)
		n = need;	/* a presize: exactly what was asked */
	if (n > SIZE_MAX / size)
		return NULL;
	p = realloc(v, n * size);
	if (p)
		*cap = n;
	return p;
}

static unsigned saturate(size_t x)
{
	return x > UINT_MAX ? UINT_MAX : (unsigned)x;
}

/* Records are lines, but for the line starts `extra` inside quoted fields. */
static void locate(const size_t *extra, size_t nextra, size_t rec, size_t rec_start,
		   size_t off, unsigned *line, unsigned *column)
{
	size_t lo = 0, hi = nextra, start = rec_start;

	/* lo = how many extra line starts are at or before off */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (extra[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && extra[lo - 1] > rec_start)
		start = extra[lo - 1];
	*line = rec < SIZE_MAX - lo ? saturate(rec + lo + 1) : UINT_MAX;
	*column = saturate(off - start + 1);
}

void pm__csv_place(const pm_csv *t, size_t rec, size_t off, unsigned *line,
		   unsigned *column)
{
	if (!t->row || rec >= t->nrecords) {
		*line = *column = 0;
		return;
	}
	locate(t->extra, t->nextra, rec, t->row[rec], off, line, column);
}

void pm__csv_free(pm_csv *t)
{
	if (!t)
		return;
	free(t->buf);
	free(t->row);
	free(t->cell);
	free(t->extra);
	memset(t, 0, sizeof(*t));
}

/* The tokenizer's tables while they grow. Streaming (fn set), row holds
 * nothing and cell only the current record's fields. */
struct tok {
	pm_csv_row_fn fn;
	void *ctx;
	size_t *row, nrow, caprow;
	uint32_t *cell;
	size_t ncell, capcell;
	size_t *extra, nextra, capextra;
	const char *name;
	pm_error *err;
};

static int reserve(struct tok *k, size_t rows, size_t cells, size_t extra)
{
	void *p;

	if (rows > k->caprow && !k->fn) {
		if (!(p = grow(k->row, &k->caprow, rows, sizeof(*k->row))))
			return -1;
		k->row = p;
	}
	if (cells > k->capcell) {
		if (!(p = grow(k->cell, &k->capcell, cells, sizeof(*k->cell))))
			return -1;
		k->cell = p;
	}
	if (extra > k->capextra) {
		if (!(p = grow(k->extra, &k->capextra, extra, sizeof(*k->extra))))
			return -1;
		k->extra = p;
	}
	return 0;
}

static pm_status fail_here(const struct tok *k, size_t rec_start, size_t off,
			   const char *msg)
{
	unsigned line, column;

	locate(k->extra, k->nextra, k->nrow - 1, rec_start, off, &line, &column);
	return pm__fail_at(k->err, PM_EPARSE, k->name, line, column, "%s", msg);
}

static pm_status after_quote(const struct tok *k, size_t rec_start, size_t off,
			     unsigned char c)
{
	char msg[64];

	/* a control or non-ASCII byte would garble the message: show its code */
	if (c > 0x20 && c < 0x7f)
		snprintf(msg, sizeof(msg), "unexpected '%c' after closing quote", c);
	else
		snprintf(msg, sizeof(msg), "unexpected byte 0x%02x after closing quote", c);
	return fail_here(k, rec_start, off, msg);
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* Size the tables for the rest of the file at once: a memchr pass is far
 * cheaper than growing (and copying) tables of hundreds of megabytes. Line
 * ends inside quotes make this an overestimate, CR-only files an
 * underestimate; either way the tables still grow as needed. */
static int presize(struct tok *k, const char *buf, size_t pos, size_t end, size_t ncols)
{
	size_t rows = 1;

	for (const char *p = buf + pos; (p = memchr(p, '\n', end - (size_t)(p - buf))); p++)
		rows++;
	if (rows > SIZE_MAX / ncols - k->nrow)
		return 0;	/* absurd: let growth find out */
	if (reserve(k, k->nrow + rows, k->ncell + rows * ncols, k->nextra))
		return -1;
	/* the tokenizer fills them, but for what line ends in quotes added */
	pm__prefault(k->row + k->nrow, (k->caprow - k->nrow) * sizeof(*k->row));
	pm__prefault(k->cell + k->ncell, (k->capcell - k->ncell) * sizeof(*k->cell));
	return 0;
}

void pm__csv_row_place(const pm_csv_row *r, size_t col, unsigned *line, unsigned *column)
{
	locate(r->extra, r->nextra, r->rec, r->start, r->start + r->cell[col], line, column);
}

/* Hands each record to k->fn, or keeps the tables (k->fn NULL). buf stays
 * the caller's; *ncols: fields per record. */
static pm_status scan(struct tok *k, char *buf, size_t len, size_t *ncols_out)
{
	const char *name = k->name;
	pm_error *err = k->err;
	size_t pos = 0, end = len, ncols = 0;
	pm_status rc;

	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		pos = 3;
	/* Dropping every line end at the very end removes the blank lines the
	 * format lets us ignore and makes the last row end at `end` whether or
	 * not it had a line end. It cannot cut into a valid quoted field, which
	 * ends with a quote; an unterminated one stays unterminated. */
	while (end > pos && (buf[end - 1] == '\n' || buf[end - 1] == '\r'))
		end--;
	buf[end] = '\0';
	if (end == pos) {
		rc = pm__fail_at(err, PM_EPARSE, name, 1, 1, "empty file");
		goto fail;
	}

	for (;;) {
		size_t rec_start = pos, nfields = 0;
		unsigned char c;

		if (k->fn) {
			k->nrow++;
			k->ncell = 0;
		} else {
			if (k->nrow == k->caprow && reserve(k, k->nrow + 1, k->ncell, k->nextra))
				goto oom;
			k->row[k->nrow++] = rec_start;
		}
		for (;;) {
			size_t start = pos, w;

			if (buf[pos] == '"') {
				w = pos++;
				for (;;) {
					c = (unsigned char)buf[pos];
					if (!quoted_stop[c]) {
						buf[w++] = (char)c;
						pos++;
						continue;
					}
					if (c == '"') {
						pos++;
						if (buf[pos] != '"')
							break;
						buf[w++] = '"';
						pos++;
						continue;
					}
					if (c == '\0') {
						rc = pos >= end ?
							fail_here(k, rec_start, start,
								  "unterminated quoted field") :
							fail_here(k, rec_start, pos,
								  "nul byte in text");
						goto fail;
					}
					buf[w++] = (char)c;
					pos++;
					if (c == '\n' || buf[pos] != '\n') {
						if (k->nextra == k->capextra &&
						    reserve(k, k->nrow, k->ncell, k->nextra + 1))
							goto oom;
						k->extra[k->nextra++] = pos;
					}
				}
				c = (unsigned char)buf[pos];
				if (!plain_stop[c] || (c == '\0' && pos < end)) {
					rc = after_quote(k, rec_start, pos, c);
					goto fail;
				}
			} else {
				while (!plain_stop[(unsigned char)buf[pos]])
					pos++;
				c = (unsigned char)buf[pos];
				if (c == '\0' && pos < end) {
					rc = fail_here(k, rec_start, pos, "nul byte in text");
					goto fail;
				}
				w = pos;
			}
			if (start - rec_start > PM_CSV_ROW_MAX) {
				rc = fail_here(k, rec_start, rec_start, "row longer than 4 GiB");
				goto fail;
			}
			if (pos - start > PM_CSV_FIELD_MAX) {
				rc = fail_here(k, rec_start, start, "field longer than 1 MiB");
				goto fail;
			}
			if (k->nrow == 1 && nfields == PM_CSV_COLS_MAX) {
				rc = fail_here(k, rec_start, start, "more than 10000 columns");
				goto fail;
			}
			if (k->ncell == k->capcell && reserve(k, k->nrow, k->ncell + 1, k->nextra))
				goto oom;
			k->cell[k->ncell++] = (uint32_t)(start - rec_start);
			/* c was read first: for an unquoted field w == pos */
			buf[w] = '\0';
			nfields++;
			if (c != ',')
				break;
			pos++;
		}

		if (k->nrow == 1) {
			ncols = nfields;
			if (!k->fn && pos < end && presize(k, buf, pos, end, ncols))
				goto oom;
		} else if (nfields != ncols) {
			unsigned line, column;

			locate(k->extra, k->nextra, k->nrow - 1, rec_start, rec_start, &line, &column);
			rc = pm__fail_at(err, PM_EPARSE, name, line, column,
					 "row has %zu field%s, header has %zu", nfields,
					 plural(nfields), ncols);
			goto fail;
		}
		if (k->fn) {
			const pm_csv_row r = { buf, k->nrow - 1, rec_start, k->cell, ncols,
					       k->extra, k->nextra };

			if ((rc = k->fn(k->ctx, &r, err)))
				goto fail;
		}
		if (pos >= end)
			break;
		pos += c == '\r' && buf[pos + 1] == '\n' ? 2 : 1;
	}

	if (k->nrow < 2) {
		rc = pm__fail_at(err, PM_EPARSE, name, saturate(k->nextra + 2), 1, "no data rows");
		goto fail;
	}
	*ncols_out = ncols;
	return PM_OK;
oom:
	rc = pm__fail(err, PM_ENOMEM, "out of memory");
fail:
	return rc;
}

pm_status pm__csv_tokenize(char *buf, size_t len, const char *name, pm_csv *t,
			   pm_error *err)
{
	struct tok k = { .name = name, .err = err };
	size_t ncols = 0;
	pm_status rc;

	memset(t, 0, sizeof(*t));
	if ((rc = scan(&k, buf, len, &ncols))) {
		free(k.row);
		free(k.cell);
		free(k.extra);
		free(buf);
		return rc;
	}
	t->buf = buf;
	t->len = len;
	t->ncols = ncols;
	t->nrecords = k.nrow;
	t->row = k.row;
	t->cell = k.cell;
	t->extra = k.extra;
	t->nextra = k.nextra;
	return PM_OK;
}

pm_status pm__csv_scan(char *buf, size_t len, const char *name, pm_csv_row_fn fn, void *ctx,
		       pm_error *err)
{
	struct tok k = { .fn = fn, .ctx = ctx, .name = name, .err = err };
	size_t ncols;
	pm_status rc = scan(&k, buf, len, &ncols);

	free(k.cell);
	free(k.extra);
	return rc;
}
