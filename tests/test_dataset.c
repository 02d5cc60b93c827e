/* pm_dataset: reading, accessors, numbers, fingerprint, the private builder,
 * and every error, out-of-memory included. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfmodel/perfmodel.h"
#include "data/dataset_impl.h"
#include "leak_check.h"

PM_LEAK_CHECKED_SUITE(dataset);

/* Allocation failure injection: alloc_fail.h. */
#include "alloc_fail.h"

/* Tests' own allocations: a failure here is no library error. */
static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	return p;
}

static char *data_path(const char *rel)
{
	const char *dir = getenv("PM_TEST_DATA");
	char *p;

	cr_assert_not_null(dir, "PM_TEST_DATA is not set");
	p = xmalloc(strlen(dir) + strlen(rel) + 2);
	sprintf(p, "%s/%s", dir, rel);
	return p;
}

static pm_dataset *parse(const char *text)
{
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	pm_status rc = pm_dataset_parse_csv(text, strlen(text), "m.csv", &d, &err);

	cr_assert_eq(rc, PM_OK, "%s", err.msg);
	cr_assert_not_null(d);
	return d;
}

static void expect_parse_fail(const char *text, pm_status code, unsigned line,
			      unsigned column, const char *msg)
{
	pm_dataset *d = (pm_dataset *)1;
	pm_error err = { 0 };
	pm_status rc = pm_dataset_parse_csv(text, strlen(text), "m.csv", &d, &err);

	cr_assert_eq(rc, code, "rc %d for %s", rc, text);
	cr_expect_null(d);
	cr_expect_eq(err.code, code);
	cr_expect_str_eq(err.msg, msg);
	cr_expect_str_eq(err.file, "m.csv");
	cr_expect_eq(err.line, line, "line %u, want %u", err.line, line);
	cr_expect_eq(err.column, column, "column %u, want %u", err.column, column);
}

static void expect_number_fail(const pm_dataset *d, size_t row, size_t col,
			       unsigned line, unsigned column, const char *msg)
{
	pm_error err = { 0 };
	double v = 42;

	cr_assert_eq(pm_dataset_number(d, row, col, &v, &err), PM_ESCHEMA,
		     "row %zu col %zu", row, col);
	cr_expect_eq(err.code, PM_ESCHEMA);
	cr_expect_str_eq(err.msg, msg);
	cr_expect_str_eq(err.file, pm_dataset_name(d));
	cr_expect_eq(err.line, line, "line %u, want %u (%s)", err.line, line, msg);
	cr_expect_eq(err.column, column, "column %u, want %u (%s)", err.column, column, msg);
	cr_expect_eq(v, 42, "value changed on failure");
}

/* ---- reading -------------------------------------------------------------- */

Test(dataset, read_file)
{
	char *path = data_path("csv/basic.csv");
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	size_t col = 99;

	cr_assert_eq(pm_dataset_read_csv(path, &d, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(pm_dataset_name(d), path);
	cr_assert_eq(pm_dataset_ncols(d), 4);
	cr_assert_eq(pm_dataset_nrows(d), 3);
	cr_expect_str_eq(pm_dataset_col_name(d, 0), "threads");
	cr_expect_str_eq(pm_dataset_col_name(d, 3), "time_per_iter_s");
	cr_expect_null(pm_dataset_col_name(d, 4));
	cr_expect_str_eq(pm_dataset_cell(d, 0, 2), "relu");
	cr_expect_str_eq(pm_dataset_cell(d, 1, 2), "tanh");
	cr_expect_str_eq(pm_dataset_cell(d, 2, 3), "0.2");
	cr_expect_eq(pm_dataset_cell_line(d, 1, 2), 3);
	cr_expect_eq(pm_dataset_cell_column(d, 1, 2), 6);
	cr_expect_eq(pm_dataset_cell_line(d, 2, 3), 4);
	cr_expect_eq(pm_dataset_cell_column(d, 2, 3), 12);
	cr_expect_eq(pm_dataset_col_index(d, "activation", &col, &err), PM_OK);
	cr_expect_eq(col, 2);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 0), 1);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 2), 0);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 3), 1);
	pm_dataset_free(d);
	free(path);
}

Test(dataset, read_file_bom_crlf_quoted_no_final_newline)
{
	char *path = data_path("csv/bom_crlf.csv");
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	double v;

	cr_assert_eq(pm_dataset_read_csv(path, &d, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_ncols(d), 3);
	cr_assert_eq(pm_dataset_nrows(d), 2);
	cr_expect_str_eq(pm_dataset_col_name(d, 0), "id");
	cr_expect_str_eq(pm_dataset_cell(d, 0, 1), "two\r\nlines");
	cr_expect_str_eq(pm_dataset_cell(d, 0, 2), "0.5");
	cr_expect_eq(pm_dataset_cell_line(d, 0, 2), 3);
	cr_expect_eq(pm_dataset_cell_column(d, 0, 2), 8);
	cr_expect_str_eq(pm_dataset_cell(d, 1, 2), "0.25");
	cr_expect_eq(pm_dataset_cell_line(d, 1, 0), 4);
	cr_expect_eq(pm_dataset_cell_column(d, 1, 2), 9);
	cr_expect_eq(pm_dataset_number(d, 1, 2, &v, &err), PM_OK);
	cr_expect_eq(v, 0.25);
	pm_dataset_free(d);
	free(path);
}

/* Reading path fails with code and exactly msg, at line:column (0:0 where
 * no place applies), leaving *out NULL. */
static void read_fails(const char *path, pm_status code, const char *msg, unsigned line,
		       unsigned column)
{
	pm_dataset *d = (pm_dataset *)1;
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_read_csv(path, &d, &err), code);
	cr_expect_null(d);
	cr_expect_eq(err.code, code);
	cr_expect_str_eq(err.file, path);
	cr_expect_str_eq(err.msg, msg);
	cr_expect_eq(err.line, line);
	cr_expect_eq(err.column, column);
}

