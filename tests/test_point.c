/* The predict library's calls for embedding (predict.h): points by name,
 * batches, scaling exponents, speedup and efficiency; bit for bit against
 * pm_model_predict, from many threads, and every error. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "model_fixture.h"
#include "model/model_impl.h"
#include "core/pcg32.h"
#include "predict_job.h"

PM_LEAK_CHECKED_SUITE(point);

/* Additive (eq. 4.4) and power-law (formula) fits of data/ddp_mlp.csv. */
static const char *const fixtures[] = { "docs/examples/ddp_mlp_model.json",
					"tests/data/ddp_mlp_multiplicative.json" };

/* A formula with log2() and an indicator, parameters drawn at random. */
static pm_model *formula_model(void)
{
	static const char *const names[] = { "hidden", "act", "world_size", "batch" };
	static const pm_role role[] = { PM_ROLE_INTRINSIC, PM_ROLE_CATEGORICAL,
					PM_ROLE_EXTRINSIC, PM_ROLE_EXTRINSIC };
	static const char *const lv[] = { "relu", "tanh" };
	const char *const *levels[] = { NULL, lv, NULL, NULL };
	const size_t nlevels[] = { 0, 2, 0, 0 };
	pm_model *m = NULL;
	pm_error e = { 0 };
	pm_pcg32 r;

	cr_assert_eq(pm__model_new("t", 4, (const char **)names, role, nlevels, levels,
				   "a * hidden^p * level(act) * batch^q1 / world_size^q2 + "
				   "b * [world_size > 1] * log2(world_size)^r + C",
				   &m, &e), PM_OK, "%s", e.msg);
	pm__pcg32_seed(&r, 7, 0);
	for (size_t k = 0; k < m->nparams; k++)
		m->value[k] = pm__pcg32_uniform(&r) * 1.5 - 0.25;
	m->target_scale = 0.01;
	pm__model_raw(m);
	return m;
}

/* A random valid point of m by position. */
static void random_point(const pm_model *m, pm_pcg32 *r, double *x)
{
	for (size_t i = 0; i < m->ninputs; i++)
		x[i] = m->inputs[i].nlevels ? (double)pm__pcg32_below(r, (uint32_t)m->inputs[i].nlevels)
					    : floor(1.0 + 200.0 * pm__pcg32_uniform(r));
}

static void set_by_name(pm_point *p, const pm_model *m, const double *x)
{
	pm_error e = { 0 };

	for (size_t i = 0; i < m->ninputs; i++) {
		const char *name = pm_model_input_name(m, i);

		if (pm_model_input_role(m, i) == PM_ROLE_CATEGORICAL)
			cr_assert_eq(pm_point_set_cat(p, name, pm_model_level_name(m, i, (size_t)x[i]),
						      &e), PM_OK, "%s", e.msg);
		else
			cr_assert_eq(pm_point_set_num(p, name, x[i], &e), PM_OK, "%s", e.msg);
	}
}

/* by name, by position and in a batch: the same bits */
static void check_paths(pm_model *m)
{
	enum { N = 300 };
	size_t ni = pm_model_ninputs(m);
	double *x = calloc(N * ni + 1, sizeof(*x)), batch[N], one, named;
	pm_point *p = NULL;
	pm_error e = { 0 };
	pm_pcg32 r;

	cr_assert_eq(pm_point_new(m, &p, &e), PM_OK);
	pm__pcg32_seed(&r, 3, 1);
	/* two points in three repeat the previous one but for one input, as in
	 * a grid, where the batch reuses factor values */
	for (size_t k = 0; k < N; k++) {
		random_point(m, &r, x + k * ni);
		if (k % 3) {
			double keep = x[k * ni + k % ni];

			memcpy(x + k * ni, x + (k - 1) * ni, ni * sizeof(*x));
			x[k * ni + k % ni] = keep;
		}
	}
	cr_assert_eq(pm_model_predict_batch(m, x, N, batch, &e), PM_OK, "%s", e.msg);
	for (size_t k = 0; k < N; k++) {
		pm_point_clear(p);
		set_by_name(p, m, x + k * ni);
		cr_assert_eq(pm_model_predict(m, x + k * ni, &one, &e), PM_OK, "%s", e.msg);
		cr_assert_eq(pm_model_predict_point(m, p, &named, &e), PM_OK, "%s", e.msg);
		cr_assert(memcmp(&one, &named, sizeof(one)) == 0 &&
			  memcmp(&one, &batch[k], sizeof(one)) == 0,
			  "point %zu: %.17g by position, %.17g by name, %.17g in a batch", k, one,
			  named, batch[k]);
		cr_assert(isfinite(one));
	}
	pm_point_free(p);
	free(x);
}

