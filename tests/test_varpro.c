/* Variable projection (fit/varpro.h): the coefficients solved for fixed
 * powers, within their bounds and under the penalties, and the search it
 * makes of the fit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/undetermined.h"
#include "fit/varpro.h"
#include "leak_check.h"
#include "synth.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(varpro);

#include "cost_fixture.h"

/* t = (2·x^1.5 + b_lev)·e^-0.5 + 0.5, b_u = 1, b_v = 4, without noise: the
 * additive model's parameters a_x p_x b_u b_v q_e C, known exactly. */
static const double truth[] = { 2.0, 1.5, 1.0, 4.0, -0.5, 0.5 };

static char *exact_csv(void)
{
	static const double xs[] = { 1, 2, 3, 5, 8 }, es[] = { 1, 2, 4, 8 };
	size_t cap = 8192, len = 0;
	char *csv = malloc(cap);

	cr_assert(csv);
	len += (size_t)snprintf(csv + len, cap - len, "x,lev,e,time\n");
	for (size_t i = 0; i < 5; i++)
		for (size_t k = 0; k < 4; k++)
			for (int l = 0; l < 2; l++) {
				double t = (truth[0] * pow(xs[i], truth[1]) + truth[2 + l]) *
						   pow(es[k], truth[4]) +
					   truth[5];

				len += (size_t)snprintf(csv + len, cap - len, "%g,%s,%g,%.17g\n",
							xs[i], l ? "v" : "u", es[k], t);
			}
	return csv;
}

/* The fixture in raw units (so that coefficients are eq. 4.4's), with the
 * given loss and penalty. */
static void setup(struct fixture *f, pm_varpro *v, pm_loss loss, pm_reg reg, double lambda)
{
	pm_fit_options o = pm_fit_options_default();

	o.scale = PM_SCALE_NONE;
	o.loss = loss;
	o.reg = reg;
	o.lambda_coef = o.lambda_power = lambda;
	setup_csv(f, o, exact_csv(), "x", "lev", "e");
	cr_assert_eq(pm__varpro_init(v, &f->c, &o, NULL), PM_OK);
}

static double *solve_at_truth(const struct fixture *f, const pm_varpro *v, void **scratch)
{
	double theta[2] = { truth[1], truth[4] };
	double *full = calloc(f->m->nparams, sizeof(double));

	*scratch = aligned_alloc(64, v->scratch_bytes);
	cr_assert(full && *scratch);
	pm__varpro_solve(v, theta, full, *scratch);
	return full;
}

Test(varpro, splits_powers_from_coefficients)
{
	struct fixture f;
	pm_varpro v;

	setup(&f, &v, PM_LOSS_MAE, PM_REG_NONE, 0);
	cr_assert(pm__varpro_applies(f.m));
	cr_assert_eq(pm__varpro_searched(f.m), 2);
	cr_assert_eq(v.nnon, 2);
	cr_assert_eq(v.nlin, 4);
	/* the search varies p_x and q_e; a_x, b_u, b_v and C are solved */
	cr_assert_eq(v.non[0], 1);
	cr_assert_eq(v.non[1], 4);
	cr_assert_eq(v.lin[0], 0);
	cr_assert_eq(v.lin[3], 5);
	cr_assert_eq(v.col[1], PM_NONE);
	cr_assert_eq(v.col[5], 3);
	pm__varpro_free(&v);
	teardown(&f);
}

/* At the true powers the least-squares pass is exact, and the absolute
 * error's reweighted passes keep it there. */
static void recovers_coefficients(pm_loss loss, double tol)
{
	struct fixture f;
	pm_varpro v;
	void *scratch;
	double *full;

	setup(&f, &v, loss, PM_REG_NONE, 0);
	full = solve_at_truth(&f, &v, &scratch);
	for (size_t k = 0; k < 6; k++)
		cr_expect_float_eq(full[k], truth[k], tol * fabs(truth[k]), "parameter %zu: %.17g",
				   k, full[k]);
	/* and the true cost there is the model's own: nothing left */
	cr_expect_lt(pm__varpro_value((double[]){ truth[1], truth[4] }, &v, scratch), 1e-6);
	free(full);
	free(scratch);
	pm__varpro_free(&v);
	teardown(&f);
}

Test(varpro, recovers_coefficients_least_squares) { recovers_coefficients(PM_LOSS_MSE, 1e-6); }
Test(varpro, recovers_coefficients_absolute) { recovers_coefficients(PM_LOSS_MAE, 1e-4); }
Test(varpro, recovers_coefficients_relative) { recovers_coefficients(PM_LOSS_MAPE, 1e-4); }
Test(varpro, recovers_coefficients_log) { recovers_coefficients(PM_LOSS_LOG, 1e-4); }

/* The value is the fit's true cost at the solved point, bit for bit. */
Test(varpro, value_is_the_true_cost_of_the_solved_point)
{
	struct fixture f;
	pm_varpro v;
	void *scratch;
	double theta[2] = { 1.2, -0.3 }, *full = calloc(6, sizeof(double)), got, want;

	setup(&f, &v, PM_LOSS_MAE, PM_REG_NONE, 0);
	scratch = aligned_alloc(64, v.scratch_bytes);
	cr_assert(full && scratch);
	got = pm__varpro_value(theta, &v, scratch);
	pm__varpro_solve(&v, theta, full, scratch);
	want = pm__cost_value(full, &f.c, f.scratch);
	cr_assert_eq(memcmp(&got, &want, sizeof(got)), 0, "%.17g vs %.17g", got, want);
	cr_assert_eq(full[1], 1.2);
	cr_assert_eq(full[4], -0.3);
	free(full);
	free(scratch);
	pm__varpro_free(&v);
	teardown(&f);
}

