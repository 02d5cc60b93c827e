/* A small pthread pool: the library's own, so that no OpenMP runtime lands in
 * a scheduler's process. One job at a time; pm__pool_for blocks until done. */
#ifndef PM_POOL_H
#define PM_POOL_H

#include <stddef.h>
#include "perfmodel/predict.h"

typedef struct pm_pool pm_pool;

/* fn(ctx, i, worker) is called once for every i in [0, n); worker in
 * [0, nthreads) names the thread, so that fn can use per-thread scratch. */
typedef void (*pm_pool_fn)(void *ctx, size_t i, unsigned worker);

/* nthreads >= 1 (the caller counts as one); with 1 no thread is started and
 * the caller runs everything. If the system refuses a thread part-way, the
 * pool keeps those it has: pm__pool_threads says how many there are. Errors:
 * PM_EINVAL (nthreads 0), PM_ENOMEM. */
pm_status pm__pool_new(unsigned nthreads, pm_pool **out, pm_error *err);
void pm__pool_free(pm_pool *p);	/* NULL: no-op; joins the threads */
unsigned pm__pool_threads(const pm_pool *p);
/* Run fn over [0, n), the calling thread taking part. Which thread runs which
 * i is not fixed: fn must write only to places owned by i. */
void pm__pool_for(pm_pool *p, size_t n, pm_pool_fn fn, void *ctx);

#endif
