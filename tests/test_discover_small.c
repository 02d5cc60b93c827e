/* pm_discover honest on small and noisy data (issue 33, "Honest on small
 * data"): a constant metric gives C; two values of an input give a step,
 * not a power; a switch needs three configurations each side; repeats'
 * noise bounds the choice; the finalists are scored on more dealings of the
 * folds; Extra-P's exponents, thirds written as fractions. */
#include <math.h>
#include <string.h>

#include "discover_fixture.h"
#include "leak_check.h"

PM_LEAK_CHECKED_SUITE(discover_small);

/* t = value * (1 + noise) on a grid of n and p, `reps` runs each. */
static pm_dataset *flat(double amp, int reps)
{
	struct text t = { 0 };
	size_t r = 0;

	put(&t, "n,p,time\n");
	for (double n = 10; n <= 160; n *= 2)
		for (double p = 1; p <= 8; p *= 2)
			for (int k = 0; k < reps; k++, r++)
				put(&t, "%g,%g,%.10g\n", n, p, 5.0 * (1 + noise(r, amp)));
	return parse(&t, "flat.csv");
}

static pm_dataset *exact_constant(void)
{
	return flat(0.0, 1);
}

/* 2 % noise, 3 runs of each of 20 configurations */
static pm_dataset *noisy_constant(void)
{
	return flat(0.02, 3);
}

static int has(const pm_discovery *x, const char *what)
{
	for (size_t i = 0; i < x->n; i++)
		if (strstr(x->cand[i].formula, what))
			return 1;
	return 0;
}

/* A term of x alone raised to a power or under a log ("c2 * x^(1.5)",
 * "c1 * log2(x)") in a candidate. */
static int power_alone(const pm_discovery *x, const char *in)
{
	char pw[64], lg[64];

	snprintf(pw, sizeof(pw), "%s^", in);
	snprintf(lg, sizeof(lg), "log2(%s)", in);
	for (size_t i = 0; i < x->n; i++) {
		char *f = strdup(x->cand[i].formula), *save = NULL;

		cr_assert_not_null(f);
		for (char *t = strtok_r(f, "+", &save); t; t = strtok_r(NULL, "+", &save))
			if ((strstr(t, pw) || strstr(t, lg)) && strchr(t, '*') == strrchr(t, '*')) {
				free(f);
				return 1;
			}
		free(f);
	}
	return 0;
}

static pm_discovery *search(pm_dataset *d, const char *validate)
{
	pm_spec *s = spec_of("time", NULL);
	pm_discover_options o = pm_discover_options_default();
	pm_error err = { 0 };
	pm_discovery *x;

	if (validate)
		cr_assert_eq(pm_validation_parse(validate, &o.validate, &err), PM_OK, "%s",
			     err.msg);
	x = discover(d, s, &o);
	show(x);
	pm_spec_free(s);
	return x;
}

Test(discover_small, a_constant_metric_gives_C)
{
	pm_dataset *d = exact_constant();
	pm_discovery *x = search(d, NULL);

	cr_expect_str_eq(chosen(x), "C");
	cr_expect_eq(x->cand[x->chosen].terms, 0);
	cr_expect_float_eq(x->cand[x->chosen].mape, 0.0, 1e-9);
	pm_discovery_free(x);
	pm_dataset_free(d);
}

/* The search tries thousands of hypotheses on 60 rows: some fit the noise
 * of a few configurations better than C on held-out rows; none is within
 * the noise the repeats measure better than C. */
Test(discover_small, noise_over_repeats_gives_C)
{
	pm_dataset *d = noisy_constant();
	pm_discovery *x = search(d, NULL);

	cr_expect(isfinite(x->noise_floor) && x->noise_floor > 0.3 && x->noise_floor < 2,
		  "noise floor %g", x->noise_floor);
	cr_expect_gt(x->adequate, 0);
	cr_expect_str_eq(chosen(x), "C");
	/* a term that fitted the noise scored better, and was not chosen */
	cr_expect_lt(x->cand[0].mape, x->cand[x->chosen].mape);
	cr_expect_eq(x->dealings, 5);
	pm_discovery_free(x);
	pm_dataset_free(d);
}

/* Without repeats, no noise floor and no F test; the finalists are still
 * scored on 5 dealings, one under leave-one-out (a dealing of its own). */
Test(discover_small, dealings)
{
	pm_dataset *d = flat(0.02, 1);
	pm_discovery *x = search(d, NULL);

	cr_expect(isnan(x->noise_floor));
	cr_expect_eq(x->adequate, 0);
	cr_expect_eq(x->dealings, 5);
	pm_discovery_free(x);
	x = search(d, "loo");
	cr_expect_eq(x->dealings, 1);
	pm_discovery_free(x);
	x = search(d, "extrapolate:n");
	cr_expect_eq(x->dealings, 1);
	pm_discovery_free(x);
	pm_dataset_free(d);
}

