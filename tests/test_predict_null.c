/* The predictor library's NULL contract (predict.h, "NULL arguments";
 * issue 34): every public function, with NULL in each pointer position in
 * turn, returns what its declaration says and does not crash its host.
 * Each Test runs in its own process, so that a crash fails that function's
 * test alone. The last test reads predict.h and this file: a function the
 * header declares and this file never calls fails it, so that a new
 * function comes with its NULL test. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "model_fixture.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(null_args);

/* The call fails with PM_EINVAL and a message naming the function. */
#define EXPECT_NULL(call, fn) EXPECT_FAIL(call, PM_EINVAL, fn ": ")
/* The same with err NULL: the status alone. */
#define EXPECT_NULL_NOERR(call) cr_expect_eq((call), PM_EINVAL, "%s", #call)

/* rel, a path below the source root (PM_SOURCE_ROOT, set by meson) */
static const char *source_path(const char *rel)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/%s", getenv("PM_SOURCE_ROOT"), rel);
	return path;
}

static pm_model *plain(void)
{
	return load_fixture("docs/examples/ddp_mlp_model.json");
}

/* A model with prediction intervals (synth_fit.h's data, calibrated). */
static pm_model *calibrated(void)
{
	pm_dataset *d = syn_dataset(60, 0.2, 1);
	pm_fit_options o = pm_fit_options_default();
	pm_model *m;

	o.threads = 1;
	o.maxiter = 20;
	o.intervals = 5;
	m = syn_fit_with(d, o, 1);
	pm_dataset_free(d);
	cr_assert(pm_model_has_intervals(m));
	return m;
}

/* A point m takes: 2 for a numeric input, level 0 for a categorical one
 * (caller frees). */
static double *point_of(const pm_model *m)
{
	size_t n = pm_model_ninputs(m);
	double *x = malloc((n + 1) * sizeof(*x));

	for (size_t i = 0; i < n; i++)
		x[i] = pm_model_input_role(m, i) == PM_ROLE_CATEGORICAL ? 0.0 : 2.0;
	return x;
}

/* The first numeric input of m. */
static size_t numeric_input(const pm_model *m, pm_role role)
{
	for (size_t i = 0; i < pm_model_ninputs(m); i++)
		if (pm_model_input_role(m, i) == role)
			return i;
	cr_assert_fail("the model has no %d input", role);
	return 0;
}

/* ---- loading and freeing ---------------------------------------------- */

Test(null_args, load)
{
	pm_model *m = (pm_model *)1;

	EXPECT_NULL(pm_model_load_file(NULL, &m, E), "pm_model_load_file");
	cr_expect_null(m, "*out is NULL on failure");
	EXPECT_NULL(pm_model_load_file("x.json", NULL, E), "pm_model_load_file");
	EXPECT_NULL_NOERR(pm_model_load_file(NULL, &m, NULL));
	m = (pm_model *)1;
	EXPECT_NULL(pm_model_load_string(NULL, "n", &m, E), "pm_model_load_string");
	cr_expect_null(m);
	EXPECT_NULL(pm_model_load_string("{}", "n", NULL, E), "pm_model_load_string");
	EXPECT_NULL_NOERR(pm_model_load_string(NULL, NULL, &m, NULL));
	/* the name may be NULL: errors say <input> */
	EXPECT_FAIL(pm_model_load_string("{", NULL, &m, E), PM_EPARSE, "");
	pm_model_free(NULL);	/* a no-op */
}

/* ---- accessors: a NULL model gives the documented neutral values ------ */

