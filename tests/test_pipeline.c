/* The pipelines from files to results (pm_fit_file, pm_select_file,
 * pm_sweep_file, pm_spec_read_data, pm_model_read_data): each gives what
 * its steps give by hand, and each step's error comes through. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfold.h"
#include "leak_check.h"
#include "perfmodel/perfmodel.h"
#include "temp_csv.h"
#include "spec/spec_impl.h"

PM_LEAK_CHECKED_SUITE(pipeline);

static char *path_of(const char *env, const char *rel)
{
	static char path[4][1024];
	static int next;
	const char *dir = getenv(env);
	char *p = path[next++ % 4];

	cr_assert_not_null(dir, "%s is not set", env);
	snprintf(p, sizeof(path[0]), "%s/%s", dir, rel);
	return p;
}

/* data/ddp_mlp.csv: per-worker times t_worker_1, t_worker_2 (empty for one
 * worker) and the measured time_per_iter_s */
static const char *ddp(void)
{
	return path_of("PM_SOURCE_ROOT", "data/ddp_mlp.csv");
}

/* the roles of models/ddp_mlp.json, with `target` */
static pm_spec *ddp_spec(const char *target, const char *workers)
{
	pm_spec *s = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_new(&s, &err), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, target, &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->intrinsic, "hidden,layers,input_dim", &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->categorical, "activation", &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->extrinsic, "world_size,batch_size", &err), PM_OK);
	if (workers)
		cr_assert_eq(pm_names_add_list(&s->workers, workers, &err), PM_OK);
	s->infer_roles = 0;
	return s;
}

/* short fits: the pipeline, not the optimum, is under test */
static pm_fit_options quick(void)
{
	pm_fit_options o = pm_fit_options_default();

	o.maxiter = 5;
	o.polish = 0;
	o.threads = 1;
	return o;
}

static void same_params(const pm_model *a, const pm_model *b)
{
	cr_assert_eq(pm_model_nparams(a), pm_model_nparams(b));
	for (size_t k = 0; k < pm_model_nparams(a); k++)
		cr_assert_eq(pm_model_param_value(a, k), pm_model_param_value(b, k), "%s",
			     pm_model_param_name(a, k));
}

/* --target lif: the column derived from the worker globs, the fit the one
 * that the steps give by hand, the caller's spec untouched. */