Test(dataset, read_file_parse_error_names_file)
{
	char *path = data_path("csv/unterminated.csv");

	read_fails(path, PM_EPARSE, "unterminated quoted field", 3, 3);
	free(path);
}

Test(dataset, read_file_missing)
{
	read_fails("/nonexistent/dir/nope.csv", PM_EIO, "cannot open: No such file or directory",
		   0, 0);
}

Test(dataset, read_directory)
{
	char *path = data_path("csv");

	read_fails(path, PM_EIO, "not a regular file (a folder): give a file, a pipe, or - to read "
		   "standard input", 0, 0);
	free(path);
}

Test(dataset, read_device)
{
	read_fails("/dev/zero", PM_EIO, "not a regular file (a character device): give a file, "
		   "a pipe, or - to read standard input", 0, 0);
}

/* A FIFO nobody writes to is refused at once, never waited for. */
Test(dataset, read_fifo_without_writer)
{
	char path[64] = "/tmp/pm_fifo_XXXXXX";

	cr_assert_not_null(mkdtemp(path));
	strcat(path, "/f");
	cr_assert_eq(mkfifo(path, 0600), 0);
	read_fails(path, PM_EIO, "a FIFO with no writer: give a file, or - to read standard input",
		   0, 0);
	unlink(path);
	path[strlen(path) - 2] = '\0';
	rmdir(path);
}

/* "-" reads standard input, here a file put there. */
Test(dataset, read_stdin)
{
	char path[] = "/tmp/pm_stdin_XXXXXX";
	int fd = mkstemp(path), saved = dup(STDIN_FILENO);
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	cr_assert_neq(fd, -1);
	cr_assert_eq(write(fd, "k,v\n1,2\n3,4\n", 12), 12);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	cr_assert_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	cr_assert_eq(pm_dataset_read_csv("-", &d, &err), PM_OK, "%s", err.msg);
	dup2(saved, STDIN_FILENO);
	close(saved);
	close(fd);
	unlink(path);
	cr_expect_eq(pm_dataset_nrows(d), 2);
	cr_expect_str_eq(pm_dataset_name(d), "-");
	pm_dataset_free(d);
}