Test(null_args, accessors)
{
	const unsigned *reps = (const unsigned *)1;
	const double *cv = (const double *)1, *w = (const double *)1;
	pm_model *m = plain();

	cr_expect_eq(pm_model_ninputs(NULL), 0);
	cr_expect_null(pm_model_input_name(NULL, 0));
	cr_expect_eq(pm_model_input_role(NULL, 0), PM_ROLE_INVALID);
	cr_expect_eq(pm_model_nlevels(NULL, 0), 0);
	cr_expect_null(pm_model_level_name(NULL, 0, 0));
	cr_expect_null(pm_model_target(NULL));
	cr_expect_eq(pm_model_nparams(NULL), 0);
	cr_expect_null(pm_model_param_name(NULL, 0));
	cr_expect_eq(pm_model_param_kind(NULL, 0), PM_PARAM_INVALID);
	cr_expect_eq(pm_model_param_input(NULL, 0), (size_t)-1);
	cr_expect_eq(pm_model_param_level(NULL, 0), (size_t)-1);
	cr_expect(isnan(pm_model_param_value(NULL, 0)));
	cr_expect(isnan(pm_model_param_scaled(NULL, 0)));
	cr_expect(isnan(pm_model_param_std(NULL, 0)));
	cr_expect_eq(pm_model_param_undetermined(NULL, 0), 0);
	cr_expect_eq(pm_model_nseeds(NULL), 0);
	cr_expect_eq(pm_model_seed(NULL, 0), 0);
	cr_expect(isnan(pm_model_seed_cost(NULL, 0)));
	cr_expect(isnan(pm_model_seed_value(NULL, 0, 0)));
	cr_expect(isnan(pm_model_param_mean(NULL, 0)));
	cr_expect_null(pm_model_form(NULL));
	cr_expect_null(pm_model_formula(NULL));
	cr_expect(isnan(pm_model_param_power(NULL, 0)));
	cr_expect(isnan(pm_model_param_doubling(NULL, 0)));
	cr_expect_eq(pm_model_nwarnings(NULL), 0);
	cr_expect_null(pm_model_warning(NULL, 0));
	cr_expect_null(pm_model_scale_name(NULL));
	cr_expect_eq(pm_model_has_intervals(NULL), 0);
	cr_expect_eq(pm_model_interval_residuals(NULL), 0);
	cr_expect_eq(pm_model_target_kind(NULL), PM_TARGET_INVALID);
	cr_expect_eq(pm_model_target_resource(NULL), (size_t)-1);
	cr_expect_eq(pm_model_target_per(NULL), (size_t)-1);
	cr_expect_str_eq(pm_model_prediction_label(NULL), "predicted");
	/* repetitions: a NULL model has none and sets the arrays NULL; any
	 * array pointer may be NULL */
	cr_expect_eq(pm_model_repetitions(NULL, &reps, &cv, &w), 0);
	cr_expect(!reps && !cv && !w);
	pm_model_repetitions(m, NULL, NULL, NULL);
	pm_model_free(m);
}

Test(null_args, input_and_level_index)
{
	pm_model *m = plain();
	size_t i = 7, cat = numeric_input(m, PM_ROLE_CATEGORICAL);

	EXPECT_NULL(pm_model_input_index(NULL, "hidden", &i, E), "pm_model_input_index");
	EXPECT_NULL(pm_model_input_index(m, NULL, &i, E), "pm_model_input_index");
	EXPECT_NULL(pm_model_input_index(m, "hidden", NULL, E), "pm_model_input_index");
	EXPECT_NULL_NOERR(pm_model_input_index(m, "hidden", NULL, NULL));
	cr_expect_eq(i, 7, "*index is not written on error");
	EXPECT_NULL(pm_model_level_index(NULL, cat, "relu", &i, E), "pm_model_level_index");
	EXPECT_NULL(pm_model_level_index(m, cat, NULL, &i, E), "pm_model_level_index");
	EXPECT_NULL(pm_model_level_index(m, cat, "relu", NULL, E), "pm_model_level_index");
	EXPECT_NULL_NOERR(pm_model_level_index(m, cat, NULL, NULL, NULL));
	cr_expect_eq(i, 7, "*level is not written on error");
	pm_model_free(m);
}

/* ---- names of enumerations --------------------------------------------- */

