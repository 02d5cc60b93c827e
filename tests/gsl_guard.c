/* Linked into every unit test of the fitting library: GSL's error handler
 * must never be reached from libperfmodel (it checks inputs before each GSL
 * call and uses no GSL routine that allocates), so reaching it fails the
 * test that did, with GSL's own words, instead of GSL's default abort. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>

static void reached(const char *reason, const char *file, int line, int gsl_errno)
{
	fprintf(stderr, "GSL's error handler was reached: %s (%s:%d, GSL error %d)\n", reason,
		file, line, gsl_errno);
	abort();
}

__attribute__((constructor)) static void install(void)
{
	gsl_set_error_handler(reached);
}
