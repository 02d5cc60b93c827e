/* Test helper: text as a file of its own, for the suites that read files
 * (test_pipeline.c, test_plan.c). */
#ifndef PM_TEST_TEMP_CSV_H
#define PM_TEST_TEMP_CSV_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* text as a file of its own; the caller unlinks and frees the path */
static inline char *temp_csv(const char *text)
{
	char *path = strdup("/tmp/pm_test_XXXXXX");
	int fd = mkstemp(path);
	FILE *f;

	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

#endif
