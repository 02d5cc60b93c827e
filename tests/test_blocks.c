/* The cost split over row blocks (blocks.h): the full cost up to rounding,
 * value and gradient, penalty included once; the same bits on any number
 * of threads; blocks a function of the row count alone. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "blocks.h"
#include "leak_check.h"
#include "synth.h"

PM_LEAK_CHECKED_SUITE(blocks);

struct fixture {
	pm_dataset *d;
	pm_spec *s;
	pm_problem p;
	pm_model *m;
	pm_cost c;
	double *scratch;
};

static void setup(struct fixture *f, const pm_fit_options *o, size_t rows)
{
	char *csv = syn_csv(rows, 0.05, 9);
	const char *names[16];
	pm_role role[16];
	size_t nlevels[16];
	const char *const *levels[16];

	memset(f, 0, sizeof(*f));
	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "syn.csv", &f->d, NULL), PM_OK);
	free(csv);
	cr_assert_eq(pm_spec_new(&f->s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(f->s, "time", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&f->s->intrinsic, "k,f,h", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&f->s->categorical, "act,opt", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&f->s->extrinsic, "threads,batch", NULL), PM_OK);
	f->s->infer_roles = 0;
	cr_assert_eq(pm__problem_build(f->d, f->s, o->scale, &f->p, NULL), PM_OK);
	for (size_t j = 0; j < f->p.ncols; j++) {
		names[j] = f->p.col[j].name;
		role[j] = f->p.col[j].role;
		nlevels[j] = f->p.col[j].ndistinct;
		levels[j] = (const char *const *)f->p.col[j].levels;
	}
	cr_assert_eq(pm__model_new_additive("time", f->p.ncols, names, role, nlevels, levels,
					    &f->m, NULL), PM_OK);
	cr_assert_eq(pm__cost_init(&f->c, &f->p, f->m, o, NULL), PM_OK);
	f->scratch = malloc(f->c.scratch_bytes);
	cr_assert(f->scratch);
}

static void teardown(struct fixture *f)
{
	free(f->scratch);
	pm__cost_free(&f->c);
	pm_model_free(f->m);
	pm__problem_free(&f->p);
	pm_spec_free(f->s);
	pm_dataset_free(f->d);
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

Test(blocks, the_same_bits_on_any_number_of_threads)
{
	pm_fit_options o = pm_fit_options_default();
	struct fixture f;
	double x[32], g[3][32], v[3][2];

	setup(&f, &o, 2000);
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

Test(blocks, count_depends_on_rows_only)
{
	cr_expect_eq(pm__blocks_count(0), 1);
	cr_expect_eq(pm__blocks_count(599), 1);
	cr_expect_eq(pm__blocks_count(600), 2);
	cr_expect_eq(pm__blocks_count(1000), 3);
	cr_expect_eq(pm__blocks_count(100000000), 16);
}
