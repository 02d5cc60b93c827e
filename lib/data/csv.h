/*
 * The RFC 4180 tokenizer behind pm_dataset. Private to the libraries.
 *
 * It works in place, so that a million-row file costs one buffer and a few
 * bytes per cell, with no allocation per cell: every field is unquoted and
 * NUL-terminated where it starts in the file (unquoting only shrinks a field,
 * and the separator after it gives room for the NUL). A cell's offset is thus
 * both where its text is and where it stands in the file. Offsets are kept
 * per row (size_t) plus per cell from the row's start (32 bits, so a row may
 * not exceed 4 GiB), and rows are lines except where a quoted field holds a
 * line end: those few line starts are listed apart, to find places again.
 * pm__csv_scan hands each record over as it is read instead, keeping no
 * table: the dataset types the cells as they come (lib/data/dataset_csv.c).
 *
 * Places: line is 1-based; column is the 1-based byte offset of the field's
 * first byte (its opening quote when quoted) within its line. Line 1 is
 * counted after a UTF-8 BOM, so a BOM never shifts a column.
 *
 * Accepted: a header row and data rows; fields separated by ','; quoted
 * fields in which "" is a quote and ',', CR and LF are plain text (an
 * embedded line end is kept as it was); LF, CRLF or a lone CR ending a row;
 * a last row with or without a line end; any blank lines at the end of the
 * file. A quote inside an unquoted field is taken as text. A blank line
 * elsewhere is a row with one empty field.
 */
#ifndef PM_CSV_H
#define PM_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "perfmodel/predict.h"

typedef struct pm_csv {
	char *buf;		/* owned: len + 1 bytes, fields NUL-terminated in place */
	size_t len;
	size_t ncols;		/* fields in the header */
	size_t nrecords;	/* rows including the header, so >= 2 */
	size_t *row;		/* owned: nrecords offsets of each row's start in buf */
	uint32_t *cell;		/* owned: nrecords * ncols, field start - row start */
	size_t *extra;		/* owned: line starts inside quoted fields, ascending */
	size_t nextra;
} pm_csv;

/* Where field (rec, col) starts in buf: its text, and its place in the file. */
static inline size_t pm__csv_offset(const pm_csv *t, size_t rec, size_t col)
{
	return t->row[rec] + t->cell[rec * t->ncols + col];
}

/*
 * Tokenize buf[0, len), which must have one more byte after it (any value).
 * Ownership of buf passes to the call whatever it returns: on success it is
 * t->buf, to be released with pm__csv_free(t); on failure it has been freed
 * and *t is empty. `name` labels errors (NULL: none).
 *
 * Errors: PM_EPARSE with a place: "empty file" (1:1), "no data rows" (the
 * line after the header, column 1), "row has N fields, header has M" (the
 * row's first line, column 1), "unterminated quoted field" (the opening
 * quote), "unexpected 'c' after closing quote" or "unexpected byte 0xNN
 * after closing quote" (that byte), "nul byte in text" (that byte: cells are
 * C strings), "row longer than 4 GiB" (the row's start), "field longer than
 * 1 MiB" (its start, counting quotes), "more than 10000 columns" (the
 * header's 10001st field). PM_ENOMEM.
 */
pm_status pm__csv_tokenize(char *buf, size_t len, const char *name, pm_csv *t,
			   pm_error *err);

/* One record as pm__csv_scan hands it over: its fields are NUL-terminated
 * in buf at start + cell[0, ncols); extra: the line starts inside quoted
 * fields so far (for its places). Valid during the call only. */
typedef struct pm_csv_row {
	const char *buf;
	size_t rec;		/* 0: the header */
	size_t start;		/* its first byte in buf */
	const uint32_t *cell;
	size_t ncols;
	const size_t *extra;
	size_t nextra;
} pm_csv_row;

typedef pm_status (*pm_csv_row_fn)(void *ctx, const pm_csv_row *row, pm_error *err);

/* The same tokenizer, streaming: each record, the header first, goes to
 * fn as soon as it is read, and no table is kept (a reader that keeps its
 * own form of the cells needs no second copy of their offsets). buf stays
 * the caller's, modified as by pm__csv_tokenize. Errors: those of
 * pm__csv_tokenize, and fn's, which stops the scan. */
pm_status pm__csv_scan(char *buf, size_t len, const char *name, pm_csv_row_fn fn, void *ctx,
		       pm_error *err);
/* The place of field col of a record handed to fn. */
void pm__csv_row_place(const pm_csv_row *r, size_t col, unsigned *line, unsigned *column);

/* Free what t owns and empty it; t itself is the caller's. An empty t is fine. */
void pm__csv_free(pm_csv *t);

/* The place of byte offset `off` within record `rec` (e.g. a cell's offset).
 * Saturates at UINT_MAX rather than wrapping for huge files. */
void pm__csv_place(const pm_csv *t, size_t rec, size_t off, unsigned *line,
		   unsigned *column);

#endif
