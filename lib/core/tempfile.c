/* mkostemp is a GNU and BSD extension (POSIX only from 2024): this file
 * alone asks for it, so that the rest of core/ stays within POSIX. */
#define _GNU_SOURCE

#include "core/tempfile.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pm__mkstemp_cloexec(char *tmpl)
{
	return mkostemp(tmpl, O_CLOEXEC);
}

/* The mode a newly created file would get: 0666 less the umask. umask()
 * can only be read by setting it, which would race with other threads, so
 * read it from /proc where Linux shows it; elsewhere assume 022. */
mode_t pm__new_file_mode(void)
{
	mode_t mask = 022;
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "Umask:", 6) == 0) {
				mask = (mode_t)strtoul(line + 6, NULL, 8) & 0777;
				break;
			}
		fclose(f);
	}
	return 0666 & ~mask;
}
