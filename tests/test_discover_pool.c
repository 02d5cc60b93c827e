/* discover's pool of terms (lib/discover/discover_pool.c): terms made
 * while the search defers their columns (its moves) and settled afterwards
 * on the pool's threads (pm__disc_settle) are the same pool — indices,
 * columns bit for bit, thin flags — as terms made one at a time. */
#include <math.h>
#include <string.h>

#include "core/pool.h"
#include "discover/discover_impl.h"
#include "discover_fixture.h"
#include "leak_check.h"

PM_LEAK_CHECKED_SUITE(discover_pool);

enum { THREADS = 4 };

/* n in 2..256 (8 values) x p in 1..12 x dev in {cpu, gpu}: p has more
 * values than the one-factor switches take thresholds at (BREAKS), so a
 * switch [p > 2] is not among them. */
static pm_dataset *grid_to(int largest)
{
	struct text t = { 0 };
	size_t r = 0;

	put(&t, "n,p,dev,time\n");
	for (int n = 2; n <= largest; n *= 2)
		for (int p = 1; p <= (n > 256 ? 1 : 12); p++)
			for (int g = 0; g < (n > 256 ? 1 : 2); g++, r++)
				put(&t, "%d,%d,%s,%.10g\n", n, p, g ? "gpu" : "cpu",
				    (1e-3 * n * n / p + g) * (1 + noise(r, 0.01)));
	return parse(&t, "grid.csv");
}

static pm_dataset *grid(void)
{
	return grid_to(256);
}

/* A search of d's inputs, configurations, target, folds and one-factor
 * terms, as pm_discover sets it up, on `pool`, with each thread's support
 * scratch. */
struct fixture {
	struct search s;
	struct scratch w[THREADS];
	pm_folds folds;
};

