/* Differential evolution, scipy's defaults made deterministic in parallel.
 *
 * What follows scipy 1.10 (_differentialevolution.py): the population lives
 * in the unit cube and is mapped to [lo, hi] as lo/hi centre + (u - 1/2) *
 * range; popsize * dim members (at least 5); Latin-hypercube start; best1bin
 * with a dithered F drawn once per generation; a trial component outside
 * [0, 1] is redrawn uniformly; the relative-tolerance stop on the population
 * costs, never met while a cost is infinite.
 *
 * Where it differs, and why:
 * - generations are synchronous ("deferred"): trials are built from the
 *   frozen population, evaluated in parallel, selected in index order;
 * - a trial replaces its parent only if strictly better (scipy: <=), so
 *   that a plateau does not make the population drift;
 * - member i draws only from PCG32 stream i; F and the Latin-hypercube
 *   column permutations come from stream np. Row k's offsets within its
 *   segment come from stream k. So no draw depends on thread timing, and
 *   the result is bit-identical for any number of threads;
 * - the best member is tracked by index (lowest cost, lowest index on ties)
 *   instead of being swapped to place 0: a swap would move members across
 *   streams;
 * - convergence is also tested right after initialisation (generations = 0
 *   when the start is already flat);
 * - mutation may be anywhere in [0, 2] (scipy: [0, 2));
 * - no polish (scipy's polish=True runs L-BFGS-B from the best member): the
 *   local search is the caller's business (pm__polish in polish.h), so that
 *   DE stays a pure propose-and-select optimiser.
 *
 * Memory: everything is allocated before the first evaluation; the
 * generation loop allocates nothing. Each worker has its own 64-byte
 * aligned block (its real-unit point, then the caller's scratch), so that
 * workers never share a cache line. */
#include "fit/de.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/pcg32.h"
#include "core/stop.h"

#define CACHE_LINE 64

struct de {
	size_t dim, np;
	const double *lo, *hi;
	double *centre, *range;	/* dim each: the unit-cube map */
	double *pop, *trial;	/* np * dim, unit cube */
	double *cost, *tcost;	/* np */
	pm_pcg32 *rng;		/* np + 1 */
	uint32_t *perm;		/* np: Latin-hypercube column order */
	unsigned char *wmem;	/* nworkers blocks of wstride bytes */
	size_t wstride, scratch_at, scratch_bytes;
	pm_cost_fn f;
	void *ctx;
	size_t best;
	volatile sig_atomic_t *stop;
};

/* One pm__pool_for job: cost every row of src into dst; with propose, first
 * build trial i (src is then de->trial) with mutation factor F. */
struct eval_job {
	struct de *de;
	const double *src;
	double *dst;
	int propose;
	double F, cr;
};

static void to_real(const struct de *de, const double *u, double *x)
{
	for (size_t k = 0; k < de->dim; k++) {
		double v = de->centre[k] + (u[k] - 0.5) * de->range[k];

		/* rounding in the map must not hand f a point outside the box */
		x[k] = v < de->lo[k] ? de->lo[k] : v > de->hi[k] ? de->hi[k] : v;
	}
}

