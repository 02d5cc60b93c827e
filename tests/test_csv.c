/* The tokenizer on its own: cell texts, places, and every parse error. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/csv.h"
#include "leak_check.h"

PM_LEAK_CHECKED_SUITE(csv);

/* Tests' own allocations: a failure here is no library error. */
static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	return p;
}

static pm_status tok_n(const char *text, size_t len, pm_csv *t, pm_error *err)
{
	char *buf = xmalloc(len + 1);

	memcpy(buf, text, len);
	memset(err, 0, sizeof(*err));
	return pm__csv_tokenize(buf, len, "t.csv", t, err);
}

static pm_status tok(const char *text, pm_csv *t, pm_error *err)
{
	return tok_n(text, strlen(text), t, err);
}

static const char *cell(const pm_csv *t, size_t rec, size_t col)
{
	cr_assert_lt(rec, t->nrecords);
	cr_assert_lt(col, t->ncols);
	return t->buf + pm__csv_offset(t, rec, col);
}

static void expect_place(const pm_csv *t, size_t rec, size_t col, unsigned line,
			 unsigned column)
{
	unsigned l, c;

	pm__csv_place(t, rec, pm__csv_offset(t, rec, col), &l, &c);
	cr_expect_eq(l, line, "record %zu col %zu: line %u, want %u", rec, col, l, line);
	cr_expect_eq(c, column, "record %zu col %zu: column %u, want %u", rec, col, c, column);
}

static void expect_fail(const char *text, size_t len, unsigned line, unsigned column,
			const char *msg)
{
	pm_csv t;
	pm_error err;
	pm_status rc = tok_n(text, len, &t, &err);

	cr_assert_eq(rc, PM_EPARSE, "rc %d for input of %zu bytes", rc, len);
	cr_expect_eq(err.code, PM_EPARSE);
	cr_expect_str_eq(err.msg, msg);
	cr_expect_str_eq(err.file, "t.csv");
	cr_expect_eq(err.line, line, "line %u, want %u (%s)", err.line, line, msg);
	cr_expect_eq(err.column, column, "column %u, want %u (%s)", err.column, column, msg);
	cr_expect_null(t.buf);
	cr_expect_null(t.cell);
	cr_expect_null(t.row);
	cr_expect_null(t.extra);
	cr_expect_eq(t.nrecords, 0);
}

#define FAIL(text, line, column, msg) expect_fail(text, sizeof(text) - 1, line, column, msg)

Test(csv, simple)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("a,bb,c\n1,22,333\n4,5,6\n", &t, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(t.ncols, 3);
	cr_assert_eq(t.nrecords, 3);
	cr_expect_str_eq(cell(&t, 0, 0), "a");
	cr_expect_str_eq(cell(&t, 0, 1), "bb");
	cr_expect_str_eq(cell(&t, 0, 2), "c");
	cr_expect_str_eq(cell(&t, 1, 1), "22");
	cr_expect_str_eq(cell(&t, 1, 2), "333");
	cr_expect_str_eq(cell(&t, 2, 0), "4");
	cr_expect_str_eq(cell(&t, 2, 2), "6");
	expect_place(&t, 0, 0, 1, 1);
	expect_place(&t, 0, 1, 1, 3);
	expect_place(&t, 0, 2, 1, 6);
	expect_place(&t, 1, 0, 2, 1);
	expect_place(&t, 1, 1, 2, 3);
	expect_place(&t, 1, 2, 2, 6);
	expect_place(&t, 2, 2, 3, 5);
	cr_expect_eq(t.nextra, 0);
	pm__csv_free(&t);
	cr_expect_null(t.buf);
	pm__csv_free(&t);	/* an emptied t is fine twice */
}

