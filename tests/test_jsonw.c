#include <criterion/criterion.h>

#include <float.h>
#include <locale.h>
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/jsonw.h"
#include "perfmodel/perfmodel.h"
#include "leak_check.h"

PM_LEAK_CHECKED_SUITE(jsonw);

static char *finish_ok(pm_jw *w)
{
	char *out = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm__jw_finish(w, &out, &e), PM_OK, "finish: %s", e.msg);
	cr_assert_not_null(out);
	return out;
}

static void expect(pm_jw *w, const char *want)
{
	char *out = finish_ok(w);

	cr_assert_str_eq(out, want, "got:\n%s\nwant:\n%s", out, want);
	free(out);
}

Test(jsonw, empty_containers)
{
	pm_jw w;

	pm__jw_init(&w);
	pm__jw_object_begin(&w);
	pm__jw_object_end(&w);
	expect(&w, "{}\n");

	pm__jw_init(&w);
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "a");
	pm__jw_array_begin(&w);
	pm__jw_array_end(&w);
	pm__jw_key(&w, "b");
	pm__jw_object_begin(&w);
	pm__jw_object_end(&w);
	pm__jw_object_end(&w);
	expect(&w, "{\n  \"a\": [],\n  \"b\": {}\n}\n");
}

Test(jsonw, pretty_layout)
{
	pm_jw w;

	pm__jw_init(&w);
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "format");
	pm__jw_string(&w, "x");
	pm__jw_key(&w, "n");
	pm__jw_int(&w, 1);
	pm__jw_key(&w, "list");
	pm__jw_array_begin(&w);
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "b");
	pm__jw_array_begin(&w);
	pm__jw_double(&w, 0);
	pm__jw_double(&w, 1000);
	pm__jw_array_end(&w);
	pm__jw_object_end(&w);
	pm__jw_string(&w, "s");
	pm__jw_array_end(&w);
	pm__jw_key(&w, "t");
	pm__jw_bool(&w, 1);
	pm__jw_key(&w, "f");
	pm__jw_bool(&w, 0);
	pm__jw_key(&w, "z");
	pm__jw_null(&w);
	pm__jw_object_end(&w);
	expect(&w, "{\n"
		   "  \"format\": \"x\",\n"
		   "  \"n\": 1,\n"
		   "  \"list\": [\n"
		   "    {\n"
		   "      \"b\": [0, 1000]\n"
		   "    },\n"
		   "    \"s\"\n"
		   "  ],\n"
		   "  \"t\": true,\n"
		   "  \"f\": false,\n"
		   "  \"z\": null\n"
		   "}\n");
}

Test(jsonw, string_arrays_one_per_line)
{
	pm_jw w;

	pm__jw_init(&w);
	pm__jw_array_begin(&w);
	pm__jw_string(&w, "relu");
	pm__jw_string(&w, "tanh");
	pm__jw_array_end(&w);
	expect(&w, "[\n  \"relu\",\n  \"tanh\"\n]\n");
}

/* An inline array that meets a string or a container is broken into lines. */
Test(jsonw, inline_array_breaks)
{
	pm_jw w;

	pm__jw_init(&w);
	pm__jw_array_begin(&w);
	pm__jw_int(&w, 1);
	pm__jw_double(&w, -2.5);
	pm__jw_null(&w);
	pm__jw_string(&w, "a, b");
	pm__jw_array_begin(&w);
	pm__jw_int(&w, 3);
	pm__jw_array_end(&w);
	pm__jw_int(&w, 4);
	pm__jw_array_end(&w);
	expect(&w, "[\n  1,\n  -2.5,\n  null,\n  \"a, b\",\n  [3],\n  4\n]\n");

	pm__jw_init(&w);
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "a");
	pm__jw_array_begin(&w);
	pm__jw_bool(&w, 1);
	pm__jw_object_begin(&w);
	pm__jw_object_end(&w);
	pm__jw_array_end(&w);
	pm__jw_object_end(&w);
	expect(&w, "{\n  \"a\": [\n    true,\n    {}\n  ]\n}\n");
}

