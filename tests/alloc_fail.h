/* Allocation failure injection for the tests: the test binary replaces
 * malloc, calloc, realloc, aligned_alloc and free (glibc lets a program do
 * so and routes its own calls, and cJSON's, through them too), so that a
 * test can make the k-th allocation fail and count the blocks left behind.
 *
 *	alloc_arm(k);   ... run ...   armed = 0;
 *
 * fails the allocation after k successful ones (fail_in < 0 afterwards
 * means it happened) and leaves in `live` the blocks allocated minus those
 * freed meanwhile. Counters are atomic: the library's pool threads may
 * allocate too. Sanitizer builds bring their own allocator: there
 * NO_ALLOC_HOOK is defined, the hooks are absent and the tests that need
 * them are compiled out (the ASan leak check covers the rest). */
#ifndef PM_TEST_ALLOC_FAIL_H
#define PM_TEST_ALLOC_FAIL_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

#include "leak_check.h"

#if defined(PM_TEST_ASAN) || !defined(__GLIBC__)
#define NO_ALLOC_HOOK
#endif

#ifndef NO_ALLOC_HOOK
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static atomic_int armed;
static atomic_long fail_in;	/* allocations to allow before one fails; < 0: none */
static atomic_long live;	/* blocks allocated minus blocks freed while armed */
static atomic_long calls;	/* allocations asked for while armed */

static int should_fail(void)
{
	if (!armed)
		return 0;
	calls++;
	if (atomic_fetch_sub(&fail_in, 1) == 0) {
		errno = ENOMEM;	/* as glibc's would */
		return 1;
	}
	return 0;
}

static void *counted(void *p)
{
	if (armed && p)
		live++;
	return p;
}

/* From now on the allocation after k successful ones fails (k < 0: none
 * does), and live counts the blocks from 0. */
static inline void alloc_arm(long k)
{
	live = 0;
	fail_in = k;
	armed = 1;
}

void *malloc(size_t n)
{
	return counted(should_fail() ? NULL : __libc_malloc(n));
}

void *calloc(size_t n, size_t size)
{
	return counted(should_fail() ? NULL : __libc_calloc(n, size));
}

void *realloc(void *old, size_t n)
{
	void *p = should_fail() ? NULL : __libc_realloc(old, n);

	return old ? p : counted(p);
}

void *aligned_alloc(size_t align, size_t n)
{
	return counted(should_fail() ? NULL : __libc_memalign(align, n));
}

void free(void *p)
{
	if (armed && p)
		live--;
	__libc_free(p);
}
#endif

#endif
