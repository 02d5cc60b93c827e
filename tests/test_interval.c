/* Prediction intervals (issue 22): the fit's calibration and the
 * predictor's calls, on synth.h's data whose noise is known: each time
 * multiplied by exp(0.2 * N(0, 1)). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "model/model_impl.h"
#include "model_fixture.h"
#include "select/interval_fit.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(interval);

#define NOISE 0.2

/* syn_fit_with of d, which the caller frees */
static pm_model *fit_rows(const pm_dataset *d, unsigned intervals, unsigned threads)
{
	pm_fit_options o = pm_fit_options_default();

	o.threads = threads;
	o.intervals = intervals;
	return syn_fit_with(d, o, 1);
}

/* A model of `rows` rows of the synthetic data, calibrated. */
static pm_model *calibrated(size_t rows, unsigned threads)
{
	pm_dataset *d = syn_dataset(rows, NOISE, 1);
	pm_model *m = fit_rows(d, 5, threads);

	pm_dataset_free(d);
	return m;
}

/* Fresh draws from the same law: the 90 % interval of a fit calibrated on
 * 400 rows covers about 90 % of them. The tolerance, 5 points, is three
 * standard deviations of what moves the share by chance: the interval's
 * own tails, estimated from 400 residuals (sd sqrt(0.9 * 0.1 / 400) = 1.5
 * points), and the share over 2000 draws (0.67 points). An interval made
 * from the fit's in-sample residuals, or widened or narrowed by a tenth,
 * still passes; one of the wrong quantiles (the 25 % and 75 %, covering
 * 50 %), or of the wrong scale, fails. */
Test(interval, covers_fresh_draws)
{
	pm_dataset *d = syn_dataset(400, NOISE, 1), *fresh = syn_dataset(2000, NOISE, 2);
	pm_model *m = fit_rows(d, 5, 0);
	size_t n = pm_dataset_nrows(fresh), col, in = 0;
	double *pred = malloc(n * sizeof(*pred)), *q = malloc(2 * n * sizeof(*q));
	double *t = malloc(n * sizeof(*t)), qs[2] = { 0.05, 0.95 }, logw = 0;
	int *ex = malloc(n * sizeof(*ex));
	pm_error e = { 0 };

	cr_assert(pm_model_has_intervals(m));
	cr_expect_eq(pm_model_interval_residuals(m), 400);
	cr_assert_eq(pm_model_predict_dataset_quantiles(m, fresh, 2, qs, pred, q, ex, &e), PM_OK,
		     "%s", e.msg);
	cr_assert_eq(pm_dataset_col_index(fresh, "time", &col, &e), PM_OK);
	cr_assert_eq(pm_dataset_col_numbers(fresh, col, t, &e), PM_OK);
	for (size_t k = 0; k < n; k++) {
		in += t[k] >= q[2 * k] && t[k] <= q[2 * k + 1];
		logw += log(q[2 * k + 1] / q[2 * k]) / (double)n;
		cr_expect_eq(ex[k], 0, "row %zu is inside the data's ranges", k);
		cr_expect(q[2 * k] < pred[k] && pred[k] < q[2 * k + 1]);
	}
	cr_expect(fabs((double)in / (double)n - 0.9) <= 0.05, "coverage %.3f", (double)in / n);
	/* the log-normal's 90 % interval is 2 * 1.645 * sd wide on the log
	 * scale: the fit's misfit adds little to 0.2's noise */
	cr_expect(fabs(logw / (2 * 1.6449 * NOISE) - 1) < 0.15, "log width %.4f", logw);
	free(pred);
	free(q);
	free(t);
	free(ex);
	pm_model_free(m);
	pm_dataset_free(d);
	pm_dataset_free(fresh);
}

/* Calibrating is work after the fit: the fit's parameters are the same
 * bits with and without it, and its table the same bits on any number of
 * threads. */