/* best1bin trial for member i, drawing only from member i's stream. */
static void propose(struct de *de, size_t i, double F, double cr)
{
	size_t dim = de->dim, np = de->np;
	pm_pcg32 *r = &de->rng[i];
	const double *xb = de->pop + de->best * dim;
	const double *xi = de->pop + i * dim;
	const double *x1, *x2;
	double *t = de->trial + i * dim;
	size_t fill, r1, r2, a, b;

	fill = pm__pcg32_below(r, (uint32_t)dim);
	/* two distinct members other than i, uniformly: draw among the
	 * remaining ones and step over those already taken */
	r1 = pm__pcg32_below(r, (uint32_t)(np - 1));
	if (r1 >= i)
		r1++;
	a = i < r1 ? i : r1;
	b = i < r1 ? r1 : i;
	r2 = pm__pcg32_below(r, (uint32_t)(np - 2));
	if (r2 >= a)
		r2++;
	if (r2 >= b)
		r2++;
	x1 = de->pop + r1 * dim;
	x2 = de->pop + r2 * dim;
	/* every dimension draws its crossover number, taken or not, so that a
	 * member's stream advances the same way whatever CR decides */
	for (size_t k = 0; k < dim; k++) {
		int take = pm__pcg32_uniform(r) < cr || k == fill;

		t[k] = take ? xb[k] + F * (x1[k] - x2[k]) : xi[k];
	}
	for (size_t k = 0; k < dim; k++)
		if (t[k] < 0.0 || t[k] > 1.0)
			t[k] = pm__pcg32_uniform(r);
}

static void eval_one(void *ctx, size_t i, unsigned worker)
{
	struct eval_job *job = ctx;
	struct de *de = job->de;
	unsigned char *block = de->wmem + (size_t)worker * de->wstride;
	double *x = (double *)(void *)block;
	void *scratch = de->scratch_bytes ? block + de->scratch_at : NULL;
	double c;

	/* A stop request is seen here, member by member: a generation on many
	 * rows takes seconds, one member milliseconds. The member is then
	 * skipped (NaN marks it: a cost is never NaN), except member 0 of the
	 * initial population, so that a fit stopped at once still has one
	 * point with its cost to return. */
	if (pm__stop_requested(de->stop) && (job->propose || i > 0)) {
		job->dst[i] = NAN;
		return;
	}
	/* proposing here, not in a serial loop before the job, is safe: member
	 * i reads only the frozen population and its own stream */
	if (job->propose)
		propose(de, i, job->F, job->cr);
	to_real(de, job->src + i * de->dim, x);
	c = de->f(x, de->ctx, scratch);
	job->dst[i] = isnan(c) ? HUGE_VAL : c;
}

static void eval_all(pm_pool *pool, struct eval_job *job)
{
	if (pool)
		pm__pool_for(pool, job->de->np, eval_one, job);
	else
		for (size_t i = 0; i < job->de->np; i++)
			eval_one(job, i, 0);
}

/* The members eval_one costed; those a stop request skipped get +inf, so
 * that they are never the best. */
static size_t costed(double *c, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isnan(c[i]))
			c[i] = HUGE_VAL;
		else
			k++;
	return k;
}

static size_t argmin(const double *c, size_t n)
{
	size_t b = 0;

	for (size_t i = 1; i < n; i++)
		if (c[i] < c[b])
			b = i;
	return b;
}

/* numpy's np.std (ddof 0) <= atol + tol * |np.mean|, false while any cost
 * is infinite (scipy) or the statistics overflow. */
/* Mean and population std of the costs; 0 when one is not finite. */
static int spread(const double *c, size_t n, double *mean, double *sd)
{
	double sum = 0.0, ss = 0.0;

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(c[i]))
			return 0;
		sum += c[i];
	}
	*mean = sum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = c[i] - *mean;

		ss += d * d;
	}
	*sd = sqrt(ss / (double)n);
	return isfinite(*mean) && isfinite(*sd);
}

static int converged(const double *c, size_t n, double tol, double atol)
{
	double mean, sd;

	return spread(c, n, &mean, &sd) && sd <= atol + tol * fabs(mean);
}

static void report_progress(const struct de *de, const pm_de_settings *s, unsigned gen,
			    uint64_t evals)
{
	pm_progress p = { .seed = s->seed, .generation = gen, .maxiter = s->maxiter,
			  .evaluations = evals, .best_cost = de->cost[de->best],
			  .convergence = INFINITY };
	double mean, sd, limit;

	if (spread(de->cost, de->np, &mean, &sd) && (limit = s->atol + s->tol * fabs(mean)) > 0)
		p.convergence = sd / limit;
	s->progress(&p, s->progress_arg);
}

