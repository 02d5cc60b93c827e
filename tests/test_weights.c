/* Weighted fits (--weights inverse-variance): the weights from the runs of
 * each configuration, the weighted cost and its gradient, fits that equal
 * the unweighted one when the weights are equal, move toward the clean
 * configurations when a noisy one is down-weighted, and do not depend on
 * the thread count; the runs and weights kept in model.json. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset_impl.h"
#include "fit/cost.h"
#include "leak_check.h"
#include "model/model_impl.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(weights);

#include "cost_fixture.h"
#include "spec/spec_impl.h"

static pm_dataset *read_text(const char *text, const pm_read_options *o, pm_error *err)
{
	pm_dataset *d = NULL;

	memset(err, 0, sizeof(*err));
	pm_dataset_parse(text, strlen(text), "w.csv", o, &d, NULL, err);
	return d;
}

static pm_read_options weighted(void)
{
	pm_read_options o = pm_read_options_default();

	o.target = "time";
	o.weights = PM_WEIGHTS_INVERSE_VARIANCE;
	return o;
}

/* Variances of the mean s²/runs: a = 1/2 (runs 1, 2... s² = 1, 2 runs),
 * b = 4/2, c: one run (the median, 1.25), d: zero (floored). */
Test(weights, inverse_variance_of_each_configuration)
{
	const char *csv = "n,time\n1,1\n1,2\n2,1\n2,3\n3,5\n4,7\n4,7\n";
	pm_read_options o = weighted();
	pm_error err;
	pm_dataset *d = read_text(csv, &o, &err);
	const double *w;
	const unsigned *reps;
	pm_weights kind;
	/* positive variances 0.25 and 1 (s² = 0.5 and 2 over 2 runs): median
	 * 0.625; one run gets it, zero is floored at 1 % of it */
	double var[4] = { 0.25, 1.0, 0.625, 0.00625 }, inv[4], sum = 0;

	cr_assert_not_null(d, "%s", err.msg);
	w = pm_dataset_weights(d, &kind);
	reps = pm_dataset_reps(d);
	cr_assert_not_null(w);
	cr_assert_eq(kind, PM_WEIGHTS_INVERSE_VARIANCE);
	cr_assert_eq(pm_dataset_nrows(d), 4);
	cr_expect_eq(reps[0], 2);
	cr_expect_eq(reps[2], 1);
	cr_expect(isnan(pm_dataset_cv(d)[2]));
	for (int g = 0; g < 4; g++)
		sum += inv[g] = 1.0 / var[g];
	for (int g = 0; g < 4; g++)
		cr_expect_float_eq(w[g], 4.0 * inv[g] / sum, 1e-12, "row %d: %.17g", g, w[g]);
	pm_dataset_free(d);
}

Test(weights, need_runs_that_differ)
{
	pm_read_options o = weighted();
	pm_error err;

	cr_expect_null(read_text("n,time\n1,1\n1,1\n2,3\n", &o, &err));
	cr_expect_eq(err.code, PM_ESCHEMA);
	cr_expect(strstr(err.msg, "no variance"), "%s", err.msg);
	o.aggregate = PM_AGG_NONE;
	cr_expect_null(read_text("n,time\n1,1\n1,2\n", &o, &err));
	cr_expect_eq(err.code, PM_EINVAL);
	cr_expect(strstr(err.msg, "--aggregate none"), "%s", err.msg);
	o = weighted();
	o.weights = PM_WEIGHTS_GIVEN;
	cr_expect_null(read_text("n,time\n1,1\n1,2\n", &o, &err));
	cr_expect_eq(err.code, PM_EINVAL);
}

/* A variance that overflows (or dwarfs the others) still weighs, by the
 * least there is. */
Test(weights, huge_variances_still_weigh)
{
	pm_read_options o = weighted();
	pm_error err;
	pm_dataset *d = read_text("n,time\n1,1e200\n1,3e200\n2,1\n2,2\n", &o, &err);
	const double *w;

	cr_assert_not_null(d, "%s", err.msg);
	w = pm_dataset_weights(d, NULL);
	cr_expect(w[0] > 0 && w[0] < 1e-300, "%g", w[0]);
	cr_expect_float_eq(w[1], 2.0, 1e-12, "%g", w[1]);
	pm_dataset_free(d);
}