Test(null_args, names)
{
	pm_loss loss = PM_LOSS_MSE;
	pm_target_kind kind = PM_TARGET_SPEEDUP;

	EXPECT_NULL(pm_loss_from_name(NULL, &loss, E), "pm_loss_from_name");
	EXPECT_NULL(pm_loss_from_name("mae", NULL, E), "pm_loss_from_name");
	EXPECT_NULL_NOERR(pm_loss_from_name(NULL, NULL, NULL));
	cr_expect_eq(loss, PM_LOSS_MSE);
	EXPECT_NULL(pm_target_kind_from_name(NULL, &kind, E), "pm_target_kind_from_name");
	EXPECT_NULL_NOERR(pm_target_kind_from_name(NULL, &kind, NULL));
	cr_expect_eq(kind, PM_TARGET_SPEEDUP);
	/* out may be NULL: the name is only checked */
	cr_expect_eq(pm_target_kind_from_name("time", NULL, NULL), PM_OK);
	cr_expect_eq(pm_target_kind_from_name("nonsense", NULL, NULL), PM_EINVAL);
	cr_expect_null(pm_slurm_option(NULL));
	cr_expect_not_null(pm_status_string(PM_EINVAL));
	cr_expect_not_null(pm_version());
	cr_expect_null(pm_loss_name((pm_loss)99));
	cr_expect_null(pm_weights_name((pm_weights)99));
	cr_expect_null(pm_target_kind_name((pm_target_kind)99));
}

/* ---- numbers as text ----------------------------------------------------- */

static int vformat(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = pm_vsnprintf(out, size, fmt, ap);
	va_end(ap);
	return n;
}

Test(null_args, numbers_as_text)
{
	char buf[8] = "kept", *end = (char *)1;
	/* through a variable: a literal NULL format is a compile-time warning */
	const char *volatile no_fmt = NULL;

	/* out NULL: nothing written, the length it needs, whatever the size */
	cr_expect_eq(pm_snprintf(NULL, 0, "%d", 123), 3);
	cr_expect_eq(pm_snprintf(NULL, 8, "%d", 123), 3);
	cr_expect_eq(vformat(NULL, 8, "%s", "abcd"), 4);
	/* fmt NULL: -1, out (size > 0) the empty text */
	cr_expect_eq(pm_snprintf(buf, sizeof(buf), no_fmt), -1);
	cr_expect_str_eq(buf, "");
	strcpy(buf, "kept");
	cr_expect_eq(vformat(buf, sizeof(buf), no_fmt), -1);
	cr_expect_str_eq(buf, "");
	/* s NULL: no number, 0, *end = s as for text strtod reads nothing of */
	cr_expect_eq(pm_strtod(NULL, &end), 0.0);
	cr_expect_null(end);
	cr_expect_eq(pm_strtod(NULL, NULL), 0.0);
	cr_expect_eq(pm_strtod("2.5", NULL), 2.5);
	/* out NULL or no room: "", nothing written */
	cr_expect_str_eq(pm_strerror(ENOENT, NULL, 16), "");
	cr_expect_str_eq(pm_strerror(ENOENT, buf, 0), "");
	cr_expect_str_eq(pm_strerror(ENOENT, buf, sizeof(buf)), "No such", "cut to the room");
}

/* ---- predicting ------------------------------------------------------------ */