Test(pipeline, fit_file_derives_lif_as_the_steps_do)
{
	pm_spec *s = ddp_spec(PM_LIF_COLUMN, "t_worker_*"), *hand = ddp_spec(PM_LIF_COLUMN,
									      "t_worker_*");
	pm_source src = { .path = ddp() };
	pm_fit_options o = quick();
	pm_fit_result *r = NULL;
	pm_dataset *d = NULL, *x = NULL;
	pm_model *m = NULL;
	pm_error err = { 0 };
	size_t col;

	cr_assert_eq(pm_fit_file(&src, s, &o, 2, &r, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_col_index(r->data, PM_LIF_COLUMN, &col, NULL), PM_OK);
	cr_assert_str_eq(pm_model_target(r->model), PM_LIF_COLUMN);
	cr_assert_null(r->test);
	cr_assert_eq(r->ncand, 0);
	cr_assert_null(r->cv);
	cr_assert_eq(r->info.aggregated, 0);
	cr_assert_eq(s->workers.n, 1);
	cr_assert_str_eq(s->workers.name[0], "t_worker_*", "the caller's spec is not changed");

	cr_assert_eq(pm_dataset_read(ddp(), NULL, &d, NULL, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_spec_derive_lif(hand, d, &x, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_fit_seeds(x, hand, &o, 2, &m, &err), PM_OK, "%s", err.msg);
	same_params(r->model, m);
	cr_assert_eq(pm_model_nseeds(r->model), 2);

	pm_model_free(m);
	pm_dataset_free(x);
	pm_dataset_free(d);
	pm_spec_free(hand);
	pm_spec_free(s);
	pm_fit_result_free(r);
}

Test(pipeline, lif_target_without_its_worker_columns)
{
	pm_spec *none = ddp_spec(PM_LIF_COLUMN, NULL), *glob = ddp_spec(PM_LIF_COLUMN, "gpu_*");
	pm_source src = { .path = ddp() };
	pm_fit_options o = quick();
	pm_fit_result *r = (pm_fit_result *)&src;
	pm_error err = { 0 };

	cr_assert_eq(pm_fit_file(&src, none, &o, 1, &r, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "give --workers"), "%s", err.msg);
	cr_assert_null(r);
	r = (pm_fit_result *)&src;
	cr_assert_eq(pm_fit_file(&src, glob, &o, 1, &r, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "'gpu_*' matches no column"), "%s", err.msg);
	cr_assert_null(r);
	pm_spec_free(none);
	pm_spec_free(glob);
}

/* Worker times are per run: merging runs refuses a LIF target, and drops
 * the workers of a measured one. */
Test(pipeline, merging_runs_refuses_a_lif_target)
{
	pm_spec *lif = ddp_spec(PM_LIF_COLUMN, "t_worker_*");
	pm_spec *time = ddp_spec("time_per_iter_s", "t_worker_*");
	pm_source src = { .path = ddp() };
	pm_fit_options o = quick();
	pm_fit_result *r = NULL;
	pm_dataset *d = NULL;
	pm_read_info info;
	pm_error err = { 0 };

	src.read.aggregate = PM_AGG_MEDIAN;
	cr_assert(pm_read_merges_runs(&src.read));
	cr_assert_eq(pm_fit_file(&src, lif, &o, 1, &r, &err), PM_EINVAL);
	cr_assert(strstr(err.msg, "--aggregate"), "%s", err.msg);
	cr_assert_null(r);

	cr_assert_eq(pm_spec_read_data(time, ddp(), &src.read, &d, &info, &err), PM_OK, "%s",
		     err.msg);
	cr_assert_eq(time->workers.n, 0, "merged rows have no worker times");
	cr_assert(info.aggregated);
	cr_assert_lt(pm_dataset_nrows(d), 200);
	pm_read_info_clear(&info);
	pm_dataset_free(d);
	pm_spec_free(time);
	pm_spec_free(lif);
}

Test(pipeline, merges_runs_says_which_options_merge)
{
	pm_read_options o = pm_read_options_default();

	cr_assert_not(pm_read_merges_runs(&o));
	o.aggregate = PM_AGG_NONE;
	cr_assert_not(pm_read_merges_runs(&o));
	o.aggregate = PM_AGG_MIN;
	cr_assert(pm_read_merges_runs(&o));
	o = pm_read_options_default();
	o.drop_first = 1;
	cr_assert(pm_read_merges_runs(&o));
	o = pm_read_options_default();
	o.weights = PM_WEIGHTS_INVERSE_VARIANCE;
	cr_assert(pm_read_merges_runs(&o));
}

/* A JSON format makes the time column: it becomes the spec's target. */
Test(pipeline, spec_read_data_takes_the_format_s_time)
{
	pm_spec *s = NULL;
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_new(&s, &err), PM_OK);
	cr_assert_eq(pm_spec_read_data(s, path_of("PM_TEST_DATA", "ingest/hyperfine.json"), NULL,
				       &d, NULL, &err), PM_OK, "%s", err.msg);
	cr_assert_str_eq(s->target, PM_INGEST_TIME_COLUMN);
	pm_dataset_free(d);
	d = (pm_dataset *)s;
	cr_assert_eq(pm_spec_read_data(s, "/no/such/file.csv", NULL, &d, NULL, &err), PM_EIO);
	cr_assert_null(d);
	cr_assert_eq(pm_spec_read_data(NULL, ddp(), NULL, &d, NULL, &err), PM_EINVAL);
	cr_assert_eq(pm_spec_read_data(s, ddp(), NULL, NULL, NULL, &err), PM_EINVAL);
	pm_spec_free(s);
}

/* Held-out rows in a file: read like the data, measured after the fit. */
Test(pipeline, test_file_is_measured)
{
	char *test = temp_csv("hidden,layers,activation,input_dim,world_size,batch_size,"
			      "time_per_iter_s\n"
			      "64,3,relu,784,1,32,0.000655674\n"
			      "256,2,relu,784,2,64,0.001\n");
	pm_spec *s = ddp_spec("time_per_iter_s", NULL);
	pm_source src = { .path = ddp(), .test_path = test };
	pm_fit_options o = quick();
	pm_fit_result *r = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_fit_file(&src, s, &o, 1, &r, &err), PM_OK, "%s", err.msg);
	cr_assert_not_null(r->test);
	cr_assert_eq(pm_dataset_nrows(r->test), 2);
	cr_assert_eq(pm_model_fit_info(r->model)->test.n, 2);
	cr_assert_str_eq(pm_model_fit_info(r->model)->test_name, test);
	cr_assert_eq(pm_model_fit_info(r->model)->training.n, 200);
	pm_fit_result_free(r);

	/* a fraction held out as well: which rows to measure is ambiguous */
	o.test_fraction = 0.3;
	cr_assert_eq(pm_fit_file(&src, s, &o, 1, &r, &err), PM_EINVAL);
	cr_assert(strstr(err.msg, "exclude each other"), "%s", err.msg);
	cr_assert_null(r);
	unlink(test);
	free(test);
	pm_spec_free(s);
}

Test(pipeline, test_file_with_another_header)
{
	/* no world_size: the model cannot predict these rows */
	char *test = temp_csv("hidden,layers,activation,input_dim,batch_size,time_per_iter_s\n"
			      "64,3,relu,784,32,0.000655674\n");
	/* no worker columns: a LIF target cannot be derived for them */
	char *noworkers = temp_csv("hidden,layers,activation,input_dim,world_size,batch_size\n"
				   "64,3,relu,784,1,32\n");
	pm_spec *time = ddp_spec("time_per_iter_s", NULL), *lif = ddp_spec(PM_LIF_COLUMN,
									 "t_worker_*");
	pm_source src = { .path = ddp(), .test_path = test };
	pm_fit_options o = quick();
	pm_fit_result *r = NULL;
	pm_error err = { 0 };

	cr_assert_neq(pm_fit_file(&src, time, &o, 1, &r, &err), PM_OK);
	cr_assert(strstr(err.msg, "world_size"), "%s", err.msg);
	cr_assert_null(r);
	src.test_path = noworkers;
	cr_assert_eq(pm_fit_file(&src, lif, &o, 1, &r, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "t_worker_1"), "%s", err.msg);
	cr_assert_str_eq(err.file, "", "a missing column is the file's, not a cell's");
	cr_assert_null(r);
	unlink(test);
	unlink(noworkers);
	free(test);
	free(noworkers);
	pm_spec_free(time);
	pm_spec_free(lif);
}

Test(pipeline, fit_file_argument_errors)
{
	pm_spec *s = ddp_spec("time_per_iter_s", NULL);
	pm_source src = { .path = ddp() };
	pm_fit_options o = quick();
	pm_dataset *d = NULL;
	pm_fit_result *r = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_fit_file(NULL, s, &o, 1, &r, &err), PM_EINVAL);
	cr_assert_eq(pm_fit_file(&src, NULL, &o, 1, &r, &err), PM_EINVAL);
	cr_assert_eq(pm_fit_file(&src, s, &o, 1, NULL, &err), PM_EINVAL);
	cr_assert_eq(pm_fit_file(&src, s, &o, 0, &r, &err), PM_EINVAL, "no seeds");
	cr_assert_null(r);
	cr_assert_eq(pm_dataset_read(ddp(), NULL, &d, NULL, &err), PM_OK);
	o.test = d;
	cr_assert_eq(pm_fit_file(&src, s, &o, 1, &r, &err), PM_EINVAL);
	cr_assert(strstr(err.msg, "test_path"), "%s", err.msg);
	o.test = NULL;
	src.path = "/no/such/file.csv";
	cr_assert_eq(pm_fit_file(&src, s, &o, 1, &r, &err), PM_EIO);
	cr_assert_null(r);
	pm_fit_result_free(NULL);
	pm_dataset_free(d);
	pm_spec_free(s);
}