Test(csv, quoted_fields)
{
	static const char text[] =
		"name,note,x\n"
		"\"a,b\",\"say \"\"hi\"\"\",1\n"
		"\"multi\nline\",z,2\n"
		"last,\"\",\"\"\"\"\n";
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok(text, &t, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(t.ncols, 3);
	cr_assert_eq(t.nrecords, 4);
	cr_expect_str_eq(cell(&t, 1, 0), "a,b");
	cr_expect_str_eq(cell(&t, 1, 1), "say \"hi\"");
	cr_expect_str_eq(cell(&t, 1, 2), "1");
	cr_expect_str_eq(cell(&t, 2, 0), "multi\nline");
	cr_expect_str_eq(cell(&t, 2, 1), "z");
	cr_expect_str_eq(cell(&t, 2, 2), "2");
	cr_expect_str_eq(cell(&t, 3, 0), "last");
	cr_expect_str_eq(cell(&t, 3, 1), "");
	cr_expect_str_eq(cell(&t, 3, 2), "\"");
	/* a quoted field's place is its opening quote */
	expect_place(&t, 1, 0, 2, 1);
	expect_place(&t, 1, 1, 2, 7);
	expect_place(&t, 1, 2, 2, 20);
	expect_place(&t, 2, 0, 3, 1);
	/* after the embedded line end: the next line, counted from its start */
	expect_place(&t, 2, 1, 4, 7);
	expect_place(&t, 2, 2, 4, 9);
	expect_place(&t, 3, 0, 5, 1);
	expect_place(&t, 3, 1, 5, 6);
	expect_place(&t, 3, 2, 5, 9);
	cr_expect_eq(t.nextra, 1);
	pm__csv_free(&t);
}

Test(csv, quoted_header_and_all_quoted)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("\"a b\",\"c\"\n\"1\",\"2\"", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(cell(&t, 0, 0), "a b");
	cr_expect_str_eq(cell(&t, 0, 1), "c");
	cr_expect_str_eq(cell(&t, 1, 0), "1");
	cr_expect_str_eq(cell(&t, 1, 1), "2");
	expect_place(&t, 1, 1, 2, 5);
	pm__csv_free(&t);
}

Test(csv, crlf)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("a,b\r\n1,\"x\r\ny\"\r\n3,4\r\n", &t, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(t.nrecords, 3);
	cr_expect_str_eq(cell(&t, 0, 1), "b");
	cr_expect_str_eq(cell(&t, 1, 0), "1");
	/* a line end inside quotes is text and is kept as written */
	cr_expect_str_eq(cell(&t, 1, 1), "x\r\ny");
	cr_expect_str_eq(cell(&t, 2, 0), "3");
	cr_expect_str_eq(cell(&t, 2, 1), "4");
	expect_place(&t, 1, 1, 2, 3);
	expect_place(&t, 2, 0, 4, 1);
	expect_place(&t, 2, 1, 4, 3);
	pm__csv_free(&t);
}

Test(csv, lone_cr)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("a,b\r1,2\r3,\"x\ry\"", &t, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(t.nrecords, 3);
	cr_expect_str_eq(cell(&t, 1, 1), "2");
	cr_expect_str_eq(cell(&t, 2, 0), "3");
	cr_expect_str_eq(cell(&t, 2, 1), "x\ry");
	expect_place(&t, 2, 1, 3, 3);
	cr_expect_eq(t.nextra, 1);
	pm__csv_free(&t);
}

Test(csv, mixed_line_ends)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("a\n1\r\n2\r3\n", &t, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(t.nrecords, 4);
	cr_expect_str_eq(cell(&t, 1, 0), "1");
	cr_expect_str_eq(cell(&t, 2, 0), "2");
	cr_expect_str_eq(cell(&t, 3, 0), "3");
	expect_place(&t, 3, 0, 4, 1);
	pm__csv_free(&t);
}

Test(csv, bom)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("\xEF\xBB\xBF" "a,b\n1,2\n", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(cell(&t, 0, 0), "a");
	/* columns of line 1 count from after the BOM */
	expect_place(&t, 0, 0, 1, 1);
	expect_place(&t, 0, 1, 1, 3);
	expect_place(&t, 1, 1, 2, 3);
	pm__csv_free(&t);

	/* a BOM before a quoted header name */
	cr_assert_eq(tok("\xEF\xBB\xBF\"a\"\n1\n", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(cell(&t, 0, 0), "a");
	pm__csv_free(&t);

	/* the BOM only counts at the very start */
	cr_assert_eq(tok("a\n\xEF\xBB\xBFx\n", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(cell(&t, 1, 0), "\xEF\xBB\xBFx");
	pm__csv_free(&t);
}

Test(csv, no_trailing_newline)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("a,b\n1,2", &t, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(t.nrecords, 2);
	cr_expect_str_eq(cell(&t, 1, 1), "2");
	pm__csv_free(&t);

	/* an empty last field without a line end */
	cr_assert_eq(tok("a,b\n1,", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(cell(&t, 1, 0), "1");
	cr_expect_str_eq(cell(&t, 1, 1), "");
	expect_place(&t, 1, 1, 2, 3);
	pm__csv_free(&t);

	cr_assert_eq(tok("a,b\n1,\"q\"", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(cell(&t, 1, 1), "q");
	pm__csv_free(&t);
}

Test(csv, trailing_blank_lines)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("a,b\n1,2\n\n\r\n\n\r", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(t.nrecords, 2);
	cr_expect_eq(t.nextra, 0);
	pm__csv_free(&t);

	/* with one column a blank line would be an empty cell; at the end it is not */
	cr_assert_eq(tok("x\n1\n2\n\n\n", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(t.nrecords, 3);
	cr_expect_str_eq(cell(&t, 2, 0), "2");
	pm__csv_free(&t);

	/* a line end inside the last quoted field is not a blank line */
	cr_assert_eq(tok("x\n\"1\n\n\"\n\n", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(t.nrecords, 2);
	cr_expect_str_eq(cell(&t, 1, 0), "1\n\n");
	pm__csv_free(&t);
}

Test(csv, blank_line_inside)
{
	pm_csv t;
	pm_error err;

	/* one column: a blank line in the middle is a row with an empty cell */
	cr_assert_eq(tok("x\n1\n\n2\n", &t, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(t.nrecords, 4);
	cr_expect_str_eq(cell(&t, 2, 0), "");
	expect_place(&t, 2, 0, 3, 1);
	cr_expect_str_eq(cell(&t, 3, 0), "2");
	pm__csv_free(&t);

	FAIL("a,b\n1,2\n\n3,4\n", 3, 1, "row has 1 field, header has 2");
}

Test(csv, empty_fields)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("a,b,c\n,,\n", &t, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(t.nrecords, 2);
	for (size_t c = 0; c < 3; c++) {
		cr_expect_str_eq(cell(&t, 1, c), "");
		expect_place(&t, 1, c, 2, (unsigned)c + 1);
	}
	pm__csv_free(&t);
}

Test(csv, quote_inside_unquoted_field_is_text)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("a,b\nx\"y,5\" in\n", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(cell(&t, 1, 0), "x\"y");
	cr_expect_str_eq(cell(&t, 1, 1), "5\" in");
	pm__csv_free(&t);
}

Test(csv, utf8_columns_are_bytes)
{
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok("\xC3\xA9t\xC3\xA9,b\n1,2\n", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(cell(&t, 0, 0), "\xC3\xA9t\xC3\xA9");
	expect_place(&t, 0, 1, 1, 7);
	pm__csv_free(&t);
}

Test(csv, many_rows)
{
	size_t n = 200000, len = 0, cap = n * 24 + 16;
	char *text = xmalloc(cap);
	pm_csv t;
	pm_error err;
	char want[32];

	len += (size_t)snprintf(text, cap, "i,sq\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len,
				       i % 2 ? "%zu,\"%zu\"\r\n" : "%zu,%zu\n", i, i * i);
	cr_assert_eq(tok_n(text, len, &t, &err), PM_OK, "%s", err.msg);
	free(text);
	cr_assert_eq(t.nrecords, n + 1);
	snprintf(want, sizeof(want), "%zu", (n - 1) * (n - 1));
	cr_expect_str_eq(cell(&t, n, 1), want);
	cr_expect_str_eq(cell(&t, 12345, 0), "12344");
	expect_place(&t, n, 0, (unsigned)n + 1, 1);
	expect_place(&t, n, 1, (unsigned)n + 1, 8);
	pm__csv_free(&t);

	/* CR line ends only: no presizing, the tables grow as they go */
	text = xmalloc(cap);
	len = (size_t)snprintf(text, cap, "i,sq\r");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%zu,%zu\r", i, i * i);
	cr_assert_eq(tok_n(text, len, &t, &err), PM_OK, "%s", err.msg);
	free(text);
	cr_assert_eq(t.nrecords, n + 1);
	cr_expect_str_eq(cell(&t, n, 1), want);
	expect_place(&t, n, 1, (unsigned)n + 1, 8);
	pm__csv_free(&t);
}

Test(csv, error_empty_file)
{
	FAIL("", 1, 1, "empty file");
	FAIL("\xEF\xBB\xBF", 1, 1, "empty file");
	FAIL("\n\r\n\n", 1, 1, "empty file");
	FAIL("\xEF\xBB\xBF\r\n", 1, 1, "empty file");
}

Test(csv, error_no_data_rows)
{
	FAIL("a,b\n", 2, 1, "no data rows");
	FAIL("a,b", 2, 1, "no data rows");
	FAIL("a,b\r\n\r\n\r\n", 2, 1, "no data rows");
	/* a header spread over two lines by a quoted name */
	FAIL("\"a\nb\",c\n", 3, 1, "no data rows");
}

Test(csv, error_field_count)
{
	FAIL("a,b,c,d\n1,2,3,4\n1,2,3\n", 3, 1, "row has 3 fields, header has 4");
	FAIL("a,b\n1,2,3\n", 2, 1, "row has 3 fields, header has 2");
	FAIL("a\n1\n2,3\n", 3, 1, "row has 2 fields, header has 1");
	FAIL("a,b\n1,2\n3", 3, 1, "row has 1 field, header has 2");
	/* the place is the row's first line, even when a quoted field spans lines */
	FAIL("a,b\n1,2\n\"x\ny\",2,3\n", 3, 1, "row has 3 fields, header has 2");
	/* a quoted comma is no separator */
	FAIL("a,b\n\"1,2\"\n", 2, 1, "row has 1 field, header has 2");
}

Test(csv, error_unterminated_quote)
{
	FAIL("a,b\n1,\"xx\n\n", 2, 3, "unterminated quoted field");
	FAIL("a,b\n1,\"xx", 2, 3, "unterminated quoted field");
	FAIL("a,\"b\n1,2\n", 1, 3, "unterminated quoted field");
	FAIL("a,b\n1,\"x\"\"\n", 2, 3, "unterminated quoted field");
	FAIL("a,b\n1,\"", 2, 3, "unterminated quoted field");
	FAIL("a,b\n1,2\n\"x\ny\n3,4\n", 3, 1, "unterminated quoted field");
}

Test(csv, error_after_closing_quote)
{
	FAIL("a,b\n1,\"xy\"z\n", 2, 7, "unexpected 'z' after closing quote");
	FAIL("\"a\" ,b\n1,2\n", 1, 4, "unexpected byte 0x20 after closing quote");
	FAIL("a,b\n\"1\"\"\"2\n", 2, 6, "unexpected '2' after closing quote");
	/* a quote that seemed to open a field spanning lines closes it instead */
	FAIL("a,b\n1,2\n\"x\ny\n3,\"z\n", 5, 4, "unexpected 'z' after closing quote");
	FAIL("a\n\"\x01\"\x01\n", 2, 4, "unexpected byte 0x01 after closing quote");
}

Test(csv, error_nul_byte)
{
	FAIL("a,b\n1,x\0y\n", 2, 4, "nul byte in text");
	FAIL("a,b\n1,\"x\0y\"\n", 2, 5, "nul byte in text");
	FAIL("a,b\n1,\"x\"\0\n", 2, 6, "unexpected byte 0x00 after closing quote");
}

Test(csv, place_without_table)
{
	pm_csv t = { 0 };
	unsigned l = 9, c = 9;

	pm__csv_place(&t, 0, 3, &l, &c);
	cr_expect_eq(l, 0);
	cr_expect_eq(c, 0);
}

Test(csv, error_without_err)
{
	char *buf = xmalloc(4);
	pm_csv t;

	memcpy(buf, "a,b", 3);
	cr_expect_eq(pm__csv_tokenize(buf, 3, NULL, &t, NULL), PM_EPARSE);
}

Test(csv, places_after_many_embedded_line_ends)
{
	static const char text[] =
		"a,\"b\nc\"\n"		/* lines 1-2: a header name spans two lines */
		"\"x\ny\nz\",1\n"	/* lines 3-5 */
		"2,\"p\r\nq\"\r\n"	/* lines 6-7 */
		"3,4\n"			/* line 8 */
		"\"\n\",5\n";		/* lines 9-10 */
	pm_csv t;
	pm_error err;

	cr_assert_eq(tok(text, &t, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(t.nrecords, 5);
	cr_expect_eq(t.nextra, 5);
	cr_expect_str_eq(cell(&t, 0, 1), "b\nc");
	cr_expect_str_eq(cell(&t, 1, 0), "x\ny\nz");
	cr_expect_str_eq(cell(&t, 2, 1), "p\r\nq");
	cr_expect_str_eq(cell(&t, 4, 0), "\n");
	expect_place(&t, 0, 1, 1, 3);
	expect_place(&t, 1, 0, 3, 1);
	expect_place(&t, 1, 1, 5, 4);
	expect_place(&t, 2, 0, 6, 1);
	expect_place(&t, 2, 1, 6, 3);
	expect_place(&t, 3, 0, 8, 1);
	expect_place(&t, 3, 1, 8, 3);
	expect_place(&t, 4, 0, 9, 1);
	expect_place(&t, 4, 1, 10, 3);
	pm__csv_free(&t);

	/* errors after embedded line ends are placed the same way */
	FAIL("a,\"b\nc\"\n\"x\ny\nz\",1,2\n", 3, 1, "row has 3 fields, header has 2");
	FAIL("a,\"b\nc\"\n\"x\ny\nz\",\"1\n", 5, 4, "unterminated quoted field");
	FAIL("a,\"b\nc\"\n\"x\ny\nz\",\"1\"?\n", 5, 7, "unexpected '?' after closing quote");
}

/* A 1 MiB field is fine, one byte more is refused where the field starts
 * (its quotes count: they are in the file). */
Test(csv, error_field_too_long)
{
	const size_t mib = (size_t)1 << 20;
	char *text = xmalloc(mib + 64);
	pm_csv t;
	pm_error err;
	size_t n;

	n = (size_t)sprintf(text, "a,b\n1,");
	memset(text + n, 'x', mib);
	n += mib;
	cr_assert_eq(tok_n(text, n, &t, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(strlen(t.buf + pm__csv_offset(&t, 1, 1)), mib);
	pm__csv_free(&t);
	text[n++] = 'x';
	expect_fail(text, n, 2, 3, "field longer than 1 MiB");
	n = (size_t)sprintf(text, "a,b\n1,\"");
	memset(text + n, 'x', mib - 1);
	n += mib - 1;
	text[n++] = '"';
	expect_fail(text, n, 2, 3, "field longer than 1 MiB");
	free(text);
}

/* 10 000 columns are fine; the 10 001st header field is refused. */
Test(csv, error_too_many_columns)
{
	char *text = xmalloc(16 * 10002 + 16);
	pm_csv t;
	pm_error err;
	size_t n = 0, col11 = 0;

	for (int c = 0; c < 10000; c++)
		n += (size_t)sprintf(text + n, "%sc%d", c ? "," : "", c);
	n += (size_t)sprintf(text + n, "\n");
	for (int c = 0; c < 10000; c++)
		n += (size_t)sprintf(text + n, "%s1", c ? "," : "");
	cr_assert_eq(tok_n(text, n, &t, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(t.ncols, 10000);
	pm__csv_free(&t);
	n = 0;
	for (int c = 0; c <= 10000; c++) {
		if (c == 10000)
			col11 = n + 2;	/* after the comma, 1-based */
		n += (size_t)sprintf(text + n, "%sc%d", c ? "," : "", c);
	}
	n += (size_t)sprintf(text + n, "\n1\n");
	expect_fail(text, n, 1, (unsigned)col11, "more than 10000 columns");
	free(text);
}

/* ---- streaming ------------------------------------------------------------ */

struct seen {
	size_t nrec, stop_at;
	char text[8][4][8];
	unsigned place[8][4][2];
};

static pm_status on_record(void *ctx, const pm_csv_row *r, pm_error *err)
{
	struct seen *s = ctx;

	cr_assert_eq(r->rec, s->nrec);
	cr_assert_eq(r->ncols, 3);
	for (size_t c = 0; c < r->ncols; c++) {
		snprintf(s->text[r->rec][c], sizeof(s->text[0][0]), "%s",
			 r->buf + r->start + r->cell[c]);
		pm__csv_row_place(r, c, &s->place[r->rec][c][0], &s->place[r->rec][c][1]);
	}
	s->nrec++;
	if (s->nrec == s->stop_at) {
		snprintf(err->msg, sizeof(err->msg), "stop");
		return err->code = PM_ESCHEMA;
	}
	return PM_OK;
}

static pm_status scan_text(const char *text, struct seen *s, pm_error *err)
{
	size_t len = strlen(text);
	char *buf = xmalloc(len + 1);
	pm_status rc;

	memcpy(buf, text, len);
	rc = pm__csv_scan(buf, len, "t.csv", on_record, s, err);
	free(buf);
	return rc;
}

/* Each record as it is read, header first, with its fields and places;
 * the callback's error stops the scan; the tokenizer's own errors too. */
Test(csv, scan)
{
	static const char text[] = "a,b,c\n1,\"x\n,y\",3\r\n4,5,\"\"\n";
	struct seen s = { 0 };
	pm_error err = { 0 };

	cr_assert_eq(scan_text(text, &s, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(s.nrec, 3);
	cr_expect_str_eq(s.text[0][2], "c");
	cr_expect_str_eq(s.text[1][1], "x\n,y");
	cr_expect_str_eq(s.text[2][2], "");
	cr_expect_eq(s.place[1][2][0], 3);
	cr_expect_eq(s.place[1][2][1], 5);
	cr_expect_eq(s.place[2][0][0], 4);
	cr_expect_eq(s.place[2][2][1], 5);

	s = (struct seen){ .stop_at = 2 };
	cr_expect_eq(scan_text(text, &s, &err), PM_ESCHEMA);
	cr_expect_str_eq(err.msg, "stop");
	cr_expect_eq(s.nrec, 2);

	s = (struct seen){ 0 };
	cr_expect_eq(scan_text("a,b,c\n1,2\n", &s, &err), PM_EPARSE);
	cr_expect_str_eq(err.msg, "row has 2 fields, header has 3");
	cr_expect_eq(s.nrec, 1);
	s = (struct seen){ 0 };
	cr_expect_eq(scan_text("a,b,c\n", &s, &err), PM_EPARSE);
	cr_expect_str_eq(err.msg, "no data rows");
}

/* The row length limit, on a copy of the tokenizer built with a limit of 8
 * bytes instead of 4 GiB. */
#define PM_CSV_ROW_MAX 8
#define pm__csv_tokenize small_tokenize
#define pm__csv_free small_free
#define pm__csv_place small_place
#define pm__csv_scan small_scan
#define pm__csv_row_place small_row_place
#include "../lib/data/csv.c"
#undef pm__csv_tokenize
#undef pm__csv_free
#undef pm__csv_place

Test(csv, error_row_too_long)
{
	static const char ok[] = "a,b\n1234567,x\n", bad[] = "a,b\n1,2\n12345678,x\n";
	char *buf;
	pm_csv t;
	pm_error err = { 0 };

	buf = xmalloc(sizeof(ok));
	memcpy(buf, ok, sizeof(ok));
	cr_assert_eq(small_tokenize(buf, sizeof(ok) - 1, "t.csv", &t, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(t.buf + pm__csv_offset(&t, 1, 1), "x");
	small_free(&t);

	buf = xmalloc(sizeof(bad));
	memcpy(buf, bad, sizeof(bad));
	cr_assert_eq(small_tokenize(buf, sizeof(bad) - 1, "t.csv", &t, &err), PM_EPARSE);
	cr_expect_str_eq(err.msg, "row longer than 4 GiB");
	cr_expect_eq(err.line, 3);
	cr_expect_eq(err.column, 1);
	cr_expect_null(t.buf);
}