Test(jsonw, long_numeric_arrays_wrap)
{
	pm_jw w;
	char *out;
	cJSON *doc;

	pm__jw_init(&w);
	pm__jw_array_begin(&w);
	for (int i = 0; i < 1000; i++)
		pm__jw_double(&w, i * 0.1);
	pm__jw_array_end(&w);
	out = finish_ok(&w);
	for (const char *p = out, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		cr_assert_not_null(nl);
		cr_assert_leq(nl - p, 100, "line of %d chars", (int)(nl - p));
	}
	doc = cJSON_Parse(out);
	cr_assert_not_null(doc);
	cr_assert_eq(cJSON_GetArraySize(doc), 1000);
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(cJSON_GetArrayItem(doc, i)->valuedouble, i * 0.1);
	cJSON_Delete(doc);
	free(out);
}

static void one_double(double v, const char *want)
{
	pm_jw w;

	pm__jw_init(&w);
	pm__jw_double(&w, v);
	expect(&w, want);
}

Test(jsonw, doubles_readable)
{
	one_double(0, "0\n");
	one_double(-0.0, "-0\n");
	one_double(1000, "1000\n");
	one_double(123456789012345.0, "123456789012345\n");
	one_double(0.1, "0.1\n");
	one_double(0.7, "0.7\n");
	one_double(-2.5e-7, "-2.5e-07\n");
	one_double(NAN, "null\n");
	one_double(INFINITY, "null\n");
	one_double(-INFINITY, "null\n");
}

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return *s ^ (*s >> 29);
}

/* Every finite double reads back bit-exact, through strtod and through
 * cJSON (which the loader uses). */
Test(jsonw, doubles_exact)
{
	enum { N = 20000 };
	static double v[N];
	uint64_t s = 42;
	pm_jw w;
	char *out;
	cJSON *doc, *it;
	size_t i = 0;
	const double special[] = { DBL_MAX, -DBL_MAX, DBL_MIN, 4.9406564584124654e-324,
				   1e15, 1e16, 1e17, 9007199254740993.0, 1.0 / 3, 2.0 / 3,
				   0.30000000000000004, 5e-324, 1e-300, 1e300 };

	for (size_t k = 0; k < sizeof(special) / sizeof(*special); k++)
		v[i++] = special[k];
	while (i < N) {
		uint64_t bits = next(&s);
		double d;

		if (i % 2) {
			memcpy(&d, &bits, sizeof(d));
			if (!isfinite(d))
				continue;
		} else {
			d = (double)(bits >> 11) / 9007199254740992.0 * pow(10, (int)(bits % 40) - 20);
		}
		v[i++] = d;
	}
	pm__jw_init(&w);
	pm__jw_array_begin(&w);
	for (i = 0; i < N; i++)
		pm__jw_double(&w, v[i]);
	pm__jw_array_end(&w);
	out = finish_ok(&w);
	doc = cJSON_Parse(out);
	cr_assert_not_null(doc);
	i = 0;
	cJSON_ArrayForEach(it, doc) {
		cr_assert(cJSON_IsNumber(it));
		cr_assert_eq(memcmp(&it->valuedouble, &v[i], sizeof(double)), 0,
			     "element %zu: %.17g read back as %.17g", i, v[i], it->valuedouble);
		i++;
	}
	cr_assert_eq(i, N);
	cJSON_Delete(doc);
	free(out);
}

Test(jsonw, integers)
{
	pm_jw w;

	pm__jw_init(&w);
	pm__jw_array_begin(&w);
	pm__jw_int(&w, INT64_MIN);
	pm__jw_int(&w, -1);
	pm__jw_uint(&w, UINT64_MAX);
	pm__jw_array_end(&w);
	expect(&w, "[-9223372036854775808, -1, 18446744073709551615]\n");
}

Test(jsonw, string_escapes)
{
	pm_jw w;
	char *out;
	cJSON *doc;
	const char *nasty = "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f \xc3\xa9";

	pm__jw_init(&w);
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "k\"\n");
	pm__jw_string(&w, nasty);
	pm__jw_key(&w, "n");
	pm__jw_string(&w, NULL);
	pm__jw_object_end(&w);
	out = finish_ok(&w);
	cr_assert_str_eq(out, "{\n  \"k\\\"\\n\": \"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f "
			      "\xc3\xa9\",\n  \"n\": null\n}\n");
	doc = cJSON_Parse(out);
	cr_assert_not_null(doc);
	cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(doc, "k\"\n")->valuestring, nasty);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "n")));
	cJSON_Delete(doc);
	free(out);
}

/* Bytes that are not UTF-8 (Latin-1 "µs", a cut sequence, an overlong form,
 * a surrogate) become U+FFFD: the document stays valid JSON. */
