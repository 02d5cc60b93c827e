/* The fit's cost split over fixed blocks of rows, the blocks evaluated in
 * parallel by the pool: for the polish, whose evaluations come one at a
 * time (DE parallelises over its trials instead). Values of small blocks,
 * which cost less than handing them to another core, are evaluated by the
 * calling thread alone (blocks.c).
 *
 * Determinism: the blocks are a function of the number of rows alone
 * (about BLOCK_ROWS each, at most MAX_BLOCKS), never of the thread count;
 * each block's cost is a pm_cost over its rows (cost.h: a fixed order
 * within it), and the blocks are combined in block order. So the value is
 * a function of x alone, on any number of threads. It is the full cost up to
 * rounding: Σ_k (n_k / N) f_k, each f_k a block's mean loss plus the
 * penalty (the weights sum to 1, so the penalty counts once). */
#ifndef PM_BLOCKS_H
#define PM_BLOCKS_H

#include <stddef.h>
#include "fit/cost.h"
#include "core/pool.h"

typedef struct pm_blocks {
	size_t nblocks;		/* >= 2 when made */
	size_t nparams;
	pm_problem *view;	/* per block: the problem's rows r0..r1 (borrowed arrays) */
	pm_column *col;		/* nblocks * ncols column views */
	pm_cost *cost;		/* per block */
	double *weight;		/* per block: n_k / N */
	/* per thread of the pool, stride bytes each, 64-byte aligned: an
	 * evaluation's row arrays live only while its block is evaluated, so
	 * one set per thread suffices (one per block was most of the polish's
	 * memory on a large data set) */
	unsigned char *scratch;
	size_t stride;
	/* per block, ostride doubles each, 64-byte aligned: its value, its
	 * gradient (nparams) and its own copy of x (nparams), each starting a
	 * cache line: the thread evaluating the block writes only its lines */
	double *out;
	size_t ostride, grad_at, x_at;
	pm_pool *pool;
	/* the evaluation in progress, in lines of its own (the caller writes
	 * them every evaluation, the threads only read them): eps, whether
	 * to smooth (0 or 1), then from in + in_x, x (nparams) */
	double *in;
	size_t in_x;
} pm_blocks;

/* The number of blocks p's rows make: 1 means "do not split". */
size_t pm__blocks_count(size_t nrows);

/* Split p (which must outlive b) into pm__blocks_count(p->nrows) >= 2
 * blocks and compile each (pm__cost_init with m and o). pool: NULL or the
 * threads to use. Errors as pm__cost_init's; on error b is freed. */
pm_status pm__blocks_init(pm_blocks *b, const pm_problem *p, const pm_model *m,
			  const pm_fit_options *o, pm_pool *pool, pm_error *err);
void pm__blocks_free(pm_blocks *b);	/* copes with a zeroed or half-built b */

/* pm_cost_fn and pm_smooth_fn with ctx = the pm_blocks; scratch unused
 * (the blocks have their own). Not reentrant on one b. */
double pm__blocks_value(const double *x, void *ctx, void *scratch);
double pm__blocks_smooth(const double *x, double eps, double *grad, void *ctx, void *scratch);

#endif
