/* The cost split over row blocks (blocks.h): the full cost up to rounding,
 * value and gradient, penalty included once; the same bits on any number
 * of threads; blocks a function of the row count alone. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fit/blocks.h"
#include "cost_fixture.h"
#include "leak_check.h"
#include "synth.h"

PM_LEAK_CHECKED_SUITE(blocks);

static void setup(struct fixture *f, const pm_fit_options *o, size_t rows)
{
	setup_csv(f, *o, syn_csv(rows, 0.05, 9), "k,f,h", "act,opt", "threads,batch");
}

static void point(const pm_model *m, int which, double *x)
{
	for (size_t k = 0; k < m->nparams; k++) {
		pm_param_kind kind = m->params[k].desc.kind;
		double w = 0.01 * (double)((int)(k * 7 + (size_t)which * 3) % 11);

		x[k] = kind == PM_PARAM_POWER || kind == PM_PARAM_SCALING ? 0.4 - w * 8.0
									  : 0.1 + w;
	}
}

static void check_against_full(const pm_fit_options *o)
{
	struct fixture f;
	pm_blocks b;
	double x[32], g[32], gb[32];

	setup(&f, o, 1000);
	cr_assert_leq(f.m->nparams, 32);
	cr_assert_eq(pm__blocks_init(&b, &f.p, f.m, o, NULL, NULL), PM_OK);
	cr_assert_eq(b.nblocks, 3);
	for (int which = 0; which < 4; which++) {
		double full, blocked;

		point(f.m, which, x);
		full = pm__cost_value(x, &f.c, f.scratch);
		blocked = pm__blocks_value(x, &b, NULL);
		cr_expect(fabs(full - blocked) <= 1e-13 * full, "%.17g vs %.17g", full, blocked);
		full = pm__cost_smooth(x, 0.01, g, &f.c, f.scratch);
		blocked = pm__blocks_smooth(x, 0.01, gb, &b, NULL);
		cr_expect(fabs(full - blocked) <= 1e-13 * full, "%.17g vs %.17g", full, blocked);
		for (size_t k = 0; k < f.m->nparams; k++)
			cr_expect(fabs(g[k] - gb[k]) <= 1e-12 * (1.0 + fabs(g[k])),
				  "d/dx%zu: %.17g vs %.17g", k, g[k], gb[k]);
	}
	pm__blocks_free(&b);
	teardown(&f);
}

Test(blocks, the_full_cost_up_to_rounding)
{
	pm_fit_options o = pm_fit_options_default();

	check_against_full(&o);
}

Test(blocks, the_penalty_counts_once)
{
	pm_fit_options o = pm_fit_options_default();

	o.reg = PM_REG_L2;
	o.lambda_coef = o.lambda_power = 0.05;
	check_against_full(&o);
}

static void check_same_bits(size_t rows)
{
	pm_fit_options o = pm_fit_options_default();
	struct fixture f;
	double x[32], g[3][32], v[3][2];

	setup(&f, &o, rows);
	for (unsigned t = 1; t <= 3; t++) {
		pm_pool *pool = NULL;
		pm_blocks b;

		cr_assert_eq(pm__pool_new(t, &pool, NULL), PM_OK);
		cr_assert_eq(pm__blocks_init(&b, &f.p, f.m, &o, pool, NULL), PM_OK);
		point(f.m, 1, x);
		v[t - 1][0] = pm__blocks_value(x, &b, NULL);
		v[t - 1][1] = pm__blocks_smooth(x, 0.02, g[t - 1], &b, NULL);
		pm__blocks_free(&b);
		pm__pool_free(pool);
	}
	for (int t = 1; t < 3; t++) {
		cr_expect(memcmp(v[t], v[0], sizeof(v[0])) == 0, "%d threads", t + 1);
		cr_expect(memcmp(g[t], g[0], f.m->nparams * sizeof(double)) == 0, "%d threads", t + 1);
	}
	teardown(&f);
}

/* 2000 rows: blocks small enough that the caller evaluates values alone
 * and only gradients are spread over the threads; 16 000 rows: both are. */
Test(blocks, the_same_bits_on_any_number_of_threads) { check_same_bits(2000); }
Test(blocks, the_same_bits_with_large_blocks) { check_same_bits(16000); }

/* One thread: every block is evaluated in the same scratch, after the
 * others and after another point's gradient; the result must be bit for
 * bit each block's own cost in fresh scratch, weighted in block order. */
Test(blocks, blocks_sharing_a_scratch_leave_nothing_behind)
{
	pm_fit_options o = pm_fit_options_default();
	struct fixture f;
	pm_blocks b;
	double x[32], g[32], gk[32], want = 0.0, wantg[32] = { 0 }, got;

	setup(&f, &o, 2000);
	cr_assert_eq(pm__blocks_init(&b, &f.p, f.m, &o, NULL, NULL), PM_OK);
	cr_assert_geq(b.nblocks, 2);
	point(f.m, 2, x);
	(void)pm__blocks_smooth(x, 0.05, g, &b, NULL);
	point(f.m, 1, x);
	for (size_t k = 0; k < b.nblocks; k++) {
		void *fresh = calloc(1, b.cost[k].scratch_bytes);

		cr_assert(fresh);
		memset(fresh, 0xa5, b.cost[k].scratch_bytes);	/* not zeros by luck */
		want += b.weight[k] * pm__cost_value(x, &b.cost[k], fresh);
		(void)pm__cost_smooth(x, 0.02, gk, &b.cost[k], fresh);
		for (size_t i = 0; i < f.m->nparams; i++)
			wantg[i] += b.weight[k] * gk[i];
		free(fresh);
	}
	got = pm__blocks_value(x, &b, NULL);
	cr_expect(memcmp(&got, &want, sizeof(got)) == 0, "%.17g vs %.17g", got, want);
	(void)pm__blocks_smooth(x, 0.02, g, &b, NULL);
	cr_expect(memcmp(g, wantg, f.m->nparams * sizeof(*g)) == 0, "gradients differ");
	pm__blocks_free(&b);
	teardown(&f);
}

Test(blocks, count_depends_on_rows_only)
{
	cr_expect_eq(pm__blocks_count(0), 1);
	cr_expect_eq(pm__blocks_count(599), 1);
	cr_expect_eq(pm__blocks_count(600), 2);
	cr_expect_eq(pm__blocks_count(1000), 3);
	cr_expect_eq(pm__blocks_count(100000000), 16);
}
