/* The thread pool behind DE's parallel evaluation and the polish's blocks.
 *
 * One job at a time. pm__pool_for publishes (fn, ctx, n), takes part itself
 * as thread 0 and returns when every index is done. The indices are cut
 * into chunks (about CHUNKS_PER_THREAD per thread). Chunk t < nthreads is
 * thread t's "home" chunk; the rest are handed out from a shared counter,
 * so that a thread that is descheduled does not hold back a fixed share.
 * Which thread runs which index is therefore not reproducible, and need not
 * be: callers write only to places owned by the index.
 *
 * Why this shape: the polish posts a job of two blocks every few
 * microseconds, and on a 2-CPU VM one cache-line transfer between the cores
 * took about 0.3 µs (a job's whole hand-off shows in `tune_bench DATA SPEC
 * blocks`, bench/tune_bench.c: two blocks of 75 rows, a few µs of work,
 * take longer on two threads than on one). So a job costs as few transfers
 * as possible on its critical path: the caller writes the whole job (and
 * the counter) into one cache line and a spinning worker reads it (one
 * transfer); the worker claims its home chunk in a line of its own, which
 * stays in its cache (no transfer); it adds what it did to `finished` once,
 * which the caller reads (one transfer). No reset and no closing handshake:
 * `finished` counts over the pool's life, and a job needs no closing
 * because stale workers cannot claim anything (below).
 *
 * A worker claims by compare-and-swap only: its home chunk by raising its
 * slot's job id from below the job's to the job's, a shared chunk by
 * stepping the claim word, which carries the job's id next to the next
 * chunk. A worker may be late: the job it saw posted may be finished, and
 * the caller writing the next one. So the fields are atomics, stored with
 * release after the claim word and loaded with acquire before it: a worker
 * that read any field of a newer job sees that job's id in the claim word
 * and drops the job (read_job). With the fields checked, a claim succeeds
 * only while its job is unfinished (an unfinished job has an unclaimed
 * chunk; a finished one has claimed every home chunk it had), and the
 * caller rewrites the fields only once the job is finished. The caller
 * takes home chunks no worker claimed ("steals" them) after spinning
 * SPIN_NS in vain for the workers' results, or at once when a worker was
 * asleep at posting.
 *
 * DE posts a job every few hundred microseconds (a generation), so waking a
 * sleeping thread through the kernel each time would cost as much as the
 * work. Threads therefore spin a little before they sleep: a worker waiting
 * for the next job, and the caller waiting for the workers, each for at
 * most SPIN_NS, then they block on a condition variable. The spin is short
 * because on a busy machine (more runnable threads than cores) a spinning
 * thread takes the core from the one it waits for. The handshakes are
 * Dekker-style (store the one flag, then load the other, both sequentially
 * consistent):
 *   - a worker about to sleep counts itself in `sleepers` under the mutex
 *     and then re-reads `posted`; the caller stores `posted` and then reads
 *     `sleepers`, broadcasting under the mutex if any sleep;
 *   - the caller about to sleep sets `waiting` under the mutex and re-reads
 *     `finished`; a worker adds to `finished` and then reads `waiting`,
 *     signalling under the mutex if set.
 * Either side sees the other's store, so no wake-up is lost.
 *
 * If pthread_create fails part-way, the pool keeps the threads it has
 * (pm__pool_threads says how many, caller included) rather than failing:
 * results never depend on the thread count, only speed does. */
#include "core/pool.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "perfmodel/perfmodel.h"

#define SPIN_NS 20000
/* chunks per thread and job: small enough to even out the threads' ends */
#define CHUNKS_PER_THREAD 16
#define CACHE_LINE 64
/* The claim word: the job's id above CHUNK_BITS, the next shared chunk
 * below. The id is kept modulo 2^44: a worker would have to sleep through
 * 2^44 jobs to mistake one for another. */
#define CHUNK_BITS 20
#define MAX_CHUNKS (((uint64_t)1 << CHUNK_BITS) - 1)
#define ID_MASK ((~(uint64_t)0) >> CHUNK_BITS)
#define NO_CHUNK SIZE_MAX

typedef atomic_uint_least64_t atomic_u64;

/* A worker's own line: the last job whose home chunk was claimed. */
struct slot {
	_Alignas(CACHE_LINE) atomic_u64 home;
};

struct pm_pool {
	/* The job: written by the caller only, one line (see the top). */
	_Alignas(CACHE_LINE) atomic_u64 posted;	/* the last job's id (ids start at 1) */
	atomic_u64 claim;
	_Atomic(pm_pool_fn) fn;
	_Atomic(void *) ctx;
	atomic_size_t n, size, nchunks, nhome;

