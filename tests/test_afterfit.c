/* The identifiability checks after the fit (lib/fit/afterfit.c): a
 * parameter held by a bound that is a search limit, a column or a
 * formula's term without effect; and what is no finding (a clean fit, a
 * coefficient or C at 0, a fixed parameter). Small tables made from known
 * parameters: x over 1..8, y over 1, 2, 4, a level k. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc_fail.h"
#include "leak_check.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(afterfit);

typedef double (*time_fn)(double x, double y, int k);

/* 48 rows: x = 1..8 by y in {1, 2, 4}, k "a" or "b" alternating; t = f. */
static pm_dataset *table(time_fn f)
{
	char csv[4096];
	size_t n = (size_t)snprintf(csv, sizeof(csv), "x,y,k,t\n");
	pm_dataset *d = NULL;

	for (int i = 0; i < 48; i++) {
		int x = 1 + i % 8, y = 1 << (i / 8 % 3), k = i % 2;

		n += (size_t)snprintf(csv + n, sizeof(csv) - n, "%d,%d,%s,%.17g\n", x, y,
				      k ? "b" : "a", f(x, y, k));
	}
	cr_assert_lt(n, sizeof(csv));
	cr_assert_eq(pm_dataset_parse_csv(csv, n, "t.csv", &d, NULL), PM_OK);
	return d;
}

/* A spec of target t: intrinsic and categorical columns, or a formula
 * (NULL: none). */
static pm_spec *spec(const char *intrinsic, const char *categorical, const char *formula)
{
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "t", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, intrinsic ? intrinsic : "", NULL),
		     PM_OK);
	if (categorical)
		cr_assert_eq(pm_spec_add_names(s, PM_SPEC_CATEGORICAL, categorical, NULL), PM_OK);
	if (formula)
		cr_assert_eq(pm_spec_set_form(s, formula, NULL), PM_OK);
	return s;
}

static void set_bounds(pm_spec *s, double coef_hi, double power_lo, double power_hi)
{
	pm_bounds b = pm_bounds_default();

	b.coef_hi = coef_hi;
	b.power_lo = power_lo;
	b.power_hi = power_hi;
	cr_assert_eq(pm_spec_set_bounds(s, &b, NULL), PM_OK);
}

/* The model of a full fit of f's table under s (freed), scaled or not. */
static pm_model *fit(time_fn f, pm_spec *s, pm_scale scale)
{
	pm_dataset *d = table(f);
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error err = { 0 };

	o.threads = 1;
	o.scale = scale;
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	pm_spec_free(s);
	pm_dataset_free(d);
	return m;
}

/* Every warning of m, one a line, for a failing expectation's message. */
static const char *all(const pm_model *m)
{
	static char buf[4096];
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < pm_model_nwarnings(m) && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\n", pm_model_warning(m, i));
	return buf;
}

/* m has exactly one warning, and it contains text. */
static void one_warning(const pm_model *m, const char *text)
{
	cr_expect_eq(pm_model_nwarnings(m), 1, "%zu warnings:\n%s", pm_model_nwarnings(m),
		     all(m));
	cr_expect(pm_model_nwarnings(m) && strstr(pm_model_warning(m, 0), text), "want %s, got\n%s",
		  text, all(m));
}

static double clean(double x, double y, int k) { return 3 * x * sqrt(x) + 2 * pow(y, 0.7) + 1 + 0.5 * k; }
static double steep(double x, double y, int k) { (void)y, (void)k; return pow(x, 3) + 1; }
static double no_c(double x, double y, int k) { (void)k; return 3 * x * sqrt(x) + 2 * pow(y, 0.7); }
static double x_only(double x, double y, int k) { (void)y, (void)k; return 2 * x + 1; }
static double big(double x, double y, int k) { (void)y, (void)k; return 5000 * x + 1; }
static double level_x1000(double x, double y, int k) { (void)y; return (k ? 1000 : 1) * x; }

/* (k's levels take the constant, C sits at 0: the model's own bound) */
Test(afterfit, a_clean_fit_has_no_warning)
{
	pm_model *m = fit(clean, spec("x,y", "k", NULL), PM_SCALE_AUTO);

	cr_expect_eq(pm_model_nwarnings(m), 0, "%s", all(m));
	pm_model_free(m);
}

/* C = 0 and the coefficient of level a at 0 sit on bounds, but on 0, the
 * model's own constraint: no finding */
Test(afterfit, a_coefficient_or_c_at_zero_is_no_warning)
{
	pm_model *m = fit(no_c, spec("x,y", NULL, NULL), PM_SCALE_AUTO);

	cr_expect_float_eq(pm_model_param_value(m, pm_model_nparams(m) - 1), 0.0, 1e-6);
	cr_expect_eq(pm_model_nwarnings(m), 0, "%s", all(m));
	pm_model_free(m);
}

/* t = x^3 + 1 with powers in [-2, 2]: p_x stops at 2, and the warning
 * says which box to widen, in the spec's own syntax */
Test(afterfit, a_power_held_by_its_box_is_named)
{
	pm_spec *s = spec("x", NULL, NULL);
	pm_model *m;

	set_bounds(s, 1000, -2, 2);
	m = fit(steep, s, PM_SCALE_AUTO);
	cr_expect_float_eq(pm_model_param_value(m, 1), 2.0, 1e-9);
	one_warning(m, "parameter 'p_x' = 2 is held by the upper bound 2 of its search box "
		       "[-2, 2]: the fit's cost still falls beyond it, so the value is the box's, "
		       "not the data's; widen the box in the spec: \"bounds\": {\"power\": [-2, 4]}; "
		       "if it goes on to the new bound, the form cannot follow the data: fit with "
		       "no --form to compare it with the other forms and discovered terms");
	pm_model_free(m);
	/* within the default box the same data have no finding */
	m = fit(steep, spec("x", NULL, NULL), PM_SCALE_AUTO);
	cr_expect_eq(pm_model_nwarnings(m), 0, "%s", all(m));
	pm_model_free(m);
}