/* Without --weights the rows keep their runs but no weights. */
Test(weights, aggregating_alone_weighs_nothing)
{
	pm_read_options o = weighted();
	pm_error err;
	pm_dataset *d;

	o.weights = PM_WEIGHTS_NONE;
	o.aggregate = PM_AGG_MEDIAN;
	d = read_text("n,time\n1,1\n1,2\n2,3\n", &o, &err);
	cr_assert_not_null(d, "%s", err.msg);
	cr_expect_null(pm_dataset_weights(d, NULL));
	cr_expect_not_null(pm_dataset_reps(d));
	pm_dataset_free(d);
}

Test(weights, set_checks_and_subset_keeps)
{
	const char *csv3 = "n,time\n1,1\n2,2\n3,3\n";
	pm_dataset *d = NULL, *s = NULL;
	double good[3] = { 1, 2, 3 }, bad[3] = { 1, -1, 3 }, inf[3] = { 1, INFINITY, 1 };
	size_t rows[2] = { 2, 0 };
	pm_weights kind;
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(csv3, strlen(csv3), "x", &d, NULL), PM_OK);
	cr_expect_eq(pm_dataset_set_weights(d, bad, &err), PM_EINVAL);
	cr_expect(strstr(err.msg, "weight 1"), "%s", err.msg);
	cr_expect_eq(pm_dataset_set_weights(d, inf, NULL), PM_EINVAL);
	cr_expect_null(pm_dataset_weights(d, NULL));
	cr_assert_eq(pm_dataset_set_weights(d, good, NULL), PM_OK);
	cr_assert_eq(pm_dataset_subset(d, rows, 2, &s, NULL), PM_OK);
	cr_assert_not_null(pm_dataset_weights(s, &kind));
	cr_expect_eq(kind, PM_WEIGHTS_GIVEN);
	cr_expect_eq(pm_dataset_weights(s, NULL)[0], 3);
	cr_expect_eq(pm_dataset_weights(s, NULL)[1], 1);
	cr_expect_eq(pm_dataset_set_weights(d, NULL, NULL), PM_OK);
	cr_expect_null(pm_dataset_weights(d, &kind));
	cr_expect_eq(kind, PM_WEIGHTS_NONE);
	pm_dataset_free(s);
	pm_dataset_free(d);
}

/* Whole-number weights w on raw units: the weighted cost is the plain
 * cost of the rows each repeated w times. (e = 1: e^q is 1.) */
Test(weights, weighted_cost_is_the_cost_of_repeated_rows)
{
	static const int wt[4] = { 1, 3, 2, 1 };
	static const char *const rows[4] = { "1,1,3\n", "2,1,1\n", "3,1,5\n", "4,1,8\n" };
	char one[64] = "x,e,time\n", rep[128] = "x,e,time\n";
	double w[4], x[4] = { 0.7, 1.1, 0.3, 0.2 };
	pm_fit_options o = pm_fit_options_default();

	o.scale = PM_SCALE_NONE;
	for (int r = 0; r < 4; r++) {
		strcat(one, rows[r]);
		for (int k = 0; k < wt[r]; k++)
			strcat(rep, rows[r]);
		w[r] = wt[r];
	}
	for (int loss = PM_LOSS_MAE; loss <= PM_LOSS_LOG; loss++) {
		struct fixture a, b;
		double ga[4], gb[4];

		o.loss = (pm_loss)loss;
		setup_csv(&a, o, strdup(one), "x", "", "e");
		setup_csv(&b, o, strdup(rep), "x", "", "e");
		cr_assert_eq(a.m->nparams, 4);
		pm__dataset_set_rows(a.d, NULL, NULL, w, PM_WEIGHTS_GIVEN, NULL, NULL);
		pm__problem_free(&a.p);
		pm__cost_free(&a.c);
		cr_assert_eq(pm__problem_build(a.d, a.s, o.scale, o.loss, &a.p, NULL), PM_OK);
		cr_assert_eq(pm__cost_init(&a.c, &a.p, a.m, &o, NULL), PM_OK);
		cr_expect_float_eq(pm__cost_value(x, &a.c, a.scratch),
				   pm__cost_value(x, &b.c, b.scratch), 1e-12, "loss %d", loss);
		cr_expect_float_eq(pm__cost_smooth(x, 1e-3, ga, &a.c, a.scratch),
				   pm__cost_smooth(x, 1e-3, gb, &b.c, b.scratch), 1e-12);
		for (int k = 0; k < 4; k++)
			cr_expect_float_eq(ga[k], gb[k], 1e-12, "loss %d, d/dx%d", loss, k);
		teardown(&a);
		teardown(&b);
	}
}