Test(interval, fit_unchanged_and_deterministic)
{
	pm_dataset *d = syn_dataset(200, NOISE, 3);
	pm_model *plain = fit_rows(d, 0, 1), *one = fit_rows(d, 5, 1), *two = fit_rows(d, 5, 2);

	cr_expect(!pm_model_has_intervals(plain));
	cr_assert_eq(pm_model_nparams(plain), pm_model_nparams(one));
	for (size_t k = 0; k < pm_model_nparams(plain); k++)
		cr_expect_eq(memcmp(&plain->value[k], &one->value[k], sizeof(double)), 0,
			     "parameter %zu", k);
	cr_assert_eq(one->iv.np, two->iv.np);
	cr_expect_eq(memcmp(one->iv.q, two->iv.q, one->iv.np * sizeof(double)), 0);
	cr_expect_eq(memcmp(one->iv.lo, two->iv.lo, one->ninputs * sizeof(double)), 0);
	cr_expect_eq(memcmp(one->iv.hi, two->iv.hi, one->ninputs * sizeof(double)), 0);
	pm_model_free(plain);
	pm_model_free(one);
	pm_model_free(two);
	pm_dataset_free(d);
}

static int ascending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The residuals are out of sample: with 60 rows for 15 unknowns the fit
 * bends towards its own rows, whose residuals are narrower than those of
 * rows it never saw. In-sample residuals would make the table as narrow. */
