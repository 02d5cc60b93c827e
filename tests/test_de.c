#include <criterion/criterion.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "fit/de.h"
#include "leak_check.h"
#include "fit/polish.h"

PM_LEAK_CHECKED_SUITE(de);

#define MAXDIM 8

struct fn {
	size_t dim;
	double shift;
	double offset;		/* added to the sphere: a loose relative stop */
	const double *lo, *hi;
	atomic_ullong calls;
	atomic_int outside;	/* f saw a point outside the box */
	atomic_int misaligned;	/* scratch not 64-byte aligned */
	atomic_int shared;	/* scratch used by two threads at once */
	size_t scratch_bytes;
	/* set *stop when the call count reaches stop_after (a stop request
	 * arriving during an evaluation) */
	volatile sig_atomic_t *stop;
	unsigned long long stop_after;
};

static void touch(struct fn *c, const double *x, void *scratch)
{
	if (atomic_fetch_add(&c->calls, 1) + 1 == c->stop_after && c->stop)
		*c->stop = 1;
	for (size_t k = 0; k < c->dim; k++)
		if (x[k] < c->lo[k] || x[k] > c->hi[k])
			atomic_store(&c->outside, 1);
	if (c->scratch_bytes) {
		unsigned char *s = scratch;

		if (!s || (uintptr_t)s % 64 != 0)
			atomic_store(&c->misaligned, 1);
		else {
			/* fill the whole buffer with a mark of this call, then
			 * check it survived: another thread writing the same
			 * buffer would change it */
			unsigned char mark = (unsigned char)(x[0] * 1e6);

			memset(s, mark, c->scratch_bytes);
			for (size_t b = 0; b < c->scratch_bytes; b++)
				if (s[b] != mark)
					atomic_store(&c->shared, 1);
		}
	}
}

static double sphere(const double *x, void *ctx, void *scratch)
{
	struct fn *c = ctx;
	double s = 0.0;

	touch(c, x, scratch);
	s = c->offset;
	for (size_t k = 0; k < c->dim; k++)
		s += (x[k] - c->shift - 0.1 * (double)k) * (x[k] - c->shift - 0.1 * (double)k);
	return s;
}

static double rosen(const double *x, void *ctx, void *scratch)
{
	struct fn *c = ctx;
	double s = 0.0;

	touch(c, x, scratch);
	for (size_t k = 0; k + 1 < c->dim; k++) {
		double a = x[k + 1] - x[k] * x[k], b = 1.0 - x[k];

		s += 100.0 * a * a + b * b;
	}
	return s;
}

static pm_de_settings defaults(uint64_t seed)
{
	return (pm_de_settings){ .seed = seed, .maxiter = 1000, .popsize = 15, .tol = 0.01,
				 .atol = 0.0, .mutation_lo = 0.5, .mutation_hi = 1.0,
				 .recombination = 0.7 };
}

static size_t popsize_of(const pm_de_settings *s, size_t dim)
{
	return s->popsize * dim < 5 ? 5 : s->popsize * dim;
}

static pm_de_result run(size_t dim, const double *lo, const double *hi, pm_cost_fn f,
			struct fn *c, const pm_de_settings *s, unsigned threads, double *x)
{
	pm_pool *pool = NULL;
	pm_de_result res;
	pm_error err = { 0 };

