/* mkostemp is a GNU and BSD extension (POSIX only from 2024): this file
 * alone asks for it, so that the rest of core/ keeps POSIX's strerror_r,
 * which _GNU_SOURCE would replace with GNU's. */
#define _GNU_SOURCE

#include "core/tempfile.h"

#include <fcntl.h>
#include <stdlib.h>

int pm__mkstemp_cloexec(char *tmpl)
{
	return mkostemp(tmpl, O_CLOEXEC);
}
