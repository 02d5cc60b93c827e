#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "leak_check.h"
#include "model/model_impl.h"
#include "spec/spec_impl.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(fit);

static double param(const pm_model *m, const char *name)
{
	for (size_t k = 0; k < pm_model_nparams(m); k++)
		if (strcmp(pm_model_param_name(m, k), name) == 0)
			return pm_model_param_value(m, k);
	cr_assert_fail("no parameter %s", name);
	return NAN;
}

Test(fit, recovers_noiseless_parameters)
{
	pm_dataset *d = syn_dataset(300, 0, 11);
	pm_model *m = syn_fit_with(d, pm_fit_options_default(), 1);
	const pm_fit_info *fi = pm_model_fit_info(m);

	cr_expect_lt(fabs(param(m, "q_threads") - SYN_Q_THREADS), 0.01, "q_threads %g",
		     param(m, "q_threads"));
	cr_expect_lt(fabs(param(m, "q_batch") - SYN_Q_BATCH), 0.01, "q_batch %g",
		     param(m, "q_batch"));
	cr_expect_lt(fi->training.mape, 0.5, "MAPE %g %%", fi->training.mape);
	cr_expect_eq(fi->training.n, 300);
	cr_expect_eq(pm_model_nparams(m), 3 * 2 + 3 + 2 + 2 + 1);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(fit, recovers_scaling_under_noise)
{
	pm_dataset *d = syn_dataset(300, 0.05, 12);
	pm_model *m = syn_fit_with(d, pm_fit_options_default(), 1);

	cr_expect_lt(fabs(param(m, "q_threads") - SYN_Q_THREADS), 0.05, "q_threads %g",
		     param(m, "q_threads"));
	cr_expect_lt(fabs(param(m, "q_batch") - SYN_Q_BATCH), 0.05, "q_batch %g",
		     param(m, "q_batch"));
	pm_model_free(m);
	pm_dataset_free(d);
}

/* The contract of DESIGN.md §3: the thread count never changes a result. */
static void same_result_for_any_thread_count(pm_engine engine)
{
	pm_dataset *d = syn_dataset(200, 0.05, 13);
	pm_fit_options o = pm_fit_options_engine(engine);
	pm_model *m1, *m4;
	char *j1 = NULL, *j4 = NULL;
	pm_error err = { 0 };

	o.maxiter = 60;
	o.threads = 1;
	m1 = syn_fit_with(d, o, 1);
	o.threads = 4;
	m4 = syn_fit_with(d, o, 1);
	/* DE: 210 members x 200 rows a generation; varpro: 40 members, each
	 * its passes over the rows: enough for 4 threads' shares either way */
	cr_expect_eq(m4->info.threads_used, 4);
	cr_expect_eq(m1->info.options.engine, engine);
	cr_assert_eq(m1->nparams, m4->nparams);
	cr_expect_eq(memcmp(m1->value, m4->value, m1->nparams * sizeof(double)), 0);
	cr_expect_eq(m1->info.generations, m4->info.generations);
	cr_expect_eq(m1->info.evaluations, m4->info.evaluations);
	cr_expect_eq(memcmp(&m1->info.cost, &m4->info.cost, sizeof(double)), 0);
	/* model.json apart from the "run" object (threads, wall time) */
	cr_assert_eq(pm_model_to_json(m1, &j1, &err), PM_OK);
	cr_assert_eq(pm_model_to_json(m4, &j4, &err), PM_OK);
	*strstr(j1, "\"run\"") = '\0';
	*strstr(j4, "\"run\"") = '\0';
	cr_expect_str_eq(j1, j4);
	free(j1);
	free(j4);
	pm_model_free(m1);
	pm_model_free(m4);
	pm_dataset_free(d);
}

Test(fit, same_result_for_any_thread_count_de) { same_result_for_any_thread_count(PM_ENGINE_DE); }

Test(fit, same_result_for_any_thread_count_varpro)
{
	same_result_for_any_thread_count(PM_ENGINE_VARPRO);
}

/* A generation too small to share (210 members x 30 rows, under two shares
 * of 8192 rows) runs on the calling thread: a second thread only made such
 * fits slower. The result is the same either way. */
Test(fit, small_fit_uses_one_thread)
{
	pm_dataset *d = syn_dataset(30, 0.05, 15), *d2 = syn_dataset(80, 0.05, 15);
	pm_fit_options o = pm_fit_options_engine(PM_ENGINE_DE);
	pm_model *m1, *m2, *m3;

	o.maxiter = 20;
	o.threads = 1;
	m1 = syn_fit_with(d, o, 1);
	o.threads = 2;
	m2 = syn_fit_with(d, o, 1);
	m3 = syn_fit_with(d2, o, 1);
	cr_expect_eq(m1->info.threads_used, 1);
	cr_expect_eq(m2->info.threads_used, 1);
	cr_expect_eq(m2->info.options.threads, 2, "what was asked stays recorded");
	cr_expect_eq(memcmp(m1->value, m2->value, m1->nparams * sizeof(double)), 0);
	/* 210 x 80 rows: two shares */
	cr_expect_eq(m3->info.threads_used, 2);
	pm_model_free(m1);
	pm_model_free(m2);
	pm_model_free(m3);
	pm_dataset_free(d);
	pm_dataset_free(d2);
}

Test(fit, scale_none_and_auto_predict_alike_on_clean_data)
{
	pm_dataset *d = syn_dataset(300, 0, 14);
	pm_fit_options o = pm_fit_options_default();
	pm_model *m;

	o.scale = PM_SCALE_NONE;
	m = syn_fit_with(d, o, 1);
	cr_expect_eq(m->target_scale, 1.0);
	for (size_t i = 0; i < m->ninputs; i++)
		cr_expect_eq(m->inputs[i].log_scale, 0.0);
	/* raw and scaled are the same thing without scaling */
	cr_expect_eq(memcmp(m->raw, m->value, m->nparams * sizeof(double)), 0);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* The raw eq. 4.4 parameters predict what the scaled model predicts. */
Test(fit, raw_parameters_predict_like_the_model)
{
	pm_dataset *d = syn_dataset(120, 0.05, 15);
	pm_fit_options o = pm_fit_options_default();
	pm_model *m;
	double x[7] = { 3, 16, 256, 1, 0, 2, 32 }, t, raw;

	o.maxiter = 50;
	m = syn_fit_with(d, o, 1);
	cr_assert_eq(pm_model_predict(m, x, &t, NULL), PM_OK);
	raw = (param(m, "a_k") * pow(3, param(m, "p_k")) + param(m, "a_f") * pow(16, param(m, "p_f")) +
	       param(m, "a_h") * pow(256, param(m, "p_h")) + param(m, "b_act=sigmoid") +
	       param(m, "b_opt=adam")) *
		      pow(2, param(m, "q_threads")) * pow(32, param(m, "q_batch")) +
	      param(m, "C");
	cr_expect_lt(fabs(raw - t) / t, 1e-12, "raw %.17g model %.17g", raw, t);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(fit, errors)
{
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_dataset *d = NULL;
	pm_model *m = NULL;
	pm_error err = { 0 };
	const char *zero = "k,f,h,act,opt,threads,batch,time\n1,1,1,relu,adam,0,1,1\n";
	const char *few = "k,f,h,act,opt,threads,batch,time\n1,1,1,relu,adam,1,1,1\n";
	const char *neg_t = "k,f,h,act,opt,threads,batch,time\n1,1,1,relu,adam,1,1,-2\n";

	cr_assert_eq(pm_dataset_parse_csv(zero, strlen(zero), "z.csv", &d, &err), PM_OK);
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EDOMAIN);
	cr_expect_null(m);
	cr_expect_str_eq(err.file, "z.csv");
	cr_expect_eq(err.line, 2);
	cr_expect_eq(err.column, 17);
	cr_expect(strstr(err.msg, "column 'threads'") != NULL, "%s", err.msg);
	cr_expect(strstr(err.msg, "categorical") != NULL, "%s", err.msg);
	pm_dataset_free(d);

	cr_assert_eq(pm_dataset_parse_csv(neg_t, strlen(neg_t), "t.csv", &d, &err), PM_OK);
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EDOMAIN);
	cr_expect(strstr(err.msg, "target 'time'") != NULL, "%s", err.msg);
	pm_dataset_free(d);

	cr_assert_eq(pm_dataset_parse_csv(few, strlen(few), "f.csv", &d, &err), PM_OK);
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	cr_expect(strstr(err.msg, "1 rows but 11 unknowns") != NULL, "%s", err.msg);

	o.popsize = 0;
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	o = pm_fit_options_default();
	o.recombination = 1.5;
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	o = pm_fit_options_default();
	o.mutation_lo = 1.5;
	o.mutation_hi = 1.0;
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	o = pm_fit_options_default();
	o.lambda_coef = -1;
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	cr_expect_null(m);
	pm_dataset_free(d);
	pm_spec_free(s);
}

/* n rows of k (a number) and act (a label), time = 1 + k / 100. */
static pm_dataset *labelled(size_t n, size_t nlevels, const char *k_fmt, double k_step)
{
	char *csv = malloc(64 * n + 64), row[64];
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	cr_assert_not_null(csv);
	strcpy(csv, "k,act,time\n");
	for (size_t r = 0; r < n; r++) {
		double k = pow(k_step, (double)r - (double)n / 2);

		snprintf(row, sizeof(row), k_fmt, k);
		strcat(csv, row);
		snprintf(row, sizeof(row), ",l%zu,%.17g\n", r % nlevels, 1 + 0.01 * k);
		strcat(csv, row);
	}
	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "l.csv", &d, &err), PM_OK, "%s",
		     err.msg);
	free(csv);
	return d;
}