/* t = 0.01 n^2 + 3 [w > 1] + 1 with w in {1, 2}: two values determine a
 * step; a power or log of w would be a guess. */
Test(discover_small, two_values_give_a_step_not_a_power)
{
	struct text t = { 0 };
	size_t r = 0;
	pm_dataset *d;
	pm_discovery *x;

	put(&t, "n,w,time\n");
	for (double n = 4; n <= 64; n *= 2)
		for (double w = 1; w <= 2; w++)
			for (int k = 0; k < 2; k++, r++)
				put(&t, "%g,%g,%.10g\n", n, w,
				    (0.01 * n * n + 3 * (w > 1) + 1) * (1 + noise(r, 0.01)));
	d = parse(&t, "step.csv");
	x = search(d, NULL);
	cr_expect(!power_alone(x, "w"), "a power of w alone: %s", chosen(x));
	cr_expect(!has(x, "log2(w)"), "a log of w: %s", chosen(x));
	cr_expect(strstr(chosen(x), "[w > 1]") || strstr(chosen(x), "[w <= 1]"), "%s",
		  chosen(x));
	cr_expect(strstr(chosen(x), "n^2"), "%s", chosen(x));
	pm_discovery_free(x);
	pm_dataset_free(d);
}

/* One input of 5 values (Extra-P's protocol): every switch leaves 1 or 2
 * configurations on a side, so none is a candidate. */
Test(discover_small, a_switch_needs_three_configurations_a_side)
{
	struct text t = { 0 };
	size_t r = 0;
	pm_dataset *d;
	pm_discovery *x;

	put(&t, "x,time\n");
	for (double v = 4; v <= 64; v *= 2)
		for (int k = 0; k < 4; k++, r++)
			put(&t, "%g,%.10g\n", v, (100 + 3 * pow(v, 1.5)) * (1 + noise(r, 0.05)));
	d = parse(&t, "five.csv");
	x = search(d, NULL);
	cr_expect(!has(x, "[x >") && !has(x, "[x <="), "a switch: %s", x->cand[0].formula);
	cr_expect(strstr(chosen(x), "x^(1.5)"), "%s", chosen(x));
	pm_discovery_free(x);
	pm_dataset_free(d);
}

/* t = 5 + 3 x^(1/3): a third, written as one, which the formula reads back
 * to the same power. */
Test(discover_small, a_third)
{
	struct text t = { 0 };
	size_t r = 0;
	pm_dataset *d;
	pm_discovery *x;
	pm_spec *s = spec_of("time", NULL);
	pm_error err = { 0 };

	put(&t, "x,time\n");
	for (double v = 1; v <= 4096; v *= 2, r++)
		put(&t, "%g,%.10g\n", v, (5 + 3 * cbrt(v)) * (1 + noise(r, 0.005)));
	d = parse(&t, "third.csv");
	x = search(d, NULL);
	cr_expect(strstr(chosen(x), "x^(1/3)"), "%s", chosen(x));
	cr_expect_eq(pm_spec_set_form(s, chosen(x), &err), PM_OK, "%s", err.msg);
	pm_spec_free(s);
	pm_discovery_free(x);
	pm_dataset_free(d);
}

/* threads in {1, 2}: [threads > 1] * threads^e is one column for every e,
 * so hypotheses that differ only there are one, listed once (before, a
 * table of GEMM times listed three spellings of each at 9.07 %). */
Test(discover_small, hypotheses_alike_on_the_data_are_listed_once)
{
	struct text t = { 0 };
	size_t r = 0;
	pm_dataset *d;
	pm_discovery *x;

	put(&t, "n,threads,time\n");
	for (double n = 64; n <= 2048; n *= 2)
		for (double th = 1; th <= 2; th++)
			for (int k = 0; k < 3; k++, r++)
				put(&t, "%g,%g,%.10g\n", n, th,
				    (1e-9 * n * n * n / th + 1e-7 * n * n * (th > 1) + 1e-3) *
					    (1 + noise(r, 0.05)));
	d = parse(&t, "gemm.csv");
	x = search(d, NULL);
	for (size_t i = 0; i < x->n; i++)
		for (size_t j = i + 1; j < x->n; j++)
			cr_expect(!(x->cand[i].terms == x->cand[j].terms &&
				    fabs(x->cand[i].mape - x->cand[j].mape) <= 1e-9),
				  "listed twice: '%s' and '%s'", x->cand[i].formula,
				  x->cand[j].formula);
	pm_discovery_free(x);
	pm_dataset_free(d);
}
