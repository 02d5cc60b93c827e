#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "leak_check.h"
#include "core/pool.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(pool);

struct visit {
	atomic_int *count;
	unsigned nthreads;
	atomic_int bad_worker;
	atomic_uint used;	/* bit w: worker w ran something */
};

static void visit(void *ctx, size_t i, unsigned worker)
{
	struct visit *v = ctx;

	atomic_fetch_add(&v->count[i], 1);
	if (worker >= v->nthreads)
		atomic_store(&v->bad_worker, 1);
	else if (worker < 32)
		atomic_fetch_or(&v->used, 1u << worker);
}

static void check_pool(unsigned nthreads)
{
	static const size_t sizes[] = { 0, 1, 2, 7, 1000 };
	pm_pool *p = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm__pool_new(nthreads, &p, &err), PM_OK, "%s", err.msg);
	cr_assert_not_null(p);
	cr_assert_eq(pm__pool_threads(p), nthreads);
	/* the pool is reused: jobs after the first must work too */
	for (int round = 0; round < 3; round++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t n = sizes[s];
			atomic_int *count = calloc(n + 1, sizeof(*count));
			struct visit v = { count, nthreads, 0, 0 };

			cr_assert_not_null(count);
			pm__pool_for(p, n, visit, &v);
			for (size_t i = 0; i < n; i++)
				cr_assert_eq(atomic_load(&count[i]), 1,
					     "%u threads, n = %zu: index %zu visited %d times",
					     nthreads, n, i, atomic_load(&count[i]));
			cr_assert_eq(atomic_load(&count[n]), 0);
			cr_assert_eq(atomic_load(&v.bad_worker), 0);
			if (n > 0 && nthreads == 1)
				cr_assert_eq(atomic_load(&v.used), 1u, "the caller does it all");
			free(count);
		}
	pm__pool_free(p);
}

Test(pool, one_thread) { check_pool(1); }
Test(pool, two_threads) { check_pool(2); }
Test(pool, three_threads) { check_pool(3); }
Test(pool, four_threads) { check_pool(4); }

static void slow(void *ctx, size_t i, unsigned worker)
{
	double *out = ctx;
	double s = 0.0;

	(void)worker;
	for (int k = 1; k < 20000; k++)
		s += 1.0 / ((double)k + (double)i);
	out[i] = s;
}

/* Many short jobs back to back: a lost wake-up or an early return would
 * hang or leave an index unwritten. */
Test(pool, many_jobs_in_a_row)
{
	pm_pool *p = NULL;
	double out[64];

	cr_assert_eq(pm__pool_new(4, &p, NULL), PM_OK);
	for (int job = 0; job < 300; job++) {
		for (size_t i = 0; i < 64; i++)
			out[i] = -1.0;
		pm__pool_for(p, (size_t)(job % 64) + 1, slow, out);
		for (size_t i = 0; i <= (size_t)(job % 64); i++)
			cr_assert_gt(out[i], 0.0);
	}
	pm__pool_free(p);
}

/* Jobs far apart: the workers stop spinning and sleep between them, and
 * must be woken again (and the caller too, when a job outlasts its spin). */
Test(pool, jobs_after_idle)
{
	pm_pool *p = NULL;
	double out[64];
	struct timespec idle = { 0, 20 * 1000 * 1000 };

	cr_assert_eq(pm__pool_new(3, &p, NULL), PM_OK);
	for (int job = 0; job < 6; job++) {
		size_t n = job % 2 ? 64 : 5;

		for (size_t i = 0; i < n; i++)
			out[i] = -1.0;
		nanosleep(&idle, NULL);
		pm__pool_for(p, n, slow, out);
		for (size_t i = 0; i < n; i++)
			cr_assert_gt(out[i], 0.0, "job %d, index %zu", job, i);
	}
	pm__pool_free(p);
}

/* More threads than the machine has cores (this one has two): workers are
 * often descheduled in the middle of a job, so the caller takes their home
 * chunks, and late workers find jobs already finished or the next one
 * posted. Every index must still run exactly once, in every job. */
Test(pool, more_threads_than_cores)
{
	pm_pool *p = NULL;
	atomic_int count[40];

	cr_assert_eq(pm__pool_new(8, &p, NULL), PM_OK);
	for (int job = 0; job < 20000; job++) {
		size_t n = (size_t)(job % 39) + 2;
		struct visit v = { count, 8, 0, 0 };

		for (size_t i = 0; i < n; i++)
			atomic_init(&count[i], 0);
		pm__pool_for(p, n, visit, &v);
		for (size_t i = 0; i < n; i++)
			cr_assert_eq(atomic_load(&count[i]), 1, "job %d, n = %zu: index %zu ran %d times",
				     job, n, i, atomic_load(&count[i]));
		cr_assert_eq(atomic_load(&v.bad_worker), 0);
	}
	pm__pool_free(p);
}

Test(pool, zero_threads_is_invalid)
{
	pm_pool *p = (pm_pool *)&p;
	pm_error err = { 0 };

	cr_assert_eq(pm__pool_new(0, &p, &err), PM_EINVAL);
	cr_assert_null(p);
	cr_assert_eq(err.code, PM_EINVAL);
	cr_assert_neq(err.msg[0], '\0');
}

Test(pool, free_null_and_cpu_count)
{
	pm__pool_free(NULL);
	cr_assert_geq(pm_cpu_count(), 1u);
}
