/* pm_model_advise against a search written out here from predictions,
 * its tie rules, and its errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "model_fixture.h"
#include "model/model_impl.h"

PM_LEAK_CHECKED_SUITE(advise);

/* A hand-made eq. 4.4 model: t = (a * n^1) * g^q + C, one intrinsic n and one
 * extrinsic g (and b, a second extrinsic with q_b), so that the answers are
 * known in closed form. */
static pm_model *toy(double q, double qb, double c)
{
	static const char *const names[] = { "n", "g", "b" };
	static const pm_role role[] = { PM_ROLE_INTRINSIC, PM_ROLE_EXTRINSIC, PM_ROLE_EXTRINSIC };
	const size_t nlevels[3] = { 0 };
	pm_model *m = NULL;

	cr_assert_eq(pm__model_new("t", 3, (const char **)names, role, nlevels, NULL, NULL, &m,
				   NULL), PM_OK);
	/* a_n, p_n, q_g, q_b, C */
	m->value[0] = 1;
	m->value[1] = 1;
	m->value[2] = q;
	m->value[3] = qb;
	m->value[4] = c;
	pm__model_raw(m);
	return m;
}

static double predict(const pm_model *m, const double *x)
{
	double t;

	cr_assert_eq(pm_model_predict(m, x, &t, NULL), PM_OK);
	return t;
}

Test(advise, matches_a_search_written_from_predictions)
{
	static const double ws[] = { 4, 1, 2, 8, 16, 32 };
	static const double bs[] = { 16, 64, 32 };
	const char *const files[] = { "docs/examples/ddp_mlp_model.json",
				      "tests/data/ddp_mlp_multiplicative.json" };

	for (size_t f = 0; f < 2; f++) {
		pm_model *m = load_fixture(files[f]);
		pm_point *p = NULL;
		pm_vary v[2];
		pm_advice a;
		pm_advise_options o = pm_advise_options_default();
		pm_error e = { 0 };
		double x[6], best_t = INFINITY, best_c = INFINITY, best_r = 0, best_rt = INFINITY;

		cr_assert_eq(pm_point_new(m, &p, NULL), PM_OK);
		cr_assert_eq(pm_point_set_json(p, "{\"hidden\": 256, \"layers\": 3, \"input_dim\": 784,"
						  " \"activation\": \"relu\"}", NULL, &e), PM_OK, "%s",
			     e.msg);
		v[0] = (pm_vary){ 0, 6, ws };
		v[1] = (pm_vary){ 0, 3, bs };
		cr_assert_eq(pm_model_input_index(m, "world_size", &v[0].input, NULL), PM_OK);
		cr_assert_eq(pm_model_input_index(m, "batch_size", &v[1].input, NULL), PM_OK);
		o.min_efficiency = 0.05;
		cr_assert_eq(pm_model_advise(m, pm_point_values(p), v, 2, &o, &a, &e), PM_OK, "%s",
			     e.msg);
		cr_expect_eq(a.combinations, 18);
		memcpy(x, pm_point_values(p), sizeof(x));
		for (size_t i = 0; i < 6; i++)
			for (size_t j = 0; j < 3; j++) {
				double t, t1, eff;

				x[v[0].input] = ws[i];
				x[v[1].input] = bs[j];
				t = predict(m, x);
				best_t = fmin(best_t, t);
				best_c = fmin(best_c, ws[i] * t);
				x[v[0].input] = 1;
				t1 = predict(m, x);
				eff = t1 / t / ws[i];
				if (eff >= o.min_efficiency &&
				    (ws[i] > best_r || (ws[i] == best_r && t < best_rt))) {
					best_r = ws[i];
					best_rt = t;
				}
			}
		cr_expect_eq(a.fastest.time, best_t);
		cr_expect_eq(a.cheapest.cost, best_c);
		cr_expect_eq(a.cheapest.cost, a.cheapest.value[0] * a.cheapest.time);
		cr_expect_eq(a.largest.found, best_r > 0);
		if (a.largest.found) {
			cr_expect_eq(a.largest.value[0], best_r);
			cr_expect_eq(a.largest.time, best_rt);
			cr_expect_geq(a.largest.efficiency, o.min_efficiency);
		}
		/* the picks' own numbers are the library's speedup at their point */
		x[v[0].input] = a.fastest.value[0];
		x[v[1].input] = a.fastest.value[1];
		{
			double s, eff;

			cr_assert_eq(pm_model_speedup(m, x, v[0].input, 1, a.fastest.value[0], &s, NULL),
				     PM_OK);
			cr_assert_eq(pm_model_efficiency(m, x, v[0].input, 1, a.fastest.value[0], &eff,
							 NULL), PM_OK);
			cr_expect_eq(a.fastest.speedup, s);
			cr_expect_eq(a.fastest.efficiency, eff);
		}
		pm_point_free(p);
		pm_model_free(m);
	}
}

