/* The locale-proof number codec (core/numcodec.h) as the fitting library
 * offers it: for the CLI, which prints its tables through it, and for any
 * program that writes numbers next to perfmodel's. */
#include "perfmodel/perfmodel.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/numcodec.h"

const char *pm_format_double(double v, char out[PM_DOUBLE_CHARS])
{
	_Static_assert(PM_DOUBLE_CHARS >= PM_NUM_MAX, "room for any double");
	if (!isfinite(v))
		strcpy(out, "null");
	else
		pm__num_format(out, v);
	return out;
}

int pm_vsnprintf(char *out, size_t size, const char *fmt, va_list ap)
{
	return pm__num_vsnprintf(out, size, fmt, ap);
}

int pm_snprintf(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = pm__num_vsnprintf(out, size, fmt, ap);
	va_end(ap);
	return n;
}

double pm_strtod(const char *s, char **end)
{
	return pm__num_strtod(s, end);
}
