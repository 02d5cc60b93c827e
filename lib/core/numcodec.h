/* core/numcodec.h — numbers as text, the same bytes under every locale.
 *
 * strtod and printf follow LC_NUMERIC, which a program embedding the
 * library may set to a decimal comma (setlocale(LC_ALL, "") under de_DE):
 * model.json would get "0,7" and "0.7" would read as 0. Every number the
 * libraries read or write goes through here instead, which runs the C
 * library's conversions in the "C" locale for the calling thread only
 * (uselocale), so the host's locale and its other threads are untouched.
 * Reentrant; nothing allocates. */
#ifndef PM_CORE_NUMCODEC_H
#define PM_CORE_NUMCODEC_H

#include <stddef.h>

#include "perfmodel/predict.h"

/* Enough for any double pm__num_format writes, with its NUL. */
#define PM_NUM_MAX 32

/* The shortest of %.15g, %.16g and %.17g that reads back as v, bit for bit
 * (%.17g always does): 0.7 is "0.7", not "0.69999999999999996". "inf",
 * "-inf" or "nan" for a value that is not finite. Returns the length. */
size_t pm__num_format(char out[PM_NUM_MAX], double v);

/* pm_snprintf, pm_vsnprintf and pm_strtod (perfmodel/predict.h) are the
 * rest of the codec. */

#endif