Test(advise, closed_form_picks_and_ties)
{
	/* t = n * g^-0.5 * b^0 + 1 at n = 10: more g is faster but less
	 * efficient; efficiency(g) = (11 / (10 g^-0.5 + 1)) / g */
	pm_model *m = toy(-0.5, 0, 1);
	double x[3] = { 10, NAN, NAN };
	static const double g[] = { 1, 2, 4, 8, 16 };
	static const double b[] = { 5, 7 };
	pm_vary v[2] = { { 1, 5, g }, { 2, 2, b } };
	pm_advise_options o = pm_advise_options_default();
	pm_advice a;

	o.min_efficiency = 0.5;
	cr_assert_eq(pm_model_advise(m, x, v, 2, &o, &a, NULL), PM_OK);
	cr_expect_eq(a.fastest.value[0], 16);
	cr_expect(fabs(a.fastest.time - 3.5) < 1e-12, "%.17g", a.fastest.time);
	/* b has no effect: the tie goes to the first combination */
	cr_expect_eq(a.fastest.value[1], 5);
	cr_expect_eq(a.cheapest.value[0], 1);
	cr_expect(fabs(a.cheapest.cost - 11) < 1e-12, "%.17g", a.cheapest.cost);
	/* efficiency: g=2: 11/(10/sqrt2+1)/2 = 0.68; g=4: 11/6/4 = 0.458 */
	cr_expect_eq(a.largest.value[0], 2);
	cr_expect(fabs(a.largest.efficiency - 11 / (10 / sqrt(2) + 1) / 2) < 1e-12);
	cr_expect(fabs(a.largest.speedup - 11 / (10 / sqrt(2) + 1)) < 1e-12);
	/* no combination efficient enough beyond g = 1: g = 1 itself is (1.0) */
	o.min_efficiency = 1;
	cr_assert_eq(pm_model_advise(m, x, v, 2, &o, &a, NULL), PM_OK);
	cr_expect_eq(a.largest.value[0], 1);
	/* with the resource b, g's values are all "free" */
	o.resource = 1;
	o.min_efficiency = 0.9;
	cr_assert_eq(pm_model_advise(m, x, v, 2, &o, &a, NULL), PM_OK);
	cr_expect_eq(a.cheapest.value[1], 5);
	cr_expect_eq(a.cheapest.value[0], 16);
	/* b from 5 to 7 gives speedup 1, efficiency 5/7 < 0.9: largest is b=5 */
	cr_expect_eq(a.largest.value[1], 5);
	cr_expect_eq(a.largest.value[0], 16);
	pm_model_free(m);
}