Test(dataset, read_pipe)
{
	/* not a regular file: no size known in advance, so the buffer grows */
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	char path[64];
	size_t n = 50000;
	int fd[2];
	pid_t pid;

	cr_assert_eq(pipe(fd), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		FILE *f = fdopen(fd[1], "w");

		close(fd[0]);
		fputs("k,v\n", f);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%zu,%zu\n", i, 3 * i);
		fclose(f);
		_exit(0);
	}
	close(fd[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", fd[0]);
	cr_assert_eq(pm_dataset_read_csv(path, &d, &err), PM_OK, "%s", err.msg);
	close(fd[0]);
	waitpid(pid, NULL, 0);
	cr_expect_eq(pm_dataset_nrows(d), n);
	cr_expect_str_eq(pm_dataset_cell(d, n - 1, 1), "149997");
	cr_expect_eq(pm_dataset_cell_line(d, n - 1, 1), n + 1);
	pm_dataset_free(d);
}

/* The input size limit, on a copy of the reader built with a limit of 100
 * bytes instead of 1 GiB. */
#define PM_READ_MAX 100
#define pm__read_file small_read_file
#include "../lib/core/read_file.c"
#undef pm__read_file

/* small_read_file of `n` bytes of CSV text, from a regular file or a pipe. */
static pm_status read_small(size_t n, int from_pipe, pm_error *err)
{
	char path[64], *text = NULL, *buf = xmalloc(n);
	size_t len = 0;
	pm_status st;
	int fd[2];

	memset(buf, '1', n);
	memcpy(buf, "a\n", 2);
	if (from_pipe) {
		/* it fits the pipe's buffer: no writer process needed */
		cr_assert_eq(pipe(fd), 0);
		cr_assert_eq(write(fd[1], buf, n), (ssize_t)n);
		close(fd[1]);
		snprintf(path, sizeof(path), "/dev/fd/%d", fd[0]);
	} else {
		snprintf(path, sizeof(path), "/tmp/pm_read_max_XXXXXX");
		fd[0] = mkstemp(path);
		cr_assert_neq(fd[0], -1);
		cr_assert_eq(write(fd[0], buf, n), (ssize_t)n);
	}
	st = small_read_file(path, &text, &len, err);
	close(fd[0]);
	if (!from_pipe)
		unlink(path);
	if (st == PM_OK) {
		cr_expect_eq(len, n);
		cr_expect_eq(memcmp(text, buf, n), 0);
		cr_expect_eq(text[n], '\0');
	} else {
		cr_expect_null(text);
		cr_expect_eq(len, 0);
		cr_expect_str_eq(err->file, path);
	}
	free(text);
	free(buf);
	return st;
}

Test(dataset, read_limit)
{
	pm_error err = { 0 };

	for (int from_pipe = 0; from_pipe < 2; from_pipe++) {
		cr_expect_eq(read_small(100, from_pipe, &err), PM_OK, "%s", err.msg);
		cr_expect_eq(read_small(101, from_pipe, &err), PM_EIO, "pipe %d", from_pipe);
		cr_expect_str_eq(err.msg, "cannot read: larger than 1 GiB");
	}
}

Test(dataset, parse_default_name_and_len)
{
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	size_t col;

	/* len, not the NUL, ends the text */
	cr_assert_eq(pm_dataset_parse_csv("a,b\n1,2\nXXXX", 8, NULL, &d, &err), PM_OK,
		     "%s", err.msg);
	cr_expect_str_eq(pm_dataset_name(d), "<input>");
	cr_expect_eq(pm_dataset_nrows(d), 1);
	cr_expect_eq(pm_dataset_col_index(d, "zz", &col, &err), PM_ESCHEMA);
	cr_expect_str_eq(err.msg, "no column 'zz' in <input>");
	pm_dataset_free(d);

	cr_expect_eq(pm_dataset_parse_csv(NULL, 0, NULL, &d, &err), PM_EPARSE);
	cr_expect_str_eq(err.msg, "empty file");
	cr_expect_str_eq(err.file, "<input>");
	cr_expect_eq(pm_dataset_parse_csv(NULL, 3, NULL, &d, &err), PM_EINVAL);
	cr_expect_eq(pm_dataset_parse_csv("a", 1, NULL, NULL, &err), PM_EINVAL);
	cr_expect_eq(pm_dataset_read_csv(NULL, &d, &err), PM_EINVAL);
	cr_expect_null(d);
	cr_expect_eq(pm_dataset_read_csv("x", NULL, &err), PM_EINVAL);
	/* err may be NULL */
	cr_expect_eq(pm_dataset_parse_csv("a", 1, NULL, &d, NULL), PM_EPARSE);
	pm_dataset_free(NULL);
}

Test(dataset, csv_errors_through_dataset)
{
	expect_parse_fail("", PM_EPARSE, 1, 1, "empty file");
	expect_parse_fail("a,b\n", PM_EPARSE, 2, 1, "no data rows");
	expect_parse_fail("a,b,c,d\n1,2,3,4\n1,2,3\n", PM_EPARSE, 3, 1,
			  "row has 3 fields, header has 4");
	expect_parse_fail("a,b\n1,\"x\n", PM_EPARSE, 2, 3, "unterminated quoted field");
	expect_parse_fail("a,b\n\"1\"2,3\n", PM_EPARSE, 2, 4,
			  "unexpected '2' after closing quote");
}

Test(dataset, empty_column_name)
{
	expect_parse_fail("a,,c\n1,2,3\n", PM_EPARSE, 1, 3, "empty column name");
	expect_parse_fail(",b\n1,2\n", PM_EPARSE, 1, 1, "empty column name");
	expect_parse_fail("a,b,\n1,2,3\n", PM_EPARSE, 1, 5, "empty column name");
	expect_parse_fail("a,\"\"\n1,2\n", PM_EPARSE, 1, 3, "empty column name");
	/* a blank first line is a header with one empty name */
	expect_parse_fail("\nx\n", PM_EPARSE, 1, 1, "empty column name");
}

Test(dataset, duplicate_column_name)
{
	expect_parse_fail("a,b,a\n1,2,3\n", PM_EPARSE, 1, 5, "duplicate column name 'a'");
	expect_parse_fail("\xEF\xBB\xBFx,y,\"y\"\n1,2,3\n", PM_EPARSE, 1, 5,
			  "duplicate column name 'y'");
	/* names are compared exactly: case and blanks matter */
	pm_dataset *d = parse("a,A,a \n1,2,3\n");
	pm_dataset_free(d);
}

Test(dataset, wide_header)
{
	/* enough names to exercise the name index's probing and growth */
	size_t n = 3000, len = 0, cap = n * 16 + 16;
	char *text = xmalloc(cap);
	pm_dataset *d;
	pm_error err = { 0 };
	size_t col = 0;

	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%sc%zu", i ? "," : "", i);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%s%zu", i ? "," : "\n", i);
	text[len] = '\0';
	d = parse(text);
	cr_assert_eq(pm_dataset_ncols(d), n);
	for (size_t i = 0; i < n; i += 7) {
		char name[32];

		snprintf(name, sizeof(name), "c%zu", i);
		cr_assert_eq(pm_dataset_col_index(d, name, &col, &err), PM_OK, "%s", name);
		cr_assert_eq(col, i);
	}
	cr_expect_eq(pm_dataset_col_index(d, "c3000", &col, &err), PM_ESCHEMA);
	pm_dataset_free(d);

	/* the same with a repeat at the very end */
	snprintf(text, cap, "c0");
	len = 2;
	for (size_t i = 1; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, ",c%zu", i);
	col = len + 2;
	len += (size_t)snprintf(text + len, cap - len, ",c1234\n");
	for (size_t i = 0; i <= n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%s1", i ? "," : "");
	expect_parse_fail(text, PM_EPARSE, 1, (unsigned)col, "duplicate column name 'c1234'");
	free(text);
}

/* ---- accessors ------------------------------------------------------------- */

Test(dataset, accessors_out_of_range)
{
	pm_dataset *d = parse("a,b\n1,2\n");
	double v = 7;
	pm_error err = { 0 };

	cr_expect_null(pm_dataset_cell(d, 1, 0));
	cr_expect_null(pm_dataset_cell(d, 0, 2));
	cr_expect_eq(pm_dataset_cell_line(d, 1, 0), 0);
	cr_expect_eq(pm_dataset_cell_column(d, 0, 2), 0);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 2), 0);
	cr_expect_eq(pm_dataset_number(d, 1, 0, &v, &err), PM_EINVAL);
	cr_expect_eq(pm_dataset_number(d, 0, 0, NULL, &err), PM_EINVAL);
	cr_expect_eq(pm_dataset_col_index(d, NULL, NULL, &err), PM_EINVAL);
	cr_expect_eq(v, 7);
	cr_expect_eq(pm_dataset_nrows(NULL), 0);
	cr_expect_eq(pm_dataset_ncols(NULL), 0);
	cr_expect_null(pm_dataset_name(NULL));
	pm_dataset_free(d);
}