/* Latin hypercube as scipy's init_population_lhs: sample row k lies in
 * segment [k/np, (k+1)/np) of every dimension, then each dimension's column
 * is permuted on its own. The trial array holds the samples meanwhile. */
static void init_lhs(struct de *de)
{
	size_t np = de->np, dim = de->dim;
	double seg = 1.0 / (double)np;
	double *samples = de->trial;

	for (size_t k = 0; k < np; k++)
		for (size_t j = 0; j < dim; j++)
			samples[k * dim + j] =
				seg * pm__pcg32_uniform(&de->rng[k]) + (double)k * seg;
	for (size_t j = 0; j < dim; j++) {
		for (size_t k = 0; k < np; k++)
			de->perm[k] = (uint32_t)k;
		for (size_t k = np - 1; k > 0; k--) {
			uint32_t r = pm__pcg32_below(&de->rng[np], (uint32_t)(k + 1));
			uint32_t t = de->perm[k];

			de->perm[k] = de->perm[r];
			de->perm[r] = t;
		}
		for (size_t i = 0; i < np; i++)
			de->pop[i * dim + j] = samples[(size_t)de->perm[i] * dim + j];
	}
}

/* A warm start: member 0 at the start, the others' Latin-hypercube
 * samples squeezed into the box of the given half-width around it (a
 * sample s of [0, 1) goes to u0 + r (2s - 1)), reflected at the cube's
 * faces so that no member piles up on one. The squeeze keeps the
 * stratification: one member per segment of the box, in every dimension. */
static void init_warm(struct de *de, const double *start, const double *radius)
{
	size_t np = de->np, dim = de->dim;

	for (size_t j = 0; j < dim; j++) {
		double u0, r;

		if (de->range[j] == 0.0)
			continue;	/* a fixed parameter: every member has it */
		u0 = (start[j] - de->centre[j]) / de->range[j] + 0.5;
		u0 = u0 < 0.0 ? 0.0 : u0 > 1.0 ? 1.0 : u0;
		r = radius[j] / de->range[j];
		de->pop[j] = u0;
		for (size_t i = 1; i < np && r < 1.0; i++) {
			double u = u0 + r * (2.0 * de->pop[i * dim + j] - 1.0);

			u = u < 0.0 ? -u : u > 1.0 ? 2.0 - u : u;
			de->pop[i * dim + j] = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
		}
	}
}

