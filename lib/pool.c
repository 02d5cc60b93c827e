/* The thread pool behind DE's parallel evaluation.
 *
 * One job at a time: pm__pool_for publishes (fn, ctx, n) under the mutex,
 * wakes the workers, takes part itself as worker 0 and waits until every
 * worker has checked out of the job. Indices are handed out one at a time
 * from an atomic counter: trials cost about the same, but a worker that is
 * descheduled must not hold back a fixed share of them. Which thread runs
 * which index is therefore not reproducible, and need not be: callers write
 * only to places owned by the index.
 *
 * If pthread_create fails part-way, the pool keeps the threads it has
 * (pm__pool_threads says how many, caller included) rather than failing:
 * results never depend on the thread count, only speed does. */
#include "pool.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"

struct pm_pool {
	unsigned nthreads;	/* the caller included */
	unsigned nstarted;	/* worker threads actually running */
	pthread_t *thread;
	pthread_mutex_t mu;
	pthread_cond_t wake;	/* a new job or shutdown */
	pthread_cond_t done;	/* the last worker left the job */
	int have_mu, have_wake, have_done;

	/* The job, written under mu by pm__pool_for only. */
	unsigned long job_id;
	pm_pool_fn fn;
	void *ctx;
	size_t n;
	unsigned busy;		/* workers still inside the current job */
	int shutdown;

	atomic_size_t next;	/* the next index to hand out */
};

struct worker_arg {
	pm_pool *p;
	unsigned id;
};

static void run_indices(pm_pool *p, pm_pool_fn fn, void *ctx, size_t n, unsigned worker)
{
	for (;;) {
		size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);

		if (i >= n)
			break;
		fn(ctx, i, worker);
	}
}

static void *worker_main(void *arg)
{
	pm_pool *p = ((struct worker_arg *)arg)->p;
	unsigned id = ((struct worker_arg *)arg)->id;
	unsigned long seen = 0;

	free(arg);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		pm_pool_fn fn;
		void *ctx;
		size_t n;

		while (p->job_id == seen && !p->shutdown)
			pthread_cond_wait(&p->wake, &p->mu);
		if (p->shutdown)
			break;
		seen = p->job_id;
		fn = p->fn;
		ctx = p->ctx;
		n = p->n;
		pthread_mutex_unlock(&p->mu);

		run_indices(p, fn, ctx, n, id);

		pthread_mutex_lock(&p->mu);
		/* Leaving under the mutex is what makes this worker's writes
		 * visible to the caller once it sees busy == 0. */
		if (--p->busy == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

pm_status pm__pool_new(unsigned nthreads, pm_pool **out, pm_error *err)
{
	pm_pool *p;

	*out = NULL;
	if (nthreads < 1)
		return pm__fail(err, PM_EINVAL, "a thread pool needs at least one thread");
	p = calloc(1, sizeof(*p));
	if (!p)
		goto oom;
	atomic_init(&p->next, 0);
	p->nthreads = 1;
	if (nthreads == 1) {
		*out = p;
		return PM_OK;
	}
	p->thread = calloc(nthreads - 1, sizeof(*p->thread));
	if (!p->thread)
		goto oom;
	if (pthread_mutex_init(&p->mu, NULL) != 0)
		goto oom;
	p->have_mu = 1;
	if (pthread_cond_init(&p->wake, NULL) != 0)
		goto oom;
	p->have_wake = 1;
	if (pthread_cond_init(&p->done, NULL) != 0)
		goto oom;
	p->have_done = 1;
	for (unsigned k = 1; k < nthreads; k++) {
		struct worker_arg *a = malloc(sizeof(*a));

		if (!a)
			break;
		a->p = p;
		a->id = k;
		if (pthread_create(&p->thread[k - 1], NULL, worker_main, a) != 0) {
			free(a);
			break;	/* fewer threads: see the top of the file */
		}
		p->nstarted++;
	}
	p->nthreads = p->nstarted + 1;
	*out = p;
	return PM_OK;
oom:
	pm__pool_free(p);
	return pm__fail(err, PM_ENOMEM, "out of memory creating a pool of %u threads", nthreads);
}

void pm__pool_free(pm_pool *p)
{
	if (!p)
		return;
	if (p->nstarted) {
		pthread_mutex_lock(&p->mu);
		p->shutdown = 1;
		pthread_cond_broadcast(&p->wake);
		pthread_mutex_unlock(&p->mu);
		for (unsigned k = 0; k < p->nstarted; k++)
			pthread_join(p->thread[k], NULL);
	}
	if (p->have_done)
		pthread_cond_destroy(&p->done);
	if (p->have_wake)
		pthread_cond_destroy(&p->wake);
	if (p->have_mu)
		pthread_mutex_destroy(&p->mu);
	free(p->thread);
	free(p);
}

unsigned pm__pool_threads(const pm_pool *p)
{
	return p ? p->nthreads : 1;
}

void pm__pool_for(pm_pool *p, size_t n, pm_pool_fn fn, void *ctx)
{
	if (n == 0)
		return;
	/* Waking threads for a single index would only add latency. */
	if (!p || p->nstarted == 0 || n == 1) {
		for (size_t i = 0; i < n; i++)
			fn(ctx, i, 0);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->ctx = ctx;
	p->n = n;
	p->busy = p->nstarted;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	p->job_id++;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);

	run_indices(p, fn, ctx, n, 0);

	pthread_mutex_lock(&p->mu);
	while (p->busy > 0)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

unsigned pm__cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	if ((unsigned long)n > UINT_MAX)
		return UINT_MAX;
	return (unsigned)n;
}