	c->dim = dim;
	c->lo = lo;
	c->hi = hi;
	atomic_store(&c->calls, 0);
	if (threads)
		cr_assert_eq(pm__pool_new(threads, &pool, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm__de_minimize(dim, lo, hi, f, c, c->scratch_bytes, s, pool, x, &res, &err),
		     PM_OK, "%s", err.msg);
	pm__pool_free(pool);
	cr_assert_eq(atomic_load(&c->outside), 0, "f was called outside the bounds");
	cr_assert_eq(atomic_load(&c->misaligned), 0);
	cr_assert_eq(atomic_load(&c->shared), 0);
	cr_assert_eq(res.evaluations, atomic_load(&c->calls), "every call is counted");
	/* DE alone: the initial population, then one trial per member a generation */
	cr_assert_eq(res.evaluations, popsize_of(s, dim) * (res.generations + 1));
	{
		/* the reported cost is that of the returned point */
		size_t sb = c->scratch_bytes;

		c->scratch_bytes = 0;
		cr_assert_eq(res.cost, f(x, c, NULL), "cost is f(x)");
		c->scratch_bytes = sb;
	}
	for (size_t k = 0; k < dim; k++)
		cr_assert(x[k] >= lo[k] && x[k] <= hi[k]);
	return res;
}

/* DE leaves the local search to its caller. This one finishes about as
 * scipy does: pm__polish from the DE best with 200 evaluations per free
 * parameter, scipy's Nelder–Mead default budget. Checks the same contract
 * as run(); returns 1 if polish found a strictly better point, whose cost
 * then goes to *cost. */
static int polish_after(size_t dim, const double *lo, const double *hi, pm_cost_fn f,
			struct fn *c, double *x, double *cost)
{
	_Alignas(64) unsigned char scratch[64];
	size_t nfree = 0;
	double pc = *cost;
	uint64_t nfev = 0;
	pm_error err = { 0 };

	for (size_t k = 0; k < dim; k++)
		nfree += hi[k] > lo[k];
	if (nfree == 0)
		return 0;	/* the box is a point: nothing to search */
	cr_assert_leq(c->scratch_bytes, sizeof(scratch));
	atomic_store(&c->calls, 0);
	cr_assert_eq(pm__polish(dim, lo, hi, f, c, c->scratch_bytes ? scratch : NULL, 200 * nfree,
				NULL,
				x, &pc, &nfev, &err),
		     PM_OK, "%s", err.msg);
	cr_assert_eq(nfev, atomic_load(&c->calls), "every call is counted");
	cr_assert_leq(nfev, 200 * nfree);
	cr_assert_eq(atomic_load(&c->outside), 0, "polish called f outside the bounds");
	cr_assert_eq(atomic_load(&c->misaligned), 0);
	cr_assert_leq(pc, *cost, "polish never makes it worse");
	{
		size_t sb = c->scratch_bytes;

		c->scratch_bytes = 0;
		cr_assert_eq(pc, f(x, c, NULL), "cost is f(x)");
		c->scratch_bytes = sb;
	}
	for (size_t k = 0; k < dim; k++)
		cr_assert(x[k] >= lo[k] && x[k] <= hi[k]);
	if (!(pc < *cost))
		return 0;
	*cost = pc;
	return 1;
}

static void box(size_t dim, double l, double h, double *lo, double *hi)
{
	for (size_t k = 0; k < dim; k++) {
		lo[k] = l;
		hi[k] = h;
	}
}

/* offset 0: the relative stop runs DE down to rounding noise; offset 1:
 * DE stops early and polish does the rest. */
Test(de, shifted_sphere_2_to_5_dims)
{
	for (size_t dim = 2; dim <= 5; dim++) {
		for (int off = 0; off <= 1; off++) {
			double lo[MAXDIM], hi[MAXDIM], x[MAXDIM];
			struct fn c = { .shift = 1.234, .offset = off };
			pm_de_settings s = defaults(dim);
			pm_de_result r;
			size_t np = popsize_of(&s, dim);
			int polished;

			box(dim, -5, 5, lo, hi);
			r = run(dim, lo, hi, sphere, &c, &s, 2, x);
			cr_assert_str_eq(r.stop, "converged");
			cr_assert_eq(r.evaluations, np * (r.generations + 1));
			polished = polish_after(dim, lo, hi, sphere, &c, x, &r.cost);
			for (size_t k = 0; k < dim; k++)
				cr_assert(fabs(x[k] - 1.234 - 0.1 * (double)k) < 1e-4,
					  "dim %zu, offset %d: x[%zu] = %g", dim, off, k, x[k]);
			if (off)
				cr_assert(polished, "polish improves on a loosely converged "
					  "sphere: dim %zu, cost %g", dim, r.cost);
		}
	}
}

/* Rosenbrock has a local minimum near (-0.78, 0.61, 0.38, ...) from 4
 * dimensions on, which DE (scipy's too) lands in for a few per cent of seeds;
 * these seeds find the global one, and polish closes in on it. */
Test(de, rosenbrock_2_to_5_dims)
{
	for (size_t dim = 2; dim <= 5; dim++) {
		double lo[MAXDIM], hi[MAXDIM], x[MAXDIM];
		struct fn c = { 0 };
		pm_de_settings s = defaults(100 + dim);
		pm_de_result r;

		box(dim, -2, 2, lo, hi);
		r = run(dim, lo, hi, rosen, &c, &s, 4, x);
		polish_after(dim, lo, hi, rosen, &c, x, &r.cost);
		for (size_t k = 0; k < dim; k++)
			cr_assert(fabs(x[k] - 1.0) < 1e-3, "dim %zu: x[%zu] = %.9g", dim, k, x[k]);
	}
}

Test(de, close_without_polish)
{
	for (size_t dim = 2; dim <= 5; dim++) {
		double lo[MAXDIM], hi[MAXDIM], x[MAXDIM];
		struct fn c = { .shift = -0.5 };
		pm_de_settings s = defaults(7);
		pm_de_result r;

		box(dim, -5, 5, lo, hi);
		r = run(dim, lo, hi, sphere, &c, &s, 1, x);
		for (size_t k = 0; k < dim; k++)
			cr_assert(fabs(x[k] + 0.5 - 0.1 * (double)k) < 0.05, "x[%zu] = %g", k, x[k]);
		cr_assert_eq(r.evaluations, popsize_of(&s, dim) * (r.generations + 1));
		cr_assert_str_eq(r.stop, "converged");
	}
}

/* The contract of DESIGN.md §3: same seed, any thread count, same bits. */
Test(de, same_seed_same_bits_for_any_thread_count)
{
	double lo[4] = { -2, -2, -2, -2 }, hi[4] = { 2, 2, 2, 2 };
	double x0[4], x[4];
	struct fn c = { .scratch_bytes = 40 };
	pm_de_settings s = defaults(2024);
	pm_de_result r0 = run(4, lo, hi, rosen, &c, &s, 0, x0);
	static const unsigned threads[] = { 1, 2, 3, 4 };

	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		pm_de_result r = run(4, lo, hi, rosen, &c, &s, threads[t], x);

		cr_assert_eq(memcmp(x, x0, sizeof(x)), 0, "%u threads: other x", threads[t]);
		cr_assert_eq(memcmp(&r.cost, &r0.cost, sizeof(r.cost)), 0);
		cr_assert_eq(r.generations, r0.generations);
		cr_assert_eq(r.evaluations, r0.evaluations);
		cr_assert_str_eq(r.stop, r0.stop);
	}
}