Test(point, by_name_by_position_and_batch_agree)
{
	for (size_t f = 0; f < 2; f++) {
		pm_model *m = load_fixture(fixtures[f]);

		check_paths(m);
		pm_model_free(m);
	}
	{
		pm_model *m = formula_model();

		check_paths(m);
		pm_model_free(m);
	}
}

Test(point, eight_threads_on_one_model_give_the_serial_results)
{
	enum { N = 20000, T = 8 };
	pm_model *m = load_fixture(fixtures[0]);
	size_t ni = pm_model_ninputs(m);
	double *x = malloc(N * ni * sizeof(*x)), *serial = malloc(N * sizeof(*serial));
	double *got[T];
	struct predict_job jobs[T];
	pthread_t th[T];
	pm_pcg32 r;

	cr_assert(x && serial);
	pm__pcg32_seed(&r, 11, 0);
	for (size_t k = 0; k < N; k++)
		random_point(m, &r, x + k * ni);
	cr_assert_eq(pm_model_predict_batch(m, x, N, serial, NULL), PM_OK);
	for (int t = 0; t < T; t++) {
		got[t] = calloc(N, sizeof(double));
		jobs[t] = (struct predict_job){ m, x, N, got[t], 0 };
		cr_assert_eq(pthread_create(&th[t], NULL, predict_job_run, &jobs[t]), 0);
	}
	for (int t = 0; t < T; t++) {
		pthread_join(th[t], NULL);
		cr_assert(!jobs[t].failed, "thread %d", t);
		cr_assert(memcmp(got[t], serial, N * sizeof(double)) == 0, "thread %d differs", t);
		free(got[t]);
	}
	free(x);
	free(serial);
	pm_model_free(m);
}

