/* The fit's losses (pm_loss) by name, in model.json, and fits with each.
 * Their values and gradients are tested with the cost (test_cost.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "leak_check.h"
#include "model/model_impl.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(loss);

Test(loss, names_round_trip)
{
	pm_loss l = PM_LOSS_MAE;
	pm_error err = { 0 };

	for (int k = PM_LOSS_MAE; k <= PM_LOSS_LOG; k++) {
		cr_assert_eq(pm_loss_from_name(pm_loss_name((pm_loss)k), &l, NULL), PM_OK);
		cr_expect_eq(l, (pm_loss)k);
	}
	cr_expect_str_eq(pm_loss_name(PM_LOSS_MAPE), "mape");
	cr_expect_null(pm_loss_name((pm_loss)99));
	cr_expect_eq(pm_loss_from_name("MAE", &l, &err), PM_EINVAL);
	cr_expect(strstr(err.msg, "unknown loss 'MAE'"), "%s", err.msg);
	cr_expect_eq(pm_loss_from_name(NULL, &l, NULL), PM_EINVAL);
}

/* Every loss is zero at the truth on noiseless data: each fit finds the
 * scaling exponents, and model.json records (and reads back) its loss. */
Test(loss, every_loss_recovers_noiseless_parameters, .timeout = 120)
{
	pm_dataset *d = syn_dataset(200, 0, 31);

	for (int k = PM_LOSS_MAE; k <= PM_LOSS_LOG; k++) {
		pm_fit_options o = pm_fit_options_default();
		pm_model *m, *back;
		char *json;

		o.loss = (pm_loss)k;
		m = syn_fit_with(d, o, 1);
		/* a, p per intrinsic (0-5), b per level (6-10), the q's, C */
		cr_assert_str_eq(pm_model_param_name(m, 11), "q_threads");
		cr_assert_str_eq(pm_model_param_name(m, 12), "q_batch");
		cr_expect_lt(fabs(pm_model_param_value(m, 11) - SYN_Q_THREADS), 0.01,
			     "%s: q_threads %g", pm_loss_name(o.loss), pm_model_param_value(m, 11));
		cr_expect_lt(fabs(pm_model_param_value(m, 12) - SYN_Q_BATCH), 0.01,
			     "%s: q_batch %g", pm_loss_name(o.loss), pm_model_param_value(m, 12));
		back = json_round_trip(m, &json);
		cr_expect(strstr(json, pm_loss_name(o.loss)));
		cr_expect_eq(pm_model_fit_info(back)->options.loss, o.loss);
		free(json);
		pm_model_free(back);
		pm_model_free(m);
	}
	pm_dataset_free(d);
}

Test(loss, model_without_a_loss_reads_as_mae)
{
	pm_dataset *d = syn_dataset(60, 0.05, 32);
	pm_fit_options o = pm_fit_options_default();
	pm_model *m, *back = NULL;
	pm_error err = { 0 };
	char *json = NULL, *at;

	o.loss = PM_LOSS_LOG;
	o.maxiter = 5;
	o.polish = 0;
	m = syn_fit_with(d, o, 1);
	cr_assert_eq(pm_model_to_json(m, &json, &err), PM_OK);
	at = strstr(json, "\"loss\": \"log\",");
	cr_assert(at, "%s", json);
	memset(at, ' ', strlen("\"loss\": \"log\","));
	cr_assert_eq(pm_model_load_string(json, "old.json", &back, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(pm_model_fit_info(back)->options.loss, PM_LOSS_MAE);
	pm_model_free(back);
	memcpy(at, "\"loss\": \"l1\",", strlen("\"loss\": \"l1\","));
	cr_expect_eq(pm_model_load_string(json, "bad.json", &back, &err), PM_ESCHEMA);
	cr_expect_null(back);
	free(json);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(loss, unknown_loss_is_einval)
{
	pm_dataset *d = syn_dataset(60, 0, 33);
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;

	o.loss = (pm_loss)7;
	cr_expect_eq(pm_fit(d, s, &o, &m, NULL), PM_EINVAL);
	cr_expect_null(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* DESIGN.md §3's contract holds for the new row reductions too. */
Test(loss, same_result_for_any_thread_count)
{
	pm_dataset *d = syn_dataset(150, 0.05, 34);

	for (int k = PM_LOSS_MSE; k <= PM_LOSS_LOG; k++) {
		pm_fit_options o = pm_fit_options_default();
		pm_model *m1, *m3;

		o.loss = (pm_loss)k;
		o.maxiter = 40;
		o.threads = 1;
		m1 = syn_fit_with(d, o, 1);
		o.threads = 3;
		m3 = syn_fit_with(d, o, 1);
		cr_expect_eq(memcmp(m1->value, m3->value, m1->nparams * sizeof(double)), 0, "%s",
			     pm_loss_name(o.loss));
		cr_expect_eq(memcmp(&m1->info.cost, &m3->info.cost, sizeof(double)), 0);
		pm_model_free(m1);
		pm_model_free(m3);
	}
	pm_dataset_free(d);
}