Test(null_args, predict)
{
	pm_model *m = plain();
	double *x = point_of(m), out = 42, two[2] = { 1, 1 };

	EXPECT_NULL(pm_model_predict(NULL, x, &out, E), "pm_model_predict");
	EXPECT_NULL(pm_model_predict(m, NULL, &out, E), "pm_model_predict");
	EXPECT_NULL(pm_model_predict(m, x, NULL, E), "pm_model_predict");
	EXPECT_NULL_NOERR(pm_model_predict(m, NULL, &out, NULL));
	EXPECT_NULL(pm_model_predict_batch(NULL, x, 1, two, E), "pm_model_predict_batch");
	EXPECT_NULL(pm_model_predict_batch(m, NULL, 1, two, E), "pm_model_predict_batch");
	EXPECT_NULL(pm_model_predict_batch(m, x, 1, NULL, E), "pm_model_predict_batch");
	EXPECT_NULL_NOERR(pm_model_predict_batch(m, x, 1, NULL, NULL));
	/* no points: x and out may be NULL */
	cr_expect_eq(pm_model_predict_batch(m, NULL, 0, NULL, NULL), PM_OK);
	EXPECT_NULL(pm_model_predict_target(NULL, x, &out, E), "pm_model_predict_target");
	EXPECT_NULL(pm_model_predict_target(m, NULL, &out, E), "pm_model_predict_target");
	EXPECT_NULL(pm_model_predict_target(m, x, NULL, E), "pm_model_predict_target");
	EXPECT_NULL_NOERR(pm_model_predict_target(m, x, NULL, NULL));
	EXPECT_NULL(pm_model_target_value(NULL, x, 1.0, &out, E), "pm_model_target_value");
	EXPECT_NULL(pm_model_target_value(m, x, 1.0, NULL, E), "pm_model_target_value");
	EXPECT_NULL_NOERR(pm_model_target_value(m, x, 1.0, NULL, NULL));
	/* a time model reads no input: x may be NULL */
	cr_expect_eq(pm_model_target_value(m, NULL, 1.0, &out, NULL), PM_OK);
	cr_expect_eq(out, 1.0);
	free(x);
	pm_model_free(m);
}

Test(null_args, intervals)
{
	pm_model *m = calibrated();
	double *x = point_of(m), v = 42, lo = 42, hi = 42, d = 42;
	int ex = 7;

	EXPECT_NULL(pm_model_residual_quantile(NULL, 0.5, &v, E), "pm_model_residual_quantile");
	EXPECT_NULL(pm_model_residual_quantile(m, 0.5, NULL, E), "pm_model_residual_quantile");
	EXPECT_NULL_NOERR(pm_model_residual_quantile(m, 0.5, NULL, NULL));
	EXPECT_NULL(pm_model_extrapolation(NULL, x, &d, &ex, E), "pm_model_extrapolation");
	EXPECT_NULL(pm_model_extrapolation(m, NULL, &d, &ex, E), "pm_model_extrapolation");
	EXPECT_NULL(pm_model_extrapolation(m, x, NULL, &ex, E), "pm_model_extrapolation");
	EXPECT_NULL_NOERR(pm_model_extrapolation(m, x, NULL, &ex, NULL));
	cr_expect_eq(ex, 7);
	/* extrapolated may be NULL */
	cr_expect_eq(pm_model_extrapolation(m, x, &d, NULL, NULL), PM_OK);
	EXPECT_NULL(pm_model_input_range(NULL, 0, &lo, &hi, E), "pm_model_input_range");
	EXPECT_NULL(pm_model_input_range(m, 0, NULL, &hi, E), "pm_model_input_range");
	EXPECT_NULL(pm_model_input_range(m, 0, &lo, NULL, E), "pm_model_input_range");
	EXPECT_NULL_NOERR(pm_model_input_range(m, 0, NULL, NULL, NULL));
	cr_expect(lo == 42 && hi == 42, "nothing written on error");
	EXPECT_NULL(pm_model_predict_quantile(NULL, x, 0.5, &v, E), "pm_model_predict_quantile");
	EXPECT_NULL(pm_model_predict_quantile(m, NULL, 0.5, &v, E), "pm_model_predict_quantile");
	EXPECT_NULL(pm_model_predict_quantile(m, x, 0.5, NULL, E), "pm_model_predict_quantile");
	EXPECT_NULL_NOERR(pm_model_predict_quantile(m, x, 0.5, NULL, NULL));
	EXPECT_NULL(pm_model_predict_interval(NULL, x, 0.5, &lo, &hi, E),
		    "pm_model_predict_interval");
	EXPECT_NULL(pm_model_predict_interval(m, NULL, 0.5, &lo, &hi, E),
		    "pm_model_predict_interval");
	EXPECT_NULL(pm_model_predict_interval(m, x, 0.5, NULL, &hi, E),
		    "pm_model_predict_interval");
	EXPECT_NULL(pm_model_predict_interval(m, x, 0.5, &lo, NULL, E),
		    "pm_model_predict_interval");
	EXPECT_NULL_NOERR(pm_model_predict_interval(m, x, 0.5, &lo, NULL, NULL));
	cr_expect(v == 42 && lo == 42 && hi == 42, "no output written on error");
	free(x);
	pm_model_free(m);
}