Test(de, different_seeds_different_trajectories)
{
	double lo[3] = { -2, -2, -2 }, hi[3] = { 2, 2, 2 };
	double xa[3], xb[3];
	struct fn c = { 0 };
	pm_de_settings s = defaults(1);
	pm_de_result a, b;

	s.maxiter = 5;
	a = run(3, lo, hi, rosen, &c, &s, 2, xa);
	s.seed = 2;
	b = run(3, lo, hi, rosen, &c, &s, 2, xb);
	cr_assert_neq(memcmp(xa, xb, sizeof(xa)), 0);
	cr_assert_neq(a.cost, b.cost);
}

Test(de, maxiter_stop)
{
	double lo[3] = { -5, -5, -5 }, hi[3] = { 5, 5, 5 }, x[3];
	struct fn c = { 0 };
	pm_de_settings s = defaults(3);
	pm_de_result r;

	s.maxiter = 4;
	s.tol = 0.0;
	r = run(3, lo, hi, rosen, &c, &s, 2, x);
	cr_assert_str_eq(r.stop, "maxiter");
	cr_assert_eq(r.generations, 4);
	cr_assert_eq(r.evaluations, 45 * 5);

	s.maxiter = 0;
	r = run(3, lo, hi, rosen, &c, &s, 2, x);
	cr_assert_str_eq(r.stop, "maxiter");
	cr_assert_eq(r.generations, 0);
	cr_assert_eq(r.evaluations, 45);
}