/* The weighted smoothed gradient against central differences. */
Test(weights, gradient_matches_finite_differences)
{
	pm_fit_options o = pm_fit_options_default();

	for (int loss = PM_LOSS_MAE; loss <= PM_LOSS_LOG; loss++) {
		struct fixture f;
		double x[32], g[32], gk[32], xp[32];

		o.loss = (pm_loss)loss;
		setup_csv(&f, o, syn_csv(60, 0.05, 21), "k,f,h", "act,opt", "threads,batch");
		f.p.w = malloc(f.p.nrows * sizeof(*f.p.w));
		cr_assert_not_null(f.p.w);
		for (size_t r = 0; r < f.p.nrows; r++)
			f.p.w[r] = 0.25 + (double)(r % 7) / 4.0;
		for (size_t k = 0; k < f.m->nparams; k++)
			x[k] = f.m->params[k].desc.kind == PM_PARAM_POWER ? 0.3 - 0.2 * (double)(k % 4)
									   : 0.1 + 0.05 * (double)k;
		pm__cost_smooth(x, 1e-3, g, &f.c, f.scratch);
		for (size_t k = 0; k < f.m->nparams; k++) {
			double h = 1e-6 * (1.0 + fabs(x[k])), fd;

			memcpy(xp, x, f.m->nparams * sizeof(*x));
			xp[k] = x[k] + h;
			fd = pm__cost_smooth(xp, 1e-3, gk, &f.c, f.scratch);
			xp[k] = x[k] - h;
			fd = (fd - pm__cost_smooth(xp, 1e-3, gk, &f.c, f.scratch)) / (2 * h);
			cr_expect(fabs(fd - g[k]) <= 1e-5 * (1.0 + fabs(fd)),
				  "loss %d, %s: analytic %.10g, finite difference %.10g", loss,
				  f.m->params[k].name, g[k], fd);
		}
		teardown(&f);
	}
}

static pm_model *fit(const pm_dataset *d, unsigned threads, pm_loss loss, const char *intr)
{
	pm_spec *s = NULL;
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error err = { 0 };

	if (intr) {
		cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
		cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
		cr_assert_eq(pm_names_add_list(&s->intrinsic, intr, NULL), PM_OK);
		s->infer_roles = 0;
	} else {
		s = syn_spec();
	}
	o.maxiter = 40;
	o.threads = threads;
	o.loss = loss;
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	pm_spec_free(s);
	return m;
}

static void expect_same_fit(const pm_model *a, const pm_model *b)
{
	cr_assert_eq(a->nparams, b->nparams);
	cr_expect_eq(memcmp(a->value, b->value, a->nparams * sizeof(double)), 0);
	cr_expect_eq(memcmp(&a->info.cost, &b->info.cost, sizeof(double)), 0,
		     "%.17g vs %.17g", a->info.cost, b->info.cost);
}

/* 700 rows (the polish splits them into row blocks) weighted base + (r mod
 * period)·step. */
static void weigh(pm_dataset *d, double base, unsigned period, double step)
{
	double w[700];

	cr_assert_eq(pm_dataset_nrows(d), 700);
	for (size_t r = 0; r < 700; r++)
		w[r] = base + (double)(r % period) * step;
	cr_assert_eq(pm_dataset_set_weights(d, w, NULL), PM_OK);
}

/* Equal weights (3, not 1: the fit scales them to 1) give the unweighted
 * fit bit for bit, also through the polish's row blocks. */
