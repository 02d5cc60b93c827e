#include "fit/blocks.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* About this many rows a block: a block's fixed work (its tables, filled
 * once per evaluation) stays small next to its rows, and data/lenet5_cpu.csv
 * (600 rows) already splits in two. `tune_bench DATA SPEC blocks`
 * (bench/tune_bench.c) times an evaluation per row against the block's
 * rows: on lenet5 a value cost 7-24 ns a row at 75 rows, 3-12 at 300, and
 * hardly less beyond (the tables are paid for from about 300). */
#define BLOCK_ROWS 300
#define MAX_BLOCKS 16
#define ALIGN 64

size_t pm__blocks_count(size_t nrows)
{
	size_t k = nrows / BLOCK_ROWS;

	return k < 1 ? 1 : k > MAX_BLOCKS ? MAX_BLOCKS : k;
}

void pm__blocks_free(pm_blocks *b)
{
	if (!b)
		return;
	for (size_t k = 0; b->cost && k < b->nblocks; k++)
		pm__cost_free(&b->cost[k]);
	free(b->view);
	free(b->col);
	free(b->cost);
	free(b->weight);
	free(b->scratch);
	free(b->out);
	free(b->in);
	*b = (pm_blocks){ 0 };
}

pm_status pm__blocks_init(pm_blocks *b, const pm_problem *p, const pm_model *m,
			  const pm_fit_options *o, pm_pool *pool, pm_error *err)
{
	size_t nb = pm__blocks_count(p->nrows), nc = p->ncols, most = 0;
	size_t line = ALIGN / sizeof(double), vec = (m->nparams + line - 1) / line * line;
	pm_status st;

	*b = (pm_blocks){ .nblocks = nb, .nparams = m->nparams, .pool = pool };
	b->view = calloc(nb, sizeof(*b->view));
	b->col = malloc((nb * nc + 1) * sizeof(*b->col));
	b->cost = calloc(nb, sizeof(*b->cost));
	b->weight = malloc(nb * sizeof(*b->weight));
	b->grad_at = line;
	b->x_at = line + vec;
	b->ostride = line + 2 * vec;
	b->out = aligned_alloc(ALIGN, nb * b->ostride * sizeof(*b->out));
	b->in_x = line;
	b->in = aligned_alloc(ALIGN, (line + vec) * sizeof(*b->in));
	if (!b->view || !b->col || !b->cost || !b->weight || !b->out || !b->in) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t k = 0; k < nb; k++) {
		size_t r0 = k * p->nrows / nb, r1 = (k + 1) * p->nrows / nb;
		pm_problem *v = &b->view[k];

		*v = *p;
		v->nrows = r1 - r0;
		v->col = b->col + k * nc;
		v->t = p->t + r0;
		v->t_raw = p->t_raw + r0;
		v->w = p->w ? p->w + r0 : NULL;
		for (size_t j = 0; j < nc; j++) {
			v->col[j] = p->col[j];
			v->col[j].code = p->col[j].code + r0;
		}
		b->weight[k] = (double)v->nrows / (double)p->nrows;
		if ((st = pm__cost_init(&b->cost[k], v, m, o, err)))
			goto fail;
		if (b->cost[k].scratch_bytes > most)
			most = b->cost[k].scratch_bytes;
	}
	b->stride = (most + ALIGN - 1) / ALIGN * ALIGN;
	if (b->stride == 0)
		b->stride = ALIGN;
	b->scratch = aligned_alloc(ALIGN, b->stride * pm__pool_threads(pool));
	if (!b->scratch) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto fail;
	}
	return PM_OK;
fail:
	pm__blocks_free(b);
	return st;
}

static void eval_block(void *ctx, size_t k, unsigned worker)
{
	pm_blocks *b = ctx;
	void *s = b->scratch + worker * b->stride;
	double *out = b->out + k * b->ostride, *x = out + b->x_at;

	/* x was written by the caller's thread: fetch all its cache lines at
	 * once here rather than one miss at a time inside the evaluation */
	memcpy(x, b->in + b->in_x, b->nparams * sizeof(*x));
	out[0] = b->in[1] != 0.0 ? pm__cost_smooth(x, b->in[0], out + b->grad_at, &b->cost[k], s)
				 : pm__cost_value(x, &b->cost[k], s);
}

/* All blocks, in parallel; their weighted sum in block order (and the
 * gradients' likewise into grad). */
static double evaluate(pm_blocks *b, const double *x, double eps, double *grad)
{
	double f = 0.0;

	b->in[0] = eps;
	b->in[1] = grad != NULL;
	memcpy(b->in + b->in_x, x, b->nparams * sizeof(*x));
	/* values too, not only gradients: `tune_bench DATA SPEC blocks`
	 * times two blocks on one and on two threads, and on lenet5 on the
	 * idle 2-CPU VM two values of 300-row blocks took 0.89-1.14 µs on two
	 * threads against 1.60-1.87 on one (of 75 rows 0.58-0.83 against
	 * 0.88; three runs). Values of blocks under 1000 rows had been kept on
	 * the calling thread from a run on the same VM shared with other jobs
	 * (load 5), where two threads lost up to 4000 rows a block; a fit's
	 * default threads are the CPUs, which presumes them free. Which
	 * thread evaluates a block never changes its value. */
	pm__pool_for(b->pool, b->nblocks, eval_block, b);
	if (grad)
		memset(grad, 0, b->nparams * sizeof(*grad));
	for (size_t k = 0; k < b->nblocks; k++) {
		const double *out = b->out + k * b->ostride;

		f += b->weight[k] * out[0];
		for (size_t i = 0; grad && i < b->nparams; i++)
			grad[i] += b->weight[k] * out[b->grad_at + i];
	}
	return f;
}

double pm__blocks_value(const double *x, void *ctx, void *scratch)
{
	(void)scratch;
	return evaluate(ctx, x, 0.0, NULL);
}

double pm__blocks_smooth(const double *x, double eps, double *grad, void *ctx, void *scratch)
{
	(void)scratch;
	return evaluate(ctx, x, eps, grad);
}