/* ---- by name --------------------------------------------------------------- */

Test(null_args, point)
{
	pm_model *m = plain();
	pm_point *p = (pm_point *)1;
	double out = 42;

	EXPECT_NULL(pm_point_new(NULL, &p, E), "pm_point_new");
	cr_expect_null(p, "*out is NULL on failure");
	EXPECT_NULL(pm_point_new(m, NULL, E), "pm_point_new");
	EXPECT_NULL_NOERR(pm_point_new(NULL, &p, NULL));
	cr_assert_eq(pm_point_new(m, &p, NULL), PM_OK);
	pm_point_free(NULL);		/* no-op */
	pm_point_clear(NULL);		/* no-op */
	cr_expect_null(pm_point_values(NULL));
	EXPECT_NULL(pm_point_set_num(NULL, "hidden", 2, E), "pm_point_set_num");
	EXPECT_NULL(pm_point_set_num(p, NULL, 2, E), "pm_point_set_num");
	EXPECT_NULL_NOERR(pm_point_set_num(p, NULL, 2, NULL));
	EXPECT_NULL(pm_point_set_cat(NULL, "activation", "relu", E), "pm_point_set_cat");
	EXPECT_NULL(pm_point_set_cat(p, NULL, "relu", E), "pm_point_set_cat");
	EXPECT_NULL(pm_point_set_cat(p, "activation", NULL, E), "pm_point_set_cat");
	EXPECT_NULL_NOERR(pm_point_set_cat(p, "activation", NULL, NULL));
	EXPECT_NULL(pm_point_set_json(NULL, "{}", "n", E), "pm_point_set_json");
	EXPECT_NULL(pm_point_set_json(p, NULL, "n", E), "pm_point_set_json");
	EXPECT_NULL_NOERR(pm_point_set_json(p, NULL, NULL, NULL));
	/* the name may be NULL */
	cr_expect_eq(pm_point_set_json(p, "{\"hidden\": 64}", NULL, NULL), PM_OK);
	EXPECT_NULL(pm_point_set_json_file(NULL, "p.json", E), "pm_point_set_json_file");
	EXPECT_NULL(pm_point_set_json_file(p, NULL, E), "pm_point_set_json_file");
	EXPECT_NULL_NOERR(pm_point_set_json_file(p, NULL, NULL));
	EXPECT_NULL(pm_model_predict_point(NULL, p, &out, E), "pm_model_predict_point");
	EXPECT_NULL(pm_model_predict_point(m, NULL, &out, E), "pm_model_predict_point");
	EXPECT_NULL(pm_model_predict_point(m, p, NULL, E), "pm_model_predict_point");
	EXPECT_NULL_NOERR(pm_model_predict_point(m, p, NULL, NULL));
	cr_expect_eq(out, 42);
	/* the point is unharmed: still its model's */
	cr_expect_eq(pm_point_values(p)[0], 64);
	pm_point_free(p);
	pm_model_free(m);
}

/* ---- scaling and advice ---------------------------------------------------- */

