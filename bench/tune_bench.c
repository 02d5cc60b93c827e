/* The fit's tuning constants, each measured by sweeping what it trades off
 * (docs/benchmarks.md, "Tuning constants"). Timings only: nothing asserted.
 *
 * usage: tune_bench DATA.csv SPEC.json MODE
 *   merge    MERGE_MAX_SHARE (lib/fit/cost_plan.c): µs per cost evaluation of
 *            every row with tables merged while their combinations are at
 *            most 1/share of the rows, share 0 (never), 2, 4, 8, 16
 *   threads  ROWS_PER_THREAD (lib/fit/fit.c): one job as a DE generation is,
 *            K = popsize 15 x M evaluations of R rows each, on 1 and on 2
 *            threads, for rows x members K·R from about 1000 to 60000
 *   blocks   BLOCK_ROWS (lib/fit/blocks.c): one evaluation of R rows,
 *            value and gradient, in ns per row; and two blocks of R rows
 *            each on 1 and on 2 threads (whether values, as gradients, are
 *            worth spreading over the threads)
 * Rows beyond the file's repeat it from the top, so that any R can be
 * costed with the file's tables. Each time is the fastest of 7 batches of
 * at least 20 ms: on a shared machine the one least disturbed by others,
 * which is closest to what a quiet machine does. Run it twice: a busy
 * machine still shows as numbers that differ between runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/pool.h"
#include "fit/cost.h"
#include "fit/de.h"
#include "fit/problem.h"
#include "spec/spec_impl.h"

#define BATCHES 7
#define BATCH_S 0.02

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds per call of op(arg) in the fastest of BATCHES batches. */
static double per_call(void (*op)(void *), void *arg)
{
	double best = INFINITY;

	for (int b = 0; b < BATCHES; b++) {
		double t0 = now(), t1;
		size_t calls = 0;

		do {
			op(arg);
			calls++;
		} while ((t1 = now()) - t0 < BATCH_S);
		best = fmin(best, (t1 - t0) / (double)calls);
	}
	return best;
}

/* The first n rows of p, repeating p's rows from the top: the same columns
 * and tables, more or fewer rows. Owns its code and target arrays. */
static pm_problem tile(const pm_problem *p, size_t n)
{
	pm_problem v = *p;

	v.nrows = n;
	v.col = malloc(p->ncols * sizeof(*v.col));
	v.t = malloc(n * sizeof(*v.t));
	v.t_raw = malloc(n * sizeof(*v.t_raw));
	v.w = p->w ? malloc(n * sizeof(*v.w)) : NULL;
	if (!v.col || !v.t || !v.t_raw || (p->w && !v.w))
		abort();
	for (size_t j = 0; j < p->ncols; j++) {
		v.col[j] = p->col[j];
		if (!(v.col[j].code = malloc(n * sizeof(*v.col[j].code))))
			abort();
		for (size_t r = 0; r < n; r++)
			v.col[j].code[r] = p->col[j].code[r % p->nrows];
	}
	for (size_t r = 0; r < n; r++) {
		v.t[r] = p->t[r % p->nrows];
		v.t_raw[r] = p->t_raw[r % p->nrows];
		if (v.w)
			v.w[r] = p->w[r % p->nrows];
	}
	return v;
}

static void untile(pm_problem *v)
{
	for (size_t j = 0; j < v->ncols; j++)
		free(v->col[j].code);
	free(v->col);
	free(v->t);
	free(v->t_raw);
	free(v->w);
}

/* A pool job of k evaluations: costs[i % ncosts] at xs[i] (or, with one
 * cost, that cost at each), each thread with its own scratch. */
struct job {
	pm_pool *pool;
	pm_cost *cost;
	size_t ncosts, k, dim;
	const double *xs;
	double *grad;		/* k x dim, for gradients; NULL: values */
	unsigned char *scratch;
	size_t stride;
	double *out;
};

static void eval_one(void *ctx, size_t i, unsigned worker)
{
	struct job *j = ctx;
	pm_cost *c = &j->cost[i % j->ncosts];
	void *s = j->scratch + worker * j->stride;
	const double *x = j->xs + i * j->dim;

	j->out[i] = j->grad ? pm__cost_smooth(x, 1e-3, j->grad + i * j->dim, c, s)
			    : pm__cost_value(x, c, s);
}