/* A flat cost converges at once: the test runs after initialisation. */
static double flat(const double *x, void *ctx, void *scratch)
{
	struct fn *c = ctx;

	touch(c, x, scratch);
	return 3.0;
}

Test(de, converged_stop)
{
	double lo[2] = { -1, -1 }, hi[2] = { 1, 1 }, x[2];
	struct fn c = { 0 };
	pm_de_settings s = defaults(4);
	pm_de_result r = run(2, lo, hi, flat, &c, &s, 2, x);

	cr_assert_str_eq(r.stop, "converged");
	cr_assert_eq(r.generations, 0);
	cr_assert_eq(r.cost, 3.0);

	/* a wide atol converges a non-flat cost at once as well */
	s.atol = 1e9;
	r = run(2, lo, hi, sphere, &c, &s, 2, x);
	cr_assert_str_eq(r.stop, "converged");
	cr_assert_eq(r.generations, 0);
}

Test(de, fixed_dimension_keeps_its_value)
{
	double lo[3] = { -5, 0.3, -5 }, hi[3] = { 5, 0.3, 5 }, x[3];
	struct fn c = { .shift = 1.0 };
	pm_de_settings s = defaults(5);
	pm_de_result r = run(3, lo, hi, sphere, &c, &s, 2, x);

	cr_assert_eq(x[1], 0.3);
	polish_after(3, lo, hi, sphere, &c, x, &r.cost);
	cr_assert_eq(x[1], 0.3);
	cr_assert(fabs(x[0] - 1.0) < 1e-4 && fabs(x[2] - 1.2) < 1e-4, "x = %g %g", x[0], x[2]);

	/* every dimension fixed: the only point there is */
	{
		double l1[1] = { -0.75 }, x1[1];

		run(1, l1, l1, sphere, &c, &s, 1, x1);
		cr_assert_eq(x1[0], -0.75);
	}
}

/* NaN where x0 < 0, +inf where x1 > 1: the minimum (0.5, 0.5) is in the
 * finite part. */
static double holes(const double *x, void *ctx, void *scratch)
{
	struct fn *c = ctx;

	touch(c, x, scratch);
	if (x[0] < 0.0)
		return NAN;
	if (x[1] > 1.0)
		return INFINITY;
	return (x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.5) * (x[1] - 0.5);
}

Test(de, nan_and_inf_in_part_of_the_box)
{
	double lo[2] = { -3, -3 }, hi[2] = { 3, 3 }, x[2];
	struct fn c = { 0 };
	pm_de_settings s = defaults(6);
	pm_de_result r = run(2, lo, hi, holes, &c, &s, 2, x);

	cr_assert(isfinite(r.cost));
	polish_after(2, lo, hi, holes, &c, x, &r.cost);
	cr_assert(fabs(x[0] - 0.5) < 1e-4 && fabs(x[1] - 0.5) < 1e-4, "x = %g %g", x[0], x[1]);
}

static double all_inf(const double *x, void *ctx, void *scratch)
{
	(void)x;
	(void)ctx;
	(void)scratch;
	return INFINITY;
}

static double all_nan(const double *x, void *ctx, void *scratch)
{
	(void)x;
	(void)ctx;
	(void)scratch;
	return NAN;
}

Test(de, no_finite_cost_is_efit)
{
	double lo[2] = { -1, -1 }, hi[2] = { 1, 1 }, x[2] = { 7, 7 };
	pm_de_settings s = defaults(1);
	pm_de_result r;
	pm_error err = { 0 };
	pm_pool *pool = NULL;

	cr_assert_eq(pm__pool_new(2, &pool, NULL), PM_OK);
	cr_assert_eq(pm__de_minimize(2, lo, hi, all_inf, NULL, 0, &s, pool, x, &r, &err), PM_EFIT);
	cr_assert_eq(err.code, PM_EFIT);
	cr_assert_neq(err.msg[0], '\0');
	cr_assert_eq(pm__de_minimize(2, lo, hi, all_nan, NULL, 64, &s, NULL, x, &r, NULL), PM_EFIT);
	cr_assert(x[0] == 7 && x[1] == 7, "x is left alone on error");
	pm__pool_free(pool);
}