Test(null_args, scaling)
{
	pm_model *m = plain();
	double *x = point_of(m), v = 42;
	size_t ext = numeric_input(m, PM_ROLE_EXTRINSIC);

	EXPECT_NULL(pm_model_scaling_exponent(NULL, ext, &v, E), "pm_model_scaling_exponent");
	EXPECT_NULL(pm_model_scaling_exponent(m, ext, NULL, E), "pm_model_scaling_exponent");
	EXPECT_NULL_NOERR(pm_model_scaling_exponent(m, ext, NULL, NULL));
	EXPECT_NULL(pm_model_effective_exponent(NULL, x, ext, &v, E),
		    "pm_model_effective_exponent");
	EXPECT_NULL(pm_model_effective_exponent(m, NULL, ext, &v, E),
		    "pm_model_effective_exponent");
	EXPECT_NULL(pm_model_effective_exponent(m, x, ext, NULL, E),
		    "pm_model_effective_exponent");
	EXPECT_NULL_NOERR(pm_model_effective_exponent(m, x, ext, NULL, NULL));
	EXPECT_NULL(pm_model_speedup(NULL, x, ext, 1, 2, &v, E), "pm_model_speedup");
	EXPECT_NULL(pm_model_speedup(m, NULL, ext, 1, 2, &v, E), "pm_model_speedup");
	EXPECT_NULL(pm_model_speedup(m, x, ext, 1, 2, NULL, E), "pm_model_speedup");
	EXPECT_NULL_NOERR(pm_model_speedup(m, NULL, ext, 1, 2, &v, NULL));
	EXPECT_NULL(pm_model_efficiency(NULL, x, ext, 1, 2, &v, E), "pm_model_efficiency");
	EXPECT_NULL(pm_model_efficiency(m, NULL, ext, 1, 2, &v, E), "pm_model_efficiency");
	EXPECT_NULL(pm_model_efficiency(m, x, ext, 1, 2, NULL, E), "pm_model_efficiency");
	EXPECT_NULL_NOERR(pm_model_efficiency(m, NULL, ext, 1, 2, &v, NULL));
	cr_expect_eq(v, 42);
	free(x);
	pm_model_free(m);
}

Test(null_args, advise)
{
	pm_model *m = plain();
	double *x = point_of(m), ws[] = { 1, 2, 4 };
	size_t ext = numeric_input(m, PM_ROLE_EXTRINSIC);
	pm_vary v = { ext, 3, ws }, no_values = { ext, 3, NULL };
	pm_advise_options o = pm_advise_options_default();
	pm_advice a;

	EXPECT_NULL(pm_model_advise(NULL, x, &v, 1, &o, &a, E), "pm_model_advise");
	EXPECT_NULL(pm_model_advise(m, NULL, &v, 1, &o, &a, E), "pm_model_advise");
	EXPECT_NULL(pm_model_advise(m, x, NULL, 1, &o, &a, E), "pm_model_advise");
	EXPECT_NULL(pm_model_advise(m, x, &v, 1, &o, NULL, E), "pm_model_advise");
	EXPECT_NULL_NOERR(pm_model_advise(m, x, &v, 1, &o, NULL, NULL));
	/* a vary entry without its values */
	EXPECT_FAIL(pm_model_advise(m, x, &no_values, 1, &o, &a, E), PM_EINVAL,
		    "no values to try");
	/* opt NULL: the defaults */
	cr_expect_eq(pm_model_advise(m, x, &v, 1, NULL, &a, NULL), PM_OK);
	cr_expect_eq(a.combinations, 3);
	cr_expect_eq(pm_advise_options_default().max_combinations, o.max_combinations);
	free(x);
	pm_model_free(m);
}