Test(jsonw, invalid_utf8_becomes_replacement_characters)
{
	pm_jw w;
	char *out;
	cJSON *doc;

	pm__jw_init(&w);
	pm__jw_string(&w, "\xb5s \xe2\x82 \xc0\xaf \xed\xa0\x80 \xf0\x9f\x98\x80 \xc3\xa9\xff");
	out = finish_ok(&w);
	cr_assert_str_eq(out, "\"\\ufffds \\ufffd\\ufffd \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd "
			      "\xf0\x9f\x98\x80 \xc3\xa9\\ufffd\"\n");
	doc = cJSON_Parse(out);
	cr_assert_not_null(doc);
	cJSON_Delete(doc);
	free(out);
}

Test(jsonw, top_level_scalar)
{
	pm_jw w;

	pm__jw_init(&w);
	pm__jw_string(&w, "x");
	expect(&w, "\"x\"\n");
}

static void misuse(void (*f)(pm_jw *))
{
	pm_jw w;
	char *out = (char *)&w;
	pm_error e = { 0 };

	pm__jw_init(&w);
	f(&w);
	cr_assert_eq(pm__jw_finish(&w, &out, &e), PM_EINVAL);
	cr_assert_null(out);
	cr_assert_eq(e.code, PM_EINVAL);
	cr_assert_null(w.buf);
}

static void unclosed(pm_jw *w) { pm__jw_object_begin(w); }
static void nothing(pm_jw *w) { (void)w; }
static void overclosed(pm_jw *w)
{
	pm__jw_array_begin(w);
	pm__jw_array_end(w);
	pm__jw_array_end(w);
}
static void dangling_key(pm_jw *w)
{
	pm__jw_object_begin(w);
	pm__jw_key(w, "a");
	pm__jw_object_end(w);
}
static void two_values(pm_jw *w)
{
	pm__jw_int(w, 1);
	pm__jw_int(w, 2);
}
static void key_outside(pm_jw *w) { pm__jw_key(w, "a"); }

Test(jsonw, misuse_is_einval)
{
	misuse(unclosed);
	misuse(nothing);
	misuse(overclosed);
	misuse(dangling_key);
	misuse(two_values);
	misuse(key_outside);
}

/* A host program's decimal comma must not leak into JSON: the tests run
 * with de_DE.UTF-8 made by the build (tests/meson.build, LOCPATH). */
static void comma_numeric(void)
{
	char probe[8];

	cr_assert_not_null(setlocale(LC_NUMERIC, "de_DE.UTF-8"), "LOCPATH=%s", getenv("LOCPATH"));
	snprintf(probe, sizeof(probe), "%.1f", 0.5);
	cr_assert_str_eq(probe, "0,5");
}

Test(jsonw, locale_independent)
{
	pm_jw w;

	comma_numeric();
	pm__jw_init(&w);
	pm__jw_double(&w, 0.5);
	expect(&w, "0.5\n");
	setlocale(LC_NUMERIC, "C");
}

Test(jsonw, large_document)
{
	pm_jw w;
	char *out;
	cJSON *doc;

	pm__jw_init(&w);
	pm__jw_array_begin(&w);
	for (int i = 0; i < 20000; i++) {
		pm__jw_object_begin(&w);
		pm__jw_key(&w, "i");
		pm__jw_int(&w, i);
		pm__jw_object_end(&w);
	}
	pm__jw_array_end(&w);
	out = finish_ok(&w);
	doc = cJSON_Parse(out);
	cr_assert_not_null(doc);
	cr_assert_eq(cJSON_GetArraySize(doc), 20000);
	cr_assert_eq(cJSON_GetArrayItem(doc, 19999)->child->valuedouble, 19999);
	cJSON_Delete(doc);
	free(out);
}

/* A one-line container holds everything on its line, nested containers,
 * strings and long number lists included (no wrapping at 100 columns). */