static void expect_einval(size_t dim, const double *lo, const double *hi, pm_de_settings s,
			  const char *what)
{
	double x[4];
	pm_de_result r;
	pm_error err = { 0 };

	cr_assert_eq(pm__de_minimize(dim, lo, hi, all_inf, NULL, 0, &s, NULL, x, &r, &err),
		     PM_EINVAL, "%s", what);
	cr_assert_eq(err.code, PM_EINVAL);
	cr_assert_neq(err.msg[0], '\0', "%s: no message", what);
}

Test(de, invalid_settings)
{
	double lo[2] = { -1, -1 }, hi[2] = { 1, 1 }, bad_hi[2] = { 1, -2 };
	double inf_hi[2] = { 1, INFINITY }, nan_lo[2] = { NAN, 0 };
	pm_de_settings s;

	expect_einval(0, lo, hi, defaults(1), "dim 0");
	expect_einval(2, lo, bad_hi, defaults(1), "lo > hi");
	expect_einval(2, lo, inf_hi, defaults(1), "infinite bound");
	expect_einval(2, nan_lo, hi, defaults(1), "NaN bound");
	s = defaults(1), s.popsize = 0;
	expect_einval(2, lo, hi, s, "popsize 0");
	s = defaults(1), s.recombination = -0.1;
	expect_einval(2, lo, hi, s, "recombination < 0");
	s = defaults(1), s.recombination = 1.5;
	expect_einval(2, lo, hi, s, "recombination > 1");
	s = defaults(1), s.recombination = NAN;
	expect_einval(2, lo, hi, s, "recombination NaN");
	s = defaults(1), s.mutation_lo = -0.5;
	expect_einval(2, lo, hi, s, "mutation < 0");
	s = defaults(1), s.mutation_hi = 2.5;
	expect_einval(2, lo, hi, s, "mutation > 2");
	s = defaults(1), s.mutation_lo = 0.9, s.mutation_hi = 0.6;
	expect_einval(2, lo, hi, s, "mutation lo > hi");
	s = defaults(1), s.tol = -1;
	expect_einval(2, lo, hi, s, "tol < 0");
	s = defaults(1), s.atol = NAN;
	expect_einval(2, lo, hi, s, "atol NaN");
	s = defaults(1), s.popsize = 4000000000u;
	expect_einval(2, lo, hi, s, "population too large");
}

/* Edge settings that are valid: CR 0 and 1, a constant F, tiny popsize. */
Test(de, edge_settings_are_valid)
{
	double lo[3] = { -2, -2, -2 }, hi[3] = { 2, 2, 2 }, x[3];
	struct fn c = { .shift = 0.25 };
	pm_de_settings s = defaults(9);
	pm_de_result r;

	s.popsize = 1;	/* 3 members asked, 5 used */
	s.maxiter = 3;
	r = run(3, lo, hi, sphere, &c, &s, 2, x);
	cr_assert_eq(r.evaluations, 5u * (r.generations + 1));
	s = defaults(9);
	s.recombination = 0.0;
	s.mutation_lo = s.mutation_hi = 0.8;
	run(3, lo, hi, sphere, &c, &s, 2, x);
	s.recombination = 1.0;
	s.mutation_lo = 0.0;
	s.mutation_hi = 2.0;
	run(3, lo, hi, sphere, &c, &s, 2, x);
}

/* DE on 0 (no pool) or more threads with the call count reset, without
 * run()'s checks (a stop request leaves calls uncounted). */
static pm_de_result minimize(size_t dim, const double *lo, const double *hi, pm_cost_fn f,
			     struct fn *c, const pm_de_settings *s, unsigned threads, double *x)
{
	pm_pool *pool = NULL;
	pm_de_result r;
	pm_error err = { 0 };

