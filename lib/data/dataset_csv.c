#include "data/dataset_table.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset_impl.h"
#include "core/utf8.h"

/* row SIZE_MAX is the header, in every source; a CSV source is the
 * record at hand, whichever it is */
static const char *csv_text(const source *s, size_t row, size_t col)
{
	const pm_csv_row *t = s->from;

	(void)row;
	return t->buf + t->start + t->cell[col];
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
		unsigned *p = pm__resize(d->row_line, n, sizeof(*p));

		if (!p)
			return pm__oom(err);
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
	if ((st = pm__dataset_add_exception(d, r, &x->ncap, err)))
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
		if (!(x->d = pm__dataset_alloc(x->name, t->ncols)))
			return pm__oom(err);
		x->d->placed = 1;
		if ((st = pm__dataset_set_names(x->d, &x->src, PM_EPARSE, t, err)))
			return st;
		return (x->b = pm__builders_new(x->d, x->rows)) ? PM_OK : pm__oom(err);
	}
	if ((st = csv_places(x, t, r, err)) || (st = pm__add_row(x->d, x->b, r, &x->src, r, err)))
		return st;
	x->d->nrows = r + 1;
	return PM_OK;
}

/* Takes ownership of buf (len + 1 bytes) whatever happens. */
static pm_status from_buffer(char *buf, size_t len, const char *name, pm_dataset **out,
			     pm_error *err)
{
	reading x = { .name = name, .src = { .text = csv_text, .number = pm__level_number } };
	pm_status st;

	/* Codes sized once for as many rows as lines: growing them would copy
	 * them, and the copies' pages stay with the process. Line
	 * ends in quotes make this an overestimate (never touched), CR-only
	 * files an underestimate (then they grow). */
	for (const char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf))); p++)
		x.rows++;
	st = pm__csv_scan(buf, len, name ? name : "<input>", csv_record, &x, err);
	/* the file's text is done with: the columns hold what is needed */
	free(buf);
	if (x.b)
		st = pm__builders_end(x.d, x.b, st, err);
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
	if (len && pm__utf8_check(text, len, name ? name : "<input>", err) != PM_OK)
		return PM_EPARSE;
	/* the tokenizer wants a spare byte for its sentinel */
	buf = len < SIZE_MAX ? malloc(len + 1) : NULL;
	if (!buf)
		return pm__oom(err);
	if (len)
		memcpy(buf, text, len);
	return from_buffer(buf, len, name, out, err);
}

