/* For the tests of the predict API: loading a model committed in the
 * source tree, and checking a call's error. */
#ifndef PM_TEST_MODEL_FIXTURE_H
#define PM_TEST_MODEL_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmodel/predict.h"

/* rel: a path below the source root (PM_SOURCE_ROOT, set by meson). */
static inline pm_model *load_fixture(const char *rel)
{
	char path[1024];
	pm_model *m = NULL;
	pm_error e = { 0 };

	snprintf(path, sizeof(path), "%s/%s", getenv("PM_SOURCE_ROOT"), rel);
	cr_assert_eq(pm_model_load_file(path, &m, &e), PM_OK, "%s", e.msg);
	return m;
}

/* The call returns `status`, with err (E) of the same code and a message
 * containing `want`. */
#define EXPECT_FAIL(call, status, want)                                                 \
	do {                                                                            \
		pm_error e_ = { 0 };                                                    \
		pm_status st_ = (call);                                                 \
		cr_expect_eq(st_, status, "%s: %d (%s)", #call, st_, e_.msg);           \
		cr_expect_eq(e_.code, status);                                          \
		cr_expect(strstr(e_.msg, want), "%s: '%s' lacks '%s'", #call, e_.msg, want); \
	} while (0)
#define E &e_

#endif