static void setup(struct fixture *f, const pm_dataset *d, const pm_spec *rs, pm_pool *pool)
{
	pm_discover_options o = pm_discover_options_default();
	pm_error err = { 0 };

	memset(f, 0, sizeof(*f));
	f->s.d = d;
	f->s.n = pm_dataset_nrows(d);
	f->s.folds = &f->folds;
	cr_assert_eq(pm__disc_inputs(&f->s, rs, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm__disc_configurations(&f->s, rs, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_validation_folds(d, rs, &o.validate, &f->folds, &err), PM_OK, "%s",
		     err.msg);
	cr_assert_eq(pm__disc_target_and_folds(&f->s, rs, &err), PM_OK, "%s", err.msg);
	f->s.threads = pool;
	for (int k = 0; k < THREADS; k++)
		cr_assert_not_null(f->w[k].mark = malloc(f->s.nconfigs + 1));
	cr_assert_eq(pm__disc_single_terms(&f->s, f->w, &err), PM_OK, "%s", err.msg);
}

static void teardown(struct fixture *f)
{
	for (int k = 0; k < THREADS; k++)
		free(f->w[k].mark);
	pm__disc_search_free(&f->s);
	pm_folds_free(&f->folds);
}

static unsigned input(const struct search *s, const char *name)
{
	for (unsigned i = 0; i < s->nin; i++)
		if (!strcmp(s->in[i].name, name))
			return i;
	cr_assert_fail("no input %s", name);
	return 0;
}

/* The terms a move might make, in an order that puts a product before a
 * one-factor term of one of its factors: n^2 * [p > 2], then [p > 2]
 * alone; a term of one level; a product of a power and a switch of n and
 * one of p that is on at two configurations only (thin); n^(1/2) *
 * log2(n) * [p <= 2]. */
static void make_terms(struct search *s, unsigned *idx, size_t *nidx)
{
	unsigned n = input(s, "n"), p = input(s, "p");
	const struct term terms[] = {
		{ .nf = 2, .f = { { n, F_POWER, 2, 0, 0 }, { p, F_INDICATOR, 0, 0, 2 } } },
		{ .nf = 1, .f = { { p, F_INDICATOR, 0, 0, 2 } } },
		{ .nf = 1, .f = { { n, F_POWER, 1, 0, 0 } }, .sel = 1, .lev = 1 },
		{ .nf = 3, .f = { { n, F_POWER, 1, 0, 0 }, { n, F_INDICATOR, 0, 0, 128 },
				  { p, F_INDICATOR, 0, 0, 11 } } },
		{ .nf = 2, .f = { { n, F_POWER, 0.5, 1, 0 }, { p, F_BELOW, 0, 0, 2 } } },
	};
	pm_error err = { 0 };

	*nidx = sizeof(terms) / sizeof(*terms);
	for (size_t k = 0; k < *nidx; k++)
		cr_assert_eq(pm__disc_term_index(s, &terms[k], &idx[k], &err), PM_OK, "%s",
			     err.msg);
}

/* Term y (made one way) is term x of search s (made the other): the same
 * thin flag and column, bit for bit, and that column its value row by row.
 * Returns whether it is thin. */
static int same_term(const struct search *s, const struct term *x, const struct term *y,
		     size_t k)
{
	cr_expect_eq(x->thin, y->thin, "term %zu", k);
	cr_assert(memcmp(x->col, y->col, s->n * sizeof(double)) == 0, "term %zu: the column differs",
		  k);
	for (size_t r = 0; r < s->n; r++) {
		double v = pm__disc_term_at(s, y, r, s->nin, 0.0);

		cr_assert(memcmp(&v, &y->col[r], sizeof(v)) == 0, "term %zu row %zu", k, r);
	}
	return y->thin == 1;
}

Test(discover_pool, settled_terms_are_the_terms_made_one_at_a_time)
{
	pm_dataset *d = grid();
	pm_spec *rs = spec_of("time", NULL);
	pm_pool *pool = NULL;
	struct fixture one, later;
	unsigned a[8], b[8];
	size_t na, nb, nthin = 0;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_resolve(rs, d, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm__pool_new(THREADS, &pool, &err), PM_OK, "%s", err.msg);
	setup(&one, d, rs, pool);
	setup(&later, d, rs, pool);
	cr_assert_eq(one.s.npool, later.s.npool);
	make_terms(&one.s, a, &na);
	later.s.defer = 1;
	make_terms(&later.s, b, &nb);
	cr_assert_eq(later.s.settled, one.s.nsingle, "deferred terms are not settled yet");
	pm__disc_settle(&later.s, later.w);
	cr_assert_eq(later.s.settled, later.s.npool);
	cr_assert_eq(one.s.npool, later.s.npool);
	for (size_t k = 0; k < na; k++) {
		const struct term *x = &one.s.pool[a[k]], *y = &later.s.pool[b[k]];

		cr_assert_eq(a[k], b[k]);
		cr_assert_geq(a[k], one.s.nsingle, "term %zu is new", k);
		nthin += same_term(&one.s, x, y, k);
	}
	cr_expect_eq(nthin, 1, "the product on two configurations is thin, no other");
	teardown(&one);
	teardown(&later);
	pm__pool_free(pool);
	pm_spec_free(rs);
	pm_dataset_free(d);
}

/* A hypothesis of terms not settled yet is judged on their settled flags:
 * pm__disc_consider settles them first, and leaves out one of a thin term. */
Test(discover_pool, a_hypothesis_of_deferred_terms_is_judged_settled)
{
	pm_dataset *d = grid();
	pm_spec *rs = spec_of("time", NULL);
	pm_pool *pool = NULL;
	struct fixture f;
	unsigned t[8];
	size_t nt;
	pm_error err = { 0 };
	struct batch b = { 0 };

	cr_assert_eq(pm_spec_resolve(rs, d, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm__pool_new(THREADS, &pool, &err), PM_OK, "%s", err.msg);
	setup(&f, d, rs, pool);
	b = (struct batch){ .s = &f.s, .w = f.w };
	f.s.defer = 1;
	make_terms(&f.s, t, &nt);
	/* the thin product (make_terms' fourth), then the first */
	cr_assert_eq(pm__disc_consider(&f.s, &(struct hyp){ .nt = 1, .t = { t[3] }, .offsets = -1 },
				       &b, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(f.s.settled, f.s.npool, "considering settles the terms");
	cr_expect_eq(b.n, 0, "a hypothesis of a thin term is left out");
	cr_assert_eq(pm__disc_consider(&f.s, &(struct hyp){ .nt = 1, .t = { t[0] }, .offsets = -1 },
				       &b, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(b.n, 1, "one of a term that is not thin is taken");
	free(b.h);
	teardown(&f);
	pm__pool_free(pool);
	pm_spec_free(rs);
	pm_dataset_free(d);
}

/* The one-factor terms, their columns made on the pool's threads, are
 * those made on the calling thread alone: columns bit for bit (and each
 * its term's value row by row), thin flags, all settled. The grid with
 * one configuration more, n = 512: [n <= 256] is off there alone, thin. */
Test(discover_pool, single_terms_on_threads_are_those_of_one_thread)
{
	pm_dataset *d = grid_to(512);
	pm_spec *rs = spec_of("time", NULL);
	pm_pool *pool = NULL;
	struct fixture one, many;
	size_t nthin = 0;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_resolve(rs, d, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm__pool_new(THREADS, &pool, &err), PM_OK, "%s", err.msg);
	setup(&one, d, rs, NULL);
	setup(&many, d, rs, pool);
	cr_assert_eq(one.s.nsingle, many.s.nsingle);
	cr_assert_eq(many.s.settled, many.s.nsingle, "every one-factor term is settled");
	cr_assert_eq(many.s.defer, 0);
	cr_assert_gt(many.s.nsingle, 100, "n and p have powers, logs and switches");
	for (size_t k = 0; k < one.s.nsingle; k++) {
		const struct term *x = &one.s.pool[k], *y = &many.s.pool[k];

		nthin += same_term(&one.s, x, y, k);
	}
	cr_expect_gt(nthin, 0, "[n > 256] and [n <= 256] are thin");
	teardown(&one);
	teardown(&many);
	pm__pool_free(pool);
	pm_spec_free(rs);
	pm_dataset_free(d);
}

/* x in 1..40 on two devices: on a, x up to 20 and x^3 / 400 above; on b,
 * x^(1/2): the parts below and above 20 and the two devices' rows have
 * shapes of their own. */
static pm_dataset *kinks(void)
{
	struct text t = { 0 };

	put(&t, "x,dev,time\n");
	for (int x = 1; x <= 40; x++)
		for (int g = 0; g < 2; g++)
			put(&t, "%d,%s,%.10g\n", x, g ? "b" : "a",
			    g ? sqrt(x) : x <= 20 ? x : x * x * (double)x / 400);
	return parse(&t, "kinks.csv");
}

/* A part's best shape is remembered for that part alone: asked again, in
 * any order, each part of x (each device's rows, each side of 20 and of
 * 10) gives the shape a search asked for it alone gives, and is
 * remembered once. */
Test(discover_pool, a_part_shape_is_remembered_for_its_part)
{
	pm_dataset *d = kinks();
	pm_spec *rs = spec_of("time", NULL);
	const struct part parts[] = {	/* x is the first input */
		{ .by_level = 1, .cat = 0, .level = 0 },
		{ .by_level = 1, .cat = 0, .level = 1 },
		{ .input = 0, .thr = 20 },
		{ .input = 0, .thr = 20, .above = 1 },
		{ .input = 0, .thr = 10 },
		{ .input = 0, .thr = 10, .above = 1 },
	};
	enum { NPARTS = sizeof(parts) / sizeof(*parts) };
	size_t alone[NPARTS];
	struct fixture f;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_resolve(rs, d, &err), PM_OK, "%s", err.msg);
	for (size_t k = 0; k < NPARTS; k++) {
		setup(&f, d, rs, NULL);
		cr_assert_eq(input(&f.s, "x"), 0);
		alone[k] = pm__disc_part_shape(&f.s, input(&f.s, "x"), &parts[k]);
		cr_assert_lt(alone[k], f.s.nsingle, "part %zu has a shape", k);
		teardown(&f);
	}
	cr_assert_neq(alone[0], alone[1], "the devices' shapes differ");
	cr_assert_neq(alone[2], alone[3], "the sides of 20 differ");
	setup(&f, d, rs, NULL);
	for (size_t round = 0; round < 2; round++)
		for (size_t i = 0; i < NPARTS; i++) {
			size_t k = round ? NPARTS - 1 - i : i;

			cr_expect_eq(pm__disc_part_shape(&f.s, input(&f.s, "x"), &parts[k]), alone[k],
				     "part %zu, round %zu", k, round);
		}
	cr_expect_eq(f.s.nshapes, NPARTS);
	teardown(&f);
	pm_spec_free(rs);
	pm_dataset_free(d);
}