Test(weights, equal_weights_are_the_unweighted_fit)
{
	pm_dataset *d = syn_dataset(700, 0.05, 3);
	pm_model *plain = fit(d, 1, PM_LOSS_MAE, NULL), *same;

	weigh(d, 3.0, 1, 0.0);
	same = fit(d, 1, PM_LOSS_MAE, NULL);
	expect_same_fit(plain, same);
	cr_expect_eq(same->info.weights, PM_WEIGHTS_GIVEN);
	cr_expect_eq(plain->info.weights, PM_WEIGHTS_NONE);
	pm_model_free(plain);
	pm_model_free(same);
	pm_dataset_free(d);
}

Test(weights, one_or_two_threads_give_the_same_weighted_fit)
{
	pm_dataset *d = syn_dataset(700, 0.05, 4);
	pm_model *a, *b;

	weigh(d, 1.0, 5, 1.0);
	a = fit(d, 1, PM_LOSS_MSE, NULL);
	b = fit(d, 2, PM_LOSS_MSE, NULL);
	expect_same_fit(a, b);
	pm_model_free(a);
	pm_model_free(b);
	pm_dataset_free(d);
}

/* t = n, three runs within 1 % per configuration, except n = 8 whose runs
 * scatter around 3x the truth: with MSE the plain fit bends toward it, the
 * inverse-variance fit hardly notices it. */
Test(weights, down_weighting_a_noisy_configuration_moves_toward_the_clean_ones)
{
	char csv[2048] = "n,time\n";
	pm_read_options o = weighted();
	pm_dataset *dw, *du;
	pm_model *mw, *mu;
	pm_error err;
	double at8 = 8, pw, pu;

	for (int n = 1; n <= 8; n++) {
		static const double jitter[3] = { 0.99, 1.0, 1.01 }, wild[3] = { 1.0, 3.0, 5.0 };

		for (int k = 0; k < 3; k++)
			snprintf(csv + strlen(csv), sizeof(csv) - strlen(csv), "%d,%.17g\n", n,
				 n * (n == 8 ? wild[k] : jitter[k]));
	}
	dw = read_text(csv, &o, &err);
	cr_assert_not_null(dw, "%s", err.msg);
	o.weights = PM_WEIGHTS_NONE;
	o.aggregate = PM_AGG_MEDIAN;
	du = read_text(csv, &o, &err);
	cr_assert_not_null(du, "%s", err.msg);
	mw = fit(dw, 1, PM_LOSS_MSE, "n");
	mu = fit(du, 1, PM_LOSS_MSE, "n");
	cr_assert_eq(pm_model_predict(mw, &at8, &pw, NULL), PM_OK);
	cr_assert_eq(pm_model_predict(mu, &at8, &pu, NULL), PM_OK);
	cr_expect(fabs(pw - 8) < 0.2 * fabs(pu - 8), "weighted %g, plain %g at n = 8 (true 8)",
		  pw, pu);
	cr_expect_eq(mw->info.weights, PM_WEIGHTS_INVERSE_VARIANCE);
	pm_model_free(mw);
	pm_model_free(mu);
	pm_dataset_free(dw);
	pm_dataset_free(du);
}

/* The runs, cv and weights go into model.json and come back. */
Test(weights, model_json_keeps_runs_cv_and_weights)
{
	const char *csv = "n,time\n1,1\n1,1.1\n2,2\n2,2.3\n3,3.1\n4,4\n4,4.2\n5,5\n5,5.5\n";
	pm_read_options o = weighted();
	pm_error err;
	pm_dataset *d = read_text(csv, &o, &err);
	pm_model *m, *back = NULL;
	const unsigned *runs, *runs2;
	const double *cv, *cv2, *w, *w2;
	char *json = NULL;
	size_t n;

	cr_assert_not_null(d, "%s", err.msg);
	m = fit(d, 1, PM_LOSS_MAE, "n");
	cr_assert_eq(pm_model_to_json(m, &json, NULL), PM_OK);
	cr_expect(strstr(json, "\"weights\":"), "%s", json);
	cr_assert_eq(pm_model_load_string(json, "m.json", &back, &err), PM_OK, "%s", err.msg);
	n = pm_model_repetitions(m, &runs, &cv, &w);
	cr_assert_eq(n, 5);
	cr_assert_eq(pm_model_repetitions(back, &runs2, &cv2, &w2), 5);
	cr_expect_eq(pm_model_fit_info(back)->weights, PM_WEIGHTS_INVERSE_VARIANCE);
	cr_expect_eq(memcmp(runs, runs2, n * sizeof(*runs)), 0);
	cr_expect_eq(memcmp(w, w2, n * sizeof(*w)), 0);
	for (size_t r = 0; r < n; r++)
		cr_expect(isnan(cv[r]) ? isnan(cv2[r]) : cv[r] == cv2[r], "cv[%zu]", r);
	cr_expect_eq(runs2[2], 1);
	free(json);
	pm_model_free(back);
	pm_model_free(m);
	pm_dataset_free(d);
}