Test(pipeline, select_file_reports_every_candidate)
{
	const pm_candidate cand[] = {
		{ .form = "additive", .loss = PM_LOSS_MAE },
		{ .form = "multiplicative", .loss = PM_LOSS_LOG }
	};
	pm_spec *s = ddp_spec("time_per_iter_s", NULL);
	pm_source src = { .path = ddp() };
	pm_fit_options o = quick();
	pm_fit_result *r = NULL;
	pm_cv_result cv[2];
	size_t best;
	pm_model *m = NULL;
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_select_file(&src, s, &o, cand, 2, KFOLD(2, 7), &r, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(r->ncand, 2);
	cr_assert_not_null(r->cv);
	cr_assert_str_eq(pm_model_form(r->model), cand[r->best].form);

	cr_assert_eq(pm_dataset_read(ddp(), NULL, &d, NULL, &err), PM_OK);
	cr_assert_eq(pm_select(d, s, &o, cand, 2, KFOLD(2, 7), cv, &best, &m, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(best, r->best);
	for (size_t i = 0; i < 2; i++)
		cr_assert_eq(cv[i].mape, r->cv[i].mape);
	same_params(r->model, m);
	pm_fit_result_free(r);

	cr_assert_eq(pm_select_file(&src, s, &o, NULL, 0, KFOLD(2, 7), &r, &err), PM_EINVAL);
	cr_assert_null(r);
	cr_assert_eq(pm_select_file(&src, s, &o, cand, 2, KFOLD(1, 7), &r, &err), PM_EINVAL, "one fold");
	cr_assert_null(r);
	pm_model_free(m);
	pm_dataset_free(d);
	pm_spec_free(s);
}

Test(pipeline, sweep_file_is_the_sweep_of_the_file)
{
	pm_spec *s = ddp_spec("time_per_iter_s", NULL);
	pm_source src = { .path = ddp() };
	pm_fit_options o = quick();
	pm_sweep_options so = { .lambda_lo = 1e-3, .lambda_hi = 1e-1, .npoints = 2, 
				.validate = KFOLD_OPTIONS(2, 3) };
	pm_sweep *sw = NULL, *hand = NULL;
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	o.reg = PM_REG_L2;
	cr_assert_eq(pm_sweep_file(&src, s, &o, &so, &sw, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_read(ddp(), NULL, &d, NULL, &err), PM_OK);
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &hand, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(sw->npoints, 2);
	cr_assert_eq(memcmp(sw->param, hand->param, sw->npoints * sw->nparams * sizeof(double)), 0);
	pm_sweep_free(sw);
	pm_sweep_free(hand);

	o.reg = PM_REG_NONE;
	sw = (pm_sweep *)&src;
	cr_assert_eq(pm_sweep_file(&src, s, &o, &so, &sw, &err), PM_EINVAL);
	cr_assert_null(sw);
	pm_dataset_free(d);
	pm_spec_free(s);
}

/* A model of the LIF derives it from new data; a file without the worker
 * columns the model recorded says which it lacks. */
Test(pipeline, model_read_data_derives_the_target)
{
	char *bare = temp_csv("hidden,layers,activation,input_dim,world_size,batch_size\n"
			      "64,3,relu,784,1,32\n");
	pm_spec *s = ddp_spec(PM_LIF_COLUMN, "t_worker_*");
	pm_source src = { .path = ddp() };
	pm_fit_options o = quick();
	pm_fit_result *r = NULL;
	pm_dataset *d = NULL;
	pm_read_info info;
	pm_metrics x;
	pm_error err = { 0 };
	size_t col;

	cr_assert_eq(pm_fit_file(&src, s, &o, 1, &r, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_read_data(r->model, ddp(), NULL, &d, &info, &err), PM_OK, "%s",
		     err.msg);
	cr_assert_eq(pm_dataset_col_index(d, PM_LIF_COLUMN, &col, NULL), PM_OK);
	cr_assert_eq(pm_model_evaluate(r->model, d, &x, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(x.mape, pm_model_fit_info(r->model)->training.mape);
	pm_read_info_clear(&info);
	pm_dataset_free(d);

	d = (pm_dataset *)&src;
	cr_assert_eq(pm_model_read_data(r->model, bare, NULL, &d, &info, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "t_worker_1"), "%s", err.msg);
	cr_assert_null(d);
	cr_assert_null(info.reps);
	cr_assert_eq(pm_model_read_data(NULL, bare, NULL, &d, NULL, &err), PM_EINVAL);
	cr_assert_eq(pm_model_read_data(r->model, bare, NULL, NULL, NULL, &err), PM_EINVAL);
	unlink(bare);
	free(bare);
	pm_fit_result_free(r);
	pm_spec_free(s);
}

/* A stop request that came while the files were read: no fit begins, in
 * any of the three pipelines, and nothing is returned. */
Test(pipeline, stopped_while_reading_fits_nothing)
{
	pm_spec *s = ddp_spec(PM_LIF_COLUMN, "t_worker_*");
	pm_source src = { .path = ddp() };
	pm_fit_options o = quick();
	pm_candidate cand = { .form = "additive", .loss = PM_LOSS_MAE };
	pm_sweep_options so = { 1e-4, 1e-2, 2, KFOLD_OPTIONS(2, 1) };
	volatile sig_atomic_t stop = 1;
	pm_fit_result *r = NULL;
	pm_sweep *sw = NULL;
	pm_error err = { 0 };

	o.stop = &stop;
	o.reg = PM_REG_L2;
	cr_assert_eq(pm_fit_file(&src, s, &o, 2, &r, &err), PM_EFIT);
	cr_assert(strstr(err.msg, "interrupted while reading") != NULL, "%s", err.msg);
	cr_assert_null(r);
	cr_assert_eq(pm_select_file(&src, s, &o, &cand, 1, KFOLD(2, 1), &r, &err), PM_EFIT);
	cr_assert(strstr(err.msg, "interrupted while reading") != NULL, "%s", err.msg);
	cr_assert_null(r);
	cr_assert_eq(pm_sweep_file(&src, s, &o, &so, &sw, &err), PM_EFIT);
	cr_assert(strstr(err.msg, "interrupted while reading") != NULL, "%s", err.msg);
	cr_assert_null(sw);
	pm_spec_free(s);
}
