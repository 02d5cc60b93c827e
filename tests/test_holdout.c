#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(holdout);

static pm_fit_options quick(void)
{
	pm_fit_options o = pm_fit_options_default();

	o.maxiter = 40;
	o.threads = 2;
	return o;
}

Test(holdout, split_fits_the_rest_and_measures_the_held_out_rows)
{
	pm_dataset *d = syn_dataset(150, 0.05, 21), *test = NULL;
	pm_fit_options o = quick();
	pm_model *m;
	pm_error err = { 0 };
	size_t *tr, *te, ntr, nte;
	pm_metrics want;
	char fp[17];

	o.maxiter = 1000;	/* a converged fit, for an honest held-out MAPE */
	o.test_fraction = 0.3;
	o.split_seed = 9;
	m = syn_fit_with(d, o, 1);
	const pm_fit_info *fi = pm_model_fit_info(m);
	cr_assert_eq(fi->training.n, 105);
	cr_assert_eq(fi->test.n, 45);
	cr_assert_str_eq(fi->test_name, "syn.csv");
	cr_assert_eq(fi->options.test_fraction, 0.3);
	cr_assert_eq(fi->options.split_seed, 9);
	cr_assert_null(fi->options.test);
	pm_dataset_fingerprint(d, fp);
	cr_assert_str_eq(fi->fingerprint, fp, "the whole file's fingerprint");
	/* the same rows, measured independently */
	cr_assert_eq(pm_split_rows(150, 0.3, 9, &tr, &ntr, &te, &nte, &err), PM_OK);
	cr_assert_eq(pm_dataset_subset(d, te, nte, &test, &err), PM_OK);
	cr_assert_eq(pm_model_evaluate(m, test, &want, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(memcmp(&want, &fi->test, sizeof(want)), 0);
	cr_assert(fi->test.mape > 0 && fi->test.mape < 20, "test MAPE %g", fi->test.mape);
	free(tr);
	free(te);
	pm_dataset_free(test);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(holdout, test_file_and_round_trip)
{
	pm_dataset *d = syn_dataset(100, 0.05, 22), *t = syn_dataset(40, 0.05, 23);
	pm_fit_options o = quick();
	pm_model *m, *l;
	char *json;

	o.test = t;
	m = syn_fit_with(d, o, 1);
	const pm_fit_info *fi = pm_model_fit_info(m);
	cr_assert_eq(fi->training.n, 100);
	cr_assert_eq(fi->test.n, 40);
	cr_assert_eq(fi->options.test_fraction, 0);
	l = json_round_trip(m, &json);
	cr_assert_not_null(strstr(json, "\"test_data\""));
	cr_assert_eq(memcmp(&pm_model_fit_info(l)->test, &fi->test, sizeof(fi->test)), 0);
	cr_assert_str_eq(pm_model_fit_info(l)->test_name, "syn.csv");
	free(json);
	pm_model_free(l);
	pm_model_free(m);
	pm_dataset_free(t);
	pm_dataset_free(d);
}

Test(holdout, no_test_leaves_the_file_as_it_was)
{
	pm_dataset *d = syn_dataset(60, 0, 24);
	pm_model *m = syn_fit_with(d, quick(), 1), *l;
	char *json;

	cr_assert_eq(pm_model_fit_info(m)->test.n, 0);
	l = json_round_trip(m, &json);
	cr_assert_null(strstr(json, "\"test"));
	cr_assert_eq(pm_model_fit_info(l)->test.n, 0);
	free(json);
	pm_model_free(l);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(holdout, errors)
{
	pm_dataset *d = syn_dataset(60, 0, 25), *t = NULL;
	pm_spec *s = syn_spec();
	pm_fit_options o = quick();
	pm_model *m = NULL;
	pm_error err = { 0 };
	static const char bad[] = "k,f,h,act,opt,threads,batch,time\n1,4,64,relu,adam,1,8,1\n"
				  "2,8,64,gelu,adam,1,8,1\n";

	o.test_fraction = 0.5;
	o.test = d;
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	cr_assert_null(m);
	o.test = NULL;
	o.test_fraction = 1.0;
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	o.test_fraction = 0.001;	/* no row held out */
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	cr_assert(strstr(err.msg, "test set"), "%s", err.msg);
	/* a level the fit never saw: the cell is named */
	o.test_fraction = 0;
	cr_assert_eq(pm_dataset_parse_csv(bad, strlen(bad), "t.csv", &t, &err), PM_OK);
	o.test = t;
	cr_assert_neq(pm_fit(d, s, &o, &m, &err), PM_OK);
	cr_assert_null(m);
	cr_assert_str_eq(err.file, "t.csv");
	cr_assert_eq(err.line, 3);
	cr_assert(strstr(err.msg, "gelu"), "%s", err.msg);
	pm_dataset_free(t);
	pm_spec_free(s);
	pm_dataset_free(d);
}
