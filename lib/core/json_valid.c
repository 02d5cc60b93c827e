#include "core/json_valid.h"

#include <string.h>

/* cJSON copies a number into a 64-byte buffer and fails past it */
#define CJSON_NUMBER_MAX 63

struct rd {
	const unsigned char *p, *end;
};

static void skip_space(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int digits(struct rd *r)
{
	const unsigned char *start = r->p;

	while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
		r->p++;
	return r->p > start;
}

static int number(struct rd *r)
{
	const unsigned char *start = r->p;

	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p < r->end && *r->p == '0')
		r->p++;
	else if (!digits(r))
		return 0;
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		if (!digits(r))
			return 0;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (!digits(r))
			return 0;
	}
	return r->p - start <= CJSON_NUMBER_MAX;
}

/* Four hex digits after "\u"; -1 if not. */
static long hex4(struct rd *r)
{
	long v = 0;

	if (r->end - r->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		unsigned char c = *r->p++;

		v = v * 16 + (c >= '0' && c <= '9' ? c - '0' :
			      c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			      c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1000000);
	}
	return v < 0 ? -1 : v;
}

static int string(struct rd *r)
{
	r->p++;	/* the opening quote */
	while (r->p < r->end) {
		unsigned char c = *r->p++;
		long u;

		if (c == '"')
			return 1;
		if (c < 0x20)
			return 0;
		if (c != '\\')
			continue;
		if (r->p == r->end)
			return 0;
		c = *r->p++;
		if (strchr("\"\\/bfnrt", c) && c)
			continue;
		if (c != 'u' || (u = hex4(r)) < 0 || (u >= 0xDC00 && u <= 0xDFFF))
			return 0;
		/* a high surrogate must be followed by an escaped low one */
		if (u >= 0xD800 && u <= 0xDBFF &&
		    (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u' ||
		     (r->p += 2, u = hex4(r)) < 0xDC00 || u > 0xDFFF))
			return 0;
	}
	return 0;
}

static int word(struct rd *r, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
		return 0;
	r->p += n;
	return 1;
}

static int value(struct rd *r, int depth);

/* An array or object; the opening bracket is at r->p. */
static int container(struct rd *r, int depth)
{
	unsigned char close = *r->p == '[' ? ']' : '}';

	if (depth == 0)
		return 0;
	r->p++;
	skip_space(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 1;
	}
	for (;;) {
		if (close == '}') {
			if (r->p == r->end || *r->p != '"' || !string(r))
				return 0;
			skip_space(r);
			if (r->p == r->end || *r->p++ != ':')
				return 0;
		}
		if (!value(r, depth - 1))
			return 0;
		if (r->p == r->end)
			return 0;
		if (*r->p == close) {
			r->p++;
			return 1;
		}
		if (*r->p++ != ',')
			return 0;
		skip_space(r);
	}
}

/* A value with the white space around it. */
static int value(struct rd *r, int depth)
{
	int ok;

	skip_space(r);
	if (r->p == r->end)
		return 0;
	switch (*r->p) {
	case '{':
	case '[': ok = container(r, depth); break;
	case '"': ok = string(r); break;
	case 't': ok = word(r, "true"); break;
	case 'f': ok = word(r, "false"); break;
	case 'n': ok = word(r, "null"); break;
	default: ok = number(r); break;
	}
	skip_space(r);
	return ok;
}

int pm__json_valid(const char *text, size_t len, int max_depth)
{
	struct rd r = { (const unsigned char *)text, (const unsigned char *)text + len };

	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		r.p += 3;
	return value(&r, max_depth) && r.p == r.end;
}