/* ---- numbers ---------------------------------------------------------------- */

Test(dataset, numbers)
{
	pm_dataset *d = parse("x,y\n"
			      "1,-2.5\n"
			      " 3 ,\t1e-3\t\n"
			      "\"4.0\",+7E2\n"
			      "0,.5\n"
			      "1e-320,-0\n");
	pm_error err = { 0 };
	double v;

	cr_expect_eq(pm_dataset_number(d, 0, 0, &v, &err), PM_OK);
	cr_expect_eq(v, 1.0);
	cr_expect_eq(pm_dataset_number(d, 0, 1, &v, &err), PM_OK);
	cr_expect_eq(v, -2.5);
	cr_expect_eq(pm_dataset_number(d, 1, 0, &v, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(v, 3.0);
	cr_expect_eq(pm_dataset_number(d, 1, 1, &v, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(v, 1e-3);
	cr_expect_eq(pm_dataset_number(d, 2, 0, &v, &err), PM_OK);
	cr_expect_eq(v, 4.0);
	cr_expect_eq(pm_dataset_number(d, 2, 1, &v, &err), PM_OK);
	cr_expect_eq(v, 700.0);
	cr_expect_eq(pm_dataset_number(d, 3, 1, &v, &err), PM_OK);
	cr_expect_eq(v, 0.5);
	/* underflow to a subnormal is still a finite number */
	cr_expect_eq(pm_dataset_number(d, 4, 0, &v, &err), PM_OK);
	cr_expect_eq(v, 1e-320);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 0), 1);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 1), 1);
	pm_dataset_free(d);
}

/* Plain decimals skip strtod (lib/data/dataset.c, fast_decimal): every value
 * must still be strtod's bit for bit, on both sides of the fast path's
 * limits (2^53, 19 digits, 10^±22) and with its signs and zeros. */
Test(dataset, numbers_are_strtods)
{
	static const char *const cells[] = {
		"0.1", "0.3", "-0", "-0.0", "+0", "007", "1e22", "1e23", "1e-22", "1e-23",
		"9007199254740992", "9007199254740993", "18446744073709551615",
		"1234567890123456789", "12345678901234567890", "0.000000000000000000001",
		"4.35e-05", "0.004301776", "1e-05", ".5", "5.", "2.2250738585072014e-308",
		"1.7976931348623157e308", "123456.789e-3", "1E+2", "3.141592653589793238",
		/* significant digits counted after leading zeros, on both sides */
		"00000000000000000000001.5", "0.000000000000000000001234567890123456789",
		"0.0000000000000000000012345678901234567891", "0.1234567890123456789",
		"1.2345678901234567890", "0.00000000000000000000000000000001e40", "0.0",
	};
	size_t n = sizeof(cells) / sizeof(cells[0]), len = 2;
	char *text = xmalloc(n * 64);
	pm_dataset *d;

	memcpy(text, "x\n", 2);
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%s\n", cells[i]);
	d = parse(text);
	for (size_t i = 0; i < n; i++) {
		double v, want = strtod(cells[i], NULL);

		cr_assert_eq(pm_dataset_number(d, i, 0, &v, NULL), PM_OK, "%s", cells[i]);
		cr_expect_eq(memcmp(&v, &want, sizeof(v)), 0, "%s: %.17g, strtod %.17g", cells[i],
			     v, want);
	}
	pm_dataset_free(d);
	free(text);
}

Test(dataset, number_errors)
{
	pm_dataset *d = parse("n,threads,t\n"
			      "1,abc,2\n"
			      "2,,inf\n"
			      "3,  ,nan\n"
			      "4,1.5abc,1e999\n"
			      "5,0x10,-Infinity\n"
			      "6,\"1\n\",\"\n1\"\n"
			      "7,1 2,-1e400\n");
	pm_error err = { 0 };
	double v;

	expect_number_fail(d, 0, 1, 2, 3, "column 'threads': 'abc' is not a number");
	expect_number_fail(d, 1, 1, 3, 3, "column 'threads': empty cell");
	expect_number_fail(d, 1, 2, 3, 4, "column 't': 'inf' is not a finite number");
	expect_number_fail(d, 2, 1, 4, 3, "column 'threads': empty cell");
	expect_number_fail(d, 2, 2, 4, 6, "column 't': 'nan' is not a finite number");
	expect_number_fail(d, 3, 1, 5, 3, "column 'threads': '1.5abc' is not a number");
	expect_number_fail(d, 3, 2, 5, 10, "column 't': '1e999' is not a finite number");
	expect_number_fail(d, 4, 1, 6, 3, "column 'threads': '0x10' is not a number");
	expect_number_fail(d, 4, 2, 6, 8, "column 't': '-Infinity' is not a finite number");
	/* a message never carries a raw control character: escaped */
	expect_number_fail(d, 5, 1, 7, 3, "column 'threads': '1\\x0a' is not a number");
	expect_number_fail(d, 5, 2, 8, 3, "column 't': '\\x0a1' is not a number");
	expect_number_fail(d, 6, 1, 10, 3, "column 'threads': '1 2' is not a number");
	expect_number_fail(d, 6, 2, 10, 7, "column 't': '-1e400' is not a finite number");
	cr_expect_eq(pm_dataset_col_is_numeric(d, 0), 1);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 1), 0);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 2), 0);
	/* err may be NULL */
	cr_expect_eq(pm_dataset_number(d, 0, 1, &v, NULL), PM_ESCHEMA);
	(void)err;
	pm_dataset_free(d);
}