Test(jsonw, one_line_containers)
{
	pm_jw w;
	char *out;

	pm__jw_init(&w);
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, "a");
	pm__jw_int(&w, 1);
	pm__jw_key(&w, "b");
	pm__jw_array_begin(&w);	/* inside a one-line container: one-line too */
	pm__jw_string(&w, "x");
	pm__jw_object_begin(&w);
	pm__jw_object_end(&w);
	pm__jw_array_begin_line(&w);
	pm__jw_array_end(&w);
	pm__jw_array_end(&w);
	pm__jw_key(&w, "c");
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, "d");
	pm__jw_null(&w);
	pm__jw_object_end(&w);
	pm__jw_object_end(&w);
	expect(&w, "{\"a\": 1, \"b\": [\"x\", {}, []], \"c\": {\"d\": null}}\n");

	pm__jw_init(&w);
	pm__jw_array_begin_line(&w);
	for (int i = 0; i < 100; i++)
		pm__jw_int(&w, 1000 + i);
	pm__jw_array_end(&w);
	out = finish_ok(&w);
	cr_assert_eq(strlen(out), 1 + 100 * 4 + 99 * 2 + 1 + 1);
	cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1);
	free(out);
}

/* One-line records inside pretty containers, and the pretty layout going on
 * after them (the layouts of predict --json and advise --json). */
Test(jsonw, one_line_inside_pretty)
{
	pm_jw w;

	pm__jw_init(&w);
	pm__jw_array_begin(&w);
	for (int i = 0; i < 2; i++) {
		pm__jw_object_begin_line(&w);
		pm__jw_key(&w, "i");
		pm__jw_int(&w, i);
		pm__jw_key(&w, "s");
		pm__jw_string(&w, "t");
		pm__jw_object_end(&w);
	}
	pm__jw_array_end(&w);
	expect(&w, "[\n  {\"i\": 0, \"s\": \"t\"},\n  {\"i\": 1, \"s\": \"t\"}\n]\n");

	pm__jw_init(&w);
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "a");
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, "v");
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, "n");
	pm__jw_double(&w, 0.5);
	pm__jw_object_end(&w);
	pm__jw_object_end(&w);
	pm__jw_key(&w, "b");
	pm__jw_array_begin(&w);
	pm__jw_int(&w, 1);
	pm__jw_int(&w, 2);
	pm__jw_array_end(&w);
	pm__jw_key(&w, "c");
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "d");
	pm__jw_bool(&w, 1);
	pm__jw_object_end(&w);
	pm__jw_object_end(&w);
	expect(&w, "{\n"
		   "  \"a\": {\"v\": {\"n\": 0.5}},\n"
		   "  \"b\": [1, 2],\n"
		   "  \"c\": {\n"
		   "    \"d\": true\n"
		   "  }\n"
		   "}\n");
}

/* pm__jw_break: a line break and the indent asked for, after the comma when
 * one is due, before a key or a value (lif's and ssgd's layout). */
Test(jsonw, line_breaks)
{
	pm_jw w;

	pm__jw_init(&w);
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, "f");
	pm__jw_string(&w, "x");
	pm__jw_break(&w, 1);
	pm__jw_key(&w, "rows");
	pm__jw_array_begin_line(&w);
	for (int i = 0; i < 3; i++) {
		if (i)
			pm__jw_break(&w, 2);
		pm__jw_object_begin_line(&w);
		pm__jw_key(&w, "i");
		pm__jw_int(&w, i);
		pm__jw_object_end(&w);
	}
	pm__jw_array_end(&w);
	pm__jw_break(&w, 0);
	pm__jw_key(&w, "z");
	pm__jw_null(&w);
	pm__jw_object_end(&w);
	expect(&w, "{\"f\": \"x\",\n \"rows\": [{\"i\": 0},\n  {\"i\": 1},\n  {\"i\": 2}],\n"
		   "\"z\": null}\n");

	/* before the first value: no comma; a break not used is dropped */
	pm__jw_init(&w);
	pm__jw_array_begin_line(&w);
	pm__jw_break(&w, 3);
	pm__jw_int(&w, 1);
	pm__jw_int(&w, 2);
	pm__jw_break(&w, 3);
	pm__jw_array_end(&w);
	expect(&w, "[\n   1, 2]\n");
}

/* Control characters escaped, other bytes (UTF-8 of any length) as they
 * are, in one-line containers as in pretty ones; the text reads back to
 * the same bytes. */
Test(jsonw, one_line_strings_escaped)
{
	const char *key = "k\t\xe6\x97\xa5";
	const char *val = "\x01\x02\x1f\x7f\b\f\n\r\t\"\\/ \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	pm_jw w;
	char *out;
	cJSON *doc;

	pm__jw_init(&w);
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, key);
	pm__jw_string(&w, val);
	pm__jw_object_end(&w);
	out = finish_ok(&w);
	cr_assert_str_eq(out, "{\"k\\t\xe6\x97\xa5\": \"\\u0001\\u0002\\u001f\\u007f\\b\\f\\n\\r\\t"
			      "\\\"\\\\/ \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}\n");
	doc = cJSON_Parse(out);
	cr_assert_not_null(doc);
	cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(doc, key)->valuestring, val);
	cJSON_Delete(doc);
	free(out);
}

