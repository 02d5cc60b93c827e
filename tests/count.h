/* How many times a text occurs in a string (overlaps counted), for tests
 * that count marks in generated SVG and HTML. */
#ifndef PM_TEST_COUNT_H
#define PM_TEST_COUNT_H

#include <string.h>

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

#endif