Test(dataset, numeric_detection)
{
	pm_dataset *d = parse("all,one_empty,one_text,one_inf,one_nan,one_hex\n"
			      "1,1,1,1,1,1\n"
			      "2.5,,x,inf,nan,0x1p3\n"
			      "-3e2,3,3,3,3,3\n");

	cr_expect_eq(pm_dataset_col_is_numeric(d, 0), 1);
	for (size_t c = 1; c < 6; c++)
		cr_expect_eq(pm_dataset_col_is_numeric(d, c), 0, "column %zu", c);
	pm_dataset_free(d);
}

/* ---- typed columns ---------------------------------------------------------- */

Test(dataset, column_numbers)
{
	pm_dataset *d = parse("n,t,x\n"
			      "1,0.5,a\n"
			      "2,,3\n"
			      "1,abc,4\n");
	pm_error err = { 0 };
	double v[3];

	cr_assert_eq(pm_dataset_col_numbers(d, 0, v, &err), PM_OK);
	cr_expect_eq(v[0], 1.0);
	cr_expect_eq(v[1], 2.0);
	cr_expect_eq(v[2], 1.0);
	/* the first cell that is no number, in row order, with its place;
	 * nothing written */
	v[0] = v[1] = v[2] = -7.0;
	cr_expect_eq(pm_dataset_col_numbers(d, 1, v, &err), PM_ESCHEMA);
	cr_expect(v[0] == -7.0 && v[1] == -7.0 && v[2] == -7.0);
	cr_expect_str_eq(err.msg, "column 't': empty cell");
	cr_expect_eq(err.line, 3);
	cr_expect_eq(err.column, 3);
	cr_expect_eq(pm_dataset_col_numbers(d, 2, v, &err), PM_ESCHEMA);
	cr_expect_str_eq(err.msg, "column 'x': 'a' is not a number");
	cr_expect_eq(err.line, 2);
	cr_expect_eq(err.column, 7);
	/* a text column's numeric cells are still numbers, one at a time */
	{
		double x;

		cr_expect_eq(pm_dataset_number(d, 1, 2, &x, NULL), PM_OK);
		cr_expect_eq(x, 3.0);
	}
	cr_expect_eq(pm_dataset_col_numbers(d, 3, v, &err), PM_EINVAL);
	cr_expect_eq(pm_dataset_col_numbers(NULL, 0, v, &err), PM_EINVAL);
	cr_expect_eq(pm_dataset_col_numbers(d, 0, NULL, NULL), PM_EINVAL);
	pm_dataset_free(d);
}

Test(dataset, column_levels)
{
	pm_dataset *d = parse("act,n\n"
			      "tanh,2\n"
			      "relu,2.0\n"
			      "tanh,2\n"
			      "\"\",1\n");
	uint32_t code[4] = { 9, 9, 9, 9 };

	/* in order of first appearance; a number's text as it was written */
	cr_assert_eq(pm_dataset_col_nlevels(d, 0), 3);
	cr_expect_str_eq(pm_dataset_level_name(d, 0, 0), "tanh");
	cr_expect_str_eq(pm_dataset_level_name(d, 0, 1), "relu");
	cr_expect_str_eq(pm_dataset_level_name(d, 0, 2), "");
	cr_expect_null(pm_dataset_level_name(d, 0, 3));
	pm_dataset_col_codes(d, 0, code);
	cr_expect_eq(code[0], 0);
	cr_expect_eq(code[1], 1);
	cr_expect_eq(code[2], 0);
	cr_expect_eq(code[3], 2);
	cr_assert_eq(pm_dataset_col_nlevels(d, 1), 3);
	cr_expect_str_eq(pm_dataset_level_name(d, 1, 1), "2.0");
	cr_expect_str_eq(pm_dataset_cell(d, 1, 1), "2.0");
	/* the same level is the same text */
	cr_expect_eq(pm_dataset_cell(d, 0, 0), pm_dataset_cell(d, 2, 0));
	/* out of range: nothing */
	cr_expect_eq(pm_dataset_col_nlevels(d, 2), 0);
	cr_expect_eq(pm_dataset_col_nlevels(NULL, 0), 0);
	cr_expect_null(pm_dataset_level_name(d, 2, 0));
	cr_expect_null(pm_dataset_level_name(NULL, 0, 0));
	code[0] = 7;
	pm_dataset_col_codes(d, 2, code);
	pm_dataset_col_codes(NULL, 0, code);
	pm_dataset_col_codes(d, 0, NULL);
	cr_expect_eq(code[0], 7);
	pm_dataset_free(d);
}

/* Codes widen from one byte to two past 256 levels and to four past
 * 65 536, and a column whose every row is a level of its own needs none;
 * every cell keeps its text, number and place. */