Test(advise, nothing_efficient_enough_is_not_found)
{
	/* time grows with g: efficiency below 1/g, nothing above 1 */
	pm_model *m = toy(1, 0, 0);
	double x[3] = { 10, NAN, 1 };
	static const double g[] = { 2, 4 };
	pm_vary v = { 1, 2, g };
	pm_advice a;

	cr_assert_eq(pm_model_advise(m, x, &v, 1, NULL, &a, NULL), PM_OK);
	/* against the smallest value (2) itself: efficiency 1 */
	cr_expect_eq(a.largest.found, 1);
	cr_expect_eq(a.largest.value[0], 2);
	cr_expect_eq(a.fastest.value[0], 2);
	pm_model_free(m);
	{
		pm_model *n = toy(1, 0, 0);
		pm_advise_options o = pm_advise_options_default();
		static const double g2[] = { 2, 4 };
		static const double b2[] = { 1, 3 };
		pm_vary v2[2] = { { 2, 2, b2 }, { 1, 2, g2 } };

		/* resource g, b varied too: b has no effect here (q_b 0) */
		o.resource = 1;
		o.min_efficiency = 1;
		cr_assert_eq(pm_model_advise(n, x, v2, 2, &o, &a, NULL), PM_OK);
		cr_expect_eq(a.largest.value[1], 2);
		pm_model_free(n);
	}
}

