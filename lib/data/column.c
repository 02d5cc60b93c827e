#include "data/column.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "data/dataset_table.h"

void pm__column_free(column *c)
{
	free(c->code);
	free(c->off);
	free(c->text);
	free(c->value);
	free(c->kind);
}

/* A column while its rows are added, one at a time: the rows of a CSV
 * file are typed as they are read, so that the file's text is the only
 * other copy of the table ever held. */
struct builder {
	column *c;
	size_t cap, len, size;	/* room for levels; the text's length and room */
	uint32_t *slot;		/* open addressing: level + 1, or 0 for a free slot */
	size_t mask;
	size_t room;		/* rows c->code has room for */
	int text;		/* a level is no number */
};

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
		size_t h = (size_t)pm__fnv1a(PM_FNV_OFFSET, s, strlen(s)) & b->mask;

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
	size_t n = strlen(s), h = (size_t)pm__fnv1a(PM_FNV_OFFSET, s, n) & b->mask, v = c->nlevels;
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

		if (!(p = pm__resize(c->off, cap, sizeof(*c->off))))
			return -1;
		c->off = p;
		if (!(p = pm__resize(c->value, cap, sizeof(*c->value))))
			return -1;
		c->value = p;
		if (!(p = pm__resize(c->kind, cap, sizeof(*c->kind))))
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
	unsigned char *p = pm__resize(c->code, room, w);

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
	return !c->code || rehash(b, 16);
}

/* Row r (the next) of the column is text s, cell (row, col) of src. */
static pm_status builder_add(builder *b, size_t r, const char *s, const source *src,
			     size_t row, size_t col, pm_error *err)
{
	column *c = b->c;
	int64_t v = level_of(b, src, row, col, s);
	void *p;

	if (v < 0)
		return pm__oom(err);
	if (r == b->room) {
		size_t room = b->room * 2;

		if (!(p = pm__resize(c->code, room, c->width)))
			return pm__oom(err);
		c->code = p;
		b->room = room;
	}
	if ((c->nlevels == 257 && c->width == 1) || (c->nlevels == 65537 && c->width == 2))
		if (widen(c, r, b->room))
			return pm__oom(err);
	if (c->width == 1)
		((uint8_t *)c->code)[r] = (uint8_t)v;
	else if (c->width == 2)
		((uint16_t *)c->code)[r] = (uint16_t)v;
	else
		((uint32_t *)c->code)[r] = (uint32_t)v;
	b->text |= c->kind[v] != PM_NUM_OK;
	return PM_OK;
}

/* After the last of nrows rows: the text shrunk to fit (nothing points
 * into it, so it may move), the levels' and rows' arrays too, and a
 * numeric column's kinds dropped (each would be PM_NUM_OK). */
static pm_status builder_finish(builder *b, size_t nrows, pm_error *err)
{
	column *c = b->c;
	char *text = realloc(c->text, b->len + 1);
	void *p;

	free(b->slot);
	b->slot = NULL;
	if (!text)
		return pm__oom(err);
	c->text = text;
	if (c->nlevels) {
		if (!(p = realloc(c->off, c->nlevels * sizeof(*c->off))))
			return pm__oom(err);
		c->off = p;
		if (!(p = realloc(c->value, c->nlevels * sizeof(*c->value))))
			return pm__oom(err);
		c->value = p;
	}
	c->numeric = !b->text;
	if (c->numeric) {
		free(c->kind);
		c->kind = NULL;
	}
	if (c->nlevels == nrows && nrows) {
		/* a time or an id: no code says more than the row */
		free(c->code);
		c->code = NULL;
		c->width = 0;
	} else if ((p = realloc(c->code, nrows * c->width + 1))) {
		c->code = p;
	} else {
		return pm__oom(err);
	}
	return PM_OK;
}

builder *pm__builders_new(pm_dataset *d, size_t room)
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

pm_status pm__builders_end(pm_dataset *d, builder *b, pm_status st, pm_error *err)
{
	for (size_t c = 0; c < d->ncols; c++) {
		if (!st)
			st = builder_finish(&b[c], d->nrows, err);
		free(b[c].slot);
	}
	free(b);
	return st;
}

pm_status pm__add_row(pm_dataset *d, builder *b, size_t r, const source *src, size_t row,
		      pm_error *err)
{
	pm_status st;

	for (size_t c = 0; c < d->ncols; c++)
		if ((st = builder_add(&b[c], r, src->text(src, row, c), src, row, c, err)))
			return st;
	return PM_OK;
}

pm_status pm__build_rows(pm_dataset *d, const source *src, pm_error *err)
{
	builder *b = pm__builders_new(d, d->nrows);
	pm_status st = PM_OK;

	if (!b)
		return pm__oom(err);
	for (size_t r = 0; r < d->nrows && !st; r++)
		st = pm__add_row(d, b, r, src, r, err);
	return pm__builders_end(d, b, st, err);
}

pm_num pm__level_number(const source *s, size_t row, size_t col, const char *text,
			double *v)
{
	(void)s;
	(void)row;
	(void)col;
	*v = NAN;
	return pm__parse_number(text, v);
}

