#include "core/jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/utf8.h"
#include "core/numcodec.h"
#include "perfmodel/perfmodel.h"

/* w->need_comma holds two flags for the innermost container. The writer has
 * no stack: an array is written on one line while it holds only numbers,
 * booleans and nulls that fit (bounds: [0, 1000]); the first other element
 * turns it back into one element per line, so no enclosing state needs
 * remembering. A one-line container needs only the depth it was opened at
 * (w->line_from): everything inside it is on its line too. */
enum {
	HAVE = 1,	/* a value was written at this depth */
	INLINE = 2	/* the array at this depth is on one line so far */
};

enum { JW_OOM = 1, JW_MISUSE = 2 };

/* Past this many columns an inline array is broken into lines. */
#define JW_LINE_MAX 100

void pm__jw_init(pm_jw *w)
{
	*w = (pm_jw){ 0 };
}

pm_status pm__jw_start(pm_jw *w, char **out, int given, const char *what, pm_error *err)
{
	pm__jw_init(w);
	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the document");
	*out = NULL;
	if (!given)
		return pm__fail(err, PM_EINVAL, "no %s", what);
	return PM_OK;
}

static int reserve(pm_jw *w, size_t n)
{
	size_t cap;
	char *nb;

	if (w->failed)
		return -1;
	if (w->cap - w->len > n)
		return 0;
	cap = w->cap ? w->cap : 1024;
	while (cap - w->len <= n) {
		if (cap > SIZE_MAX / 2)
			goto oom;
		cap *= 2;
	}
	nb = realloc(w->buf, cap);
	if (!nb)
		goto oom;
	w->buf = nb;
	w->cap = cap;
	return 0;
oom:
	w->failed = JW_OOM;
	return -1;
}

static void put(pm_jw *w, const char *s, size_t n)
{
	if (reserve(w, n))
		return;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void puts_(pm_jw *w, const char *s)
{
	put(w, s, strlen(s));
}

static void newline_spaces(pm_jw *w, size_t spaces)
{
	if (reserve(w, 1 + spaces))
		return;
	w->buf[w->len++] = '\n';
	memset(w->buf + w->len, ' ', spaces);
	w->len += spaces;
	w->buf[w->len] = '\0';
}

static void newline(pm_jw *w, int depth)
{
	newline_spaces(w, 2 * (size_t)depth);
}

/* Before a value or key in a one-line container: ", " after another one, or
 * the line break pm__jw_break asked for. */
static void line_separator(pm_jw *w)
{
	if (w->brk) {
		if (w->need_comma & HAVE)
			puts_(w, ",");
		newline_spaces(w, (size_t)w->brk - 1);
		w->brk = 0;
	} else if (w->need_comma & HAVE) {
		puts_(w, ", ");
	}
}

static size_t column(const pm_jw *w)
{
	size_t i = w->len;

	while (i > 0 && w->buf[i - 1] != '\n')
		i--;
	return w->len - i;
}

/* Rewrite the current inline array "[1, 2" as "[\n  1,\n  2". Inline
 * contents are numbers, true, false and null separated by ", ": no '[' and
 * no string, so the last '[' opens this array and ", " splits elements. */
static void break_inline(pm_jw *w)
{
	size_t open, n;
	char *tail;

	w->need_comma &= ~INLINE;
	if (w->failed)
		return;
	open = w->len;
	while (open > 0 && w->buf[open - 1] != '[')
		open--;
	n = w->len - open;
	tail = malloc(n + 1);
	if (!tail) {
		w->failed = JW_OOM;
		return;
	}
	memcpy(tail, w->buf + open, n);
	tail[n] = '\0';
	w->len = open;
	for (char *tok = tail, *next; tok; tok = next) {
		next = strstr(tok, ", ");
		if (next) {
			*next = '\0';
			next += 2;
		}
		if (tok != tail)
			puts_(w, ",");
		newline(w, w->depth);
		puts_(w, tok);
	}
	free(tail);
}

/* Separator and indentation before a value; `token` is the text of a scalar
 * that may stay on an array's line, or NULL. */
static void before_value(pm_jw *w, const char *token)
{
	if (w->failed)
		return;
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (w->depth == 0) {
		if (w->need_comma & HAVE)
			w->failed = JW_MISUSE;	/* a second top-level value */
		return;
	}
	if (w->line_from) {
		line_separator(w);
		return;
	}
	if (w->need_comma & INLINE) {
		if (token && column(w) + 2 + strlen(token) + 1 <= JW_LINE_MAX) {
			puts_(w, ", ");
			return;
		}
		break_inline(w);
	} else if (!(w->need_comma & HAVE) && token &&
		   column(w) + strlen(token) + 1 <= JW_LINE_MAX) {
		w->need_comma |= INLINE;
		return;
	}
	if (w->need_comma & HAVE)
		puts_(w, ",");
	newline(w, w->depth);
}

static void scalar(pm_jw *w, const char *token, int may_inline)
{
	before_value(w, may_inline ? token : NULL);
	puts_(w, token);
	w->need_comma |= HAVE;
}

static void string_body(pm_jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	puts_(w, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[7] = "\\u00";

		switch (*p) {
		case '"': puts_(w, "\\\""); break;
		case '\\': puts_(w, "\\\\"); break;
		case '\b': puts_(w, "\\b"); break;
		case '\f': puts_(w, "\\f"); break;
		case '\n': puts_(w, "\\n"); break;
		case '\r': puts_(w, "\\r"); break;
		case '\t': puts_(w, "\\t"); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				esc[4] = hex[*p >> 4];
				esc[5] = hex[*p & 15];
				esc[6] = '\0';
				puts_(w, esc);
			} else if (*p < 0x80) {
				put(w, (const char *)p, 1);
			} else {
				/* JSON is UTF-8: a byte that starts no UTF-8 sequence
				 * (Latin-1 text) becomes U+FFFD, never invalid JSON.
				 * 4 is safe: a NUL ends any sequence before it. */
				size_t n = pm__utf8_length((const char *)p, 4);

				if (n == 0) {
					puts_(w, "\\ufffd");
				} else {
					put(w, (const char *)p, n);
					p += n - 1;
				}
			}
		}
	}
	puts_(w, "\"");
}

