/* Locale-independent conversions (core/numcodec.h): numbers, and errno's
 * text (perfmodel/predict.h, pm_strerror). */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numcodec.h"

/* glibc's newlocale returns its static C locale object for "C" without
 * allocating, so this cannot fail; a (locale_t)0 from another C library
 * would make uselocale below a query that changes nothing, i.e. the
 * thread's own locale, which is the best that is left. */
static locale_t c_locale(void)
{
	return newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

double pm_strtod(const char *s, char **end)
{
	locale_t c, old;
	double v;

	/* no text: no number, as for text strtod reads nothing of */
	if (!s) {
		if (end)
			*end = NULL;
		return 0.0;
	}
	c = c_locale();
	old = uselocale(c);
	v = strtod(s, end);
	uselocale(old);
	return v;
}

int pm_vsnprintf(char *out, size_t size, const char *fmt, va_list ap)
{
	locale_t c, old;
	int n;

	if (!out)
		size = 0;	/* the length alone, as snprintf(NULL, 0, ...) */
	if (!fmt) {
		if (size)
			out[0] = '\0';
		return -1;
	}
	c = c_locale();
	old = uselocale(c);
	n = vsnprintf(out, size, fmt, ap);
	uselocale(old);
	return n;
}

int pm_snprintf(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = pm_vsnprintf(out, size, fmt, ap);
	va_end(ap);
	return n;
}

size_t pm__num_format(char out[PM_NUM_MAX], double v)
{
	locale_t c = c_locale();
	locale_t old = uselocale(c);
	int n = 0;

	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(out, PM_NUM_MAX, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			break;
	}
	uselocale(old);
	return (size_t)n;
}

const char *pm_strerror(int errnum, char *out, size_t size)
{
	locale_t c = c_locale();
	const char *text = c ? strerror_l(errnum, c) : NULL;

	if (!out || !size)
		return "";
	if (text)
		pm_snprintf(out, size, "%s", text);
	else
		pm_snprintf(out, size, "error %d", errnum);
	return out;
}