Test(dataset, many_levels)
{
	size_t n = 70000, len;
	char *text = xmalloc(n * 36 + 8);
	uint32_t *code = xmalloc(n * sizeof(*code));
	double *num = xmalloc(n * sizeof(*num));
	pm_dataset *d;

	memcpy(text, "a,b,c\n", 6);
	len = 6;
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%zu,%zu,%zu\n", i, i % 300, i % 69000);
	d = parse(text);
	cr_assert_eq(pm_dataset_col_nlevels(d, 0), n);
	cr_assert_eq(pm_dataset_col_nlevels(d, 1), 300);
	cr_assert_eq(pm_dataset_col_nlevels(d, 2), 69000);
	cr_expect_str_eq(pm_dataset_cell(d, 69001, 2), "1");
	pm_dataset_col_codes(d, 0, code);
	for (size_t i = 0; i < n; i += 997) {
		char want[24];
		double v;

		sprintf(want, "%zu", i);
		cr_expect_eq(code[i], i);
		cr_expect_str_eq(pm_dataset_cell(d, i, 0), want);
		cr_expect_eq(pm_dataset_number(d, i, 0, &v, NULL), PM_OK);
		cr_expect_eq(v, (double)i);
		cr_expect_eq(pm_dataset_cell_line(d, i, 1), i + 2);
		cr_expect_eq(pm_dataset_cell_column(d, i, 1), strlen(want) + 2);
	}
	pm_dataset_col_codes(d, 1, code);
	cr_expect_eq(code[299], 299);
	cr_expect_eq(code[300], 0);
	pm_dataset_col_codes(d, 2, code);
	cr_expect_eq(code[68999], 68999);
	cr_expect_eq(code[69001], 1);
	/* the whole column's numbers, whatever the codes' width */
	for (size_t c = 0; c < 3; c++) {
		size_t mod[] = { n, 300, 69000 };

		cr_assert_eq(pm_dataset_col_numbers(d, c, num, NULL), PM_OK);
		for (size_t i = 0; i < n; i += 331)
			cr_expect_eq(num[i], (double)(i % mod[c]), "column %zu row %zu", c, i);
	}
	pm_dataset_free(d);
	free(num);
	free(code);
	free(text);
}

/* A row's places follow from its texts unless a quoted field comes before
 * the last; a field spanning lines moves every later row's line. */
Test(dataset, places)
{
	pm_dataset *d = parse("a,b,c\n"
			      "1,22,333\n"
			      "\"x,y\",2,\"p\nq\"\n"
			      "4,\"5\",6\n"
			      "7,8,9\n");
	static const unsigned want[4][3][2] = {
		{ { 2, 1 }, { 2, 3 }, { 2, 6 } },
		{ { 3, 1 }, { 3, 7 }, { 3, 9 } },
		{ { 5, 1 }, { 5, 3 }, { 5, 7 } },
		{ { 6, 1 }, { 6, 3 }, { 6, 5 } },
	};
	size_t rows[] = { 3, 1, 2, 0, 1 };
	pm_dataset *s = NULL;

	for (size_t r = 0; r < 4; r++) {
		for (size_t c = 0; c < 3; c++) {
			cr_expect_eq(pm_dataset_cell_line(d, r, c), want[r][c][0], "%zu %zu", r, c);
			cr_expect_eq(pm_dataset_cell_column(d, r, c), want[r][c][1], "%zu %zu", r,
				     c);
		}
	}
	/* a subset keeps them, whatever the order */
	cr_assert_eq(pm_dataset_subset(d, rows, 5, &s, NULL), PM_OK);
	for (size_t i = 0; i < 5; i++) {
		for (size_t c = 0; c < 3; c++) {
			cr_expect_eq(pm_dataset_cell_line(s, i, c), want[rows[i]][c][0]);
			cr_expect_eq(pm_dataset_cell_column(s, i, c), want[rows[i]][c][1]);
			cr_expect_str_eq(pm_dataset_cell(s, i, c), pm_dataset_cell(d, rows[i], c));
		}
	}
	pm_dataset_free(s);
	pm_dataset_free(d);
}

/* A subset is typed anew: its levels are those of its rows, in its order,
 * and a column whose other rows were text may be numeric in it. */
Test(dataset, subset_types)
{
	pm_dataset *d = parse("k,t\n"
			      "b,1\n"
			      "a,x\n"
			      "c,3\n");
	size_t rows[] = { 2, 0 };
	pm_dataset *s = NULL;
	double v[2];

	cr_assert_eq(pm_dataset_subset(d, rows, 2, &s, NULL), PM_OK);
	cr_expect_eq(pm_dataset_col_nlevels(s, 0), 2);
	cr_expect_str_eq(pm_dataset_level_name(s, 0, 0), "c");
	cr_expect_str_eq(pm_dataset_level_name(s, 0, 1), "b");
	cr_expect_eq(pm_dataset_col_is_numeric(d, 1), 0);
	cr_expect_eq(pm_dataset_col_is_numeric(s, 1), 1);
	cr_assert_eq(pm_dataset_col_numbers(s, 1, v, NULL), PM_OK);
	cr_expect_eq(v[0], 3.0);
	cr_expect_eq(v[1], 1.0);
	pm_dataset_free(s);
	pm_dataset_free(d);
}

/* ---- fingerprint ------------------------------------------------------------ */

static void fingerprint_of(const char *text, char out[17])
{
	pm_dataset *d = parse(text);

	pm_dataset_fingerprint(d, out);
	pm_dataset_free(d);
}