Test(advise, every_error)
{
	pm_model *m = toy(-1, 0, 0);
	pm_model *c = load_fixture("docs/examples/ddp_mlp_model.json");
	double x[3] = { 10, 1, 1 }, xc[6] = { 64, 2, 256, 0, 1, 32 };
	static const double g[] = { 1, 2 };
	static const double bad[] = { 1, -2 };
	static const double nan[] = { NAN };
	pm_vary v[PM_ADVISE_MAX_VARY + 1];
	pm_advise_options o = pm_advise_options_default();
	pm_advice a;

	for (size_t j = 0; j <= PM_ADVISE_MAX_VARY; j++)
		v[j] = (pm_vary){ 1, 2, g };
	EXPECT_FAIL(pm_model_advise(m, x, v, 0, NULL, &a, E), PM_EINVAL, "vary 1 to 8 inputs");
	EXPECT_FAIL(pm_model_advise(m, x, v, PM_ADVISE_MAX_VARY + 1, NULL, &a, E), PM_EINVAL,
		    "vary 1 to 8");
	EXPECT_FAIL(pm_model_advise(m, x, v, 2, NULL, &a, E), PM_EINVAL, "'g' is varied twice");
	EXPECT_FAIL(pm_model_advise(NULL, x, v, 1, NULL, &a, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_model_advise(m, x, v, 1, NULL, NULL, E), PM_EINVAL, "NULL");
	v[0].input = 7;
	EXPECT_FAIL(pm_model_advise(m, x, v, 1, NULL, &a, E), PM_EINVAL, "no input 7");
	v[0] = (pm_vary){ 1, 0, g };
	EXPECT_FAIL(pm_model_advise(m, x, v, 1, NULL, &a, E), PM_EINVAL, "'g': no values");
	v[0] = (pm_vary){ 1, 2, bad };
	EXPECT_FAIL(pm_model_advise(m, x, v, 1, NULL, &a, E), PM_EINVAL, "'g': -2 is not");
	v[0] = (pm_vary){ 1, 1, nan };
	EXPECT_FAIL(pm_model_advise(m, x, v, 1, NULL, &a, E), PM_EINVAL, "'g': nan is not");
	v[0] = (pm_vary){ 1, 2, g };
	o.resource = 1;
	EXPECT_FAIL(pm_model_advise(m, x, v, 1, &o, &a, E), PM_EINVAL, "the resource is vary[1]");
	o = pm_advise_options_default();
	o.min_efficiency = 0;
	EXPECT_FAIL(pm_model_advise(m, x, v, 1, &o, &a, E), PM_EINVAL, "not in (0, 1]");
	o.min_efficiency = 1.5;
	EXPECT_FAIL(pm_model_advise(m, x, v, 1, &o, &a, E), PM_EINVAL, "not in (0, 1]");
	o = pm_advise_options_default();
	o.max_combinations = 3;
	v[1] = (pm_vary){ 2, 2, g };
	EXPECT_FAIL(pm_model_advise(m, x, v, 2, &o, &a, E), PM_EINVAL, "more than 3 combinations");
	x[0] = NAN;
	EXPECT_FAIL(pm_model_advise(m, x, v, 1, NULL, &a, E), PM_EINVAL,
		    "missing value for input 'n' (not varied)");
	x[0] = -1;
	EXPECT_FAIL(pm_model_advise(m, x, v, 1, NULL, &a, E), PM_EDOMAIN,
		    "input 'n': -1 is not a finite number > 0, as a power needs (at g=1)");
	v[0] = (pm_vary){ 3, 2, g };	/* activation */
	EXPECT_FAIL(pm_model_advise(c, xc, v, 1, NULL, &a, E), PM_EINVAL,
		    "'activation' is categorical");
	pm_model_free(m);
	pm_model_free(c);
}

/* toy() with intervals: residual quantiles -0.5, 0, 0.5 at 5, 50, 95 %
 * from 100 residuals, n fitted on [1, 20], g and b on [1, 2]. */
static pm_model *toy_intervals(double q)
{
	static const double p[] = { 0.05, 0.5, 0.95 }, r[] = { -0.5, 0, 0.5 };
	static const double lo[] = { 1, 1, 1 }, hi[] = { 20, 2, 2 };
	pm_model *m = toy(q, 0, 0);

	cr_assert_eq(pm__model_set_intervals(m, 100, 5, 3, p, r, lo, hi, NULL, NULL), PM_OK);
	return m;
}

Test(advise, a_quantile_prefers_the_narrower_spread)
{
	/* t = n g^-0.1: g = 16 is faster (0.758 n against 0.933 n at g = 2)
	 * but 3 ranges' widths beyond the data, its spread around the median
	 * widened sqrt(1 + 1.5^2) = 1.80 times: its 95 % quantile is
	 * 0.758 n e^0.90 = 1.86 n against g = 2's 0.933 n e^0.5 = 1.54 n */
	pm_model *m = toy_intervals(-0.1);
	double x[3] = { 10, NAN, 1 }, t2, t16, q2, q16;
	static const double g[] = { 16, 2 };
	pm_vary v = { 1, 2, g };
	pm_advise_options o = pm_advise_options_default();
	pm_advice a;
	pm_error e = { 0 };

	o.max_extrapolation = 0;	/* g = 16 is 8x beyond: the point here */
	cr_assert_eq(pm_model_advise(m, x, &v, 1, &o, &a, NULL), PM_OK);
	cr_expect_eq(a.fastest.value[0], 16);
	cr_expect(isnan(a.fastest.quantile_time));
	x[1] = 2;
	cr_assert_eq(pm_model_predict(m, x, &t2, NULL), PM_OK);
	cr_assert_eq(pm_model_predict_quantile(m, x, 0.95, &q2, NULL), PM_OK);
	x[1] = 16;
	cr_assert_eq(pm_model_predict(m, x, &t16, NULL), PM_OK);
	cr_assert_eq(pm_model_predict_quantile(m, x, 0.95, &q16, NULL), PM_OK);
	cr_assert(t16 < t2 && q16 > q2, "%g %g %g %g", t2, t16, q2, q16);
	o.quantile = 0.95;
	cr_assert_eq(pm_model_advise(m, x, &v, 1, &o, &a, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(a.fastest.value[0], 2);
	cr_expect_eq(a.fastest.quantile_time, q2);
	/* the time, speedup and efficiency stay the predictions' */
	cr_expect_eq(a.fastest.time, t2);
	cr_expect_eq(a.fastest.speedup, 1);
	/* cheapest: g x quantile, 2 x 1.54 n against 16 x 1.86 n */
	cr_expect_eq(a.cheapest.value[0], 2);
	cr_expect_eq(a.cheapest.cost, 2 * q2);
	/* the median (0 here) ranks as the prediction does */
	o.quantile = 0.5;
	cr_assert_eq(pm_model_advise(m, x, &v, 1, &o, &a, NULL), PM_OK);
	cr_expect_eq(a.fastest.value[0], 16);
	cr_expect_eq(a.fastest.quantile_time, t16);
	pm_model_free(m);
}

Test(advise, quantile_errors)
{
	pm_model *m = toy_intervals(-1), *plain = toy(-1, 0, 0);
	double x[3] = { 10, NAN, 1 };
	static const double g[] = { 1, 2 };
	pm_vary v = { 1, 2, g };
	pm_advise_options o = pm_advise_options_default();
	pm_advice a;

	o.quantile = 1;
	EXPECT_FAIL(pm_model_advise(m, x, &v, 1, &o, &a, E), PM_EINVAL,
		    "the quantile 1 is not 0 (the prediction) or in (0, 1)");
	o.quantile = -0.5;
	EXPECT_FAIL(pm_model_advise(m, x, &v, 1, &o, &a, E), PM_EINVAL, "quantile -0.5 is not");
	o.quantile = NAN;
	EXPECT_FAIL(pm_model_advise(m, x, &v, 1, &o, &a, E), PM_EINVAL, "quantile nan is not");
	o.quantile = 0.999;
	EXPECT_FAIL(pm_model_advise(m, x, &v, 1, &o, &a, E), PM_EINVAL,
		    "beyond what the model's 100 calibration residuals tell");
	o.quantile = 0.9;
	EXPECT_FAIL(pm_model_advise(plain, x, &v, 1, &o, &a, E), PM_EINVAL,
		    "the model has no prediction intervals");
	{	/* the model's, found before any combination is predicted */
		pm_error e = { 0 };

		cr_expect_eq(pm_model_advise(plain, x, &v, 1, &o, &a, &e), PM_EINVAL);
		cr_expect_null(strstr(e.msg, "(at "), "%s", e.msg);
	}
	/* a quantile's own error names the combination */
	x[0] = 1e308;
	EXPECT_FAIL(pm_model_advise(m, x, &v, 1, &o, &a, E), PM_ERANGE, "(at g=1)");
	pm_model_free(m);
	pm_model_free(plain);
}

/* advise --slurm's limits: the quantiles of the time at x, in seconds, as
 * pm_slurm_time writes them, and x's distance beyond the data. */
Test(advise, slurm_limits_are_the_quantiles_in_seconds)
{
	pm_model *m = toy_intervals(-0.1);
	double x[3] = { 10, 2, 1 }, q95, q80;
	pm_slurm_limits l;
	char want[PM_SLURM_TIME_CHARS];
	uint64_t min;
	pm_error e = { 0 };

	cr_assert_eq(pm_model_predict_quantile(m, x, 0.95, &q95, NULL), PM_OK);
	cr_assert_eq(pm_model_predict_quantile(m, x, 0.8, &q80, NULL), PM_OK);
	/* the model's times in minutes: 60 s each */
	cr_assert_eq(pm_slurm_limits_at(m, x, NULL, 0.95, 0.8, 60, &l, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(l.time_s, q95 * 60);
	cr_expect_eq(l.time_min_s, q80 * 60);
	cr_assert_eq(pm_slurm_time(q95 * 60, want, &min, NULL), PM_OK);
	cr_expect_str_eq(l.time, want);
	cr_expect_eq(l.time_minutes, min);
	cr_assert_eq(pm_slurm_time(q80 * 60, want, &min, NULL), PM_OK);
	cr_expect_str_eq(l.time_min, want);
	cr_expect_eq(l.time_min_minutes, min);
	cr_expect(l.time_minutes > l.time_min_minutes);
	cr_expect_eq(l.distance, 0);
	cr_expect_eq(l.extrapolated, 0);
	/* g = 16: three ranges' widths beyond [1, 2] */
	x[1] = 16;
	cr_assert_eq(pm_slurm_limits_at(m, x, NULL, 0.95, 0.95, 1, &l, NULL), PM_OK);
	cr_expect_eq(l.distance, 3);
	cr_expect_eq(l.extrapolated, 1);
	cr_expect_eq(l.time_s, l.time_min_s);	/* one quantile for both */
	/* 10^12 s per unit: beyond Slurm's longest limit, no limit */
	cr_assert_eq(pm_slurm_limits_at(m, x, NULL, 0.95, 0.8, 1e12, &l, NULL), PM_OK);
	cr_expect_str_eq(l.time, "UNLIMITED");
	cr_expect_str_eq(l.time_min, "UNLIMITED");
	cr_expect_eq(l.time_minutes, 0);
	cr_expect_gt(l.time_s, PM_SLURM_MAX_MINUTES * 60.0);
	pm_model_free(m);
}

Test(advise, slurm_limits_errors)
{
	pm_model *m = toy_intervals(-0.1), *plain = toy(-0.1, 0, 0);
	double x[3] = { 10, 2, 1 };
	pm_slurm_limits l = { .time_s = 7 };

	EXPECT_FAIL(pm_slurm_limits_at(NULL, x, NULL, 0.95, 0.8, 1, &l, E), PM_EINVAL, "a NULL argument");
	EXPECT_FAIL(pm_slurm_limits_at(m, NULL, NULL, 0.95, 0.8, 1, &l, E), PM_EINVAL, "a NULL argument");
	EXPECT_FAIL(pm_slurm_limits_at(m, x, NULL, 0.95, 0.8, 1, NULL, E), PM_EINVAL, "a NULL argument");
	EXPECT_FAIL(pm_slurm_limits_at(m, x, NULL, 0.95, 0.8, 0, &l, E), PM_EINVAL,
		    "a time unit of 0 s is not a finite number > 0");
	EXPECT_FAIL(pm_slurm_limits_at(m, x, NULL, 0.95, 0.8, INFINITY, &l, E), PM_EINVAL,
		    "a time unit of inf s");
	EXPECT_FAIL(pm_slurm_limits_at(m, x, NULL, 0.8, 0.95, 1, &l, E), PM_EINVAL,
		    "the --time-min quantile 0.95 is above the --time quantile 0.8");
	EXPECT_FAIL(pm_slurm_limits_at(m, x, NULL, 0.999, 0.8, 1, &l, E), PM_EINVAL,
		    "beyond what the model's 100 calibration residuals tell");
	EXPECT_FAIL(pm_slurm_limits_at(plain, x, NULL, 0.95, 0.8, 1, &l, E), PM_EINVAL,
		    "the model has no prediction intervals");
	/* more seconds than a double holds: 10^308 s per unit */
	EXPECT_FAIL(pm_slurm_limits_at(m, x, NULL, 0.95, 0.8, 1e308, &l, E), PM_ERANGE,
		    "more seconds than a double holds");
	/* a model of a speedup predicts relative times */
	m->kind = PM_TARGET_SPEEDUP;
	EXPECT_FAIL(pm_slurm_limits_at(m, x, NULL, 0.95, 0.8, 1, &l, E), PM_EINVAL,
		    "a time limit needs a model of a run time: the model's target is a speedup");
	cr_expect_eq(l.time_s, 7);	/* unchanged on every error */
	m->kind = PM_TARGET_TIME;
	pm_model_free(m);
	pm_model_free(plain);
}

/* Issue 36, item 1: each pick says how far beyond the fitted data it lies
 * (g fitted on 1 to 2, n on 1 to 20), and by default nothing more than 2x
 * beyond is advised; 0 lifts the limit, a model without ranges is not
 * limited and says so, and every combination beyond is an error naming
 * the nearest. */
Test(advise, the_limit_of_extrapolation)
{
	/* t = n g^-0.5: the more g the faster, the less g the cheaper */
	pm_model *m = toy_intervals(-0.5), *plain = toy(-0.5, 0, 0);
	double x[3] = { 10, NAN, 1 };
	static const double g[] = { 0.25, 1, 2, 4, 8, 16 };
	pm_vary v = { 1, 6, g };
	pm_advise_options o = pm_advise_options_default();
	pm_advice a;
	pm_error e = { 0 };

	cr_expect_eq(o.max_extrapolation, 2);
	cr_assert_eq(pm_model_advise(m, x, &v, 1, &o, &a, &e), PM_OK, "%s", e.msg);
	cr_expect(a.ranges);
	cr_expect_eq(a.left_beyond, 3, "0.25 (4x below), 8 and 16");
	cr_expect_eq(a.fastest.value[0], 4);
	cr_expect_eq(a.fastest.beyond, 2);
	cr_expect_eq(a.fastest.beyond_input, 1);
	cr_expect_eq(a.fastest.beyond_value, 4);
	cr_expect_eq(a.cheapest.value[0], 1);
	cr_expect_eq(a.cheapest.beyond, 1, "inside every range");
	o.max_extrapolation = 1;
	cr_assert_eq(pm_model_advise(m, x, &v, 1, &o, &a, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(a.fastest.value[0], 2);
	cr_expect_eq(a.left_beyond, 4);
	o.max_extrapolation = 0;
	cr_assert_eq(pm_model_advise(m, x, &v, 1, &o, &a, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(a.fastest.value[0], 16);
	cr_expect_eq(a.fastest.beyond, 8);
	cr_expect_eq(a.left_beyond, 0);
	/* below the smallest fitted: 1 / 0.25 */
	cr_expect_eq(a.cheapest.value[0], 0.25);
	cr_expect_eq(a.cheapest.beyond, 4);
	/* a model without intervals keeps no ranges: nothing left out */
	o.max_extrapolation = 2;
	cr_assert_eq(pm_model_advise(plain, x, &v, 1, &o, &a, &e), PM_OK, "%s", e.msg);
	cr_expect(!a.ranges);
	cr_expect_eq(a.left_beyond, 0);
	cr_expect_eq(a.fastest.value[0], 16);
	cr_expect(isnan(a.fastest.beyond));
	/* n = 100 is 5x the largest fitted, whatever g */
	x[0] = 100;
	EXPECT_FAIL(pm_model_advise(m, x, &v, 1, &o, &a, E), PM_EDOMAIN,
		    "every one of the combinations lies beyond 2 times the data the model was "
		    "fitted to (--max-extrapolation); the nearest has n = 100, 5 times above the "
		    "fitted 1 to 20 (at g=0.25); --max-extrapolation none (a limit of 0) advises "
		    "beyond it");
	x[0] = 10;
	for (int k = 0; k < 4; k++) {
		const double bad[] = { 0.5, -1, NAN, INFINITY };

		o.max_extrapolation = bad[k];
		EXPECT_FAIL(pm_model_advise(m, x, &v, 1, &o, &a, E), PM_EINVAL,
			    "is not a factor >= 1 (or 0: no limit)");
	}
	pm_model_free(m);
	pm_model_free(plain);
}

/* Issue 36, item 2: a job of N iterations after a set-up, its time and
 * quantiles setup + N x the iteration's (the run's error shared by all its
 * iterations: docs/maths.md, "Whole jobs"), in advice and Slurm limits. */
Test(advise, whole_jobs)
{
	pm_model *m = toy_intervals(-0.5), *plain = toy(-0.5, 0, 0);
	double x[3] = { 10, 2, 1 }, t, q95, v;
	static const double g[] = { 1, 2 };
	pm_vary vary = { 1, 2, g };
	pm_job job = { .iterations = 2000, .setup = 30 }, one = pm_job_default();
	pm_advise_options o = pm_advise_options_default();
	pm_slurm_limits l, l1;
	pm_advice a, a1;
	pm_error e = { 0 };

	cr_expect(one.iterations == 1 && one.setup == 0);
	cr_assert_eq(pm_model_predict(m, x, &t, NULL), PM_OK);
	cr_assert_eq(pm_model_predict_quantile(m, x, 0.95, &q95, NULL), PM_OK);
	cr_assert_eq(pm_job_time(m, x, &job, 0, &v, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(v, 30 + 2000 * t);
	cr_assert_eq(pm_job_time(m, x, &job, 0.95, &v, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(v, 30 + 2000 * q95);
	cr_assert_eq(pm_job_time(m, x, NULL, 0.95, &v, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(v, q95, "NULL: one run of the model's time");
	/* the limits are the job's quantiles, in seconds */
	cr_assert_eq(pm_slurm_limits_at(m, x, &job, 0.95, 0.8, 60, &l, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(l.time_s, (30 + 2000 * q95) * 60);
	cr_assert_eq(pm_slurm_limits_at(m, x, NULL, 0.95, 0.8, 60, &l1, &e), PM_OK);
	cr_expect_eq(l1.time_s, q95 * 60);
	/* advice: the job's times; the set-up makes one g cheaper than
	 * under the model alone's, t = n g^-0.5, where cost g t grows */
	cr_assert_eq(pm_model_advise(m, x, &vary, 1, &o, &a1, &e), PM_OK, "%s", e.msg);
	o.job = job;
	cr_assert_eq(pm_model_advise(m, x, &vary, 1, &o, &a, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(a.fastest.value[0], 2);
	x[1] = 2;
	cr_assert_eq(pm_model_predict(m, x, &t, NULL), PM_OK);
	cr_expect_eq(a.fastest.time, 30 + 2000 * t);
	cr_expect_eq(a.fastest.cost, 2 * (30 + 2000 * t));
	cr_expect_float_eq(a.fastest.speedup, (30 + 2000 * t * sqrt(2)) / (30 + 2000 * t), 1e-12);
	cr_expect_float_eq(a.fastest.efficiency, a.fastest.speedup / 2, 1e-12);
	cr_expect_lt(a.fastest.speedup, a1.fastest.speedup, "a set-up does not scale");
	/* errors: the count, the set-up, a model of a target kind */
	for (int k = 0; k < 4; k++) {
		const pm_job bad[] = { { 0, 0 }, { NAN, 0 }, { 1, -1 }, { 1, INFINITY } };

		EXPECT_FAIL(pm_job_time(m, x, &bad[k], 0, &v, E), PM_EINVAL,
			    k < 2 ? "the count must be a finite number > 0"
				  : "it must be a finite number >= 0");
		o.job = bad[k];
		EXPECT_FAIL(pm_model_advise(m, x, &vary, 1, &o, &a, E), PM_EINVAL,
			    k < 2 ? "the count must be" : "it must be");
	}
	EXPECT_FAIL(pm_job_time(m, x, &job, 1, &v, E), PM_EINVAL, "the quantile 1 is not 0");
	EXPECT_FAIL(pm_job_time(plain, x, &job, 0.9, &v, E), PM_EINVAL,
		    "the model has no prediction intervals");
	cr_assert_eq(pm_job_time(plain, x, &job, 0, &v, &e), PM_OK, "%s", e.msg);
	EXPECT_FAIL(pm_job_time(m, x, &(pm_job){ 1e308, 1e308 }, 0, &v, E), PM_ERANGE,
		    "more than a double holds");
	m->kind = PM_TARGET_SPEEDUP;
	EXPECT_FAIL(pm_job_time(m, x, &job, 0, &v, E), PM_EINVAL,
		    "a job of iterations and set-up needs a model of a run time: the model's "
		    "target is a speedup");
	cr_expect_eq(pm_job_time(m, x, &one, 0, &v, &e), PM_OK, "the default job is any model's");
	pm_model_free(m);
	pm_model_free(plain);
}