static pm_status check_args(size_t dim, const double *lo, const double *hi, pm_cost_fn f,
			    const pm_de_settings *s, const double *x, const pm_de_result *res,
			    pm_error *err)
{
	if (!lo || !hi || !f || !s || !x || !res)
		return pm__fail(err, PM_EINVAL, "differential evolution: a required argument is NULL");
	if (dim == 0)
		return pm__fail(err, PM_EINVAL, "differential evolution needs at least one parameter");
	if (s->popsize == 0)
		return pm__fail(err, PM_EINVAL, "popsize must be >= 1");
	if (!(s->recombination >= 0.0 && s->recombination <= 1.0))
		return pm__fail(err, PM_EINVAL, "recombination must be in [0, 1], not %g",
				s->recombination);
	if (!(s->mutation_lo >= 0.0 && s->mutation_lo <= 2.0) ||
	    !(s->mutation_hi >= 0.0 && s->mutation_hi <= 2.0))
		return pm__fail(err, PM_EINVAL, "mutation must lie in [0, 2], not [%g, %g]",
				s->mutation_lo, s->mutation_hi);
	if (s->mutation_lo > s->mutation_hi)
		return pm__fail(err, PM_EINVAL, "mutation range [%g, %g] has its low end above "
				"its high end", s->mutation_lo, s->mutation_hi);
	if (!(s->tol >= 0.0 && isfinite(s->tol)))
		return pm__fail(err, PM_EINVAL, "tol must be finite and >= 0, not %g", s->tol);
	if (!(s->atol >= 0.0 && isfinite(s->atol)))
		return pm__fail(err, PM_EINVAL, "atol must be finite and >= 0, not %g", s->atol);
	if (!s->start != !s->radius)
		return pm__fail(err, PM_EINVAL, "a warm start needs both a start and a radius");
	for (size_t k = 0; k < dim; k++) {
		if (!isfinite(lo[k]) || !isfinite(hi[k]))
			return pm__fail(err, PM_EINVAL, "bounds of parameter %zu must be finite, "
					"not [%g, %g]", k, lo[k], hi[k]);
		if (lo[k] > hi[k])
			return pm__fail(err, PM_EINVAL, "lower bound %g of parameter %zu is above "
					"its upper bound %g", lo[k], k, hi[k]);
		if (!isfinite(hi[k] - lo[k]) || !isfinite(hi[k] + lo[k]))
			return pm__fail(err, PM_EINVAL, "bounds [%g, %g] of parameter %zu are too "
					"wide to represent", lo[k], hi[k], k);
		if (s->start && (!(s->start[k] >= lo[k] && s->start[k] <= hi[k]) ||
				 !(s->radius[k] >= 0.0)))
			return pm__fail(err, PM_EINVAL, "warm start %g of parameter %zu is outside "
					"its bounds [%g, %g], or its radius %g is not >= 0",
					s->start[k], k, lo[k], hi[k], s->radius[k]);
	}
	return PM_OK;
}

size_t pm__de_members(unsigned popsize, size_t dim)
{
	return (size_t)popsize * dim < 5 ? 5 : (size_t)popsize * dim;
}

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

static void de_free(struct de *de)
{
	free(de->centre);
	free(de->range);
	free(de->pop);
	free(de->trial);
	free(de->cost);
	free(de->tcost);
	free(de->rng);
	free(de->perm);
	free(de->wmem);
}

static pm_status de_alloc(struct de *de, unsigned nworkers, pm_error *err)
{
	size_t dim = de->dim, np = de->np;
	size_t xbytes;

	/* np fits 32 bits and np * dim doubles fit size_t: checked by the caller */
	de->centre = malloc(dim * sizeof(double));
	de->range = malloc(dim * sizeof(double));
	de->pop = malloc(np * dim * sizeof(double));
	de->trial = malloc(np * dim * sizeof(double));
	de->cost = malloc(np * sizeof(double));
	de->tcost = malloc(np * sizeof(double));
	de->rng = malloc((np + 1) * sizeof(pm_pcg32));
	de->perm = malloc(np * sizeof(uint32_t));
	if (!de->centre || !de->range || !de->pop || !de->trial || !de->cost || !de->tcost ||
	    !de->rng || !de->perm)
		goto oom;
	xbytes = round_up(dim * sizeof(double), CACHE_LINE);
	if (de->scratch_bytes > SIZE_MAX / 2 - xbytes - CACHE_LINE)
		goto oom;
	de->scratch_at = xbytes;
	de->wstride = xbytes + round_up(de->scratch_bytes, CACHE_LINE);
	if (de->wstride > SIZE_MAX / nworkers)
		goto oom;
	/* aligned_alloc wants a size that is a multiple of the alignment:
	 * wstride is one by construction */
	de->wmem = aligned_alloc(CACHE_LINE, de->wstride * nworkers);
	if (!de->wmem)
		goto oom;
	return PM_OK;
oom:
	return pm__fail(err, PM_ENOMEM, "out of memory: differential evolution with %zu members "
			"of %zu parameters", np, dim);
}