	atomic_store(&c->calls, 0);
	if (threads)
		cr_assert_eq(pm__pool_new(threads, &pool, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm__de_minimize(dim, lo, hi, f, c, 0, s, pool, x, &r, &err), PM_OK, "%s",
		     err.msg);
	pm__pool_free(pool);
	return r;
}

/* A stop request is seen member by member. The generation it cuts short is
 * dropped whole, so DE returns exactly what a run with maxiter set to the
 * last whole generation returns, for any thread count, and counts only the
 * whole generations' evaluations. */
Test(de, a_stop_request_drops_the_generation_it_cuts)
{
	double lo[3] = { -5, -5, -5 }, hi[3] = { 5, 5, 5 }, x0[3], x[3];
	volatile sig_atomic_t stop = 0;
	struct fn c = { .stop = &stop };
	pm_de_settings s = defaults(8);
	pm_de_result r0, r;
	size_t np = popsize_of(&s, 3);

	s.tol = 0.0;
	s.maxiter = 6;
	r0 = run(3, lo, hi, rosen, &c, &s, 1, x0);
	s.maxiter = 1000;
	s.stop = &stop;
	for (unsigned threads = 0; threads <= 2; threads++) {
		stop = 0;
		/* 10 members into generation 7 */
		c.stop_after = np * 7 + 10;
		r = minimize(3, lo, hi, rosen, &c, &s, threads, x);
		cr_assert_str_eq(r.stop, "interrupted");
		cr_assert_eq(r.generations, 6);
		cr_assert_eq(r.evaluations, r0.evaluations, "the cut generation is not counted");
		cr_assert_eq(memcmp(x, x0, sizeof(x)), 0, "%u threads: not the last whole "
			     "generation's best", threads);
		cr_assert_eq(memcmp(&r.cost, &r0.cost, sizeof(r.cost)), 0);
		/* one thread sees it at the next member; more may finish the
		 * members they have begun */
		if (threads <= 1)
			cr_assert_eq(atomic_load(&c.calls), np * 7 + 10);
		cr_assert_lt(atomic_load(&c.calls), np * 8);
	}
}

/* Stopped before it begins, DE still costs member 0 of its initial
 * population and returns it; stopped part-way through the initial
 * population, the best member costed so far. */
Test(de, a_stop_request_in_the_initial_population)
{
	double lo[2] = { -2, -2 }, hi[2] = { 2, 2 }, x[2], xfull[2];
	volatile sig_atomic_t stop = 1;
	struct fn c = { .stop = &stop };
	pm_de_settings s = defaults(4);
	pm_de_result r;

	s.stop = &stop;
	c.dim = 2;
	c.lo = lo;
	c.hi = hi;
	for (unsigned threads = 0; threads <= 2; threads++) {
		r = minimize(2, lo, hi, sphere, &c, &s, threads, x);
		cr_assert_eq(atomic_load(&c.calls), 1, "%u threads", threads);
		cr_assert_eq(r.evaluations, 1);
		cr_assert_eq(r.generations, 0);
		cr_assert_str_eq(r.stop, "interrupted");
		cr_assert(isfinite(r.cost));
		cr_assert_eq(r.cost, sphere(x, &c, NULL), "x is the member costed");
	}
	/* part-way: the first 7 members costed, one thread */
	stop = 0;
	c.stop_after = 7;
	r = minimize(2, lo, hi, sphere, &c, &s, 0, x);
	cr_assert_eq(r.evaluations, 7);
	cr_assert_eq(r.generations, 0);
	cr_assert_str_eq(r.stop, "interrupted");
	/* never better than the whole population's best */
	s.stop = NULL;
	s.maxiter = 0;
	c.stop = NULL;
	r = minimize(2, lo, hi, sphere, &c, &s, 0, xfull);
	cr_assert_leq(r.cost, sphere(x, &c, NULL));
}

/* A cost that is +inf everywhere and a stop request at once: PM_EFIT that
 * says it was interrupted, not that the model overflows. */
Test(de, interrupted_before_a_finite_cost_is_efit)
{
	double lo[1] = { 0 }, hi[1] = { 1 }, x[1] = { 42 };
	volatile sig_atomic_t stop = 1;
	pm_de_settings s = defaults(1);
	pm_de_result r;
	pm_error err = { 0 };

	s.stop = &stop;
	cr_assert_eq(pm__de_minimize(1, lo, hi, all_inf, NULL, 0, &s, NULL, x, &r, &err), PM_EFIT);
	cr_assert(strstr(err.msg, "interrupted") != NULL, "%s", err.msg);
	cr_assert_eq(x[0], 42, "x unchanged on error");
}

/* A warm start: member 0 is the start, the others within the radius of it
 * (the initial population alone: maxiter 1 and a sphere whose minimum is
 * outside every member's reach but the start's). */
Test(de, warm_start_population_lies_around_the_start)
{
	double lo[3] = { -5, -5, -5 }, hi[3] = { 5, 5, 5 }, x[3];
	double start[3] = { 0.3, 0.4, 0.5 }, radius[3] = { 0.01, 0.01, 0.01 };
	struct fn c = { .shift = 0.3 };
	pm_de_settings s = defaults(3);
	pm_de_result res;

	s.maxiter = 1;
	s.start = start;
	s.radius = radius;
	res = run(3, lo, hi, sphere, &c, &s, 2, x);
	/* the start is the sphere's minimum: it stays the best */
	cr_expect_lt(res.cost, 1e-24, "cost %g", res.cost);
	for (size_t k = 0; k < 3; k++)
		cr_expect_lt(fabs(x[k] - start[k]), 1e-12, "x[%zu] = %g", k, x[k]);
	/* a cold start of the same budget lands far from it */
	s.start = s.radius = NULL;
	res = run(3, lo, hi, sphere, &c, &s, 2, x);
	cr_expect_gt(res.cost, 1e-3, "cold cost %g", res.cost);
}

/* Every member lies inside the box of the radius around the start: with
 * the minimum away from the start, the best of the initial population is
 * no farther than the radius. */
Test(de, warm_start_members_stay_in_the_radius)
{
	double lo[2] = { -5, -5 }, hi[2] = { 5, 5 }, x[2];
	double start[2] = { 2.0, -1.0 }, radius[2] = { 0.05, INFINITY };
	struct fn c = { .shift = 0.0 };
	pm_de_settings s = defaults(8);
	pm_de_result res;

	s.maxiter = 0;		/* the initial population alone */
	s.popsize = 50;
	s.start = start;
	s.radius = radius;
	res = run(2, lo, hi, sphere, &c, &s, 1, x);
	cr_expect_leq(fabs(x[0] - 2.0), 0.05 + 1e-12, "x[0] = %g", x[0]);
	/* the infinite radius draws from the whole range: near the minimum 0.1 */
	cr_expect_lt(fabs(x[1] - 0.1), 0.5, "x[1] = %g", x[1]);
	(void)res;
}

Test(de, warm_start_settings_are_checked)
{
	double lo[2] = { 0, 0 }, hi[2] = { 1, 1 }, x[2] = { 7, 7 };
	double start[2] = { 0.5, 2.0 }, radius[2] = { 0.1, 0.1 }, bad_r[2] = { 0.1, NAN };
	struct fn c = { .dim = 2, .lo = lo, .hi = hi };
	pm_de_settings s = defaults(1);
	pm_de_result res;
	pm_error err = { 0 };

	s.start = start;
	cr_expect_eq(pm__de_minimize(2, lo, hi, sphere, &c, 0, &s, NULL, x, &res, &err), PM_EINVAL);
	cr_expect(strstr(err.msg, "both a start and a radius"), "%s", err.msg);
	s.radius = radius;
	cr_expect_eq(pm__de_minimize(2, lo, hi, sphere, &c, 0, &s, NULL, x, &res, &err), PM_EINVAL);
	cr_expect(strstr(err.msg, "outside its bounds"), "%s", err.msg);
	start[1] = 0.5;
	s.radius = bad_r;
	cr_expect_eq(pm__de_minimize(2, lo, hi, sphere, &c, 0, &s, NULL, x, &res, &err), PM_EINVAL);
	cr_expect(x[0] == 7 && x[1] == 7, "x unchanged on error");
}