/* Fit time ~ a*k^p + b_act (+ C) to labelled(40, nlevels, k_fmt, k_step)
 * with o and the bounds b (NULL: the defaults); *m and err as pm_fit's. */
static pm_status fit_labelled(size_t nlevels, const char *k_fmt, double k_step,
			      const pm_fit_options *o, const pm_bounds *b, pm_model **m,
			      pm_error *err)
{
	pm_dataset *d = labelled(40, nlevels, k_fmt, k_step);
	pm_spec *s = NULL;
	pm_status st;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->intrinsic, "k", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->categorical, "act", NULL), PM_OK);
	s->infer_roles = 0;
	if (b)
		s->bounds = *b;
	st = pm_fit(d, s, o, m, err);
	pm_spec_free(s);
	pm_dataset_free(d);
	return st;
}

/* Half the rows as levels is allowed; one more is refused by name. */
Test(fit, categorical_with_too_many_levels)
{
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error err = { 0 };

	o.maxiter = 3;
	o.polish = 0;
	cr_expect_eq(fit_labelled(20, "%.17g", 1.1, &o, NULL, &m, &err), PM_OK, "%s", err.msg);
	pm_model_free(m);
	cr_expect_eq(fit_labelled(21, "%.17g", 1.1, &o, NULL, &m, &err), PM_ESCHEMA);
	cr_expect_null(m);
	cr_expect_str_eq(err.file, "l.csv");
	cr_expect(strstr(err.msg, "categorical column 'act' has 21 levels in 40 rows") != NULL,
		  "%s", err.msg);
}