static void run_job(void *arg)
{
	struct job *j = arg;

	pm__pool_for(j->pool, j->k, eval_one, j);
}

/* Seconds per job on the given pool; the job's arrays sized for 2 threads. */
static double time_job(struct job *j, pm_pool *pool)
{
	j->pool = pool;
	return per_call(run_job, j);
}

static struct job make_job(pm_cost *cost, size_t ncosts, size_t k, size_t dim, int grad)
{
	struct job j = { .cost = cost, .ncosts = ncosts, .k = k, .dim = dim };
	size_t most = 0;
	double *xs = malloc(k * dim * sizeof(*xs));

	for (size_t c = 0; c < ncosts; c++)
		if (cost[c].scratch_bytes > most)
			most = cost[c].scratch_bytes;
	j.stride = (most + 63) / 64 * 64;
	j.scratch = aligned_alloc(64, 2 * j.stride + 64);
	j.out = malloc(k * sizeof(*j.out));
	j.grad = grad ? malloc(k * dim * sizeof(*j.grad)) : NULL;
	if (!xs || !j.scratch || !j.out || (grad && !j.grad))
		abort();
	/* a population's spread of points, the same on every run */
	for (size_t i = 0; i < k; i++)
		for (size_t d = 0; d < dim; d++)
			xs[i * dim + d] = 0.5 + 0.25 * sin((double)(i * dim + d));
	j.xs = xs;
	return j;
}

static void free_job(struct job *j)
{
	free((void *)j->xs);
	free(j->scratch);
	free(j->out);
	free(j->grad);
}

static void die(const char *what, const pm_error *e)
{
	fprintf(stderr, "tune_bench: %s: %s\n", what, e->msg);
	exit(1);
}

static void init_cost(pm_cost *c, const pm_problem *p, const pm_model *m,
		      const pm_fit_options *o, unsigned share)
{
	pm_error e = { 0 };

	if (pm__cost_init_merging(c, p, m, o, share, &e))
		die("cost", &e);
}

static void mode_merge(const pm_problem *p, const pm_model *m, const pm_fit_options *o)
{
	static const unsigned share[] = { 0, 2, 4, 8, 16 };

	printf("MERGE_MAX_SHARE: one value of all %zu rows, one thread\n", p->nrows);
	printf("%6s %10s %8s\n", "share", "lookups", "us");
	for (size_t i = 0; i < sizeof(share) / sizeof(*share); i++) {
		pm_cost c;
		struct job j;
		size_t tops = 0;

		init_cost(&c, p, m, o, share[i]);
		for (size_t g = 0; g < c.ngroups; g++)
			tops += c.group[g].ntops + (c.group[g].nkeys > 0);
		j = make_job(&c, 1, 1, m->nparams, 0);
		printf("%6u %10zu %8.2f\n", share[i], tops, 1e6 * per_call(run_job, &j));
		free_job(&j);
		pm__cost_free(&c);
	}
}

static void mode_threads(const pm_problem *p, const pm_model *m, const pm_fit_options *o,
			 pm_pool *one, pm_pool *two)
{
	static const size_t rows[] = { 2, 4, 8, 16, 32, 64, 128 };
	size_t k = pm__de_members(15, m->nparams);

	printf("ROWS_PER_THREAD: a generation of %zu members x R rows (values)\n", k);
	printf("%6s %8s %10s %10s %8s\n", "R", "K*R", "1 thr us", "2 thr us", "1/2");
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		pm_problem v = tile(p, rows[i]);
		pm_cost c;
		struct job j;
		double t1, t2;

		init_cost(&c, &v, m, o, 4);
		j = make_job(&c, 1, k, m->nparams, 0);
		t1 = time_job(&j, one);
		t2 = time_job(&j, two);
		printf("%6zu %8zu %10.1f %10.1f %8.2f\n", rows[i], k * rows[i], 1e6 * t1,
		       1e6 * t2, t1 / t2);
		free_job(&j);
		pm__cost_free(&c);
		untile(&v);
	}
}