	/* indices the workers finished, over the pool's life */
	_Alignas(CACHE_LINE) atomic_u64 finished;

	/* rarely written */
	_Alignas(CACHE_LINE) atomic_uint sleepers;	/* workers blocked on wake */
	atomic_int waiting;	/* the caller is blocked on done */
	atomic_int shutdown;
	unsigned nthreads;	/* the caller included */
	unsigned nstarted;	/* worker threads actually running */
	struct slot *slot;	/* nthreads; [0] is the caller's */
	pthread_t *thread;
	pthread_mutex_t mu;
	pthread_cond_t wake;	/* a new job or shutdown */
	pthread_cond_t done;	/* the caller's condition may have changed */
	int have_mu, have_wake, have_done;

	/* the caller's alone, written every job: a line of its own */
	_Alignas(CACHE_LINE) uint64_t done_before;	/* `finished` before the job */
};

/* A job's fields as one thread read them. */
struct job {
	uint64_t id;
	pm_pool_fn fn;
	void *ctx;
	size_t n, size, nchunks, nhome;
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

static size_t run_chunk(const struct job *j, size_t c, unsigned worker)
{
	size_t i = c * j->size, end = j->n - i < j->size ? j->n : i + j->size;

	for (size_t k = i; k < end; k++)
		j->fn(j->ctx, k, worker);
	return end - i;
}

/* Thread t's home chunk of job j, if nobody has claimed it yet. */
static int claim_home(pm_pool *p, const struct job *j, unsigned t)
{
	uint64_t seen = atomic_load(&p->slot[t].home);

	while (seen < j->id)
		if (atomic_compare_exchange_weak(&p->slot[t].home, &seen, j->id))
			return 1;
	return 0;
}

/* The next shared chunk of job j, or NO_CHUNK. */
static size_t claim_shared(pm_pool *p, const struct job *j)
{
	uint64_t w = atomic_load(&p->claim);

	while (w >> CHUNK_BITS == (j->id & ID_MASK) && (w & MAX_CHUNKS) < j->nchunks)
		if (atomic_compare_exchange_weak(&p->claim, &w, w + 1))
			return (size_t)(w & MAX_CHUNKS);
	return NO_CHUNK;
}

/* Thread t's home chunk if it can claim it, then shared chunks while there
 * are any: the number of indices done. */
static size_t run_claimed(pm_pool *p, const struct job *j, unsigned t)
{
	size_t done = 0, c;

	if (t < j->nhome && claim_home(p, j, t))
		done += run_chunk(j, t, t);
	while ((c = claim_shared(p, j)) != NO_CHUNK)
		done += run_chunk(j, c, t);
	return done;
}

/* Tell a caller blocked in wait_finished() to look again. */
static void poke_caller(pm_pool *p)
{
	if (atomic_load(&p->waiting)) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_signal(&p->done);
		pthread_mutex_unlock(&p->mu);
	}
}

/* The caller: spin until `finished` reaches target; if block, then sleep
 * until it does. Returns whether it was reached. */
static int wait_finished(pm_pool *p, uint64_t target, int block)
{
	uint64_t deadline = 0;

	for (unsigned k = 0; spin(k, &deadline); k++)
		if (atomic_load(&p->finished) >= target)
			return 1;
	if (!block)
		return 0;
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->waiting, 1);
	while (atomic_load(&p->finished) < target)
		pthread_cond_wait(&p->done, &p->mu);
	atomic_store(&p->waiting, 0);
	pthread_mutex_unlock(&p->mu);
	return 1;
}

/* A worker: spin, then block until a job after `seen` is posted or the pool
 * shuts down; returns the posted id (or `seen` on shutdown). */