pm_status pm__de_minimize(size_t dim, const double *lo, const double *hi, pm_cost_fn f,
			  void *ctx, size_t scratch_bytes, const pm_de_settings *s,
			  pm_pool *pool, double *x, pm_de_result *res, pm_error *err)
{
	struct de de = { 0 };
	unsigned nworkers = pool ? pm__pool_threads(pool) : 1;
	unsigned gen = 0;
	uint64_t evals;
	int done, cut;
	pm_status st;

	if ((st = check_args(dim, lo, hi, f, s, x, res, err)))
		return st;
	memset(res, 0, sizeof(*res));
	/* np indexes 32-bit streams and draws, and np * dim doubles must fit */
	if (s->popsize > (UINT32_MAX - 1) / dim ||
	    (size_t)s->popsize * dim > SIZE_MAX / sizeof(double) / dim)
		return pm__fail(err, PM_EINVAL, "population of %u x %zu members is too large",
				s->popsize, dim);
	de.dim = dim;
	de.np = pm__de_members(s->popsize, dim);
	de.lo = lo;
	de.hi = hi;
	de.f = f;
	de.ctx = ctx;
	de.stop = s->stop;
	de.scratch_bytes = scratch_bytes;
	if ((st = de_alloc(&de, nworkers, err)))
		goto out;
	for (size_t k = 0; k < dim; k++) {
		de.centre[k] = 0.5 * (lo[k] + hi[k]);
		de.range[k] = hi[k] - lo[k];
	}
	for (size_t i = 0; i <= de.np; i++)
		pm__pcg32_seed(&de.rng[i], s->seed, i);

	init_lhs(&de);
	if (s->start)
		init_warm(&de, s->start, s->radius);
	eval_all(pool, &(struct eval_job){ .de = &de, .src = de.pop, .dst = de.cost });
	/* a stop request may have cut the initial population short: the
	 * members costed are all there is, and DE stops there */
	evals = costed(de.cost, de.np);
	cut = evals < de.np;
	de.best = argmin(de.cost, de.np);
	if (!isfinite(de.cost[de.best])) {
		st = cut ? pm__fail(err, PM_EFIT, "interrupted before any member of the initial "
				    "population had a finite cost")
			 : pm__fail(err, PM_EFIT, "no member of the initial population of %zu has "
				    "a finite cost", de.np);
		goto out;
	}

	done = converged(de.cost, de.np, s->tol, s->atol);
	if (s->progress)
		report_progress(&de, s, gen, evals);
	while (!done && !cut && gen < s->maxiter && !pm__stop_requested(s->stop)) {
		/* numpy's uniform(low, high): low + (high - low) * U[0, 1) */
		double F = s->mutation_lo +
			   (s->mutation_hi - s->mutation_lo) * pm__pcg32_uniform(&de.rng[de.np]);

		eval_all(pool, &(struct eval_job){ .de = &de, .src = de.trial, .dst = de.tcost,
						   .propose = 1, .F = F, .cr = s->recombination });
		/* a generation a stop request cut short is dropped whole: the
		 * population stays that of the last whole generation, so what
		 * is returned is what an uninterrupted run had at that point */
		if ((cut = costed(de.tcost, de.np) < de.np))
			break;
		evals += de.np;
		for (size_t i = 0; i < de.np; i++)
			/* ties keep the parent: see the top of the file */
			if (de.tcost[i] < de.cost[i]) {
				memcpy(de.pop + i * dim, de.trial + i * dim, dim * sizeof(double));
				de.cost[i] = de.tcost[i];
			}
		de.best = argmin(de.cost, de.np);
		gen++;
		done = converged(de.cost, de.np, s->tol, s->atol);
		if (s->progress)
			report_progress(&de, s, gen, evals);
	}

	/* nothing fails past this point: x is written only on success */
	to_real(&de, de.pop + de.best * dim, x);
	res->cost = de.cost[de.best];
	res->generations = gen;
	res->stop = done ? "converged" : gen < s->maxiter ? "interrupted" : "maxiter";
	res->evaluations = evals;
	st = PM_OK;
out:
	de_free(&de);
	return st;
}
