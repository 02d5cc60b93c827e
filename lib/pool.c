/* The thread pool behind DE's parallel evaluation.
 *
 * One job at a time. pm__pool_for publishes (fn, ctx, n), takes part itself
 * as worker 0, waits until every index is done, then closes the job.
 * Indices are handed out in small chunks from an atomic counter: a worker
 * that is descheduled must not hold back a fixed share, and chunks (rather
 * than single indices) keep the two threads from writing to the same cache
 * lines of the results all the time. Which thread runs which index is
 * therefore not reproducible, and need not be: callers write only to places
 * owned by the index.
 *
 * DE posts a job every few hundred microseconds (a generation), so waking a
 * sleeping thread through the kernel each time would cost as much as the
 * work. Threads therefore spin a little before they sleep: a worker that
 * finished a job spins waiting for the next, and the caller spins waiting
 * for the last chunk, each for at most SPIN_NS, then they block on a
 * condition variable. The spin is short because on a busy machine (more
 * runnable threads than cores) a spinning thread takes the core from the
 * one it waits for; 20 µs covers DE's serial step between generations and
 * a chunk's worth of evaluations. The handshakes are Dekker-style
 * (store the one flag, then load the other, both sequentially consistent):
 *   - a worker about to sleep counts itself in `sleepers` under the mutex
 *     and then re-reads `posted`; the caller stores `posted` and then reads
 *     `sleepers`, broadcasting under the mutex if any sleep;
 *   - the caller about to sleep sets `waiting` under the mutex and re-reads
 *     its condition; a worker changes `finished` or `active` and then reads
 *     `waiting`, signalling under the mutex if set.
 * Either side sees the other's store, so no wake-up is lost.
 *
 * A worker joins a job by counting itself in `active` and then checking
 * that the job is still `open`; the caller closes it (open = 0) only after
 * every index is done and then waits for `active` to drop to 0. So a worker
 * that woke late never reads the job's fields while the next job is being
 * written, and never delays the caller by more than its own check.
 *
 * If pthread_create fails part-way, the pool keeps the threads it has
 * (pm__pool_threads says how many, caller included) rather than failing:
 * results never depend on the thread count, only speed does. */
#include "pool.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "error.h"

#define SPIN_NS 20000
/* chunks per thread and job: small enough to even out the threads' ends */
#define CHUNKS_PER_THREAD 16

struct pm_pool {
	unsigned nthreads;	/* the caller included */
	unsigned nstarted;	/* worker threads actually running */
	pthread_t *thread;
	pthread_mutex_t mu;
	pthread_cond_t wake;	/* a new job or shutdown */
	pthread_cond_t done;	/* the caller's condition may have changed */
	int have_mu, have_wake, have_done;

	/* The job: written by pm__pool_for only while it is closed and no
	 * worker is active. */
	pm_pool_fn fn;
	void *ctx;
	size_t n, chunk;

	atomic_ulong posted;	/* the last job's id (ids start at 1) */
	atomic_ulong open;	/* the open job's id, 0 when closed */
	atomic_size_t next;	/* the next index to hand out */
	atomic_size_t finished;	/* indices done */
	atomic_uint active;	/* workers inside the open job */
	atomic_uint sleepers;	/* workers blocked on wake */
	atomic_int waiting;	/* the caller is blocked on done */
	atomic_int shutdown;
};

struct worker_arg {
	pm_pool *p;
	unsigned id;
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One spin step; 0 once SPIN_NS have passed since step k == 0 (the clock is
 * read every 64 steps only). */
static int spin(unsigned k, uint64_t *deadline)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
	if (k % 64 == 0) {
		uint64_t t = now_ns();

		if (k == 0)
			*deadline = t + SPIN_NS;
		else if (t >= *deadline)
			return 0;
	}
	return 1;
}

/* Tell a caller blocked in wait_until() to look again. */
static void poke_caller(pm_pool *p)
{
	if (atomic_load(&p->waiting)) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_signal(&p->done);
		pthread_mutex_unlock(&p->mu);
	}
}