static uint64_t next_job(pm_pool *p, uint64_t seen)
{
	uint64_t id, deadline = 0;

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

/* Job `id`'s fields, or 0 when some may be a later job's. The claim word
 * is read last: a field from a later job was stored after that job's claim
 * word, so reading it (acquire) makes the claim word show that job's id.
 * Without this check, a home chunk that job `id` did not have (t >= its
 * nhome), never claimed in it, could be claimed with a later job's fields. */
static int read_job(pm_pool *p, uint64_t id, struct job *j)
{
	j->id = id;
	j->fn = atomic_load_explicit(&p->fn, memory_order_acquire);
	j->ctx = atomic_load_explicit(&p->ctx, memory_order_acquire);
	j->n = atomic_load_explicit(&p->n, memory_order_acquire);
	j->size = atomic_load_explicit(&p->size, memory_order_acquire);
	j->nchunks = atomic_load_explicit(&p->nchunks, memory_order_acquire);
	j->nhome = atomic_load_explicit(&p->nhome, memory_order_acquire);
	return atomic_load_explicit(&p->claim, memory_order_acquire) >> CHUNK_BITS ==
	       (id & ID_MASK);
}

static void *worker_main(void *arg)
{
	pm_pool *p = ((struct worker_arg *)arg)->p;
	unsigned id = ((struct worker_arg *)arg)->id;
	uint64_t seen = 0;

	free(arg);
	for (;;) {
		struct job j;
		size_t done;

		seen = next_job(p, seen);
		if (atomic_load(&p->shutdown))
			break;
		if (read_job(p, seen, &j) && (done = run_claimed(p, &j, id)) != 0) {
			atomic_fetch_add(&p->finished, done);
			poke_caller(p);
		}
	}
	return NULL;
}

pm_status pm__pool_new(unsigned nthreads, pm_pool **out, pm_error *err)
{
	pm_pool *p;

	*out = NULL;
	if (nthreads < 1)
		return pm__fail(err, PM_EINVAL, "a thread pool needs at least one thread");
	/* aligned_alloc wants a multiple of the alignment */
	p = aligned_alloc(CACHE_LINE, (sizeof(*p) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE);
	if (!p)
		goto oom;
	memset(p, 0, sizeof(*p));
	atomic_init(&p->posted, 0);
	atomic_init(&p->claim, 0);
	atomic_init(&p->fn, NULL);
	atomic_init(&p->ctx, NULL);
	atomic_init(&p->n, 0);
	atomic_init(&p->size, 0);
	atomic_init(&p->nchunks, 0);
	atomic_init(&p->nhome, 0);
	atomic_init(&p->finished, 0);
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
	p->slot = aligned_alloc(CACHE_LINE, nthreads * sizeof(*p->slot));
	if (!p->slot)
		goto oom;
	for (unsigned k = 0; k < nthreads; k++)
		atomic_init(&p->slot[k].home, 0);
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
	free(p->slot);
	free(p);
}

unsigned pm__pool_threads(const pm_pool *p)
{
	return p ? p->nthreads : 1;
}

/* Publish job j: the claim word first, then the fields, then `posted` (see
 * the top). Returns whether a worker was asleep (and has been woken). */
static int post(pm_pool *p, const struct job *j)
{
	atomic_store_explicit(&p->claim, (j->id & ID_MASK) << CHUNK_BITS | j->nhome,
			      memory_order_release);
	atomic_store_explicit(&p->fn, j->fn, memory_order_release);
	atomic_store_explicit(&p->ctx, j->ctx, memory_order_release);
	atomic_store_explicit(&p->n, j->n, memory_order_release);
	atomic_store_explicit(&p->size, j->size, memory_order_release);
	atomic_store_explicit(&p->nchunks, j->nchunks, memory_order_release);
	atomic_store_explicit(&p->nhome, j->nhome, memory_order_release);
	atomic_store(&p->posted, j->id);
	if (!atomic_load(&p->sleepers))
		return 0;
	pthread_mutex_lock(&p->mu);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	return 1;
}

void pm__pool_for(pm_pool *p, size_t n, pm_pool_fn fn, void *ctx)
{
	struct job j = { .fn = fn, .ctx = ctx, .n = n };
	size_t mine, most;
	int slept;

	/* Waking threads for a single index would only add latency. */
	if (!p || p->nstarted == 0 || n <= 1) {
		for (size_t i = 0; i < n; i++)
			fn(ctx, i, 0);
		return;
	}
	most = (size_t)p->nthreads * CHUNKS_PER_THREAD;
	if (most > MAX_CHUNKS)
		most = MAX_CHUNKS;
	j.size = n / most + (n % most != 0);	/* at least one index a chunk */
	j.nchunks = n / j.size + (n % j.size != 0);
	j.nhome = j.nchunks < p->nthreads ? j.nchunks : p->nthreads;
	j.id = atomic_load_explicit(&p->posted, memory_order_relaxed) + 1;
	slept = post(p, &j);

	mine = run_claimed(p, &j, 0);
	/* the workers' home chunks: wait for them a little, unless a worker
	 * was asleep, then take those nobody has claimed */
	if (mine == n || (!slept && wait_finished(p, p->done_before + (n - mine), 0))) {
		p->done_before += n - mine;
		return;
	}
	for (unsigned t = 1; t < j.nhome; t++)
		if (claim_home(p, &j, t))
			mine += run_chunk(&j, t, 0);
	p->done_before += n - mine;
	wait_finished(p, p->done_before, 1);
}

unsigned pm_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	if ((unsigned long)n > UINT_MAX)
		return UINT_MAX;
	return (unsigned)n;
}