Test(dataset, fingerprint)
{
	char a[17], b[17];

	/* FNV-1a 64 of "a\0b\0\n1\0" "2\0\n3\0x\0\n", worked out independently */
	fingerprint_of("a,b\n1,2\n3,x\n", a);
	cr_expect_str_eq(a, "259e950e20a43032");
	/* the parsed table counts, not how it was written */
	fingerprint_of("\xEF\xBB\xBF\"a\",b\r\n1,\"2\"\r\n3,x", b);
	cr_expect_str_eq(b, a);
	/* a changed cell, a moved separator, a renamed column all change it */
	fingerprint_of("a,b\n1,2\n3,y\n", b);
	cr_expect_str_neq(b, a);
	fingerprint_of("a,b\n12,\n3,x\n", b);
	cr_expect_str_neq(b, a);
	fingerprint_of("a,c\n1,2\n3,x\n", b);
	cr_expect_str_neq(b, a);
	fingerprint_of("a,b\n1,2\n3,x\n3,x\n", b);
	cr_expect_str_neq(b, a);
	/* stable across calls and independent of the dataset's name */
	{
		pm_dataset *d = NULL;
		pm_error err = { 0 };

		cr_assert_eq(pm_dataset_parse_csv("a,b\n1,2\n3,x\n", 12, "other.csv", &d, &err),
			     PM_OK);
		pm_dataset_fingerprint(d, b);
		cr_expect_str_eq(b, a);
		pm_dataset_fingerprint(d, b);
		cr_expect_str_eq(b, a);
		pm_dataset_free(d);
	}
	pm_dataset_fingerprint(NULL, b);
	cr_expect_str_eq(b, "cbf29ce484222325");
}

/* ---- pm__dataset_build ------------------------------------------------------ */

Test(dataset, build)
{
	char n0[] = "kernel_size", c00[] = "3";
	const char *names[] = { n0, "activation" };
	const char *cells[] = { c00, "relu", "5", NULL };
	const unsigned line[] = { 4, 4, 9, 9 };
	const unsigned column[] = { 20, 37, 20, 0 };
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	char fp[17], fp2[17];
	size_t col;
	double v;

	cr_assert_eq(pm__dataset_build("config.json", 2, names, 2, cells, line, column, &d, &err),
		     PM_OK, "%s", err.msg);
	/* everything was copied */
	n0[0] = 'X';
	c00[0] = '7';
	cr_expect_str_eq(pm_dataset_name(d), "config.json");
	cr_expect_eq(pm_dataset_ncols(d), 2);
	cr_expect_eq(pm_dataset_nrows(d), 2);
	cr_expect_str_eq(pm_dataset_col_name(d, 0), "kernel_size");
	cr_expect_str_eq(pm_dataset_cell(d, 0, 0), "3");
	cr_expect_str_eq(pm_dataset_cell(d, 0, 1), "relu");
	cr_expect_str_eq(pm_dataset_cell(d, 1, 1), "");
	cr_expect_eq(pm_dataset_cell_line(d, 1, 0), 9);
	cr_expect_eq(pm_dataset_cell_column(d, 0, 1), 37);
	cr_expect_eq(pm_dataset_col_index(d, "activation", &col, &err), PM_OK);
	cr_expect_eq(col, 1);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 0), 1);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 1), 0);
	cr_expect_eq(pm_dataset_number(d, 1, 0, &v, &err), PM_OK);
	cr_expect_eq(v, 5.0);
	expect_number_fail(d, 0, 1, 4, 37, "column 'activation': 'relu' is not a number");
	expect_number_fail(d, 1, 1, 9, 0, "column 'activation': empty cell");
	/* the same table read from CSV has the same fingerprint */
	pm_dataset_fingerprint(d, fp);
	fingerprint_of("kernel_size,activation\n3,relu\n5,\n", fp2);
	cr_expect_str_eq(fp, fp2);
	pm_dataset_free(d);
}

Test(dataset, build_without_places)
{
	const char *names[] = { "x" };
	const char *cells[] = { "1", "2", "3" };
	const unsigned line[] = { 5, 6, 7 };
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm__dataset_build(NULL, 1, names, 3, cells, NULL, NULL, &d, &err), PM_OK);
	cr_expect_str_eq(pm_dataset_name(d), "<input>");
	cr_expect_str_eq(pm_dataset_cell(d, 2, 0), "3");
	cr_expect_eq(pm_dataset_cell_line(d, 2, 0), 0);
	cr_expect_eq(pm_dataset_cell_column(d, 2, 0), 0);
	pm_dataset_free(d);

	cr_assert_eq(pm__dataset_build("p", 1, names, 3, cells, line, NULL, &d, &err), PM_OK);
	cr_expect_eq(pm_dataset_cell_line(d, 1, 0), 6);
	cr_expect_eq(pm_dataset_cell_column(d, 1, 0), 0);
	pm_dataset_free(d);

	/* no rows is allowed here: the caller decides whether that is an error */
	cr_assert_eq(pm__dataset_build("p", 1, names, 0, NULL, NULL, NULL, &d, &err), PM_OK);
	cr_expect_eq(pm_dataset_nrows(d), 0);
	cr_expect_eq(pm_dataset_col_is_numeric(d, 0), 1);
	pm_dataset_free(d);
}

static void expect_build_fail(size_t ncols, const char *const *names, size_t nrows,
			      const char *const *cells, pm_status code, const char *msg)
{
	pm_dataset *d = (pm_dataset *)1;
	pm_error err = { 0 };

	cr_assert_eq(pm__dataset_build("cfg.json", ncols, names, nrows, cells, NULL, NULL, &d,
				       &err), code, "%s", msg);
	cr_expect_null(d);
	cr_expect_eq(err.code, code);
	cr_expect_str_eq(err.msg, msg);
}