/* A bound on the wrong side of the truth holds the coefficient there
 * exactly (a_x capped below its 2, so the levels want more than theirs:
 * b_v capped below its 4 stays capped). */
Test(varpro, coefficients_stay_in_their_bounds)
{
	struct fixture f;
	pm_varpro v;
	void *scratch;
	double *full;

	setup(&f, &v, PM_LOSS_MAE, PM_REG_NONE, 0);
	v.hi[0] = 1.0;	/* a_x, truly 2 */
	v.hi[2] = 3.0;	/* b_v, truly 4 */
	full = solve_at_truth(&f, &v, &scratch);
	cr_expect_eq(full[0], 1.0);
	cr_expect_eq(full[3], 3.0);
	for (size_t j = 0; j < v.nlin; j++) {
		cr_expect_geq(full[v.lin[j]], v.lo[j]);
		cr_expect_leq(full[v.lin[j]], v.hi[j]);
	}
	free(full);
	free(scratch);
	pm__varpro_free(&v);
	teardown(&f);
}

/* L1 with a weight far above what any coefficient buys sets every
 * penalised one to 0 (soft thresholding); C is never penalised and takes
 * the level of the times. L2 shrinks without zeroing. */
Test(varpro, penalties_act_on_the_coefficients_but_not_c)
{
	struct fixture f, g;
	pm_varpro v, w;
	void *s1, *s2;
	double *l1, *l2;

	setup(&f, &v, PM_LOSS_MAE, PM_REG_L1, 1e6);
	l1 = solve_at_truth(&f, &v, &s1);
	cr_expect_eq(l1[0], 0.0);
	cr_expect_eq(l1[2], 0.0);
	cr_expect_eq(l1[3], 0.0);
	cr_expect_gt(l1[5], 0.5, "C %g carries the times alone", l1[5]);
	setup(&g, &w, PM_LOSS_MSE, PM_REG_L2, 0.1);
	l2 = solve_at_truth(&g, &w, &s2);
	cr_expect_gt(l2[0], 0.0);
	cr_expect_lt(l2[0], truth[0]);
	free(l1);
	free(l2);
	free(s1);
	free(s2);
	pm__varpro_free(&v);
	pm__varpro_free(&w);
	teardown(&f);
	teardown(&g);
}

/* The promise (19), on data with a known answer: every seed ends
 * within 0.1 % of the same optimum. */
Test(varpro, every_seed_reaches_the_same_optimum)
{
	pm_dataset *d = syn_dataset(300, 0.05, 12);
	pm_fit_options o = pm_fit_options_default();
	double lo = INFINITY, hi = -INFINITY;

	cr_assert_eq(o.engine, PM_ENGINE_VARPRO, "varpro is the default");
	o.threads = 2;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		pm_model *m;
		double c;

		o.seed = seed;
		m = syn_fit_with(d, o, 1);
		c = m->info.cost;
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
		cr_expect_eq(m->info.options.engine, PM_ENGINE_VARPRO);
		cr_expect_str_eq(m->info.stop, "converged");
		pm_model_free(m);
	}
	cr_expect_lt(hi - lo, 1e-3 * lo, "costs from %.9g to %.9g", lo, hi);
	pm_dataset_free(d);
}

/* A power is free when every term it is in has a zero coefficient; the
 * coefficients themselves are findings (0: the term is absent). */
Test(varpro, powers_of_absent_terms_are_undetermined)
{
	struct fixture f;
	pm_varpro v;

	setup(&f, &v, PM_LOSS_MAE, PM_REG_NONE, 0);
	memcpy(f.m->value, truth, sizeof(truth));
	cr_assert_eq(pm__fit_undetermined(&f.p, f.m, NULL), PM_OK);
	for (size_t k = 0; k < 6; k++)
		cr_expect_eq(pm_model_param_undetermined(f.m, k), 0, "parameter %zu", k);
	f.m->value[0] = 0.0;	/* a_x: p_x is free, q_e still has the levels */
	cr_assert_eq(pm__fit_undetermined(&f.p, f.m, NULL), PM_OK);
	cr_expect_eq(pm_model_param_undetermined(f.m, 1), 1);
	cr_expect_eq(pm_model_param_undetermined(f.m, 4), 0);
	f.m->value[2] = f.m->value[3] = 0.0;	/* and every b: q_e too */
	cr_assert_eq(pm__fit_undetermined(&f.p, f.m, NULL), PM_OK);
	cr_expect_eq(pm_model_param_undetermined(f.m, 4), 1);
	for (size_t k = 0; k < 6; k++)
		if (k != 1 && k != 4)
			cr_expect_eq(pm_model_param_undetermined(f.m, k), 0, "parameter %zu", k);
	cr_expect_eq(pm_model_param_undetermined(f.m, 6), 0, "no such parameter");
	pm__varpro_free(&v);
	teardown(&f);
}
