/* The typed columns of a pm_dataset and how they are built, row by row.
 * Private to lib/data. */
#ifndef PM_COLUMN_H
#define PM_COLUMN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/error.h"
#include "data/number.h"
#include "perfmodel/perfmodel.h"

/*
 * A column as ingest typed it: each row's level (its distinct text, in the
 * order of first appearance) and each level's number. Each level's text was
 * parsed once, so nothing after ingest parses a cell. Most columns have few
 * levels: their codes take one byte a row, and their numbers are a few
 * doubles, not one a row (a row's number is its level's).
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
	int numeric;		/* every level is a finite number */
	double *value;		/* each level's number (NaN if none) */
	/* When not numeric: why each level's number is or is none (pm_num),
	 * for pm_dataset_number's answer about one cell; NULL when numeric. */
	unsigned char *kind;
} column;

/* What the columns are made from: the text of each cell, and the number of
 * a level first seen at a cell (parsed from its text, or a parent's).
 * Row SIZE_MAX is the header. */
typedef struct source {
	const char *(*text)(const struct source *s, size_t row, size_t col);
	pm_num (*number)(const struct source *s, size_t row, size_t col, const char *text,
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

typedef struct builder builder;

#define PM_FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define PM_FNV_PRIME UINT64_C(0x100000001b3)

/* 64-bit FNV-1a of s[0, n), continuing from h (PM_FNV_OFFSET to start). */
static inline uint64_t pm__fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= PM_FNV_PRIME;
	}
	return h;
}

/* Row `row`'s level. */
static inline size_t pm__code_at(const column *c, size_t row)
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

static inline pm_status pm__oom(pm_error *err)
{
	return pm__fail(err, PM_ENOMEM, "out of memory");
}

/* realloc to n elements of `size` bytes, NULL on overflow too */
static inline void *pm__resize(void *p, size_t n, size_t size)
{
	return n > SIZE_MAX / size ? NULL : realloc(p, n * size);
}

void pm__column_free(column *c);	/* its arrays; c itself is the caller's */

/* A source's number of a level: its text parsed (row and col unused). */
pm_num pm__level_number(const source *s, size_t row, size_t col, const char *text,
			double *v);

/* Builders for every column of d, room rows each (the rows expected: more
 * may come), or NULL (out of memory). */
builder *pm__builders_new(pm_dataset *d, size_t room);
/* Row r of d is row `row` of src. */
pm_status pm__add_row(pm_dataset *d, builder *b, size_t r, const source *src, size_t row,
		      pm_error *err);
/* After d->nrows rows: each builder finished (when st is PM_OK) and freed;
 * the first error, st's or a finish's. */
pm_status pm__builders_end(pm_dataset *d, builder *b, pm_status st, pm_error *err);
/* d's d->nrows rows, row r of d being row r of src. */
pm_status pm__build_rows(pm_dataset *d, const source *src, pm_error *err);

#endif