static void mode_blocks(const pm_problem *p, const pm_model *m, const pm_fit_options *o,
			pm_pool *one, pm_pool *two)
{
	static const size_t rows[] = { 75, 150, 300, 600, 1000, 2000, 4000 };

	printf("BLOCK_ROWS: blocks of R rows\n");
	printf("%6s %12s %12s %12s %12s %12s %12s\n", "R", "value ns/row", "grad ns/row",
	       "2 val 1 thr", "2 val 2 thr", "2 grad 1 thr", "2 grad 2 thr");
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		pm_problem v = tile(p, 2 * rows[i]);
		pm_problem half[2] = { v, v };
		pm_cost c[2];
		double t[6];

		/* the blocks' views, as blocks.c makes them */
		for (int b = 0; b < 2; b++) {
			half[b].nrows = rows[i];
			half[b].col = malloc(v.ncols * sizeof(*half[b].col));
			if (!half[b].col)
				abort();
			half[b].t = v.t + b * rows[i];
			half[b].t_raw = v.t_raw + b * rows[i];
			half[b].w = v.w ? v.w + b * rows[i] : NULL;
			for (size_t jc = 0; jc < v.ncols; jc++) {
				half[b].col[jc] = v.col[jc];
				half[b].col[jc].code = v.col[jc].code + b * rows[i];
			}
			init_cost(&c[b], &half[b], m, o, 4);
		}
		for (int g = 0; g < 2; g++) {
			struct job single = make_job(c, 1, 1, m->nparams, g);
			struct job pair = make_job(c, 2, 2, m->nparams, g);

			t[g] = time_job(&single, one) / (double)rows[i];
			t[2 + 2 * g] = time_job(&pair, one);
			t[3 + 2 * g] = time_job(&pair, two);
			free_job(&single);
			free_job(&pair);
		}
		printf("%6zu %12.2f %12.2f %12.2f %12.2f %12.2f %12.2f\n", rows[i], 1e9 * t[0],
		       1e9 * t[1], 1e6 * t[2], 1e6 * t[3], 1e6 * t[4], 1e6 * t[5]);
		for (int b = 0; b < 2; b++) {
			pm__cost_free(&c[b]);
			free(half[b].col);
		}
		untile(&v);
	}
	printf("(pairs in us per job)\n");
}

int main(int argc, char **argv)
{
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_problem p = { 0 };
	pm_model *m = NULL;
	pm_pool *one = NULL, *two = NULL;
	pm_fit_options o = pm_fit_options_default();
	const char **names;
	pm_role *role;
	size_t *nlevels;
	const char *const **levels;
	pm_error e = { 0 };

	if (argc != 4) {
		fprintf(stderr, "usage: tune_bench DATA.csv SPEC.json merge|threads|blocks\n");
		return 2;
	}
	if (pm_dataset_read_csv(argv[1], &d, &e) || pm_spec_read_file(argv[2], &s, &e) ||
	    pm_spec_resolve(s, d, &e) || pm__problem_build(d, s, o.scale, o.loss, &p, &e))
		die("data", &e);
	names = malloc(p.ncols * sizeof(*names));
	role = malloc(p.ncols * sizeof(*role));
	nlevels = malloc(p.ncols * sizeof(*nlevels));
	levels = malloc(p.ncols * sizeof(*levels));
	if (!names || !role || !nlevels || !levels)
		abort();
	for (size_t j = 0; j < p.ncols; j++) {
		names[j] = p.col[j].name;
		role[j] = p.col[j].role;
		nlevels[j] = p.col[j].ndistinct;
		levels[j] = (const char *const *)p.col[j].levels;
	}
	if (pm__model_new(p.target, p.ncols, names, role, nlevels, levels, s->form, &m, &e) ||
	    pm__pool_new(1, &one, &e) || pm__pool_new(2, &two, &e))
		die("model", &e);
	printf("%s: %zu rows, %zu parameters, form %s\n", argv[1], p.nrows, m->nparams,
	       s->form ? s->form : "additive");
	if (strcmp(argv[3], "merge") == 0)
		mode_merge(&p, m, &o);
	else if (strcmp(argv[3], "threads") == 0)
		mode_threads(&p, m, &o, one, two);
	else if (strcmp(argv[3], "blocks") == 0)
		mode_blocks(&p, m, &o, one, two);
	else
		fprintf(stderr, "tune_bench: unknown mode '%s'\n", argv[3]);
	pm__pool_free(one);
	pm__pool_free(two);
	pm_model_free(m);
	free(names);
	free(role);
	free(nlevels);
	free(levels);
	pm__problem_free(&p);
	pm_spec_free(s);
	pm_dataset_free(d);
	return 0;
}
