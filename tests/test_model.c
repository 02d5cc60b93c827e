/* The model's accessors (perfmodel/predict.h): in range they give the
 * model's values; out of range, or on a NULL model, a checked "nothing". */
#include <criterion/criterion.h>
#include <math.h>

#include "leak_check.h"
#include "model_fixture.h"
#include "model/model_impl.h"

PM_LEAK_CHECKED_SUITE(model);

Test(model, accessors_in_range)
{
	pm_model *m = load_fixture("tests/data/ddp_mlp_multiplicative.json");
	size_t act = 0, relu = 99;

	cr_assert_eq(pm_model_ninputs(m), 6);
	cr_assert_str_eq(pm_model_input_name(m, 0), "hidden");
	cr_assert_eq(pm_model_input_role(m, 4), PM_ROLE_EXTRINSIC);
	cr_assert_eq(pm_model_input_index(m, "activation", &act, NULL), PM_OK);
	cr_assert_eq(pm_model_input_role(m, act), PM_ROLE_CATEGORICAL);
	cr_assert_gt(pm_model_nlevels(m, act), 1);
	cr_assert_eq(pm_model_level_index(m, act, pm_model_level_name(m, act, 1), &relu, NULL), PM_OK);
	cr_assert_eq(relu, 1);
	cr_assert_eq(pm_model_nparams(m), 8);
	for (size_t k = 0; k < pm_model_nparams(m); k++) {
		cr_assert_not_null(pm_model_param_name(m, k));
		cr_assert(isfinite(pm_model_param_value(m, k)));
		cr_assert_neq(pm_model_param_kind(m, k), PM_PARAM_INVALID);
		cr_assert_eq(pm_model_param_mean(m, k), pm_model_param_value(m, k));
	}
	pm_model_free(m);
}

Test(model, accessors_out_of_range)
{
	pm_model *m = load_fixture("tests/data/ddp_mlp_multiplicative.json");
	size_t n = pm_model_ninputs(m), k = pm_model_nparams(m), level = 7;

	cr_assert_null(pm_model_input_name(m, n));
	cr_assert_eq(pm_model_input_role(m, n), PM_ROLE_INVALID);
	cr_assert_eq(pm_model_nlevels(m, n), 0);
	cr_assert_null(pm_model_level_name(m, n, 0));
	cr_assert_null(pm_model_level_name(m, 3, 1000));
	EXPECT_FAIL(pm_model_level_index(m, n, "relu", &level, E), PM_EINVAL, "no input 6");
	cr_assert_eq(level, 7, "the output is untouched on failure");
	cr_assert_null(pm_model_param_name(m, k));
	cr_assert_eq(pm_model_param_kind(m, k), PM_PARAM_INVALID);
	cr_assert_eq(pm_model_param_input(m, k), (size_t)-1);
	cr_assert_eq(pm_model_param_level(m, k), (size_t)-1);
	cr_assert(isnan(pm_model_param_value(m, k)));
	cr_assert(isnan(pm_model_param_scaled(m, k)));
	cr_assert(isnan(pm_model_param_std(m, k)));
	cr_assert(isnan(pm_model_param_mean(m, k)));
	cr_assert(isnan(pm_model_param_doubling(m, k)));
	cr_assert_eq(pm_model_nseeds(m), 0);
	cr_assert_eq(pm_model_seed(m, 0), 0);
	cr_assert(isnan(pm_model_seed_cost(m, 0)));
	cr_assert(isnan(pm_model_seed_value(m, 0, 0)));
	pm_model_free(m);
}

Test(model, accessors_on_no_model)
{
	size_t i = 3;

	cr_assert_eq(pm_model_ninputs(NULL), 0);
	cr_assert_eq(pm_model_nparams(NULL), 0);
	cr_assert_null(pm_model_target(NULL));
	cr_assert_null(pm_model_input_name(NULL, 0));
	cr_assert_null(pm_model_form(NULL));
	cr_assert_null(pm_model_formula(NULL));
	cr_assert_null(pm_model_scale_name(NULL));
	cr_assert(isnan(pm_model_param_value(NULL, 0)));
	cr_assert_eq(pm_model_nseeds(NULL), 0);
	EXPECT_FAIL(pm_model_input_index(NULL, "x", &i, E), PM_EINVAL, "a NULL argument");
	cr_assert_eq(i, 3);
}

/* t = n^2 * g^-1: finite for every finite input, until it overflows. */
static pm_model *square(void)
{
	static const char *const names[] = { "n", "g" };
	static const pm_role role[] = { PM_ROLE_INTRINSIC, PM_ROLE_EXTRINSIC };
	const size_t nlevels[2] = { 0 };
	pm_model *m = NULL;

	cr_assert_eq(pm__model_new("t", 2, (const char **)names, role, nlevels, NULL, NULL, &m,
				   NULL), PM_OK);
	m->value[0] = 1;	/* a_n */
	m->value[1] = 2;	/* p_n */
	m->value[2] = -1;	/* q_g */
	m->value[3] = 0;	/* C */
	pm__model_raw(m);
	return m;
}

Test(model, a_prediction_that_overflows_is_an_error_naming_the_point)
{
	pm_model *m = square();
	double ok[2] = { 1e100, 4 }, big[2] = { 1e200, 0.5 }, t = 7, x[6] = { 3, 1, 1e200, 2, 5, 1 };
	double out[3] = { 0, 0, 0 };
	pm_vary vary = { .input = 1, .n = 2, .values = (const double[]){ 1, 2 } };
	pm_advice advice;

	cr_assert_eq(pm_model_predict(m, ok, &t, NULL), PM_OK);
	cr_assert(fabs(t / (1e200 / 4) - 1) < 1e-12, "%g", t);
	t = 7;
	EXPECT_FAIL(pm_model_predict(m, big, &t, E), PM_ERANGE,
		    "the prediction at n=1e+200, g=0.5 is not a finite number");
	cr_assert_eq(t, 7, "nothing written on failure");
	EXPECT_FAIL(pm_model_predict_batch(m, x, 3, out, E), PM_ERANGE, "point 2: the prediction at n=1e+200");
	cr_assert(fabs(out[0] - 9.0) < 1e-12, "the points before it are predicted: %g", out[0]);
	EXPECT_FAIL(pm_model_advise(m, big, &vary, 1, NULL, &advice, E), PM_ERANGE, "n=1e+200");
	cr_assert_str_eq(pm_status_string(PM_ERANGE), "prediction out of range");
	pm_model_free(m);
}