static const char plain_csv[] = "n,time\n1,1\n2,2.1\n3,2.9\n4,4.2\n";

/* A fit of plain rows writes neither member, and loads with none. */
Test(weights, plain_models_stay_as_they_were)
{
	pm_dataset *d = NULL;
	pm_model *m, *back = NULL;
	char *json = NULL;

	cr_assert_eq(pm_dataset_parse_csv(plain_csv, strlen(plain_csv), "p", &d, NULL),
		     PM_OK);
	m = fit(d, 1, PM_LOSS_MAE, "n");
	cr_assert_eq(pm_model_to_json(m, &json, NULL), PM_OK);
	cr_expect_null(strstr(json, "\"weights\""));
	cr_expect_null(strstr(json, "\"repetitions\""));
	cr_assert_eq(pm_model_load_string(json, "m.json", &back, NULL), PM_OK);
	cr_expect_eq(pm_model_repetitions(back, NULL, NULL, NULL), 0);
	cr_expect_eq(pm_model_fit_info(back)->weights, PM_WEIGHTS_NONE);
	free(json);
	pm_model_free(back);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* Each bad "repetitions" is an error naming the member. */
Test(weights, bad_repetitions_are_schema_errors)
{
	static const char *const bad[][2] = {
		{ "\"weights\": \"heavy\"", "weights" },
		{ "\"repetitions\": {\"runs\": [0, 1]}", "runs" },
		{ "\"repetitions\": {\"runs\": [1.5, 1]}", "runs" },
		{ "\"repetitions\": {\"cv\": [\"x\"]}", "cv" },
		{ "\"repetitions\": {\"runs\": [1, 2], \"weight\": [1]}", "weight" },
		{ "\"repetitions\": {\"weight\": [-1]}", "weight" },
		{ "\"repetitions\": []", "repetitions" },
		/* empty would leave the length unset: cv's 2 entries were then
		 * taken with runs' 0 */
		{ "\"repetitions\": {\"runs\": [], \"cv\": [0.1, 0.2]}", "'runs' is empty" },
	};
	pm_dataset *d = NULL;
	pm_model *m;
	char *json = NULL;

	cr_assert_eq(pm_dataset_parse_csv(plain_csv, strlen(plain_csv), "p", &d, NULL),
		     PM_OK);
	m = fit(d, 1, PM_LOSS_MAE, "n");
	cr_assert_eq(pm_model_to_json(m, &json, NULL), PM_OK);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *at = strstr(json, "\"fit\": {");
		size_t head;
		char *doc;
		pm_model *back = NULL;
		pm_error err = { 0 };

		cr_assert_not_null(at, "%s", json);
		head = (size_t)(at - json) + strlen("\"fit\": {");
		doc = malloc(strlen(json) + strlen(bad[i][0]) + 4);
		cr_assert_not_null(doc);
		sprintf(doc, "%.*s%s, %s", (int)head, json, bad[i][0], json + head);
		cr_expect_eq(pm_model_load_string(doc, "m.json", &back, &err), PM_ESCHEMA, "%s",
			     bad[i][0]);
		cr_expect(strstr(err.msg, bad[i][1]), "%s: %s", bad[i][0], err.msg);
		cr_expect_null(back);
		free(doc);
	}
	free(json);
	pm_model_free(m);
	pm_dataset_free(d);
}