Test(dataset, build_errors)
{
	const char *dup[] = { "a", "b", "a" };
	const char *empty[] = { "a", "" };
	const char *null_name[] = { NULL, "a" };
	const char *cells[] = { "1", "2", "3" };
	pm_error err = { 0 };

	expect_build_fail(3, dup, 1, cells, PM_ESCHEMA, "duplicate column name 'a'");
	expect_build_fail(2, empty, 1, cells, PM_ESCHEMA, "empty column name");
	expect_build_fail(2, null_name, 1, cells, PM_ESCHEMA, "empty column name");
	expect_build_fail(0, dup, 1, cells, PM_EINVAL, "a dataset needs at least one column");
	expect_build_fail(1, NULL, 1, cells, PM_EINVAL, "a dataset needs at least one column");
	expect_build_fail(1, dup, 1, NULL, PM_EINVAL, "no cells");
	/* sizes that cannot be allocated fail before touching the cells */
	expect_build_fail(4, dup, SIZE_MAX / 2, cells, PM_ENOMEM, "out of memory");
	expect_build_fail(SIZE_MAX / 4, dup, 1, cells, PM_ENOMEM, "out of memory");
	cr_expect_eq(pm__dataset_build("x", 1, dup, 1, cells, NULL, NULL, NULL, &err), PM_EINVAL);
	/* the error names the file, with no place */
	{
		pm_dataset *d;

		pm__dataset_build("cfg.json", 3, dup, 1, cells, NULL, NULL, &d, &err);
		cr_expect_str_eq(err.file, "cfg.json");
		cr_expect_eq(err.line, 0);
		cr_expect_eq(err.column, 0);
	}
}

/* ---- out of memory ---------------------------------------------------------- */

#ifndef NO_ALLOC_HOOK
/* Fail the first, second, ... allocation of op until it needs no more: each
 * run must fail cleanly with ENOMEM, leave *out NULL and leak nothing. With
 * `via_stdio`, stdio allocates too: its buffer is optional (it falls back to
 * unbuffered reads, so the run succeeds), and a failing fopen is ENOMEM
 * too. */
static void exhaust(pm_status (*op)(pm_dataset **, pm_error *), int via_stdio)
{
	long k;

	for (k = 0; k < 1000; k++) {
		pm_dataset *d = (pm_dataset *)1;
		pm_error err = { 0 };
		pm_status rc;
		int failed;

		alloc_arm(k);
		rc = op(&d, &err);
		failed = fail_in < 0;
		fail_in = -1;
		if (rc == PM_OK)
			pm_dataset_free(d);
		armed = 0;
		cr_expect_eq(live, 0, "k=%ld: %ld blocks leaked", k, live);
		if (!failed) {
			cr_assert_eq(rc, PM_OK, "k=%ld: %s", k, err.msg);
			break;
		}
		if (via_stdio && rc == PM_OK)
			continue;
		cr_assert_eq(rc, PM_ENOMEM, "k=%ld: rc %d %s", k, rc, err.msg);
		cr_expect_str_eq(err.msg, "out of memory");
		cr_expect_null(d, "k=%ld", k);
	}
	cr_expect_gt(k, 2, "only %ld allocations seen", k);
	cr_expect_lt(k, 1000);
}

static pm_status op_parse(pm_dataset **out, pm_error *err)
{
	static const char text[] = "a,b,c\n1,\"2\",3\n4,5,6\n";

	return pm_dataset_parse_csv(text, sizeof(text) - 1, "m.csv", out, err);
}

static pm_status op_parse_big(pm_dataset **out, pm_error *err)
{
	/* CR line ends defeat the presizing: the tables grow several times,
	 * and a quoted line end in each row fills the table of line starts */
	static char text[200000];
	size_t len = 0;

	if (!text[0]) {
		len = (size_t)snprintf(text, sizeof(text), "a,b\r");
		for (size_t i = 0; len + 32 < sizeof(text); i++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%zu,\"%zu\r\"\r",
						i, i);
	}
	return pm_dataset_parse_csv(text, strlen(text), "m.csv", out, err);
}

static char read_path[4096];	/* set before arming: making it allocates */

static pm_status op_read(pm_dataset **out, pm_error *err)
{
	return pm_dataset_read_csv(read_path, out, err);
}

static pm_status op_build(pm_dataset **out, pm_error *err)
{
	const char *names[] = { "x", "y" };
	const char *cells[] = { "1", "a", "2", NULL };
	const unsigned line[] = { 1, 1, 2, 2 }, column[] = { 3, 5, 3, 5 };

	return pm__dataset_build("p.json", 2, names, 2, cells, line, column, out, err);
}

Test(dataset, out_of_memory_parse)
{
	exhaust(op_parse, 0);
}

Test(dataset, out_of_memory_parse_big)
{
	exhaust(op_parse_big, 0);
}

Test(dataset, out_of_memory_read)
{
	char *path = data_path("csv/basic.csv");

	snprintf(read_path, sizeof(read_path), "%s", path);
	free(path);
	exhaust(op_read, 1);
}

Test(dataset, out_of_memory_build)
{
	exhaust(op_build, 0);
}

static pm_status op_subset(pm_dataset **out, pm_error *err)
{
	static const char text[] = "a,b\n1,x\n\"2\",y\n3,\"z\nw\"\n4,x\n";
	static const size_t rows[] = { 3, 1, 1, 0, 2 };
	pm_dataset *d = NULL;
	pm_status rc = pm_dataset_parse_csv(text, sizeof(text) - 1, "m.csv", &d, err);

	*out = NULL;
	if (!rc)
		rc = pm_dataset_subset(d, rows, 5, out, err);
	pm_dataset_free(d);
	return rc;
}

Test(dataset, out_of_memory_subset)
{
	exhaust(op_subset, 0);
}

Test(dataset, hook_is_live)
{
	/* the injection must really reach the library, or the tests above prove nothing */
	pm_dataset *d = (pm_dataset *)1;
	pm_error err = { 0 };

	alloc_arm(0);
	cr_expect_eq(op_build(&d, &err), PM_ENOMEM);
	armed = 0;
	cr_expect_null(d);
}
#endif