static void bad_break_outside(pm_jw *w)
{
	pm__jw_array_begin(w);
	pm__jw_break(w, 1);
	pm__jw_array_end(w);
}
static void bad_break_indent(pm_jw *w)
{
	pm__jw_array_begin_line(w);
	pm__jw_break(w, -1);
	pm__jw_array_end(w);
}
static void bad_break_wide(pm_jw *w)
{
	pm__jw_array_begin_line(w);
	pm__jw_break(w, 101);
	pm__jw_array_end(w);
}
static void bad_break_top(pm_jw *w)
{
	pm__jw_break(w, 0);
	pm__jw_int(w, 1);
}
static void line_unclosed(pm_jw *w)
{
	pm__jw_object_begin_line(w);
	pm__jw_key(w, "a");
	pm__jw_array_begin_line(w);
	pm__jw_array_end(w);
}

Test(jsonw, line_misuse_is_einval)
{
	misuse(bad_break_outside);
	misuse(bad_break_indent);
	misuse(bad_break_wide);
	misuse(bad_break_top);
	misuse(line_unclosed);
}

/* pm__jw_start: the preamble every pm_..._to_json shares. */
Test(jsonw, start_checks_its_arguments)
{
	pm_jw w;
	char *out = (char *)&w;
	pm_error e = { 0 };

	cr_assert_eq(pm__jw_start(&w, NULL, 1, "x", &e), PM_EINVAL);
	cr_assert_str_eq(e.msg, "no place for the document");
	cr_assert_eq(pm__jw_start(&w, &out, 0, "model or report", &e), PM_EINVAL);
	cr_assert_null(out);
	cr_assert_str_eq(e.msg, "no model or report");
	cr_assert_eq(pm__jw_start(&w, &out, 1, "x", NULL), PM_OK);
	cr_assert_null(out);
	pm__jw_int(&w, 7);
	expect(&w, "7\n");
}

/* pm_format_double is the writer's number: the shortest of %.15g..%.17g
 * that reads back bit-exact, "null" when not finite. */
Test(jsonw, format_double_exact)
{
	uint64_t s = 7;
	char buf[PM_DOUBLE_CHARS];

	cr_assert_str_eq(pm_format_double(0.7, buf), "0.7");
	cr_assert_eq(pm_format_double(0.1, buf), buf);
	cr_assert_str_eq(pm_format_double(-0.0, buf), "-0");
	cr_assert_str_eq(pm_format_double(1.0 / 3, buf), "0.3333333333333333");
	cr_assert_str_eq(pm_format_double(-DBL_MAX, buf), "-1.7976931348623157e+308");
	cr_assert_str_eq(pm_format_double(4.9406564584124654e-324, buf), "4.94065645841247e-324");
	cr_assert_str_eq(pm_format_double(NAN, buf), "null");
	cr_assert_str_eq(pm_format_double(-INFINITY, buf), "null");
	for (int i = 0; i < 100000; i++) {
		uint64_t bits = next(&s);
		double v, back;
		pm_jw w;
		char *out;

		memcpy(&v, &bits, sizeof(v));
		if (!isfinite(v))
			continue;
		pm_format_double(v, buf);
		back = strtod(buf, NULL);
		cr_assert_eq(memcmp(&back, &v, sizeof(v)), 0, "%a printed %s", v, buf);
		if (i % 1000)
			continue;
		/* the writer prints the same text */
		pm__jw_init(&w);
		pm__jw_double(&w, v);
		out = finish_ok(&w);
		cr_assert_eq(strncmp(out, buf, strlen(buf)), 0);
		cr_assert_str_eq(out + strlen(buf), "\n");
		free(out);
	}
}

Test(jsonw, format_double_locale_independent)
{
	char buf[PM_DOUBLE_CHARS];

	comma_numeric();
	cr_expect_str_eq(pm_format_double(-2.5e-7, buf), "-2.5e-07");
	cr_expect_str_eq(pm_format_double(0.30000000000000004, buf), "0.30000000000000004");
	setlocale(LC_NUMERIC, "C");
}