/* Overflow in x^p (raw units, so no scaling tames it). With k from 1e-100
 * to 1e100, k^p overflows or underflows for most powers in [-5, 5]: those
 * trials cost +inf and lose every selection, and the fit still ends with a
 * finite cost and finite parameters. With k = 1e200, p >= 2 and a >= 1 every
 * point of the box overflows: PM_EFIT with a message a user can act on,
 * never a model of NaNs. */
Test(fit, overflow_in_x_to_the_p)
{
	pm_fit_options o = pm_fit_options_default();
	pm_bounds b = pm_bounds_default();
	pm_model *m = NULL;
	pm_error err = { 0 };

	o.scale = PM_SCALE_NONE;
	o.maxiter = 50;
	cr_assert_eq(fit_labelled(2, "%.17g", 1e5, &o, NULL, &m, &err), PM_OK, "%s", err.msg);
	cr_expect(isfinite(pm_model_fit_info(m)->cost), "cost %g", pm_model_fit_info(m)->cost);
	for (size_t k = 0; k < pm_model_nparams(m); k++)
		cr_expect(isfinite(pm_model_param_value(m, k)), "%s = %g",
			  pm_model_param_name(m, k), pm_model_param_value(m, k));
	pm_model_free(m);

	b.coef_lo = 1;
	b.power_lo = 2;
	cr_expect_eq(fit_labelled(2, "1e200", 1.0, &o, &b, &m, &err), PM_EFIT);
	cr_expect_null(m);
	cr_expect_eq(err.code, PM_EFIT);
	cr_expect(strstr(err.msg, "no finite cost") != NULL, "%s", err.msg);
}

/* pm_request_stop sets the flag and says whether it was set already (the
 * CLI's handler exits on a second signal); no flag is no request. The fit
 * reading it from another thread: tests/threads.c, under TSan in .ci/run. */
Test(fit, request_stop_sets_the_flag_and_says_if_it_was_set)
{
	volatile sig_atomic_t stop = 0;

	cr_expect_eq(pm_request_stop(NULL), 0);
	cr_expect_eq(pm_request_stop(&stop), 0);
	cr_expect_eq(stop, 1);
	cr_expect_eq(pm_request_stop(&stop), 1);
	cr_expect_eq(stop, 1);
}

/* A stop request (what the CLI's SIGINT handler sets) ends the fit at the
 * next generation boundary with the best model so far, marked interrupted
 * in the model and in model.json, and the loader takes the mark back. */
