/* pm_format_double: a double as perfmodel's JSON documents write it. */
#include "perfmodel/perfmodel.h"

#include <math.h>
#include <string.h>

#include "core/numcodec.h"

const char *pm_format_double(double v, char out[PM_DOUBLE_CHARS])
{
	_Static_assert(PM_DOUBLE_CHARS >= PM_NUM_MAX, "room for any double");
	if (!out)
		return NULL;
	if (!isfinite(v))
		strcpy(out, "null");
	else
		pm__num_format(out, v);
	return out;
}