Test(null_args, slurm)
{
	pm_model *m = calibrated();
	double *x = point_of(m);
	char out[PM_SLURM_TIME_CHARS];
	pm_slurm_limits l;

	EXPECT_NULL(pm_slurm_time(60, NULL, NULL, E), "pm_slurm_time");
	EXPECT_NULL_NOERR(pm_slurm_time(60, NULL, NULL, NULL));
	/* minutes may be NULL */
	cr_expect_eq(pm_slurm_time(60, out, NULL, NULL), PM_OK);
	EXPECT_NULL(pm_slurm_limits_at(NULL, x, NULL, 0.9, 0.5, 1, &l, E), "pm_slurm_limits_at");
	EXPECT_NULL(pm_slurm_limits_at(m, NULL, NULL, 0.9, 0.5, 1, &l, E), "pm_slurm_limits_at");
	EXPECT_NULL(pm_slurm_limits_at(m, x, NULL, 0.9, 0.5, 1, NULL, E), "pm_slurm_limits_at");
	EXPECT_NULL_NOERR(pm_slurm_limits_at(m, x, NULL, 0.9, 0.5, 1, NULL, NULL));
	/* job may be NULL: one run */
	cr_expect_eq(pm_slurm_limits_at(m, x, NULL, 0.9, 0.5, 1, &l, NULL), PM_OK);
	{
		pm_job job = pm_job_default();
		double v = 42;

		EXPECT_NULL(pm_job_time(NULL, x, &job, 0, &v, E), "pm_job_time");
		EXPECT_NULL(pm_job_time(m, NULL, &job, 0, &v, E), "pm_job_time");
		EXPECT_NULL(pm_job_time(m, x, &job, 0, NULL, E), "pm_job_time");
		EXPECT_NULL_NOERR(pm_job_time(m, x, &job, 0, NULL, NULL));
		cr_expect_eq(v, 42);
		cr_expect_eq(pm_job_time(m, x, NULL, 0, &v, NULL), PM_OK, "job may be NULL");
		cr_expect_eq(job.iterations, 1);
	}
	free(x);
	pm_model_free(m);
}

Test(null_args, validation)
{
	pm_validation v = { .scheme = PM_SCHEME_LOO };
	char buf[16];

	EXPECT_NULL(pm_validation_parse(NULL, &v, E), "pm_validation_parse");
	EXPECT_NULL(pm_validation_parse("loo", NULL, E), "pm_validation_parse");
	EXPECT_NULL_NOERR(pm_validation_parse(NULL, NULL, NULL));
	cr_expect_eq(v.scheme, PM_SCHEME_LOO, "*v is unchanged on error");
	cr_expect_eq(pm_validation_is_scheme(NULL), 0);
	/* v NULL: as a zeroed one, "none"; out NULL: the length alone */
	cr_expect_eq(pm_validation_text(NULL, buf, sizeof(buf)), 4);
	cr_expect_str_eq(buf, "none");
	cr_expect_eq(pm_validation_text(&v, NULL, 0), 3);
	cr_expect_eq(pm_validation_text(&v, NULL, sizeof(buf)), 3);
}

/* ---- perfmodel.h: the functions an all-NULL call crashed -------------------
 * (issue 34's sweep of the fitting library: each function called with NULL
 * in every pointer; these six read through one) */

