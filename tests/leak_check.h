/* A leak check after every test, for Criterion suites built with
 * AddressSanitizer (meson -Db_sanitize=address).
 *
 * Criterion runs each test in a child process and ignores what
 * LeakSanitizer reports when that process exits, so under ASan a leaking
 * test would still pass. A suite declared with
 *
 *	PM_LEAK_CHECKED_SUITE(name);
 *
 * runs LeakSanitizer in each of its tests' teardown and crashes it on a
 * leak, which fails the test (the report, with its stacks, is on stderr).
 * Every suite of every tests/test_*.c declares itself so; without ASan the
 * check is a no-op. A test's own .fini, if any, runs first.
 *
 * PM_TEST_ASAN is defined when AddressSanitizer is on, for tests that must
 * step aside from its allocator (allocation-failure injection). */
#ifndef PM_TEST_LEAK_CHECK_H
#define PM_TEST_LEAK_CHECK_H

#include <criterion/criterion.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define PM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PM_TEST_ASAN 1
#endif
#endif

#ifdef PM_TEST_ASAN
#include <sanitizer/lsan_interface.h>
#endif

static void pm_test_leak_check(void)
{
#ifdef PM_TEST_ASAN
	/* recoverable: reports and returns nonzero instead of exiting, so
	 * that the abort() below is what Criterion sees */
	if (__lsan_do_recoverable_leak_check())
		abort();
#endif
}

#define PM_LEAK_CHECKED_SUITE(name) TestSuite(name, .fini = pm_test_leak_check)

#endif
