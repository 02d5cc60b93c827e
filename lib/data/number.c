#include "data/number.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/numcodec.h"

/*
 * The common cell, a plain decimal such as "0.004301776", "-12" or "1e-05",
 * without strtod: Clinger's fast path. When the digits make an integer w <
 * 2^53 and the decimal exponent e has |e| <= 22, w and 10^|e| are exact
 * doubles, so w * 10^e (or w / 10^-e) is one correctly rounded operation:
 * the value strtod gives. Anything else (more digits, a larger exponent,
 * other syntax) returns 0 and is left to strtod. *end: after the number.
 */
static int fast_decimal(const char *s, double *value, const char **end)
{
	static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
		1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	uint64_t w = 0;
	int neg = 0, e = 0;
	size_t ndig;
	const char *start, *digits;
	double v;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	/* Leading zeros are not significant. The digits after them are
	 * accumulated with no check each: more than 19 (which may wrap w) send
	 * the cell to strtod anyway. */
	for (start = digits = s; *digits == '0'; digits++)
		;
	for (s = digits; (unsigned)(*s - '0') < 10; s++)
		w = w * 10 + (uint64_t)(*s - '0');
	ndig = (size_t)(s - digits);
	if (*s == '.') {
		const char *frac = ++s;

		if (ndig == 0)	/* 0.00123: nor are the zeros before its first digit */
			while (*s == '0')
				s++;
		for (digits = s; (unsigned)(*s - '0') < 10; s++)
			w = w * 10 + (uint64_t)(*s - '0');
		ndig += (size_t)(s - digits);
		if (s - frac > 1000)
			return 0;	/* far from the fast path, and e stays small */
		e = -(int)(s - frac);
		if (s == start + 1)
			return 0;	/* a lone '.' has no digits */
	} else if (s == start) {
		return 0;
	}
	if (ndig > 19)
		return 0;
	if (*s == 'e' || *s == 'E') {
		int eneg = 0, x = 0, edig = 0;

		s++;
		if (*s == '-' || *s == '+')
			eneg = *s++ == '-';
		for (; *s >= '0' && *s <= '9'; s++, edig++)
			if (x < 1000)
				x = x * 10 + (*s - '0');
		if (!edig)
			return 0;
		e += eneg ? -x : x;
	}
	if (w > (UINT64_C(1) << 53) || e < -22 || e > 22)
		return 0;
	v = e < 0 ? (double)w / pow10[-e] : (double)w * pow10[e];
	*value = neg ? -v : v;
	*end = s;
	return 1;
}

pm_num pm__parse_number(const char *s, double *value)
{
	const char *end;
	char *e;
	double v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return PM_NUM_EMPTY;
	/* strtod would skip other white space, e.g. a line end in a quoted cell */
	if (*s == '\n' || *s == '\r' || *s == '\v' || *s == '\f')
		return PM_NUM_TEXT;
	if (!fast_decimal(s, &v, &end)) {
		v = pm_strtod(s, &e);
		if (e == s)
			return PM_NUM_TEXT;
		for (const char *p = s; p < e; p++)
			if (*p == 'x' || *p == 'X')
				return PM_NUM_TEXT;
		end = e;
	}
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end)
		return PM_NUM_TEXT;
	if (!isfinite(v))
		return PM_NUM_INFINITE;
	*value = v;
	return PM_NUM_OK;
}