Test(interval, out_of_sample)
{
	pm_dataset *d = syn_dataset(60, NOISE, 4);
	pm_model *m = fit_rows(d, 5, 1);
	size_t n = pm_dataset_nrows(d), col;
	double *pred = malloc(n * sizeof(*pred)), *t = malloc(n * sizeof(*t)), *r = malloc(n * sizeof(*r));
	double lo, hi;
	pm_error e;

	cr_assert_eq(pm_dataset_col_index(d, "time", &col, &e), PM_OK);
	cr_assert_eq(pm_dataset_col_numbers(d, col, t, &e), PM_OK);
	cr_assert_eq(pm_model_predict_dataset(m, d, pred, &e), PM_OK);
	for (size_t k = 0; k < n; k++)
		r[k] = log(t[k] / pred[k]);
	qsort(r, n, sizeof(*r), ascending);
	lo = pm__quantile_sorted(r, n, 0.05);
	hi = pm__quantile_sorted(r, n, 0.95);
	/* the table's 5 % and 95 %: grid points 10 and 190 of 199 */
	cr_assert_eq(m->iv.p[9], 0.05);
	cr_expect(m->iv.q[189] - m->iv.q[9] > 1.1 * (hi - lo), "out of sample %g, in sample %g",
		  m->iv.q[189] - m->iv.q[9], hi - lo);
	free(pred);
	free(t);
	free(r);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* Hyndman and Fan's type 6: position p(n + 1), the extremes beyond. */
Test(interval, quantile_type_6)
{
	const double r[] = { 1, 2, 4, 8 };

	cr_expect_eq(pm__quantile_sorted(r, 4, 0.5), 3);	/* 2.5th: between 2 and 4 */
	cr_expect_eq(pm__quantile_sorted(r, 4, 0.2), 1);	/* the 1st */
	cr_expect_eq(pm__quantile_sorted(r, 4, 0.1), 1);	/* below the 1st */
	cr_expect_eq(pm__quantile_sorted(r, 4, 0.7), 6);	/* 3.5th: between 4 and 8 */
	cr_expect_eq(pm__quantile_sorted(r, 4, 0.95), 8);
	cr_expect_eq(pm__quantile_sorted(r, 1, 0.5), 1);
}

/* x[] of synth.h's inputs in the model's order (k, f, h, act, opt,
 * threads, batch), the categoricals at level 0. */
static void point(const pm_model *m, double threads, double batch, double *x)
{
	const char *names[] = { "k", "f", "h", "threads", "batch" };
	const double v[] = { 3, 16, 256, threads, batch };

	for (size_t i = 0; i < pm_model_ninputs(m); i++)
		x[i] = 0;
	for (size_t j = 0; j < 5; j++) {
		size_t i;

		cr_assert_eq(pm_model_input_index(m, names[j], &i, NULL), PM_OK);
		x[i] = v[j];
	}
}

/* Inside the data's ranges the quantiles are the residuals' own around
 * the prediction; beyond them the spread around the median grows by
 * sqrt(1 + (k d)^2), d the distance in range widths and k the input's
 * widening rate, and the point is flagged. */
Test(interval, extrapolation_widens)
{
	pm_model *m = calibrated(200, 1);
	double x[8], t, lo, hi, q5, med, d, lo2, hi2, k;
	int ex = -1;
	size_t threads;
	pm_error e = { 0 };

	cr_assert_eq(pm_model_input_index(m, "threads", &threads, NULL), PM_OK);
	k = m->iv.widen[threads];
	point(m, 4, 64, x);
	cr_assert_eq(pm_model_predict(m, x, &t, &e), PM_OK);
	cr_assert_eq(pm_model_predict_interval(m, x, 0.9, &lo, &hi, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_model_predict_quantile(m, x, 0.05, &q5, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_model_predict_quantile(m, x, 0.5, &med, &e), PM_OK);
	cr_expect_eq(lo, q5);
	cr_assert_eq(pm_model_residual_quantile(m, 0.05, &d, &e), PM_OK);
	cr_expect_eq(d, m->iv.q[9]);
	cr_expect(fabs(log(lo / t) - m->iv.q[9]) < 1e-12);
	cr_expect(fabs(log(hi / t) - m->iv.q[189]) < 1e-12);
	cr_assert_eq(pm_model_extrapolation(m, x, &d, &ex, &e), PM_OK);
	cr_expect_eq(d, 0);
	cr_expect_eq(ex, 0);
	/* threads 1..8 fitted: 64 is as far again beyond 8 as 8 is from 1 */
	point(m, 64, 64, x);
	cr_assert_eq(pm_model_extrapolation(m, x, &d, &ex, &e), PM_OK);
	cr_expect(fabs(d - 1) < 1e-12, "distance %g", d);
	cr_expect_eq(ex, 1);
	cr_assert_eq(pm_model_predict(m, x, &t, &e), PM_OK);
	cr_assert_eq(pm_model_predict_interval(m, x, 0.9, &lo2, &hi2, &e), PM_OK);
	cr_assert_eq(pm_model_predict_quantile(m, x, 0.5, &med, &e), PM_OK);
	cr_expect(fabs(log(hi2 / med) / (m->iv.q[189] - m->iv.q[99]) - sqrt(1 + k * k)) < 1e-9,
		  "widened %g, rate %g", log(hi2 / med) / (m->iv.q[189] - m->iv.q[99]), k);
	cr_expect(fabs(log(med / lo2) / (m->iv.q[99] - m->iv.q[9]) - sqrt(1 + k * k)) < 1e-9);
	/* below the smallest batch (8): 2 is log(4) / log(16) = 0.5 widths out */
	point(m, 4, 2, x);
	cr_assert_eq(pm_model_extrapolation(m, x, &d, NULL, &e), PM_OK);
	cr_expect(fabs(d - 0.5) < 1e-12, "distance %g", d);
	pm_model_free(m);
}

Test(interval, errors)
{
	pm_dataset *rows = syn_dataset(100, NOISE, 1);
	pm_model *m = fit_rows(rows, 5, 1), *plain = fit_rows(rows, 0, 1);
	double x[8], lo, hi, v, d;

	point(m, 2, 32, x);
	EXPECT_FAIL(pm_model_predict_interval(plain, x, 0.9, &lo, &hi, E), PM_EINVAL,
		    "no prediction intervals");
	EXPECT_FAIL(pm_model_predict_quantile(plain, x, 0.5, &v, E), PM_EINVAL,
		    "no prediction intervals");
	EXPECT_FAIL(pm_model_extrapolation(plain, x, &d, NULL, E), PM_EINVAL,
		    "no prediction intervals");
	EXPECT_FAIL(pm_model_residual_quantile(plain, 0.5, &d, E), PM_EINVAL,
		    "no prediction intervals: it was fitted with --no-intervals "
		    "(pm_fit_options.intervals 0)");
	EXPECT_FAIL(pm_model_residual_quantile(m, 0.999, &d, E), PM_EINVAL, "beyond");
	EXPECT_FAIL(pm_model_residual_quantile(m, 0.5, NULL, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_model_predict_interval(m, x, 0, &lo, &hi, E), PM_EINVAL, "not between 0 and 1");
	EXPECT_FAIL(pm_model_predict_interval(m, x, 1, &lo, &hi, E), PM_EINVAL, "not between 0 and 1");
	EXPECT_FAIL(pm_model_predict_interval(m, x, NAN, &lo, &hi, E), PM_EINVAL,
		    "not between 0 and 1");
	EXPECT_FAIL(pm_model_predict_quantile(m, x, 1.5, &v, E), PM_EINVAL, "not between 0 and 1");
	EXPECT_FAIL(pm_model_predict_quantile(m, x, -0.1, &v, E), PM_EINVAL, "not between 0 and 1");
	/* 100 residuals tell quantiles from 1/101 to 100/101 */
	EXPECT_FAIL(pm_model_predict_quantile(m, x, 0.995, &v, E), PM_EINVAL,
		    "beyond what the model's 100 calibration residuals tell");
	EXPECT_FAIL(pm_model_predict_interval(m, x, 0.99, &lo, &hi, E), PM_EINVAL,
		    "100 calibration residuals");
	cr_expect_eq(pm_model_predict_quantile(m, x, 0.99, &v, NULL), PM_OK);
	EXPECT_FAIL(pm_model_predict_interval(NULL, x, 0.9, &lo, &hi, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_model_predict_interval(m, NULL, 0.9, &lo, &hi, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_model_predict_interval(m, x, 0.9, NULL, &hi, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_model_predict_quantile(m, x, 0.5, NULL, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_model_extrapolation(m, x, NULL, NULL, E), PM_EINVAL, "NULL");
	cr_expect(!pm_model_has_intervals(NULL));
	cr_expect_eq(pm_model_interval_residuals(NULL), 0);
	/* a point the model cannot take: nothing written */
	lo = hi = v = -1;
	x[0] = 0;
	EXPECT_FAIL(pm_model_predict_interval(m, x, 0.9, &lo, &hi, E), PM_EDOMAIN, "'k'");
	EXPECT_FAIL(pm_model_predict_quantile(m, x, 0.5, &v, E), PM_EDOMAIN, "'k'");
	EXPECT_FAIL(pm_model_extrapolation(m, x, &d, NULL, E), PM_EDOMAIN, "'k'");
	cr_expect(lo == -1 && hi == -1 && v == -1);
	/* a quantile that overflows is no number */
	point(m, 2, 32, x);
	x[0] = 1e300;
	EXPECT_FAIL(pm_model_predict_quantile(m, x, 0.95, &v, E), PM_ERANGE, "not a finite number");
	pm_model_free(m);
	pm_model_free(plain);
	pm_dataset_free(rows);
}

/* Saved and loaded, the intervals are the same bits; a model saved
 * without them loads and has none. */
Test(interval, round_trip)
{
	pm_model *m = calibrated(100, 1), *back = NULL;
	char *json = NULL;
	double x[8], lo, hi, lo2, hi2;
	pm_error e = { 0 };

	cr_assert_eq(pm_model_to_json(m, &json, &e), PM_OK, "%s", e.msg);
	cr_expect(strstr(json, "\"intervals\": {"));
	cr_expect(strstr(json, "\"method\": \"cv-log-residual-quantiles\""));
	cr_assert_eq(pm_model_load_string(json, "m.json", &back, &e), PM_OK, "%s", e.msg);
	point(m, 8, 128, x);
	cr_assert_eq(pm_model_predict_interval(m, x, 0.8, &lo, &hi, &e), PM_OK);
	cr_assert_eq(pm_model_predict_interval(back, x, 0.8, &lo2, &hi2, &e), PM_OK);
	cr_expect_eq(memcmp(&lo, &lo2, sizeof(lo)), 0);
	cr_expect_eq(memcmp(&hi, &hi2, sizeof(hi)), 0);
	cr_expect_eq(pm_model_interval_residuals(back), 100);
	cr_expect_eq(back->iv.folds, 5);
	free(json);
	pm_model_free(back);
	pm_model_free(m);
}

/* Replace the first `from` in text by `to` (text is malloc'd, grown). */
static char *edit(char *text, const char *from, const char *to)
{
	char *at = strstr(text, from), *out;
	size_t n = strlen(text) + strlen(to) + 1;

	cr_assert(at, "no '%s' in the model", from);
	out = malloc(n);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	free(text);
	return out;
}

static void expect_schema(char *json, const char *want)
{
	pm_model *m = NULL;

	EXPECT_FAIL(pm_model_load_string(json, "m.json", &m, E), PM_ESCHEMA, want);
	cr_expect_null(m);
	free(json);
}

Test(interval, load_errors)
{
	pm_model *m = calibrated(100, 1);
	char *json, *cut;
	pm_error e;

	/* each: what is replaced, by what, and what the error says */
	static const char *const bad[][3] = {
		{ "cv-log-residual-quantiles", "bootstrap", "unknown method 'bootstrap'" },
		{ "\"probabilities\": [0.005, ", "\"probabilities\": [0.5, ", "must increase" },
		{ "\"probabilities\": [0.005, ", "\"probabilities\": [",
		  "198 probabilities but 199 quantiles" },
		{ "\"quantiles\": [", "\"quantiles\": [1e9, ", "probabilities but 200 quantiles" },
		{ "\"threads\": [1, 8]", "\"nthreads\": [1, 8]", "missing 'threads'" },
		{ "\"threads\": [1, 8]", "\"threads\": [8, 1]",
		  "the range of input 'threads' is [8, 1]" },
		{ "\"threads\": [1, 8]", "\"threads\": 1", "the range of 'threads' must be [lo, hi]" },
		{ "\"residuals\": 100", "\"residuals\": -1", "residuals" },
		{ "\"k\": [1, 5]", "\"k\": [0, 5]", "the range of input 'k' is [0, 5]" },
		{ "\"widen\": {\n      \"k\": ", "\"widen\": {\n      \"kk\": ", "missing 'k'" },
		{ "\"widen\": {\n      \"k\": ", "\"widen\": {\n      \"k\": -",
		  "the widening rate of input 'k' is -" },
		{ "\"widen\": {\n      \"k\": ", "\"widen\": {\n      \"k\": \"1\", \"x\": ",
		  "the widening rate of 'k' must be a number" },
		{ "\"widen\": {", "\"widen\": 1, \"wide\": {", "'widen'" },
	};

	cr_assert_eq(pm_model_to_json(m, &json, &e), PM_OK);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_schema(edit(strdup(json), bad[i][0], bad[i][1]), bad[i][2]);
	/* without the member: a model with no intervals */
	cut = strstr(json, "\"intervals\": {");
	cr_assert(cut);
	{
		char *end = strstr(cut, "}\n  },") ? strstr(cut, "}\n  },") + 6 : NULL;
		pm_model *back = NULL;

		cr_assert(end, "the intervals member ends with its ranges");
		memmove(cut, end, strlen(end) + 1);
		cr_assert_eq(pm_model_load_string(json, "m.json", &back, &e), PM_OK, "%s: %s",
			     e.msg, cut - 40);
		cr_expect(!pm_model_has_intervals(back));
		pm_model_free(back);
	}
	free(json);
	pm_model_free(m);
}

/* The fit measures each numeric input's widening rate from its fold fits'
 * spread one range width out, within [0.5, 4]; synth.h's powers are
 * determined, so no rate is capped and no warning says so; they are not
 * all the floor (the rate is measured, not set). A model.json without
 * "widen" (written before perfmodel measured rates) predicts with 0.5,
 * the rule all inputs shared then: sqrt(1.25) at one range width. */
Test(interval, widening_rates)
{
	pm_model *m = calibrated(200, 1), *old = NULL;
	char *json = NULL, *at, *end;
	double x[8], med, hi, above = 0;
	size_t threads;
	pm_error e = { 0 };

	for (size_t i = 0; i < pm_model_ninputs(m); i++) {
		if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
			continue;
		cr_expect(m->iv.widen[i] >= 0.5 && m->iv.widen[i] < 4, "'%s': %g",
			  m->inputs[i].name, m->iv.widen[i]);
		above = fmax(above, m->iv.widen[i] - 0.5);
	}
	cr_expect(above > 0, "every rate is the floor");
	for (size_t j = 0; j < pm_model_nwarnings(m); j++)
		cr_expect(!strstr(pm_model_warning(m, j), "widening rate"), "%s",
			  pm_model_warning(m, j));
	cr_assert_eq(pm_model_to_json(m, &json, &e), PM_OK);
	at = strstr(json, ",\n    \"widen\": {");
	cr_assert(at);
	end = strchr(at, '}');
	memmove(at, end + 1, strlen(end + 1) + 1);
	cr_assert_eq(pm_model_load_string(json, "old.json", &old, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_model_input_index(old, "threads", &threads, NULL), PM_OK);
	cr_expect_eq(old->iv.widen[threads], 0.5);
	point(old, 64, 64, x);
	cr_assert_eq(pm_model_predict_quantile(old, x, 0.5, &med, &e), PM_OK);
	cr_assert_eq(pm_model_predict_quantile(old, x, 0.95, &hi, &e), PM_OK);
	cr_expect(fabs(log(hi / med) / (old->iv.q[189] - old->iv.q[99]) - sqrt(1.25)) < 1e-9);
	free(json);
	pm_model_free(old);
	pm_model_free(m);
}

/* A fit held out rows: the calibration is on the rows it was fitted to,
 * and the ranges are theirs. */
Test(interval, held_out_rows)
{
	pm_dataset *d = syn_dataset(200, NOISE, 5);
	pm_fit_options o = pm_fit_options_default();
	pm_model *m;
	size_t i;

	o.threads = 1;
	o.intervals = 5;
	o.test_fraction = 0.25;
	m = syn_fit_with(d, o, 1);
	cr_expect_eq(pm_model_interval_residuals(m), 150);
	pm_model_free(m);
	o.test_fraction = 0;
	cr_assert_eq(pm_validation_parse("extrapolate:threads", &o.validate, NULL), PM_OK);
	m = syn_fit_with(d, o, 1);
	cr_assert_eq(pm_model_input_index(m, "threads", &i, NULL), PM_OK);
	cr_expect_eq(m->iv.hi[i], 2, "fitted to threads 1 and 2 alone");
	cr_expect_eq(pm_model_interval_residuals(m), m->info.training.n);
	pm_model_free(m);
	/* and seeds: the best seed's model is calibrated */
	o.validate.scheme = PM_SCHEME_NONE;
	m = syn_fit_with(d, o, 2);
	cr_expect(pm_model_has_intervals(m));
	pm_model_free(m);
	pm_dataset_free(d);
}

/* A throughput y = 1 / t falls as t grows: its quantiles, turned into y,
 * still grow with q, and bracket the prediction. */
Test(interval, target_kind)
{
	char *csv = syn_csv(200, NOISE, 6), *rate;
	const char *p;
	size_t len;
	pm_dataset *d = NULL;
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	double qs[3] = { 0.1, 0.5, 0.9 }, *pred, *q;
	pm_error e = { 0 };
	size_t n;

	/* the times' column (the 8th) as a rate, under the same name */
	rate = malloc(2 * strlen(csv) + 1);
	p = csv;
	len = (size_t)(strchr(p, '\n') + 1 - p);
	memcpy(rate, p, len);
	for (p += len; *p; p = strchr(p, '\n') + 1) {
		const char *c = p, *after;

		for (int f = 0; f < 7; f++)
			c = strchr(c, ',') + 1;
		after = strchr(c, ',');
		memcpy(rate + len, p, (size_t)(c - p));
		len += (size_t)(c - p);
		len += (size_t)sprintf(rate + len, "%.17g", 1.0 / strtod(c, NULL));
		memcpy(rate + len, after, (size_t)(strchr(after, '\n') + 1 - after));
		len += (size_t)(strchr(after, '\n') + 1 - after);
	}
	rate[len] = '\0';
	free(csv);
	csv = rate;
	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "x.csv", &d, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_spec_set_target_kind(s, PM_TARGET_THROUGHPUT, NULL, NULL, &e), PM_OK);
	o.threads = 1;
	o.intervals = 5;
	cr_assert_eq(pm_fit(d, s, &o, &m, &e), PM_OK, "%s", e.msg);
	n = pm_dataset_nrows(d);
	pred = malloc(n * sizeof(*pred));
	q = malloc(3 * n * sizeof(*q));
	cr_assert_eq(pm_model_predict_dataset_quantiles(m, d, 3, qs, pred, q, NULL, &e), PM_OK,
		     "%s", e.msg);
	for (size_t k = 0; k < n; k++)
		cr_expect(q[3 * k] < pred[k] && pred[k] < q[3 * k + 2] && q[3 * k] < q[3 * k + 1],
			  "row %zu: %g %g %g around %g", k, q[3 * k], q[3 * k + 1], q[3 * k + 2],
			  pred[k]);
	free(pred);
	free(q);
	free(csv);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* predict --json's members after the prediction */
Test(interval, json_columns)
{
	const char *csv = "a,b\n1,x\n2,y\n";
	pm_dataset *d = NULL;
	const double pred[] = { 1, 2 }, v[] = { 0.5, 1.5, 1, 3 };
	const char *names[] = { "lower", "upper" };
	const int ex[] = { 0, 1 };
	pm_prediction_columns x = { 2, names, v, ex };
	char *out = NULL;
	pm_error e;

	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "p.csv", &d, &e), PM_OK);
	cr_assert_eq(pm_predictions_columns_to_json(d, pred, NULL, &x, &out, &e), PM_OK);
	cr_expect(strstr(out, "\"predicted\": 1, \"lower\": 0.5, \"upper\": 1.5, \"extrapolated\": false}"),
		  "%s", out);
	cr_expect(strstr(out, "\"predicted\": 2, \"lower\": 1, \"upper\": 3, \"extrapolated\": true}"),
		  "%s", out);
	free(out);
	x.value = NULL;
	EXPECT_FAIL(pm_predictions_columns_to_json(d, pred, NULL, &x, &out, E), PM_EINVAL, "");
	pm_dataset_free(d);
}

/* A stop request during the calibration keeps the fit and no intervals,
 * and says so. */
Test(interval, stopped_while_calibrating)
{
	pm_dataset *d = syn_dataset(100, NOISE, 7);
	pm_model *m = fit_rows(d, 0, 1);
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	volatile sig_atomic_t stop = 1;
	pm_error e = { 0 };

	o.threads = 1;
	o.intervals = 5;
	o.stop = &stop;
	cr_assert_eq(pm__fit_intervals(m, d, s, &o, &e), PM_OK, "%s", e.msg);
	cr_expect(!pm_model_has_intervals(m));
	cr_assert_eq(pm_model_nwarnings(m), 1);
	cr_expect(strstr(pm_model_warning(m, 0), "interrupted while calibrating"), "%s",
		  pm_model_warning(m, 0));
	stop = 0;
	cr_assert_eq(pm__fit_intervals(m, d, s, &o, &e), PM_OK, "%s", e.msg);
	cr_expect(pm_model_has_intervals(m));
	pm_spec_free(s);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* calls = 5 n^2 / sqrt(threads) (±1 % ripple), 0 at n = 1: `sizes` values of n
 * over threads 1 .. 16, fitted under mae with intervals. */
static pm_model *zero_fit(size_t sizes)
{
	char text[2048];
	size_t used = (size_t)snprintf(text, sizeof(text), "n,threads,calls\n");
	pm_fit_options o = pm_fit_options_default();
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_model *m = NULL;
	pm_error err = { 0 };

	for (size_t i = 0; i < sizes; i++)
		for (int t = 1; t <= 16; t *= 2) {
			double n = (double)(1u << i);
			double v = i ? 5 * n * n / sqrt(t) * (1 + 0.01 * (double)((i * 7 + t * 3) % 5) -
							  0.02) : 0.0;

			used += (size_t)snprintf(text + used, sizeof(text) - used, "%g,%d,%.9g\n", n,
						 t, v);
		}
	cr_assert_eq(pm_dataset_parse_csv(text, used, "calls.csv", &d, &err), PM_OK, "%s",
		     err.msg);
	cr_assert_eq(pm_spec_new(&s, &err), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "calls", &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->intrinsic, "n", &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->extrinsic, "threads", &err), PM_OK);
	o.threads = 1;
	o.intervals = 5;
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	pm_spec_free(s);
	pm_dataset_free(d);
	return m;
}

/* Whether one of m's warnings starts with text. */
static int warns(const pm_model *m, const char *text)
{
	for (size_t i = 0; i < pm_model_nwarnings(m); i++)
		if (strncmp(pm_model_warning(m, i), text, strlen(text)) == 0)
			return 1;
	return 0;
}

/* Rows measured 0 have no log residual: the calibration leaves them out
 * (25 residuals of 30 rows) and a warning says so; 15 others (of 20) are
 * calibrated by leave-one-out, and that is said too. */
Test(interval, zeros_left_out)
{
	pm_model *m = zero_fit(6), *few = zero_fit(4);
	double x[2] = { 64, 4 }, lo, hi;

	cr_assert(pm_model_has_intervals(m));
	cr_expect_eq(pm_model_interval_residuals(m), 25);
	cr_expect(warns(m, "prediction intervals are calibrated on the 25 of 30 rows fitted "
			"where calls is not 0: a 0 has no residual"));
	cr_assert_eq(pm_model_predict_interval(m, x, 0.9, &lo, &hi, NULL), PM_OK);
	cr_expect(lo > 0 && lo < 5 * 64 * 64 / 2.0 && hi > 5 * 64 * 64 / 2.0, "%g %g", lo, hi);
	cr_expect(pm_model_has_intervals(few));
	cr_expect_eq(pm_model_interval_residuals(few), 15);
	cr_expect(warns(few, "prediction intervals are calibrated on the 15 of 20 rows fitted "
			"where calls is not 0"));
	pm_model_free(m);
	pm_model_free(few);
}

/* Fewer than 20 rows are calibrated by leave-one-out (a quantile beyond
 * what they reach is refused); fewer than 5 keep none, and say so, which
 * the predictor repeats when asked for one. */
Test(interval, few_rows)
{
	static const char four[] = "n,t\n1,1\n2,2.1\n4,3.9\n8,8.2\n";
	pm_dataset *d = syn_dataset(19, 0.01, 1), *tiny = NULL;
	pm_model *m = fit_rows(d, 5, 1), *t = NULL;
	pm_fit_options o = pm_fit_options_default();
	pm_spec *s = NULL;
	double x[1] = { 64 }, v;
	pm_error e = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(four, sizeof(four) - 1, "four.csv", &tiny, &e), PM_OK);
	cr_assert_eq(pm_spec_new(&s, &e), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "t", &e), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->intrinsic, "n", &e), PM_OK);
	o.threads = 1;
	o.intervals = 5;
	cr_assert_eq(pm_fit(tiny, s, &o, &t, &e), PM_OK, "%s", e.msg);

	cr_assert(pm_model_has_intervals(m));
	cr_expect_eq(pm_model_interval_residuals(m), 19);
	cr_expect(!warns(m, "no prediction intervals"));
	cr_expect_eq(pm_model_residual_quantile(m, 0.95, &v, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(pm_model_residual_quantile(m, 0.96, &v, &e), PM_EINVAL);
	cr_expect(!pm_model_has_intervals(t));
	cr_expect(warns(t, "no prediction intervals: 4 rows are too few to calibrate them "
			"(each predicted by a fit of the others, they need 5)"));
	cr_expect_eq(pm_model_predict_quantile(t, x, 0.5, &v, &e), PM_EINVAL);
	cr_expect_str_eq(e.msg, "the model has no prediction intervals: 4 rows are too few to "
			 "calibrate them (each predicted by a fit of the others, they need 5)");
	pm_model_free(m);
	pm_model_free(t);
	pm_spec_free(s);
	pm_dataset_free(d);
	pm_dataset_free(tiny);
}
