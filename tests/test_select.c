/* Cross-validation and choosing the model form (lib/select/select.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kfold.h"
#include "leak_check.h"
#include "select/yardstick.h"
#include "spec/configs.h"
#include "spec/spec_impl.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(select);

static pm_fit_options quick(void)
{
	pm_fit_options o = pm_fit_options_default();

	o.maxiter = 40;
	return o;
}

static int same_cv(const pm_cv_result *a, const pm_cv_result *b)
{
	return a->folds == b->folds && a->nparams == b->nparams &&
	       memcmp(&a->mape, &b->mape, sizeof(double)) == 0 &&
	       memcmp(&a->mape_std, &b->mape_std, sizeof(double)) == 0 &&
	       memcmp(&a->r2, &b->r2, sizeof(double)) == 0;
}

/* The same seed deals the same folds, whatever the thread count; another
 * seed deals others. */
Test(select, folds_repeat)
{
	pm_dataset *d = syn_dataset(90, 0.1, 41);
	pm_spec *s = syn_spec();
	pm_fit_options o = quick();
	pm_cv_result a, b, c;
	pm_error err = { 0 };

	o.threads = 1;
	cr_assert_eq(pm_cross_validate(d, s, &o, KFOLD(3, 7), &a, &err), PM_OK, "%s", err.msg);
	o.threads = 2;
	cr_assert_eq(pm_cross_validate(d, s, &o, KFOLD(3, 7), &b, &err), PM_OK, "%s", err.msg);
	cr_expect(same_cv(&a, &b), "%.17g %.17g", a.mape, b.mape);
	cr_assert_eq(pm_cross_validate(d, s, &o, KFOLD(3, 8), &c, &err), PM_OK, "%s", err.msg);
	cr_expect(!same_cv(&a, &c), "another fold seed gave the same result");
	cr_expect_eq(a.folds, 3);
	cr_expect_eq(a.nparams, 3 * 2 + 3 + 2 + 2 + 1);
	cr_expect_gt(a.mape_std, 0);
	cr_expect_gt(a.fit_time_s, 0);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* The candidates' fold fits run side by side (pm__cross_validate_set): each
 * candidate's result is the one it gets validated alone, on the same
 * folds, and the choice and its model keep their bits on 1 and 3 threads. */
Test(select, candidates_validated_together_as_alone)
{
	pm_dataset *d = syn_dataset(90, 0.1, 41);
	pm_spec *s = syn_spec(), *fs = NULL;
	pm_fit_options o = quick();
	pm_candidate c[] = { { .form = "additive", .loss = PM_LOSS_LOG },
			     { .form = "multiplicative", .loss = PM_LOSS_LOG },
			     { .form = "additive", .loss = PM_LOSS_MAE } };
	pm_cv_result cv1[3], cv3[3], alone;
	pm_model *m1 = NULL, *m3 = NULL;
	size_t best1 = 9, best3 = 8;
	pm_error err = { 0 };

	o.intervals = 0;
	o.threads = 1;
	cr_assert_eq(pm_select(d, s, &o, c, 3, KFOLD(3, 5), cv1, &best1, &m1, &err), PM_OK, "%s",
		     err.msg);
	o.threads = 3;
	cr_assert_eq(pm_select(d, s, &o, c, 3, KFOLD(3, 5), cv3, &best3, &m3, &err), PM_OK, "%s",
		     err.msg);
	cr_expect_eq(best1, best3);
	for (size_t i = 0; i < 3; i++) {
		pm_fit_options co = o;

		cr_expect(same_cv(&cv1[i], &cv3[i]), "candidate %zu: %.17g on 1 thread, %.17g on 3",
			  i, cv1[i].mape, cv3[i].mape);
		cr_assert_eq(pm__spec_copy(s, &fs, &err), PM_OK, "%s", err.msg);
		cr_assert_eq(pm_spec_set_form(fs, c[i].form, &err), PM_OK, "%s", err.msg);
		co.loss = c[i].loss;
		cr_assert_eq(pm_cross_validate(d, fs, &co, KFOLD(3, 5), &alone, &err), PM_OK, "%s",
			     err.msg);
		cr_expect(same_cv(&cv1[i], &alone), "candidate %zu: %.17g together, %.17g alone", i,
			  cv1[i].mape, alone.mape);
		pm_spec_free(fs);
	}
	cr_expect(!same_cv(&cv1[0], &cv1[2]), "the losses gave the same result");
	/* 10 folds: in two windows of 8 and 2 on 1 thread, in one on 8 */
	o.threads = 1;
	cr_assert_eq(pm_cross_validate(d, s, &o, KFOLD(10, 5), &cv1[0], &err), PM_OK, "%s",
		     err.msg);
	o.threads = 8;
	cr_assert_eq(pm_cross_validate(d, s, &o, KFOLD(10, 5), &cv3[0], &err), PM_OK, "%s",
		     err.msg);
	cr_expect(same_cv(&cv1[0], &cv3[0]), "10 folds: %.17g on 1 thread, %.17g on 8",
		  cv1[0].mape, cv3[0].mape);
	cr_expect_eq(cv1[0].folds, 10);
	for (size_t k = 0; k < pm_model_nparams(m1); k++) {
		double a = pm_model_param_value(m1, k), b = pm_model_param_value(m3, k);

		cr_expect_eq(memcmp(&a, &b, sizeof(double)), 0, "parameter %zu: %.17g, %.17g", k, a,
			     b);
	}
	pm_model_free(m1);
	pm_model_free(m3);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* Noiseless data from the model itself: every held-out row is predicted
 * (almost) exactly. */
Test(select, cv_of_the_true_form_is_near_zero)
{
	pm_dataset *d = syn_dataset(200, 0, 42);
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_cv_result cv;
	pm_error err = { 0 };

	cr_assert_eq(pm_cross_validate(d, s, &o, KFOLD(4, 1), &cv, &err), PM_OK, "%s", err.msg);
	cr_expect_lt(cv.mape, 1.0, "held-out MAPE %g %%", cv.mape);
	cr_expect_gt(cv.r2, 0.99, "held-out R^2 %g", cv.r2);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* The held-out rows are the fold's: MAPE per fold from the scheme's folds
 * agrees with a fit on the other rows, measured by pm_model_evaluate. */
Test(select, cross_validation_matches_fits_by_hand)
{
	pm_dataset *d = syn_dataset(60, 0.1, 43);
	pm_spec *s = syn_spec();
	pm_fit_options o = quick();
	pm_folds folds;
	const unsigned *fold;
	size_t train[60], test[60];
	double sum = 0.0;
	pm_cv_result cv;

	cr_assert_eq(pm_validation_folds(d, s, KFOLD(3, 5), &folds, NULL), PM_OK);
	cr_assert_eq(folds.nfolds, 3);
	fold = folds.fold;
	for (unsigned f = 0; f < 3; f++) {
		size_t ntrain = 0, ntest = 0;
		pm_dataset *tr = NULL, *te = NULL;
		pm_model *m = NULL;
		pm_metrics held;

		for (size_t r = 0; r < 60; r++) {
			if (fold[r] == f)
				test[ntest++] = r;
			else
				train[ntrain++] = r;
		}
		cr_assert_eq(pm_dataset_subset(d, train, ntrain, &tr, NULL), PM_OK);
		cr_assert_eq(pm_dataset_subset(d, test, ntest, &te, NULL), PM_OK);
		cr_assert_eq(pm_fit(tr, s, &o, &m, NULL), PM_OK);
		cr_assert_eq(pm_model_evaluate(m, te, &held, NULL), PM_OK);
		sum += held.mape;
		pm_model_free(m);
		pm_dataset_free(tr);
		pm_dataset_free(te);
	}
	cr_assert_eq(pm_cross_validate(d, s, &o, KFOLD(3, 5), &cv, NULL), PM_OK);
	cr_expect_eq(memcmp(&(double){ sum / 3 }, &cv.mape, sizeof(double)), 0, "%.17g %.17g",
		     sum / 3, cv.mape);
	pm_folds_free(&folds);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(select, errors)
{
	pm_dataset *d = syn_dataset(30, 0.1, 44);
	pm_spec *s = syn_spec();
	pm_fit_options o = quick();
	const pm_candidate bad[] = {
		{ .form = "additive", .loss = PM_LOSS_MAE },
		{ .form = "nonsense", .loss = PM_LOSS_MAE }
	};
	pm_cv_result cv[2];
	pm_model *m = (pm_model *)&cv;	/* must come back NULL */
	size_t best = 9;
	pm_error err = { 0 };

	cr_expect_eq(pm_cross_validate(d, s, &o, KFOLD(1, 1), cv, &err), PM_EINVAL);
	cr_expect_eq(pm_cross_validate(d, s, &o, NULL, cv, &err), PM_EINVAL, "no scheme, no test");
	/* a bad candidate fails at once, before the first (long) fit */
	cr_expect_neq(pm_select(d, s, &o, bad, 2, KFOLD(3, 1), cv, &best, &m, &err), PM_OK);
	cr_expect(strstr(err.msg, "nonsense"), "%s", err.msg);
	cr_expect_null(m);
	cr_expect_eq(pm_select(d, s, &o, bad, 0, KFOLD(3, 1), cv, &best, &m, &err), PM_EINVAL);
	/* 30 rows, 3 folds: 20 training rows for 14 unknowns; 2 folds: 15 */
	o.maxiter = 2;
	cr_expect_eq(pm_select(d, s, &o, bad, 1, KFOLD(2, 1), cv, &best, &m, &err), PM_OK, "%s",
		     err.msg);
	pm_model_free(m);
	/* no such column: named before any fold is fitted (the folds are
	 * dealt once by the roles every candidate shares) */
	cr_assert_eq(pm_names_add_list(&s->intrinsic, "nope", NULL), PM_OK);
	cr_expect_eq(pm_select(d, s, &o, bad, 1, KFOLD(2, 1), cv, &best, &m, &err), PM_ESCHEMA);
	cr_expect(strstr(err.msg, "no column 'nope'"), "%s", err.msg);
	cr_expect_null(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* Rows held out of the final fit (test_fraction) are held out of the
 * choice too: the folds split the training rows alone, and the model
 * reports its accuracy on the held-out ones. */
Test(select, held_out_rows_stay_out_of_the_choice)
{
	pm_dataset *d = syn_dataset(90, 0.1, 45), *train = NULL;
	pm_spec *s = syn_spec();
	pm_fit_options o = quick();
	pm_candidate c = { .form = "additive", .loss = PM_LOSS_LOG };
	size_t *tr = NULL, *te = NULL, ntr, nte, best;
	pm_cv_result by_select, by_hand;
	pm_model *m = NULL;

	o.test_fraction = 1.0 / 3;
	o.split_seed = 4;
	cr_assert_eq(pm_select(d, s, &o, &c, 1, KFOLD(3, 2), &by_select, &best, &m, NULL), PM_OK);
	cr_expect_eq(pm_model_fit_info(m)->test.n, 30);
	cr_assert_eq(pm_split_rows(90, o.test_fraction, 4, &tr, &ntr, &te, &nte, NULL), PM_OK);
	cr_assert_eq(pm_dataset_subset(d, tr, ntr, &train, NULL), PM_OK);
	o.test_fraction = 0;
	o.loss = PM_LOSS_LOG;
	cr_assert_eq(pm_cross_validate(train, s, &o, KFOLD(3, 2), &by_hand, NULL), PM_OK);
	cr_expect(same_cv(&by_select, &by_hand), "%.17g %.17g", by_select.mape, by_hand.mape);
	free(tr);
	free(te);
	pm_model_free(m);
	pm_dataset_free(train);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* syn_csv's columns with a time from a power law: the multiplicative form
 * (docs/maths.md), 2 % multiplicative noise. */
static pm_dataset *power_law_dataset(size_t n, uint64_t seed)
{
	static const double act_mult[] = { 1.0, 1.7, 1.3 }, opt_mult[] = { 1.0, 0.6 };
	size_t cap = 128 + n * 128, len = 0;
	char *csv = malloc(cap);
	pm_pcg32 r;

	pm__pcg32_seed(&r, seed, 3);
	len += (size_t)snprintf(csv, cap, "k,f,h,act,opt,threads,batch,time\n");
	for (size_t i = 0; i < n; i++) {
		double k = 1 + pm__pcg32_below(&r, 5), f = 4 << pm__pcg32_below(&r, 5);
		double h = 64 << pm__pcg32_below(&r, 5), th = 1 << pm__pcg32_below(&r, 4);
		double b = 8 << pm__pcg32_below(&r, 5);
		unsigned act = pm__pcg32_below(&r, 3), opt = pm__pcg32_below(&r, 2);
		double t = 0.002 * pow(k, 1.2) * pow(f, 0.6) * pow(h, 0.3) * act_mult[act] *
			   opt_mult[opt] * pow(th, -0.8) * pow(b, 0.9);

		t *= 1.0 + 0.02 * (2.0 * pm__pcg32_uniform(&r) - 1.0);
		len += (size_t)snprintf(csv + len, cap - len, "%g,%g,%g,%s,%s,%g,%g,%.17g\n", k, f,
					h, syn_act[act], syn_opt[opt], th, b, t);
	}
	{
		pm_dataset *d = NULL;

		cr_assert_eq(pm_dataset_parse_csv(csv, len, "power.csv", &d, NULL), PM_OK);
		free(csv);
		return d;
	}
}

/* Each kind of data is best predicted by the form it came from. */
Test(select, picks_the_true_form, .timeout = 120)
{
	pm_dataset *sum = syn_dataset(150, 0.02, 46), *product = power_law_dataset(150, 47);
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_candidate c[] = {
		{ .form = "additive", .loss = PM_LOSS_LOG },
		{ .form = "multiplicative", .loss = PM_LOSS_LOG }
	};
	pm_cv_result cv[2];
	pm_model *m = NULL;
	size_t best = 9;
	pm_error err = { 0 };

	cr_assert_eq(pm_select(sum, s, &o, c, 2, KFOLD(3, 1), cv, &best, &m, &err), PM_OK, "%s",
		     err.msg);
	cr_expect_eq(best, 0, "additive data: MAPE additive %g %%, multiplicative %g %%",
		     cv[0].mape, cv[1].mape);
	pm_model_free(m);
	cr_assert_eq(pm_select(product, s, &o, c, 2, KFOLD(3, 1), cv, &best, &m, &err), PM_OK, "%s",
		     err.msg);
	cr_expect_eq(best, 1, "power-law data: MAPE additive %g %%, multiplicative %g %%",
		     cv[0].mape, cv[1].mape);
	cr_expect_lt(cv[1].mape, 2.0, "multiplicative on its own data: %g %%", cv[1].mape);
	cr_expect_eq(cv[1].nparams, 1 + 3 + 2 + 1 + 2 + 1, "%zu", cv[1].nparams);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(sum);
	pm_dataset_free(product);
}

/* ---- issue 20: the choice rule, the constant candidates, the table ---------- */

/* The lowest mean held-out MAPE wins; of equal ones, a candidate never
 * constant beats a constant one wherever it is listed, then the first
 * listed; NaN loses to any number. */
Test(select, the_choice_rule)
{
	pm_cv_result cv[4] = { { .mape = 5.0, .constant_folds = 3 },
			       { .mape = 5.0 },
			       { .mape = 5.0, .constant_folds = 1 },
			       { .mape = NAN } };

	cr_expect_eq(pm_select_best(cv, 4), 1, "a tie: the candidate never constant");
	cr_expect_eq(pm_select_best(cv, 1), 0);
	cr_expect_eq(pm_select_best(cv, 0), 0);
	cr_expect_eq(pm_select_best(NULL, 3), 0);
	cv[0].mape = 4.999;
	cr_expect_eq(pm_select_best(cv, 4), 0, "a constant fit strictly better wins");
	cv[0].mape = 5.0;
	cv[1].constant_folds = 2;
	cr_expect_eq(pm_select_best(cv, 4), 0, "all constant: the first listed");
	cv[0].mape = NAN;
	cr_expect_eq(pm_select_best(cv, 4), 1, "NaN loses to a number");
	cv[3].mape = 1.0;
	cr_expect_eq(pm_select_best(cv, 4), 3);
}

/* Every held-out metric gets a mean and a std over the folds, mape, mape_std
 * and r2 being three of them; a constant candidate's folds are counted. */
Test(select, cross_validation_gives_every_metric_and_the_constant_folds)
{
	pm_dataset *d = scaling_dataset(32, 0), *flat = scaling_dataset(32, 1);
	pm_spec *s = scaling_spec("threads,nodes");
	pm_fit_options o = quick();
	pm_cv_result cv;
	pm_error err = { 0 };

	cr_assert_eq(pm_cross_validate(d, s, &o, KFOLD(3, 1), &cv, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(memcmp(&cv.mape, &cv.mean.mape, sizeof(double)), 0);
	cr_expect_eq(memcmp(&cv.mape_std, &cv.std.mape, sizeof(double)), 0);
	cr_expect_eq(memcmp(&cv.r2, &cv.mean.r2, sizeof(double)), 0);
	cr_expect_eq(cv.mean.n, 18, "every row held out once");
	cr_expect(cv.mean.mae > 0 && cv.mean.rmse >= cv.mean.mae && cv.std.mse >= 0 &&
		  cv.mean.smape > 0, "mae %g rmse %g", cv.mean.mae, cv.mean.rmse);
	cr_expect(isnan(cv.mean.adj_r2) && isnan(cv.std.adj_r2));
	cr_expect_eq(cv.constant_folds, 0, "a0 makes the scaling columns count");
	cr_expect_gt(cv.mean.r2, 0.99);
	cr_assert_eq(pm_cross_validate(flat, s, &o, KFOLD(3, 1), &cv, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(cv.constant_folds, 3);
	pm_spec_free(s);
	pm_dataset_free(flat);
	pm_dataset_free(d);
}

/* select --json's document: the fit's, then the whole table. */
Test(select, the_selection_document)
{
	pm_dataset *d = scaling_dataset(32, 0);
	pm_spec *s = scaling_spec("threads,nodes");
	pm_fit_options o = quick();
	const pm_candidate c[] = {
		{ .form = "additive", .loss = PM_LOSS_MAE },
		{ .form = "multiplicative", .loss = PM_LOSS_LOG }
	};
	pm_cv_result cv[2];
	pm_selection sel = { 2, c, cv, 0, KFOLD(3, 7), NULL };
	pm_scaling_report *r = NULL;
	pm_model *m = NULL;
	char *json = (char *)&sel;
	pm_error err = { 0 };

	cr_assert_eq(pm_select(d, s, &o, c, 2, sel.validation, cv, &sel.best, &m, &err), PM_OK, "%s",
		     err.msg);
	cr_assert_eq(pm_scaling_report_new(m, d, &r, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_select_report_to_json(m, r, &sel, &json, &err), PM_OK, "%s", err.msg);
	cr_expect_not_null(strstr(json, "\"scaling\": ["));
	cr_expect_not_null(strstr(json, "\"selection\": {"));
	cr_expect_not_null(strstr(json, "\"fold_seed\": 7"));
	cr_expect_not_null(strstr(json, "\"validation\": \"kfold:3\""));
	cr_expect_not_null(strstr(json, "\"description\": \"3-fold cross-validation\""));
	cr_expect_not_null(strstr(json, "\"form\": \"multiplicative\""));
	cr_expect_not_null(strstr(json, "\"constant_folds\": 0"));
	cr_expect_not_null(strstr(json, "\"rows\": 18"));
	cr_expect_not_null(strstr(json, sel.best ? "\"chosen\": 1" : "\"chosen\": 0"));
	cr_expect_not_null(strstr(json, "\"std\": {\"mape\": "), "%s", json);
	free(json);
	sel.best = 2;
	json = (char *)&sel;
	cr_expect_eq(pm_select_report_to_json(m, r, &sel, &json, &err), PM_EINVAL);
	cr_expect_null(json);
	sel.best = 0;
	sel.n = 0;
	cr_expect_eq(pm_select_report_to_json(m, r, &sel, &json, &err), PM_EINVAL);
	cr_expect_eq(pm_select_report_to_json(m, r, NULL, &json, &err), PM_EINVAL);
	pm_scaling_report_free(r);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* A count 0 at n = 1, fitted under mae: leave-one-out's fold of that row has
 * no MAPE (its held-out value is 0), and the mean is the seven others'; a
 * sweep over the same folds likewise. */
Test(select, a_fold_of_zeros_has_no_mape)
{
	static const char text[] = "n,calls\n1,0\n2,4\n3,9\n4,16\n5,25\n6,36\n7,49\n8,64\n";
	const pm_validation loo = { .scheme = PM_SCHEME_LOO };
	pm_sweep_options so = { 1e-4, 1e-4, 1, loo };
	pm_fit_options o = quick();
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_sweep *sw = NULL;
	pm_cv_result cv;
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(text, strlen(text), "calls.csv", &d, &err), PM_OK);
	cr_assert_eq(pm_spec_new(&s, &err), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "calls", &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->intrinsic, "n", &err), PM_OK);
	o.threads = 1;
	o.intervals = 0;
	cr_assert_eq(pm_cross_validate(d, s, &o, &loo, &cv, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(cv.folds, 8);
	cr_expect_eq(cv.mean.n, 8);
	cr_expect(isfinite(cv.mape) && cv.mape >= 0 && cv.mape < 1, "%g", cv.mape);
	cr_expect(isfinite(cv.mape_std), "%g", cv.mape_std);
	cr_expect(isfinite(cv.mean.mae) && cv.mean.mae > 0, "the fold of 0 counts in MAE");
	o.reg = PM_REG_L2;
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(sw->npoints, 1);
	cr_expect(isfinite(sw->point[0].test.mape) && sw->point[0].test.mape < 1, "%g",
		  sw->point[0].test.mape);
	cr_expect(isfinite(sw->point[0].mape_std));
	/* under mape the 0 is refused, naming the loss */
	o.loss = PM_LOSS_MAPE;
	o.reg = PM_REG_NONE;
	cr_expect_eq(pm_cross_validate(d, s, &o, &loo, &cv, &err), PM_EDOMAIN);
	cr_expect(strstr(err.msg, "target 'calls': 0 is not a time > 0 (loss mape") != NULL,
		  "%s", err.msg);
	pm_sweep_free(sw);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* ---- issue 33: the default choice, the noise floor, the yardstick ----------- */

/* The first listed within one standard error of the lowest (or of the
 * noise floor when it is higher) is chosen; a constant one only when the
 * lowest is constant too; NaN (left out) never. */
Test(select, the_first_within_one_standard_error)
{
	/* se of the lowest (index 2): 2 / sqrt(4) = 1 */
	pm_cv_result cv[3] = { { .mape = 12.5, .mape_std = 1.0, .folds = 4 },
			       { .mape = 11.5, .mape_std = 1.0, .folds = 4 },
			       { .mape = 10.8, .mape_std = 2.0, .folds = 4 } };

	cr_expect_eq(pm_select_best(cv, 3), 2);
	cr_expect_eq(pm_select_choose(cv, 3, NAN), 1, "11.5 <= 10.8 + 1; 12.5 is not");
	cr_expect_eq(pm_select_choose(cv, 3, 12.0), 0, "below a floor of 12, 12.5 <= 12 + 1");
	cr_expect_eq(pm_select_choose(cv, 3, 5.0), 1, "a floor below the lowest changes nothing");
	cv[1].constant_folds = 1;
	cr_expect_eq(pm_select_choose(cv, 3, NAN), 2, "constant in some folds: not preferred");
	/* constant in every fold, within the bar: chosen before any, the one
	 * of the fewest unknowns (C rather than eq. 4.4 with every a at 0) */
	cv[1].constant_folds = 4;
	cr_expect_eq(pm_select_choose(cv, 3, NAN), 1, "no input's effect shows");
	cv[0].constant_folds = cv[2].constant_folds = 4;
	cv[0].nparams = 9, cv[1].nparams = 1, cv[2].nparams = 5;
	cr_expect_eq(pm_select_choose(cv, 3, NAN), 1, "C of 1 unknown");
	cr_expect_eq(pm_select_choose(cv, 3, 12.0), 1);
	cv[1].mape = 13;
	cr_expect_eq(pm_select_choose(cv, 3, NAN), 2, "C outside the bar: the lowest");
	cv[1].mape = 11.5;
	cv[0].constant_folds = cv[2].constant_folds = 0;
	cr_expect_eq(pm_select_choose(cv, 3, 12.0), 1, "within the floor, the constant");
	cv[1].constant_folds = 0;
	cv[0].mape = NAN;
	cr_expect_eq(pm_select_choose(cv, 3, 100.0), 1, "a candidate left out is never chosen");
	cv[2].folds = 1;	/* one fold: no standard error */
	cr_expect_eq(pm_select_choose(cv, 3, NAN), 2);
	cr_expect_eq(pm_select_choose(cv, 0, NAN), 0);
	cr_expect_eq(pm_select_choose(NULL, 2, NAN), 0);
}

/* t = 3 n^1.5 / threads with 5 runs of each of 12 configurations, each run
 * off by a known factor: the noise floor is the runs' spread, the folds hold
 * out whole configurations, a log-linear yardstick fits the law exactly, and
 * a candidate with more unknowns than a fold's rows is left out with a note,
 * not a failure. */
static pm_dataset *repeated_runs(int runs)
{
	static const double off[5] = { 1.0, 1.1, 0.9, 1.2, 0.8 };
	char *csv = malloc(64 * 12 * 5 + 64), *p = csv;
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	p += sprintf(p, "n,threads,time\n");
	for (int n = 1; n <= 6; n++)
		for (int t = 1; t <= 2; t++)
			for (int k = 0; k < runs; k++)
				p += sprintf(p, "%d,%d,%.17g\n", n * 16, t,
					     3.0 * pow(n * 16.0, 1.5) / t * off[k]);
	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "runs.csv", &d, &err), PM_OK, "%s",
		     err.msg);
	free(csv);
	return d;
}

static pm_spec *runs_spec(void)
{
	pm_spec *s = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_parse("{\"target\": \"time\", \"intrinsic\": [\"n\"], "
				   "\"extrinsic\": [\"threads\"]}", "spec", &s, &err), PM_OK);
	return s;
}

Test(select, noise_floor_and_configuration_folds)
{
	pm_dataset *d = repeated_runs(5);
	pm_spec *s = runs_spec();
	pm_folds f = { 0 };
	size_t id[60], nc;
	double floor_pct, want = 0.0, yard;
	pm_error err = { 0 };

	cr_assert_eq(pm__config_ids(d, s, id, &nc, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(nc, 12);
	for (size_t r = 0; r < 60; r++)
		cr_expect_eq(id[r], r / 5, "row %zu", r);
	/* each run's distance from its configuration's median log time (the
	 * run of factor 1.0), scaled by sqrt(5/4) for that median's own spread
	 * over 5 runs */
	{
		static const double off[5] = { 1.0, 1.1, 0.9, 1.2, 0.8 };

		for (int k = 0; k < 5; k++)
			want += fabs(log(off[k])) * sqrt(5.0 / 4.0) / 5.0;
	}
	cr_assert_eq(pm__noise_floor(d, s, &floor_pct, &err), PM_OK, "%s", err.msg);
	cr_expect_float_eq(floor_pct, 100.0 * want, 1e-9, "%g against %g", floor_pct, 100 * want);
	/* the folds never split a configuration */
	cr_assert_eq(pm_validation_folds(d, s, KFOLD(4, 3), &f, &err), PM_OK, "%s", err.msg);
	for (size_t r = 0; r < 60; r++)
		cr_expect_eq(f.fold[r], f.fold[r - r % 5], "row %zu", r);
	cr_expect(strstr(f.what, "of 12 configurations (60 rows"), "%s", f.what);
	/* the law is log-linear: its held-out error is the noise's alone */
	cr_assert_eq(pm__yardstick(d, s, f.fold, f.nfolds, &yard, NULL, &err), PM_OK, "%s", err.msg);
	cr_expect(yard < 15.0 && yard > 5.0, "%g", yard);
	pm_folds_free(&f);
	pm_dataset_free(d);
	/* runs of one each: no floor, and folds of rows as before */
	d = repeated_runs(1);
	cr_assert_eq(pm__noise_floor(d, s, &floor_pct, &err), PM_OK, "%s", err.msg);
	cr_expect(isnan(floor_pct));
	cr_assert_eq(pm__yardstick(d, s, (unsigned[12]){ 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3 }, 4,
				   &yard, NULL, &err), PM_OK, "%s", err.msg);
	cr_expect(yard < 1e-6, "an exact power law: %g", yard);
	pm_dataset_free(d);
	/* one configuration run twice among twelve: one noisy pair sets no
	 * floor for every candidate */
	{
		static const char one_pair[] = "n,threads,time\n16,1,1\n16,1,2\n32,1,3\n48,1,4\n"
					       "64,1,5\n80,1,6\n96,1,7\n16,2,8\n32,2,9\n48,2,10\n"
					       "64,2,11\n80,2,12\n96,2,13\n";

		cr_assert_eq(pm_dataset_parse_csv(one_pair, strlen(one_pair), "pair.csv", &d, &err),
			     PM_OK, "%s", err.msg);
		cr_assert_eq(pm__noise_floor(d, s, &floor_pct, &err), PM_OK, "%s", err.msg);
		cr_expect(isnan(floor_pct), "%g", floor_pct);
		pm_dataset_free(d);
	}
	pm_spec_free(s);
}

Test(select, a_candidate_that_cannot_be_measured_is_left_out)
{
	pm_dataset *d = repeated_runs(1);
	pm_spec *s = runs_spec();
	pm_fit_options o = quick();
	/* 12 rows, 3 folds: 8 training rows; the formula has 9 unknowns */
	const pm_candidate cand[] = {
		{ .form = "a * n^p + b1 * n^1 + b2 * n^2 + b3 * n^3 + b4 * threads^1 + "
			  "b5 * threads^2 + b6 * n^0.5 + C",
		  .loss = PM_LOSS_MAE },
		{ .form = "additive", .loss = PM_LOSS_MAE } };
	pm_cv_result cv[2];
	pm_model *m = NULL;
	size_t best = 9;
	const pm_choice *ch;
	pm_error err = { 0 };

	o.intervals = 0;
	cr_assert_eq(pm_select(d, s, &o, cand, 2, KFOLD(3, 1), cv, &best, &m, &err), PM_OK, "%s",
		     err.msg);
	cr_expect_eq(best, 1);
	cr_expect(isnan(cv[0].mape) && strstr(cv[0].note, "unknowns"), "%s", cv[0].note);
	ch = &pm_model_fit_info(m)->choice;
	cr_expect_eq(ch->n, 2);
	cr_expect_eq(ch->chosen, 1);
	cr_expect_str_eq(ch->cand[0].form, "formula 1");
	cr_expect_str_eq(ch->cand[1].form, "additive");
	cr_expect(isnan(ch->cand[0].mape) && ch->cand[0].note[0]);
	cr_expect(!isnan(ch->yardstick), "the yardstick on the same folds");
	/* the model's test column is the chosen candidate's held-out accuracy */
	cr_expect_eq(memcmp(&pm_model_fit_info(m)->test.mape, &cv[1].mape, sizeof(double)), 0);
	pm_model_free(m);
	/* when none can be measured, the first that fits every row, said so */
	m = NULL;
	cr_assert_eq(pm_select(d, s, &o, cand, 1, KFOLD(3, 1), cv, &best, &m, &err), PM_OK, "%s",
		     err.msg);
	cr_expect_eq(best, 0);
	cr_expect(strstr(pm_model_fit_info(m)->choice.why, "no candidate could be validated"));
	{
		int said = 0;

		for (size_t k = 0; k < pm_model_nwarnings(m); k++)
			said |= strstr(pm_model_warning(m, k), "no candidate could be validated") &&
				strstr(pm_model_warning(m, k), "unknowns");
		cr_expect(said, "the warning says why");
	}
	cr_expect_eq(pm_model_fit_info(m)->test.n, 0, "nothing was held out");
	pm_model_free(m);
	/* and when none fits every row either, the first validation's error */
	o.test_fraction = 0.5;	/* 6 rows left for 9 unknowns */
	m = NULL;
	cr_expect_neq(pm_select(d, s, &o, cand, 1, KFOLD(3, 1), cv, &best, &m, &err), PM_OK);
	cr_expect(strstr(err.msg, "unknowns"), "%s", err.msg);
	cr_expect_null(m);
	pm_dataset_free(d);
	pm_spec_free(s);
}