static void open_(pm_jw *w, const char *bracket, int one_line)
{
	before_value(w, NULL);
	puts_(w, bracket);
	w->depth++;
	w->need_comma = 0;
	if (one_line && !w->line_from)
		w->line_from = w->depth;
}

static void close_(pm_jw *w, const char *bracket)
{
	if (w->failed)
		return;
	if (w->depth == 0 || w->after_key) {
		w->failed = JW_MISUSE;
		return;
	}
	w->brk = 0;
	if (w->line_from) {
		if (w->line_from == w->depth)
			w->line_from = 0;	/* the outermost one-line container ends */
	} else if ((w->need_comma & HAVE) && !(w->need_comma & INLINE)) {
		newline(w, w->depth - 1);
	}
	w->depth--;
	puts_(w, bracket);
	/* the parent holds a value now; it is not inline, or we could not
	 * have opened a container in it */
	w->need_comma = HAVE;
}

void pm__jw_object_begin(pm_jw *w) { open_(w, "{", 0); }
void pm__jw_object_begin_line(pm_jw *w) { open_(w, "{", 1); }
void pm__jw_object_end(pm_jw *w) { close_(w, "}"); }
void pm__jw_array_begin(pm_jw *w) { open_(w, "[", 0); }
void pm__jw_array_begin_line(pm_jw *w) { open_(w, "[", 1); }
void pm__jw_array_end(pm_jw *w) { close_(w, "]"); }

void pm__jw_break(pm_jw *w, int indent)
{
	if (w->failed)
		return;
	if (!w->line_from || indent < 0 || indent > JW_LINE_MAX) {
		w->failed = JW_MISUSE;
		return;
	}
	if (!w->flat)
		w->brk = 1 + indent;
}

void pm__jw_key(pm_jw *w, const char *key)
{
	if (w->failed)
		return;
	if (w->depth == 0 || w->after_key || (w->need_comma & INLINE) || !key) {
		w->failed = JW_MISUSE;
		return;
	}
	if (w->line_from) {
		line_separator(w);
	} else {
		if (w->need_comma & HAVE)
			puts_(w, ",");
		newline(w, w->depth);
	}
	string_body(w, key);
	puts_(w, ": ");
	w->after_key = 1;
}

void pm__jw_string(pm_jw *w, const char *s)
{
	if (!s) {
		pm__jw_null(w);
		return;
	}
	before_value(w, NULL);
	string_body(w, s);
	w->need_comma |= HAVE;
}

void pm__jw_double(pm_jw *w, double v)
{
	char tok[PM_DOUBLE_CHARS];

	scalar(w, pm_format_double(v, tok), 1);
}

void pm__jw_int(pm_jw *w, int64_t v)
{
	char tok[24];

	snprintf(tok, sizeof(tok), "%" PRId64, v);
	scalar(w, tok, 1);
}

void pm__jw_uint(pm_jw *w, uint64_t v)
{
	char tok[24];

	snprintf(tok, sizeof(tok), "%" PRIu64, v);
	scalar(w, tok, 1);
}

void pm__jw_bool(pm_jw *w, int v)
{
	scalar(w, v ? "true" : "false", 1);
}

void pm__jw_null(pm_jw *w)
{
	scalar(w, "null", 1);
}

void pm__jw_doubles(pm_jw *w, const char *const *keys, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		pm__jw_key(w, keys[i]);
		pm__jw_double(w, v[i]);
	}
}

pm_status pm__jw_finish(pm_jw *w, char **out, pm_error *err)
{
	int failed = w->failed;

	*out = NULL;
	if (!failed && (w->depth != 0 || w->after_key || !(w->need_comma & HAVE)))
		failed = JW_MISUSE;
	if (!failed)
		puts_(w, "\n");
	failed = failed ? failed : w->failed;
	if (failed) {
		free(w->buf);
		pm__jw_init(w);
		if (failed == JW_OOM)
			return pm__fail(err, PM_ENOMEM, "out of memory");
		return pm__fail(err, PM_EINVAL, "unbalanced JSON writer calls");
	}
	*out = w->buf;
	pm__jw_init(w);
	return PM_OK;
}