static void run_indices(pm_pool *p, unsigned worker)
{
	size_t n = p->n, chunk = p->chunk;

	for (;;) {
		size_t i = atomic_fetch_add_explicit(&p->next, chunk, memory_order_relaxed);
		size_t end;

		if (i >= n)
			break;
		end = n - i < chunk ? n : i + chunk;
		for (size_t k = i; k < end; k++)
			p->fn(p->ctx, k, worker);
		/* release: the caller that reads finished == n sees our writes */
		if (atomic_fetch_add(&p->finished, end - i) + (end - i) == n)
			poke_caller(p);
	}
}

static int job_done(pm_pool *p)
{
	return atomic_load(&p->finished) == p->n;
}

static int workers_out(pm_pool *p)
{
	return atomic_load(&p->active) == 0;
}

/* The caller: spin, then block until cond(p). */
static void wait_until(pm_pool *p, int (*cond)(pm_pool *))
{
	uint64_t deadline = 0;

	for (unsigned k = 0; spin(k, &deadline); k++)
		if (cond(p))
			return;
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->waiting, 1);
	while (!cond(p))
		pthread_cond_wait(&p->done, &p->mu);
	atomic_store(&p->waiting, 0);
	pthread_mutex_unlock(&p->mu);
}

/* A worker: spin, then block until a job after `seen` is posted or the pool
 * shuts down; returns the posted id (or `seen` on shutdown). */
static unsigned long next_job(pm_pool *p, unsigned long seen)
{
	unsigned long id;
	uint64_t deadline = 0;

	for (unsigned k = 0; spin(k, &deadline); k++)
		if ((id = atomic_load(&p->posted)) != seen || atomic_load(&p->shutdown))
			return id;
	pthread_mutex_lock(&p->mu);
	atomic_fetch_add(&p->sleepers, 1);
	while ((id = atomic_load(&p->posted)) == seen && !atomic_load(&p->shutdown))
		pthread_cond_wait(&p->wake, &p->mu);
	atomic_fetch_sub(&p->sleepers, 1);
	pthread_mutex_unlock(&p->mu);
	return id;
}

static void *worker_main(void *arg)
{
	pm_pool *p = ((struct worker_arg *)arg)->p;
	unsigned id = ((struct worker_arg *)arg)->id;
	unsigned long seen = 0;

	free(arg);
	for (;;) {
		seen = next_job(p, seen);
		if (atomic_load(&p->shutdown))
			break;
		atomic_fetch_add(&p->active, 1);
		/* joined too late (closed, or already the next job): leave */
		if (atomic_load(&p->open) == seen)
			run_indices(p, id);
		if (atomic_fetch_sub(&p->active, 1) == 1)
			poke_caller(p);
	}
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
	atomic_init(&p->posted, 0);
	atomic_init(&p->open, 0);
	atomic_init(&p->next, 0);
	atomic_init(&p->finished, 0);
	atomic_init(&p->active, 0);
	atomic_init(&p->sleepers, 0);
	atomic_init(&p->waiting, 0);
	atomic_init(&p->shutdown, 0);
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
		atomic_store(&p->shutdown, 1);
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
	unsigned long id;

	if (n == 0)
		return;
	/* Waking threads for a single index would only add latency. */
	if (!p || p->nstarted == 0 || n == 1) {
		for (size_t i = 0; i < n; i++)
			fn(ctx, i, 0);
		return;
	}
	/* closed and no worker active: nobody reads these now */
	p->fn = fn;
	p->ctx = ctx;
	p->n = n;
	p->chunk = n / ((size_t)p->nthreads * CHUNKS_PER_THREAD);
	if (p->chunk == 0)
		p->chunk = 1;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	atomic_store_explicit(&p->finished, 0, memory_order_relaxed);
	id = atomic_load_explicit(&p->posted, memory_order_relaxed) + 1;
	atomic_store(&p->open, id);
	atomic_store(&p->posted, id);
	if (atomic_load(&p->sleepers)) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_broadcast(&p->wake);
		pthread_mutex_unlock(&p->mu);
	}

	run_indices(p, 0);

	wait_until(p, job_done);
	atomic_store(&p->open, 0);
	wait_until(p, workers_out);
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
