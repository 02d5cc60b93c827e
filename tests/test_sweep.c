#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfold.h"
#include "leak_check.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(sweep);

static pm_sweep *run(const pm_dataset *d, unsigned threads, unsigned folds)
{
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_sweep_options so = { 1e-4, 1e-2, 3, KFOLD_OPTIONS(folds, 7) };
	pm_sweep *sw = NULL;
	pm_error err = { 0 };

	o.maxiter = 20;
	o.threads = threads;
	o.reg = PM_REG_L2;
	if (!folds) {
		o.test_fraction = 0.25;
		so.validate.scheme = PM_SCHEME_NONE;
	}
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_OK, "%s", err.msg);
	pm_spec_free(s);
	return sw;
}

Test(sweep, grid_folds_best_and_thread_independence)
{
	pm_dataset *d = syn_dataset(90, 0.05, 51);
	pm_sweep *a = run(d, 1, 3), *b = run(d, 4, 3);

	cr_assert_eq(a->npoints, 3);
	cr_assert_eq(a->point[0].lambda, 1e-4);
	cr_assert_eq(a->point[1].lambda, 1e-3);
	cr_assert_eq(a->point[2].lambda, 1e-2);
	for (size_t p = 0; p < 3; p++) {
		cr_assert_eq(a->point[p].test.n, 90, "every row held out once");
		cr_assert(a->point[a->best].test.mape <= a->point[p].test.mape);
		cr_assert(a->point[p].mape_std > 0);
		/* timing aside, the same numbers for 1 and 4 threads */
		cr_assert_eq(memcmp(&a->point[p].test, &b->point[p].test, sizeof(pm_metrics)), 0);
		cr_assert_eq(a->point[p].cost, b->point[p].cost);
	}
	cr_assert_eq(memcmp(a->param, b->param, 3 * a->nparams * sizeof(double)), 0);
	cr_assert_str_eq(a->param_name[a->nparams - 1], "C");
	pm_sweep_free(a);
	pm_sweep_free(b);
	pm_dataset_free(d);
}

/* The grid's λs for so's range (fits cut short: only λ is read). */
static pm_sweep *grid_of(const pm_dataset *d, double lo, double hi, size_t n)
{
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_sweep_options so = { lo, hi, n, KFOLD_OPTIONS(2, 7) };
	pm_sweep *sw = NULL;
	pm_error err = { 0 };

	o.maxiter = 1;
	o.popsize = 3;
	o.polish = 0;
	o.reg = PM_REG_L2;
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(sw->npoints, n);
	pm_spec_free(s);
	return sw;
}

/* The ends are the λs given, bit for bit; a point on a decade is the
 * decade as "1e<k>" reads (correctly rounded), however far apart the
 * ends; every other point within 10 ulp of lo (hi/lo)^(i/(n-1)). */
Test(sweep, grid_ends_are_the_lambdas_given_and_decades_exact)
{
	pm_dataset *d = syn_dataset(60, 0.05, 51);
	pm_sweep *a = grid_of(d, 3e-5, 0.7, 7), *b = grid_of(d, 1e-30, 1e30, 25);

	cr_expect_eq(a->point[0].lambda, 3e-5);
	cr_expect_eq(a->point[6].lambda, 0.7);
	for (size_t i = 0; i < 7; i++) {
		long double lo = 3e-5, hi = 0.7, want = lo * powl(hi / lo, (long double)i / 6.0L);

		/* the exponent's rounding: some 1e-16 of a decade, 10 ulp at most */
		cr_expect_lt(fabsl(a->point[i].lambda - want) / want, 2.2e-15L, "point %zu: %a", i,
			     a->point[i].lambda);
	}
	for (size_t i = 0; i < 25; i += 2) {
		char text[16];

		snprintf(text, sizeof(text), "1e%d", -30 + 5 * (int)i / 2);
		cr_expect_eq(b->point[i].lambda, strtod(text, NULL), "point %zu: %a, not %s", i,
			     b->point[i].lambda, text);
	}
	for (size_t i = 1; i < 25; i += 2) {	/* half-way: 10^-27.5, ... */
		long double want = powl(10.0L, -30.0L + 2.5L * (long double)i);

		cr_expect_lt(fabsl(b->point[i].lambda - want) / want, 2.2e-15L, "point %zu: %a", i,
			     b->point[i].lambda);
	}
	pm_sweep_free(a);
	pm_sweep_free(b);
	pm_dataset_free(d);
}

Test(sweep, one_split_and_json)
{
	pm_dataset *d = syn_dataset(80, 0.05, 52);
	pm_sweep *sw = run(d, 2, 0);
	pm_fit_options o = pm_fit_options_default();
	pm_error err = { 0 };
	char *json = NULL;

	cr_assert_eq(sw->point[0].test.n, 20);
	cr_assert_eq(sw->point[0].mape_std, 0);
	o.reg = PM_REG_L2;
	cr_assert_eq(pm_sweep_to_json(sw, &o, &json, &err), PM_OK, "%s", err.msg);
	cr_assert_not_null(strstr(json, "\"best_lambda\""));
	cr_assert_not_null(strstr(json, "\"q_threads\""));
	free(json);
	pm_sweep_free(sw);
	pm_dataset_free(d);
}

/* Stopped before it begins: the first λ's folds run (each stopped at once)
 * so that there is a point; the other λs, never begun, have none. */
Test(sweep, a_stop_request_keeps_the_points_whose_folds_ran)
{
	pm_dataset *d = syn_dataset(90, 0.05, 51);
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_sweep_options so = { 1e-4, 1e-2, 3, KFOLD_OPTIONS(3, 7) };
	volatile sig_atomic_t stop = 1;
	pm_sweep *sw = NULL;
	pm_error err = { 0 };
	char *json = NULL;

	o.threads = 2;
	o.reg = PM_REG_L2;
	o.stop = &stop;
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_OK, "%s", err.msg);
	cr_assert(sw->interrupted);
	cr_assert_eq(sw->npoints, 1);
	cr_assert_eq(sw->best, 0);
	cr_assert_eq(sw->point[0].lambda, 1e-4);
	cr_assert_eq(sw->point[0].test.n, 90, "all three folds of the first λ");
	cr_assert_eq(pm_sweep_to_json(sw, &o, &json, &err), PM_OK, "%s", err.msg);
	cr_assert(strstr(json, "\"interrupted\": true") != NULL);
	free(json);
	pm_sweep_free(sw);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(sweep, errors)
{
	pm_dataset *d = syn_dataset(40, 0, 53);
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_sweep_options so = { 1e-4, 1e-2, 3, KFOLD_OPTIONS(3, 7) };
	pm_sweep *sw = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_EINVAL, "reg none");
	o.reg = PM_REG_L1;
	so.lambda_lo = 0;
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_EINVAL, "lambda 0 on a log grid");
	so.lambda_lo = 1e-4;
	so.npoints = 0;
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_EINVAL);
	so.npoints = 3;
	so.validate.scheme = PM_SCHEME_NONE;
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_EINVAL, "no held-out rows");
	so.validate = (pm_validation)KFOLD_OPTIONS(1, 7);
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_EINVAL, "one fold");
	so.validate = (pm_validation)KFOLD_OPTIONS(3, 7);
	o.validate = so.validate;
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_EINVAL, "a scheme in the options");
	cr_assert_null(sw);
	pm_spec_free(s);
	pm_dataset_free(d);
}