Test(point, every_error_is_a_status_and_a_message)
{
	pm_model *m = load_fixture(fixtures[0]), *other = load_fixture(fixtures[1]);
	pm_point *p = NULL, *q = NULL;
	double t = 42.0, x[6];

	cr_assert_eq(pm_point_new(m, &p, NULL), PM_OK);
	cr_assert_eq(pm_point_new(other, &q, NULL), PM_OK);
	{
		pm_point *none = q;

		EXPECT_FAIL(pm_point_new(NULL, &none, E), PM_EINVAL, "NULL");
		cr_expect_null(none);
	}
	EXPECT_FAIL(pm_point_new(m, NULL, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_point_set_num(p, "gpus", 2, E), PM_EINVAL, "no input 'gpus'");
	EXPECT_FAIL(pm_point_set_num(p, NULL, 2, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_point_set_num(NULL, "hidden", 2, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_point_set_num(p, "activation", 1, E), PM_EINVAL, "categorical");
	EXPECT_FAIL(pm_point_set_cat(p, "hidden", "relu", E), PM_EINVAL, "numeric");
	EXPECT_FAIL(pm_point_set_cat(p, "activation", "gelu", E), PM_EDOMAIN,
		    "unknown level 'gelu' (known: relu, tanh)");
	EXPECT_FAIL(pm_point_set_cat(p, "activation", NULL, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_point_set_num(p, "hidden", 0, E), PM_EDOMAIN, "> 0");
	EXPECT_FAIL(pm_point_set_num(p, "hidden", -3, E), PM_EDOMAIN, "> 0");
	EXPECT_FAIL(pm_point_set_num(p, "hidden", NAN, E), PM_EDOMAIN, "> 0");
	EXPECT_FAIL(pm_point_set_num(p, "hidden", INFINITY, E), PM_EDOMAIN, "> 0");
	cr_expect(isnan(pm_point_values(p)[0]), "a refused value leaves the input unset");
	EXPECT_FAIL(pm_model_predict_point(m, p, &t, E), PM_EINVAL,
		    "missing value for input 'hidden'");
	cr_assert_eq(pm_point_set_json(p, "{\"hidden\": 64, \"layers\": 2, \"input_dim\": 256, "
					  "\"activation\": \"tanh\", \"batch_size\": 32}", NULL, NULL),
		     PM_OK);
	EXPECT_FAIL(pm_model_predict_point(m, p, &t, E), PM_EINVAL,
		    "missing value for input 'world_size'");
	cr_assert_eq(pm_point_set_num(p, "world_size", 2, NULL), PM_OK);
	EXPECT_FAIL(pm_model_predict_point(other, p, &t, E), PM_EINVAL, "another model");
	EXPECT_FAIL(pm_model_predict_point(m, NULL, &t, E), PM_EINVAL, "NULL");
	cr_expect_eq(t, 42.0, "a failed prediction writes nothing");
	cr_assert_eq(pm_model_predict_point(m, p, &t, NULL), PM_OK);
	/* JSON points */
	EXPECT_FAIL(pm_point_set_json(p, "{\"hidden\": 64,\n  \"layers\": }", "job.json", E),
		    PM_EPARSE, "invalid JSON");
	EXPECT_FAIL(pm_point_set_json(p, "[1, 2]", "job.json", E), PM_ESCHEMA, "an object");
	EXPECT_FAIL(pm_point_set_json(p, "{\"hidden\": true}", NULL, E), PM_ESCHEMA,
		    "'hidden' must be a number or a level name");
	EXPECT_FAIL(pm_point_set_json(p, "{\"hidden\": 8, \"hidden\": 9}", NULL, E), PM_ESCHEMA,
		    "'hidden' is given twice");
	EXPECT_FAIL(pm_point_set_json(p, "{\"gpus\": 8}", NULL, E), PM_EINVAL, "no input 'gpus'");
	EXPECT_FAIL(pm_point_set_json(p, "{\"hidden\": -1}", NULL, E), PM_EDOMAIN, "> 0");
	EXPECT_FAIL(pm_point_set_json(p, "{\"activation\": \"elu\"}", NULL, E), PM_EDOMAIN,
		    "unknown level 'elu'");
	EXPECT_FAIL(pm_point_set_json(p, NULL, NULL, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_point_set_json_file(p, "/nonexistent/job.json", E), PM_EIO, "cannot open");
	{
		pm_error e = { 0 };

		cr_expect_eq(pm_point_set_json(p, "{\"hidden\": 64,\n  \"layers\": }", "job.json", &e),
			     PM_EPARSE);
		cr_expect_eq(e.line, 2);
		cr_expect_str_eq(e.file, "job.json");
	}
	/* by position */
	memcpy(x, pm_point_values(p), sizeof(x));
	x[0] = 0;
	EXPECT_FAIL(pm_model_predict(m, x, &t, E), PM_EDOMAIN, "input 'hidden': 0 is not");
	x[0] = NAN;
	EXPECT_FAIL(pm_model_predict(m, x, &t, E), PM_EDOMAIN, "input 'hidden' has no value");
	x[0] = 64;
	x[3] = 2;	/* activation has 2 levels */
	EXPECT_FAIL(pm_model_predict(m, x, &t, E), PM_EDOMAIN, "level index 2 is not one of 0..1");
	EXPECT_FAIL(pm_model_predict(m, NULL, &t, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_model_predict_batch(m, x, 1, &t, E), PM_EDOMAIN, "point 1: input 'activation'");
	EXPECT_FAIL(pm_model_predict_batch(m, NULL, 1, &t, E), PM_EINVAL, "NULL");
	cr_expect_eq(pm_model_predict_batch(m, NULL, 0, NULL, NULL), PM_OK, "an empty batch");
	pm_point_free(p);
	pm_point_free(q);
	pm_point_free(NULL);
	pm_model_free(m);
	pm_model_free(other);
}

Test(point, a_batch_error_names_the_point_and_keeps_earlier_results)
{
	pm_model *m = load_fixture(fixtures[0]);
	size_t ni = pm_model_ninputs(m);
	double x[3 * 6], out[3] = { -1, -1, -1 };
	pm_error e = { 0 };
	pm_pcg32 r;

	cr_assert_eq(ni, 6);
	pm__pcg32_seed(&r, 5, 0);
	for (int k = 0; k < 3; k++)
		random_point(m, &r, x + k * ni);
	x[2 * ni + 4] = -8;	/* world_size of the third point */
	cr_assert_eq(pm_model_predict_batch(m, x, 3, out, &e), PM_EDOMAIN);
	cr_expect(strstr(e.msg, "point 3: input 'world_size': -8"), "%s", e.msg);
	cr_expect(out[0] > 0 && out[1] > 0 && out[2] == -1);
	pm_model_free(m);
}

/* The batch runs in blocks: a bad point far into it stops it there, the
 * points before it predicted as one by one, none after it written. */
Test(point, a_batch_error_in_a_later_block)
{
	enum { N = 300, BAD = 249 };
	pm_model *m = load_fixture(fixtures[0]);
	size_t ni = pm_model_ninputs(m);
	double *x = calloc(N * ni, sizeof(*x)), out[N], one;
	pm_error e = { 0 };
	pm_pcg32 r;

	cr_assert(x);
	pm__pcg32_seed(&r, 9, 0);
	for (int k = 0; k < N; k++) {
		random_point(m, &r, x + k * ni);
		out[k] = -1;
	}
	x[BAD * ni + 4] = NAN;	/* world_size */
	cr_assert_eq(pm_model_predict_batch(m, x, N, out, &e), PM_EDOMAIN);
	cr_expect(strstr(e.msg, "point 250: input 'world_size' has no value"), "%s", e.msg);
	for (int k = 0; k < BAD; k++) {
		cr_assert_eq(pm_model_predict(m, x + k * ni, &one, NULL), PM_OK);
		cr_assert(memcmp(&one, &out[k], sizeof(one)) == 0, "point %d", k + 1);
	}
	for (int k = BAD; k < N; k++)
		cr_assert_eq(out[k], -1, "point %d written", k + 1);
	free(x);
	pm_model_free(m);
}

Test(point, scaling_exponents)
{
	pm_model *m = load_fixture(fixtures[0]), *f = formula_model();
	size_t ws, hidden;
	double q;

	cr_assert_eq(pm_model_input_index(m, "world_size", &ws, NULL), PM_OK);
	cr_assert_eq(pm_model_input_index(m, "hidden", &hidden, NULL), PM_OK);
	cr_assert_eq(pm_model_scaling_exponent(m, ws, &q, NULL), PM_OK);
	for (size_t k = 0; k < pm_model_nparams(m); k++)
		if (strcmp(pm_model_param_name(m, k), "q_world_size") == 0)
			cr_expect_eq(q, pm_model_param_value(m, k));
	EXPECT_FAIL(pm_model_scaling_exponent(m, hidden, &q, E), PM_EINVAL, "not an extrinsic");
	EXPECT_FAIL(pm_model_scaling_exponent(m, 99, &q, E), PM_EINVAL, "not an extrinsic");
	EXPECT_FAIL(pm_model_scaling_exponent(m, ws, NULL, E), PM_EINVAL, "NULL");
	/* "/ world_size^q2": the exponent is -q2 */
	cr_assert_eq(pm_model_scaling_exponent(f, 2, &q, NULL), PM_OK);
	for (size_t k = 0; k < pm_model_nparams(f); k++)
		if (strcmp(pm_model_param_name(f, k), "q2") == 0)
			cr_expect_eq(q, -pm_model_param_value(f, k));
	pm_model_free(m);
	pm_model_free(f);
}

Test(point, speedup_and_efficiency_are_ratios_of_predictions)
{
	pm_model *models[] = { load_fixture(fixtures[0]), load_fixture(fixtures[1]), formula_model() };

	for (size_t k = 0; k < 3; k++) {
		pm_model *m = models[k];
		size_t ws;
		double x[6], keep[6], t1, t8, s, eff;
		pm_pcg32 r;

		cr_assert_eq(pm_model_input_index(m, "world_size", &ws, NULL), PM_OK);
		pm__pcg32_seed(&r, 9, k);
		random_point(m, &r, x);
		x[ws] = 1;
		cr_assert_eq(pm_model_predict(m, x, &t1, NULL), PM_OK);
		x[ws] = 8;
		cr_assert_eq(pm_model_predict(m, x, &t8, NULL), PM_OK);
		x[ws] = 3;	/* ignored */
		memcpy(keep, x, sizeof(x));
		cr_assert_eq(pm_model_speedup(m, x, ws, 1, 8, &s, NULL), PM_OK);
		cr_assert_eq(pm_model_efficiency(m, x, ws, 1, 8, &eff, NULL), PM_OK);
		cr_expect_eq(s, t1 / t8);
		cr_expect_eq(eff, t1 / t8 / 8);
		cr_expect(memcmp(x, keep, sizeof(x)) == 0, "the point is not written");
		cr_assert_eq(pm_model_speedup(m, x, ws, 8, 8, &s, NULL), PM_OK);
		cr_expect_eq(s, 1.0);
		EXPECT_FAIL(pm_model_speedup(m, x, ws, 0, 8, &s, E), PM_EDOMAIN,
			    "input 'world_size': 0 is not");
		EXPECT_FAIL(pm_model_efficiency(m, x, ws, 1, -2, &eff, E), PM_EDOMAIN,
			    "input 'world_size': -2 is not");
		EXPECT_FAIL(pm_model_speedup(m, x, 99, 1, 2, &s, E), PM_EINVAL, "not a numeric");
		for (size_t i = 0; i < pm_model_ninputs(m); i++)
			if (pm_model_input_role(m, i) == PM_ROLE_CATEGORICAL)
				EXPECT_FAIL(pm_model_speedup(m, x, i, 1, 2, &s, E), PM_EINVAL,
					    "not a numeric");
		EXPECT_FAIL(pm_model_speedup(m, NULL, ws, 1, 2, &s, E), PM_EINVAL, "NULL");
		EXPECT_FAIL(pm_model_speedup(m, x, ws, 1, 2, NULL, E), PM_EINVAL, "NULL");
		EXPECT_FAIL(pm_model_efficiency(m, x, ws, 1, 2, NULL, E), PM_EINVAL, "NULL");
		pm_model_free(m);
	}
}

Test(point, log2_below_one_is_refused)
{
	pm_model *f = formula_model();
	double x[4] = { 64, 0, 0.5, 32 }, t = 7;

	EXPECT_FAIL(pm_model_predict(f, x, &t, E), PM_EDOMAIN, "below 1, as log2() needs");
	cr_expect_eq(t, 7);
	pm_model_free(f);
}