Test(fit, stop_request_gives_the_best_model_so_far)
{
	pm_dataset *d = syn_dataset(200, 0.0, 3);
	pm_fit_options o = pm_fit_options_default();
	volatile sig_atomic_t stop = 1;
	pm_model *m, *back = NULL;
	const pm_fit_info *fi;
	pm_error err = { 0 };
	char *json = NULL;

	o.threads = 2;
	o.stop = &stop;
	m = syn_fit_with(d, o, 1);
	fi = pm_model_fit_info(m);
	cr_expect_eq(fi->interrupted, 1);
	cr_expect_str_eq(fi->stop, "interrupted");
	cr_expect_eq(fi->generations, 0);
	cr_expect_eq(fi->polished, 0);
	cr_expect_null(fi->options.stop);
	cr_expect(isfinite(fi->cost));
	back = json_round_trip(m, &json);
	cr_expect(strstr(json, "\"interrupted\": true") != NULL);
	cr_expect_eq(pm_model_fit_info(back)->interrupted, 1);
	free(json);
	pm_model_free(back);
	pm_model_free(m);

	/* never set: a whole fit, and no mark in the file */
	stop = 0;
	o.maxiter = 5;
	m = syn_fit_with(d, o, 1);
	cr_expect_eq(pm_model_fit_info(m)->interrupted, 0);
	cr_expect_eq(pm_model_fit_info(m)->generations, 5);
	cr_assert_eq(pm_model_to_json(m, &json, &err), PM_OK, "%s", err.msg);
	cr_expect(strstr(json, "interrupted") == NULL);
	free(json);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* ---- issue 20: no silent constants ---------------------------------------- */

/* Eq. 4.4 of scaling columns alone was the constant C (its sum empty); with
 * the base a0 it recovers the data's parameters, and is no constant fit. */
Test(fit, scaling_columns_alone_are_fitted_through_the_base)
{
	pm_dataset *d = scaling_dataset(16, 0);
	pm_spec *s = scaling_spec("threads,nodes");
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error err = { 0 };

	o.threads = 1;
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_nparams(m), 4);
	cr_expect_str_eq(pm_model_param_name(m, 0), "a0");
	cr_expect_float_eq(param(m, "a0"), 10, 1e-3);
	cr_expect_float_eq(param(m, "q_threads"), -0.8, 1e-4);
	cr_expect_float_eq(param(m, "q_nodes"), -0.5, 1e-4);
	cr_expect_float_eq(param(m, "C"), 0.5, 1e-3);
	cr_expect_lt(pm_model_fit_info(m)->training.mape, 0.01);
	cr_expect_eq(pm_model_fit_info(m)->constant, 0);
	cr_expect_eq(pm_model_nwarnings(m), 0);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* A fit that predicts one value for every row is flagged and warned of:
 * times that depend on nothing, and a model of no inputs at all. */
Test(fit, a_constant_fit_is_flagged_and_warned_of)
{
	pm_dataset *flat = scaling_dataset(16, 1), *d = scaling_dataset(16, 0);
	pm_spec *s = scaling_spec("threads,nodes"), *none = scaling_spec("");
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error err = { 0 };

	o.threads = 1;
	cr_assert_eq(pm_fit(flat, s, &o, &m, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(pm_model_fit_info(m)->constant, 1);
	cr_assert_eq(pm_model_nwarnings(m), 1);
	cr_expect_not_null(strstr(pm_model_warning(m, 0), "constant fit: the model predicts "
						      "time = 2.5 for all 15 training rows, "
						      "whatever threads, nodes"),
			   "%s", pm_model_warning(m, 0));
	pm_model_free(m);
	cr_assert_eq(pm_fit(d, none, &o, &m, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(pm_model_nparams(m), 1);
	cr_expect_eq(pm_model_fit_info(m)->constant, 1);
	cr_assert_eq(pm_model_nwarnings(m), 1);
	cr_expect_not_null(strstr(pm_model_warning(m, 0), "the model has no inputs"), "%s",
			   pm_model_warning(m, 0));
	pm_model_free(m);
	/* the same with a held-out set: the fit of the training rows decides */
	o.test_fraction = 0.2;
	cr_assert_eq(pm_fit(flat, s, &o, &m, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(pm_model_fit_info(m)->constant, 1);
	cr_expect_not_null(strstr(pm_model_warning(m, 0), "for all 12 training rows"), "%s",
			   pm_model_warning(m, 0));
	pm_model_free(m);
	pm_spec_free(none);
	pm_spec_free(s);
	pm_dataset_free(flat);
	pm_dataset_free(d);
}
