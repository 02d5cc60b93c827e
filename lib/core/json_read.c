#include "core/json_read.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "core/json_valid.h"
#include "core/utf8.h"


/* What cJSON lets through: nesting deeper than we allow (the readers
 * recurse; cJSON's own limit is 1000), raw control characters inside
 * strings (JSON requires them escaped), bytes that are not UTF-8, and
 * \u0000, which no C string can hold. Returns the offset of the first, or
 * SIZE_MAX. Lexical, so it also works on text that fails to parse further on. */
static size_t lex_check(const char *text, size_t len, const char **why)
{
	int depth = 0, in_string = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)text[i];

		if (in_string) {
			size_t bad;

			if (ch < 0x20) {
				*why = "invalid JSON: a control character in a string";
				return i;
			}
			/* a NUL would cut the C string short: a key "a\u0000b" would
			 * read as "a", a name as another name */
			if (ch == '\\' && i + 5 < len && !memcmp(text + i + 1, "u0000", 5)) {
				*why = "invalid JSON: \\u0000 (a NUL) in a string";
				return i;
			}
			if (ch >= 0x80 && (bad = pm__utf8_length(text + i, len - i)) == 0) {
				*why = "invalid JSON: a string that is not UTF-8";
				return i;
			} else if (ch >= 0x80) {
				i += bad - 1;
			} else if (ch == '\\') {
				i++;
			} else if (ch == '"') {
				in_string = 0;
			}
		} else if (ch == '"') {
			in_string = 1;
		} else if (ch == '[' || ch == '{') {
			if (++depth > PM_JSON_MAX_DEPTH) {
				*why = "invalid JSON: nested deeper than 64 levels";
				return i;
			}
		} else if (ch == ']' || ch == '}') {
			depth--;
		}
	}
	return SIZE_MAX;
}

static pm_status parse_error(const char *text, size_t pos, const char *name, pm_error *err,
			     const char *what)
{
	unsigned line, col;

	pm__text_place(text, pos, &line, &col);
	return pm__fail_at(err, PM_EPARSE, name, line, col, "%s", what);
}

static int by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

pm_status pm__json_distinct_keys(const cJSON *node, const char *name, pm_error *err)
{
	const cJSON *v;
	const char **key;
	size_t n = 0;
	pm_status st = PM_OK;

	for (v = node->child; v; v = v->next)
		if ((st = pm__json_distinct_keys(v, name, err)))
			return st;
	if (!cJSON_IsObject(node) || !node->child || !node->child->next)
		return PM_OK;
	for (v = node->child; v; v = v->next)
		n++;
	key = malloc(n * sizeof(*key));
	if (!key)
		return pm__fail_at(err, PM_ENOMEM, name, 0, 0, "out of memory");
	n = 0;
	for (v = node->child; v; v = v->next)
		key[n++] = v->string;
	qsort(key, n, sizeof(*key), by_key);
	for (size_t i = 1; i < n && !st; i++)
		if (strcmp(key[i - 1], key[i]) == 0)
			st = pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "duplicate key '%s'", key[i]);
	free(key);
	return st;
}

pm_status pm__json_parse(const char *text, size_t len, const char *name, cJSON **out,
			 pm_error *err)
{
	const char *end = NULL, *nul, *why = NULL;
	size_t bad, pos;
	cJSON *doc;

	*out = NULL;
	if (!text)
		return pm__fail(err, PM_EINVAL, "no JSON text given");
	if (!name)
		name = "<input>";
	/* cJSON would stop at a NUL and take it for the end of the text */
	nul = memchr(text, '\0', len);
	if (nul)
		return parse_error(text, (size_t)(nul - text), name, err,
				   "invalid JSON: a NUL byte in the text");
	bad = lex_check(text, len, &why);
	doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!doc) {
		pos = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
		if (bad <= pos)
			return parse_error(text, bad, name, err, why);
		/* cJSON also returns NULL when malloc fails: text that a
		 * strict recognizer accepts can only have failed that way */
		if (bad == SIZE_MAX && pm__json_valid(text, len, PM_JSON_MAX_DEPTH))
			return pm__fail_at(err, PM_ENOMEM, name, 0, 0, "out of memory");
		return parse_error(text, pos, name, err, "invalid JSON");
	}
	if (bad != SIZE_MAX) {
		cJSON_Delete(doc);
		return parse_error(text, bad, name, err, why);
	}
	pos = end ? (size_t)(end - text) : len;
	while (pos < len && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' ||
			     text[pos] == '\r'))
		pos++;
	if (pos < len) {
		cJSON_Delete(doc);
		return parse_error(text, pos, name, err, "invalid JSON: text after the document");
	}
	*out = doc;
	return PM_OK;
}

/* ---- typed getters -------------------------------------------------------- */

pm_status pm__json_fail(const pm_jctx *c, pm_status code, const char *fmt, ...)
{
	char msg[sizeof(((pm_error *)0)->msg)];
	va_list ap;

	va_start(ap, fmt);
	pm_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->where)
		return pm__fail_at(c->err, code, c->name, 0, 0, "%s: %s", c->where, msg);
	return pm__fail_at(c->err, code, c->name, 0, 0, "%s", msg);
}

pm_status pm__json_item(const pm_jctx *c, const cJSON *obj, const char *key, int required,
			const cJSON **item)
{
	const cJSON *found = NULL;

	*item = NULL;
	for (const cJSON *v = obj ? obj->child : NULL; v; v = v->next) {
		if (!v->string || strcmp(v->string, key) != 0)
			continue;
		if (found)
			return pm__json_fail(c, PM_ESCHEMA, "duplicate key '%s'", key);
		found = v;
	}
	if (!found && required)
		return pm__json_fail(c, PM_ESCHEMA, "missing '%s'", key);
	*item = found;
	return PM_OK;
}