/* A power the spec fixes (lower = upper) is the user's choice, not a
 * search limit */
Test(afterfit, a_fixed_parameter_is_no_warning)
{
	pm_spec *s = spec("x", NULL, NULL);
	pm_model *m;

	set_bounds(s, 1000, 2, 2);
	m = fit(steep, s, PM_SCALE_AUTO);
	cr_expect_eq(pm_model_nwarnings(m), 0, "%s", all(m));
	pm_model_free(m);
}

/* without scaling, t = 5000 x + 1 wants a past the coefficients' 1000,
 * and then C past the constant's 1000: each is named with its own key */
Test(afterfit, a_coefficient_held_by_its_upper_bound_is_named)
{
	pm_model *m = fit(big, spec(NULL, NULL, "a * x^1 + C"), PM_SCALE_NONE);

	cr_expect_eq(pm_model_nwarnings(m), 2, "%s", all(m));
	cr_expect(strstr(all(m), "parameter 'a' = 1000 is held by the upper bound 1000 of its "
				 "search box [0, 1000]: the fit's cost still falls beyond it, so "
				 "the value is the box's, not the data's; widen the box in the "
				 "spec: \"bounds\": {\"coefficient\": [0, 2000]}\n"), "%s", all(m));
	cr_expect(strstr(all(m), "parameter 'C' = 1000 is held by the upper bound 1000 of its "
				 "search box [0, 1000]: "), "%s", all(m));
	cr_expect(strstr(all(m), "\"bounds\": {\"constant\": [0, 2000]}\n"), "%s", all(m));
	pm_model_free(m);
	/* scaled, the coefficients are found in scaled units: 1000 is no limit */
	m = fit(big, spec(NULL, NULL, "a * x^1 + C"), PM_SCALE_AUTO);
	cr_expect_eq(pm_model_nwarnings(m), 0, "%s", all(m));
	pm_model_free(m);
}

/* level(k)'s multiplier is 1000, past the formula's box of 100: its log
 * multiplier is held, and no spec widens that box */
Test(afterfit, a_log_multiplier_held_by_its_box_is_named)
{
	pm_model *m = fit(level_x1000, spec(NULL, NULL, "a * level(k) * x^p + C"),
			  PM_SCALE_AUTO);

	one_warning(m, "parameter 'lm_k=b' = 4.60517 is held by the upper bound 4.60517 of its "
		       "search box [-4.60517, 4.60517] (a level's multiplier between 1/100 and "
		       "100, which no spec changes)");
	pm_model_free(m);
}

/* y has no part in t = 2x + 1: its term's coefficient goes to 0, or its
 * power, and the column is named with the flag that drops it; so is k,
 * whose levels take one coefficient (a second C) if any */
Test(afterfit, a_column_without_effect_is_named)
{
	pm_model *m = fit(x_only, spec("x,y", NULL, NULL), PM_SCALE_AUTO);

	one_warning(m, "column 'y' has no effect on the fit: ");
	cr_expect(strstr(all(m), "; drop it with --ignore y\n"), "%s", all(m));
	pm_model_free(m);
	m = fit(x_only, spec("x", "k", NULL), PM_SCALE_AUTO);
	one_warning(m, "column 'k' has no effect on the fit: ");
	cr_expect(strstr(all(m), "; drop it with --ignore k\n"), "%s", all(m));
	pm_model_free(m);
}

/* a formula's column cannot be ignored: its term is named, to be written
 * out of it */
Test(afterfit, a_formula_term_without_effect_is_named)
{
	pm_model *m = fit(x_only, spec(NULL, NULL, "a * x^p + b * y^q + C"), PM_SCALE_AUTO);

	one_warning(m, "the formula's term of coefficient 'b' has no effect: it is ");
	cr_expect(strstr(all(m), "; write the formula without it\n"), "%s", all(m));
	pm_model_free(m);
}

#ifndef NO_ALLOC_HOOK
/* A fit whose checks after it name a column (y: t = x^3 + 1) and probe a
 * bound (p_x, powers in [-2, 2]: the cost and varpro compiled again), with
 * its k-th allocation failing for every k: PM_ENOMEM (or a survivable
 * failure's PM_OK), and nothing left allocated */
Test(afterfit, every_allocation_failure_is_enomem_and_leaks_nothing)
{
	pm_dataset *d = table(steep);
	pm_spec *s = spec("x,y", NULL, NULL);
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	long k;

	set_bounds(s, 1000, -2, 2);
	o.threads = 1;
	o.maxiter = 5;
	cr_assert_eq(pm_fit(d, s, &o, &m, NULL), PM_OK);
	cr_assert_eq(pm_model_nwarnings(m), 2, "%s", all(m));
	pm_model_free(m);
	for (k = 0; k < 100000; k++) {
		pm_error err = { 0 };
		pm_status st;

		m = NULL;
		alloc_arm(k);
		st = pm_fit(d, s, &o, &m, &err);
		pm_model_free(m);
		armed = 0;
		cr_expect_eq(live, 0, "allocation %ld failed: %ld blocks left", k, (long)live);
		if (fail_in >= 0) {
			cr_expect_eq(st, PM_OK, "no failure, yet: %s", err.msg);
			break;
		}
		if (st != PM_OK)
			cr_expect_eq(st, PM_ENOMEM, "allocation %ld: status %d, %s", k, st, err.msg);
	}
	cr_expect_gt(k, 20, "only %ld allocations in a fit", k);
	pm_spec_free(s);
	pm_dataset_free(d);
}
#endif