Test(null_args, fitting_library)
{
	pm_model *m = plain(), *cm = (pm_model *)1;
	pm_dataset *d = NULL, *pts = (pm_dataset *)1;
	double *out, q = 0.5;
	char hex[17] = "";
	pm_metrics met;
	pm_error e = { 0 };

	cr_assert_eq(pm_dataset_read_csv(source_path("data/ddp_mlp.csv"), &d, &e), PM_OK, "%s",
		     e.msg);
	out = malloc(2 * (pm_dataset_nrows(d) + 1) * sizeof(*out));
	pm_dataset_fingerprint(d, NULL);	/* nothing to write */
	pm_dataset_fingerprint(NULL, hex);	/* the empty table's hash */
	cr_expect_eq(strlen(hex), 16);
	cr_expect_null(pm_format_double(1.5, NULL));
	EXPECT_NULL(pm_model_predict_dataset(NULL, d, out, E), "pm_model_predict_dataset");
	EXPECT_NULL(pm_model_predict_dataset(m, NULL, out, E), "pm_model_predict_dataset");
	EXPECT_NULL(pm_model_predict_dataset(m, d, NULL, E), "pm_model_predict_dataset");
	EXPECT_NULL_NOERR(pm_model_predict_dataset(m, d, NULL, NULL));
	EXPECT_NULL(pm_model_predict_dataset_quantiles(NULL, d, 1, &q, out, out, NULL, E),
		    "pm_model_predict_dataset_quantiles");
	EXPECT_NULL(pm_model_predict_dataset_quantiles(m, NULL, 1, &q, out, out, NULL, E),
		    "pm_model_predict_dataset_quantiles");
	EXPECT_NULL(pm_model_predict_dataset_quantiles(m, d, 1, NULL, out, out, NULL, E),
		    "pm_model_predict_dataset_quantiles");
	EXPECT_NULL(pm_model_predict_dataset_quantiles(m, d, 1, &q, NULL, out, NULL, E),
		    "pm_model_predict_dataset_quantiles");
	EXPECT_NULL(pm_model_predict_dataset_quantiles(m, d, 1, &q, out, NULL, NULL, E),
		    "pm_model_predict_dataset_quantiles");
	/* no quantiles: q and qout may be NULL */
	cr_expect_eq(pm_model_predict_dataset_quantiles(m, d, 0, NULL, out, NULL, NULL, NULL),
		     PM_OK);
	EXPECT_NULL(pm_model_evaluate(NULL, d, &met, E), "pm_model_evaluate");
	EXPECT_NULL(pm_model_evaluate(m, NULL, &met, E), "pm_model_evaluate");
	EXPECT_NULL(pm_model_evaluate(m, d, NULL, E), "pm_model_evaluate");
	EXPECT_NULL_NOERR(pm_model_evaluate(m, d, NULL, NULL));
	EXPECT_NULL(pm_predict_config_read(NULL, &cm, &pts, E), "pm_predict_config_read");
	cr_expect(!cm && !pts, "the outputs are NULL on failure");
	EXPECT_NULL(pm_predict_config_read("c.json", NULL, &pts, E), "pm_predict_config_read");
	EXPECT_NULL(pm_predict_config_read("c.json", &cm, NULL, E), "pm_predict_config_read");
	EXPECT_NULL_NOERR(pm_predict_config_read(NULL, NULL, NULL, NULL));
	free(out);
	pm_dataset_free(d);
	pm_model_free(m);
}

/* ---- every function of predict.h is called above ---------------------------- */

static char *slurp(const char *rel)
{
	char path[1024];
	FILE *f;
	char *s;
	long n;

	snprintf(path, sizeof(path), "%s/%s", getenv("PM_SOURCE_ROOT"), rel);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = malloc((size_t)n + 1);
	cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* Each "PM_API <type> <name>(" of header, checked against self; how many. */
static size_t each_called(const char *header, const char *self)
{
	size_t found = 0;

	for (const char *at = strstr(header, "PM_API "); at; at = strstr(at + 1, "PM_API ")) {
		const char *paren = strchr(at, '('), *name = paren;
		char call[128];

		if (!paren)
			break;
		while (name > at && (name[-1] == '_' || (name[-1] >= 'a' && name[-1] <= 'z') ||
				     (name[-1] >= '0' && name[-1] <= '9')))
			name--;
		if (strncmp(name, "pm_", 3))
			continue;	/* the macro's own definition */
		snprintf(call, sizeof(call), "%.*s(", (int)(paren - name), name);
		cr_expect(strstr(self, call), "the predictor's headers declare %.*s, which this "
			  "test never calls", (int)(paren - name), name);
		found++;
	}
	return found;
}

Test(null_args, every_function_of_the_header_is_called_here)
{
	/* the predictor's two headers: predict.h and advise.h, which it includes */
	char *header = slurp("lib/include/perfmodel/predict.h");
	char *advise = slurp("lib/include/perfmodel/advise.h");
	char *self = slurp("tests/test_predict_null.c");
	size_t found = each_called(header, self), more = each_called(advise, self);

	/* the scan itself works: predict.h has some 60 functions, advise.h 8 */
	cr_expect_gt(found, 50, "found %zu declarations", found);
	cr_expect_gt(more, 5, "found %zu declarations", more);
	free(header);
	free(advise);
	free(self);
}