pm_status pm__json_object(const pm_jctx *c, const cJSON *obj, const char *key, int required,
			  const cJSON **out)
{
	pm_status st = pm__json_item(c, obj, key, required, out);

	if (st || !*out)
		return st;
	if (!cJSON_IsObject(*out)) {
		*out = NULL;
		return pm__json_fail(c, PM_ESCHEMA, "'%s' must be an object", key);
	}
	return PM_OK;
}

pm_status pm__json_array(const pm_jctx *c, const cJSON *obj, const char *key, int required,
			 const cJSON **out, size_t *n)
{
	pm_status st = pm__json_item(c, obj, key, required, out);

	*n = 0;
	if (st || !*out)
		return st;
	if (!cJSON_IsArray(*out)) {
		*out = NULL;
		return pm__json_fail(c, PM_ESCHEMA, "'%s' must be an array", key);
	}
	/* counted here: cJSON_GetArraySize returns an int */
	for (const cJSON *v = (*out)->child; v; v = v->next)
		(*n)++;
	return PM_OK;
}

pm_status pm__json_string(const pm_jctx *c, const cJSON *obj, const char *key,
			  const char **out)
{
	const cJSON *v;
	pm_status st = pm__json_item(c, obj, key, 1, &v);

	if (st)
		return st;
	if (!cJSON_IsString(v) || !v->valuestring)
		return pm__json_fail(c, PM_ESCHEMA, "'%s' must be a string", key);
	*out = v->valuestring;
	return PM_OK;
}

pm_status pm__json_number(const pm_jctx *c, const cJSON *obj, const char *key, double *out)
{
	const cJSON *v;
	pm_status st = pm__json_item(c, obj, key, 1, &v);

	if (st)
		return st;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return pm__json_fail(c, PM_ESCHEMA, "'%s' must be a finite number", key);
	*out = v->valuedouble;
	return PM_OK;
}

pm_status pm__json_number_or_null(const pm_jctx *c, const cJSON *obj, const char *key,
				  double *out)
{
	const cJSON *v;
	pm_status st = pm__json_item(c, obj, key, 1, &v);

	if (st)
		return st;
	if (cJSON_IsNull(v)) {
		*out = NAN;
		return PM_OK;
	}
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return pm__json_fail(c, PM_ESCHEMA, "'%s' must be a finite number or null", key);
	*out = v->valuedouble;
	return PM_OK;
}

pm_status pm__json_fixed(const pm_jctx *c, const cJSON *obj, const char *key, char *out,
			 size_t size)
{
	const char *s = NULL;
	pm_status st = pm__json_string(c, obj, key, &s);

	if (st)
		return st;
	if (strlen(s) >= size)
		return pm__json_fail(c, PM_ESCHEMA, "'%s' is longer than %zu bytes", key, size - 1);
	memcpy(out, s, strlen(s) + 1);
	return PM_OK;
}

pm_status pm__json_bool(const pm_jctx *c, const cJSON *obj, const char *key, int *out)
{
	const cJSON *v;
	pm_status st = pm__json_item(c, obj, key, 1, &v);

	if (st)
		return st;
	if (!cJSON_IsBool(v))
		return pm__json_fail(c, PM_ESCHEMA, "'%s' must be true or false", key);
	*out = cJSON_IsTrue(v);
	return PM_OK;
}

pm_status pm__json_uint(const pm_jctx *c, const cJSON *obj, const char *key, uint64_t max,
			uint64_t *out)
{
	const double exact = 9007199254740992.0;	/* 2^53 */
	const cJSON *v;
	uint64_t u = 0;
	pm_status st = pm__json_item(c, obj, key, 1, &v);

	if (st)
		return st;
	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;

		if (!(d >= 0 && d <= exact && d == floor(d)))
			goto bad;
		u = (uint64_t)d;
	} else if (cJSON_IsString(v) && v->valuestring && v->valuestring[0]) {
		for (const char *p = v->valuestring; *p; p++) {
			if (*p < '0' || *p > '9' || u > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
				goto bad;
			u = u * 10 + (uint64_t)(*p - '0');
		}
	} else {
		goto bad;
	}
	if (u > max)
		goto bad;
	*out = u;
	return PM_OK;
bad:
	return pm__json_fail(c, PM_ESCHEMA, "'%s' must be a whole number from 0 to %llu", key,
			     (unsigned long long)max);
}

pm_status pm__json_enum(const pm_jctx *c, const cJSON *obj, const char *key,
			const char *const *names, int *out)
{
	const cJSON *v;
	char list[256] = "";
	size_t used = 0;
	pm_status st = pm__json_item(c, obj, key, 1, &v);

	if (st)
		return st;
	if (cJSON_IsString(v) && v->valuestring)
		for (int i = 0; names[i]; i++)
			if (strcmp(v->valuestring, names[i]) == 0) {
				*out = i;
				return PM_OK;
			}
	for (int i = 0; names[i] && used < sizeof(list); i++) {
		int w = snprintf(list + used, sizeof(list) - used, "%s'%s'",
				 i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return pm__json_fail(c, PM_ESCHEMA, "'%s' must be %s%s", key,
			     names[1] && names[2] ? "one of " : "",
			     list);
}
