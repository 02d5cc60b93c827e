#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "leak_check.h"
#include "model/model_impl.h"
#include "model_fixture.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(scaling);

static pm_model *quick_fit(const pm_dataset *d)
{
	return syn_fit(d, 1, 30);
}

/* The report of m with C and q_threads set (scaled values; a power is not
 * scaled). */
static pm_scaling_report *report_with(pm_model *m, const pm_dataset *d, double c, double q)
{
	pm_scaling_report *r = NULL;
	pm_error err = { 0 };

	m->value[m->nparams - 1] = c;
	for (size_t k = 0; k < m->nparams; k++)
		if (!strcmp(pm_model_param_name(m, k), "q_threads"))
			m->value[k] = q;
	pm__model_raw(m);
	cr_assert_eq(pm_scaling_report_new(m, d, &r, &err), PM_OK, "%s", err.msg);
	return r;
}

Test(scaling, report_follows_the_model)
{
	pm_dataset *d = syn_dataset(200, 0.05, 41);
	pm_model *m = quick_fit(d);
	/* with C = 0, t = I * E^q exactly: speedup = (E/E0)^-q */
	pm_scaling_report *r = report_with(m, d, 0.0, -0.7);
	size_t ith = 0;

	cr_assert_eq(r->n, 2);
	while (strcmp(pm_model_input_name(m, ith), "threads"))
		ith++;
	const pm_scaling *s = &r->scaling[0];
	cr_assert_eq(s->input, ith);
	cr_assert_eq(s->npoints, 4, "threads 1, 2, 4, 8");
	cr_assert_eq(s->q, pm_model_param_value(m, s->param));
	cr_assert_eq(pm_model_param_kind(m, s->param), PM_PARAM_SCALING);
	cr_assert_float_eq(s->doubling, pow(2, s->q), 1e-15);
	for (size_t k = 0; k < s->npoints; k++) {
		double v = s->value[k], want = pow(v / s->value[0], -s->q);

		cr_assert_eq(v, (double)(1u << k));
		cr_assert_float_eq(s->speedup[k], want, 1e-12 * want);
		cr_assert_float_eq(s->efficiency[k], want / v, 1e-12 * want);
	}
	/* baseline: medians of the numbers; threads = 1, 2, 4, 8 in equal parts
	 * roughly, so its median is one of them or a midpoint */
	cr_assert(r->baseline[ith] >= 1 && r->baseline[ith] <= 8);
	pm_scaling_report_free(r);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(scaling, constant_holds_speedup_below_the_power_law)
{
	pm_dataset *d = syn_dataset(200, 0, 42);
	pm_model *m = quick_fit(d);
	pm_scaling_report *r = report_with(m, d, 1.0, -0.8);	/* a large C */
	const pm_scaling *s = &r->scaling[0];
	double t0 = s->time[0];

	cr_assert_eq(s->q, -0.8);
	for (size_t k = 1; k < s->npoints; k++) {
		cr_assert_lt(s->speedup[k], pow(s->value[k], -s->q));
		cr_assert_float_eq(s->speedup[k], t0 / s->time[k], 1e-15);
	}
	pm_scaling_report_free(r);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(scaling, categorical_baseline_is_the_most_frequent_level_and_json)
{
	pm_dataset *d = syn_dataset(200, 0, 43);
	pm_model *m = quick_fit(d);
	pm_scaling_report *r = NULL;
	pm_error err = { 0 };
	size_t ia = 0, c, count[3] = { 0 }, best = 0;
	char *json = NULL;

	cr_assert_eq(pm_scaling_report_new(m, d, &r, &err), PM_OK, "%s", err.msg);
	while (strcmp(pm_model_input_name(m, ia), "act"))
		ia++;
	cr_assert_eq(pm_dataset_col_index(d, "act", &c, NULL), PM_OK);
	for (size_t row = 0; row < pm_dataset_nrows(d); row++) {
		size_t v;

		cr_assert_eq(pm_model_level_index(m, ia, pm_dataset_cell(d, row, c), &v, NULL), PM_OK);
		count[v]++;
	}
	for (size_t v = 1; v < 3; v++)
		best = count[v] > count[best] ? v : best;
	cr_assert_eq(r->baseline[ia], (double)best);
	cr_assert_eq(pm_fit_report_to_json(m, r, &json, &err), PM_OK, "%s", err.msg);
	cr_assert_not_null(strstr(json, "\"scaling\": ["));
	cr_assert_not_null(strstr(json, "\"format\": \"perfmodel-model\""));
	free(json);
	pm_scaling_report_free(r);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* ---- issue 20: one sign for exponents, the effective exponent ---------------
 * Models made from a model.json with "scale": "none", so that a parameter's
 * scaled value is the formula's own: inputs n (numeric), c (levels x, y)
 * and E (extrinsic), parameters named in `names` with values `v`. */
static pm_model *formula_model(const char *formula, const char *const *names, const double *v,
			       size_t np)
{
	char json[4096];
	int at;
	pm_model *m = NULL;
	pm_error err = { 0 };

	at = snprintf(json, sizeof(json),
		      "{\"format\": \"perfmodel-model\", \"version\": 1, \"form\": \"formula\", "
		      "\"formula\": \"%s\", \"target\": \"t\", \"scale\": \"none\", "
		      "\"target_scale\": 1, \"inputs\": [{\"name\": \"n\", \"role\": \"intrinsic\", "
		      "\"log_scale\": 0}, {\"name\": \"c\", \"role\": \"categorical\", \"levels\": "
		      "[\"x\", \"y\"]}, {\"name\": \"E\", \"role\": \"extrinsic\", \"log_scale\": 0}], "
		      "\"parameters\": [", formula);
	for (size_t k = 0; k < np; k++)
		at += snprintf(json + at, sizeof(json) - (size_t)at,
			       "%s{\"name\": \"%s\", \"scaled\": %.17g, \"std\": null, "
			       "\"bounds\": [-1000, 1000]}", k ? ", " : "", names[k], v[k]);
	snprintf(json + at, sizeof(json) - (size_t)at, "]}");
	cr_assert_eq(pm_model_load_string(json, "m.json", &m, &err), PM_OK, "%s\n%s", err.msg, json);
	return m;
}

/* d log t / d log x_i at x by a central difference: the check, not the method */
static double log_slope(const pm_model *m, const double *x, size_t i)
{
	const double h = 1e-5;
	double p[16], lo, hi;

	cr_assert_leq(pm_model_ninputs(m), 16);
	memcpy(p, x, pm_model_ninputs(m) * sizeof(*p));
	p[i] = x[i] * exp(h);
	cr_assert_eq(pm_model_predict(m, p, &hi, NULL), PM_OK);
	p[i] = x[i] * exp(-h);
	cr_assert_eq(pm_model_predict(m, p, &lo, NULL), PM_OK);
	return (log(hi) - log(lo)) / (2 * h);
}

static double effective(const pm_model *m, const double *x, size_t i)
{
	pm_error err = { 0 };
	double e = NAN;

	cr_assert_eq(pm_model_effective_exponent(m, x, i, &e, &err), PM_OK, "%s", err.msg);
	return e;
}

static size_t param_named(const pm_model *m, const char *name)
{
	for (size_t k = 0; k < pm_model_nparams(m); k++)
		if (!strcmp(pm_model_param_name(m, k), name))
			return k;
	cr_assert_fail("no parameter %s", name);
	return 0;
}

Test(scaling, effective_exponent_in_eq_4_4)
{
	pm_dataset *d = syn_dataset(200, 0.05, 44);
	pm_model *m = quick_fit(d);
	/* a C (scaled: the median time's half) to include */
	pm_scaling_report *r = report_with(m, d, 0.5, -0.6);

	for (size_t j = 0; j < r->n; j++) {
		const pm_scaling *s = &r->scaling[j];
		double fd = log_slope(m, r->baseline, s->input);

		cr_expect_float_eq(s->effective, fd, 1e-6, "%s: %g against %g",
				   pm_model_input_name(m, s->input), s->effective, fd);
		/* eq. 4.4's q is its power, and C pulls the effective one towards 0 */
		cr_expect_eq(s->power, s->q);
		cr_expect_lt(fabs(s->effective), fabs(s->power));
		cr_expect_gt(s->effective * s->power, 0);
	}
	pm_scaling_report_free(r);
	/* without C every term has threads^q: d log t / d log threads = q,
	 * rounding aside */
	r = report_with(m, d, 0.0, -0.7);
	cr_expect_float_eq(r->scaling[0].effective, -0.7, 1e-14);
	cr_expect_eq(r->scaling[0].power, -0.7);
	pm_scaling_report_free(r);
	pm_model_free(m);
	pm_dataset_free(d);
}

static const char *const div_names[] = { "a", "p", "q", "lm_c=y", "b", "r", "d", "C" };
#define DIV_FORMULA "a * n^p / E^q * level(c) + b * log2(E)^r + d * [E > 2] * n^1 * E^2 + C"

Test(scaling, a_divided_power_has_the_sign_it_acts_with)
{
	const double v[] = { 0.5, 1.5, 0.8, 0.7, 0.05, 1.3, 0.02, 0.3 };
	pm_model *m = formula_model(DIV_FORMULA, div_names, v, 8);
	size_t q = param_named(m, "q"), p = param_named(m, "p"), r = param_named(m, "r");
	const char *csv = "n,c,E,t\n1,x,1,1\n2,y,2,1\n4,y,4,1\n8,y,8,1\n";
	pm_dataset *d = NULL;
	pm_scaling_report *rep = NULL;
	pm_error err = { 0 };
	char *json = NULL;
	cJSON *doc, *s, *par;

	/* the parameter stays the formula's, its power is as it acts on t */
	cr_expect_eq(pm_model_param_value(m, q), 0.8);
	cr_expect_eq(pm_model_param_power(m, q), -0.8);
	cr_expect_eq(pm_model_param_doubling(m, q), exp2(-0.8));
	cr_expect_eq(pm_model_param_power(m, p), 1.5);
	cr_expect(isnan(pm_model_param_power(m, r)), "r is used only in log2()");
	cr_expect(isnan(pm_model_param_power(m, param_named(m, "a"))));
	cr_expect(isnan(pm_model_param_power(m, 99)));
	cr_expect(isnan(pm_model_param_power(NULL, 0)));
	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "d.csv", &d, &err), PM_OK, "%s",
		     err.msg);
	cr_assert_eq(pm_scaling_report_new(m, d, &rep, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(rep->n, 1);
	cr_expect_eq(rep->scaling[0].param, q);
	cr_expect_eq(rep->scaling[0].q, 0.8);
	cr_expect_eq(rep->scaling[0].power, -0.8);
	cr_expect_eq(rep->scaling[0].doubling, exp2(-0.8));
	/* the reference point: n 3, c y, E 3; above [E > 2]'s step */
	cr_expect_eq(rep->baseline[2], 3);
	cr_expect_float_eq(rep->scaling[0].effective, log_slope(m, rep->baseline, 2), 1e-6);
	cr_expect_lt(rep->scaling[0].effective, 0);
	/* and so in the JSON: q as written, power with its sign on t */
	cr_assert_eq(pm_fit_report_to_json(m, rep, &json, &err), PM_OK, "%s", err.msg);
	doc = cJSON_Parse(json);
	cr_assert_not_null(doc);
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "scaling"), 0);
	par = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "parameters"), (int)q);
	cr_expect_str_eq(cJSON_GetObjectItem(s, "parameter")->valuestring, "q");
	cr_expect_eq(cJSON_GetObjectItem(s, "q")->valuedouble, 0.8);
	cr_expect_eq(cJSON_GetObjectItem(s, "power")->valuedouble, -0.8);
	cr_expect_eq(cJSON_GetObjectItem(s, "effective_exponent")->valuedouble,
		     rep->scaling[0].effective);
	cr_expect_eq(cJSON_GetObjectItem(par, "value")->valuedouble, 0.8);
	cr_expect_eq(cJSON_GetObjectItem(par, "power")->valuedouble, -0.8);
	cJSON_Delete(doc);
	free(json);
	pm_scaling_report_free(rep);
	pm_dataset_free(d);
	pm_model_free(m);
}

Test(scaling, effective_exponent_through_levels_log2_indicators_and_c)
{
	const double v[] = { 0.5, 1.5, 0.8, 0.7, 0.05, 1.3, 0.02, 0.3 };
	pm_model *m = formula_model(DIV_FORMULA, div_names, v, 8);
	/* n, c (level index), E: both levels, both sides of [E > 2] */
	const double pts[][3] = { { 3, 1, 3 }, { 3, 0, 3 }, { 2, 1, 1.5 }, { 64, 0, 40 },
				  { 0.5, 1, 7 } };

	for (size_t k = 0; k < sizeof(pts) / sizeof(pts[0]); k++)
		for (size_t i = 0; i < 3; i += 2) {
			double e = effective(m, pts[k], i), fd = log_slope(m, pts[k], i);

			cr_expect_float_eq(e, fd, 1e-6, "point %zu input %zu: %.9g against %.9g",
					   k, i, e, fd);
		}
	pm_model_free(m);
}

Test(scaling, a_pure_power_law_has_effective_exponent_its_power)
{
	static const char *const names[] = { "a", "p", "q" };
	const double v[] = { 2.0, 1.25, 0.75 };
	pm_model *m = formula_model("a * n^p / E^q", names, v, 3);
	const double x[] = { 5, 0, 3 };

	cr_expect_float_eq(effective(m, x, 2), -0.75, 1e-15);
	cr_expect_float_eq(effective(m, x, 0), 1.25, 1e-15);
	pm_model_free(m);
}

Test(scaling, effective_exponent_refuses_what_has_no_derivative)
{
	const double v[] = { 0.5, 1.5, 0.8, 0.7, 0.05, 1.3, 0.02, 0.3 };
	pm_model *m = formula_model(DIV_FORMULA, div_names, v, 8);
	const double ok[] = { 3, 1, 3 }, step[] = { 3, 1, 2 }, one[] = { 3, 1, 1 },
		     bad[] = { 0, 1, 3 };
	double e, want;

	EXPECT_FAIL(pm_model_effective_exponent(NULL, ok, 2, &e, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_model_effective_exponent(m, NULL, 2, &e, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_model_effective_exponent(m, ok, 2, NULL, E), PM_EINVAL, "NULL");
	EXPECT_FAIL(pm_model_effective_exponent(m, ok, 1, &e, E), PM_EINVAL, "not a numeric");
	EXPECT_FAIL(pm_model_effective_exponent(m, ok, 3, &e, E), PM_EINVAL, "not a numeric");
	/* at E = 2, [E > 2] steps: no derivative */
	EXPECT_FAIL(pm_model_effective_exponent(m, step, 2, &e, E), PM_EDOMAIN,
		    "an indicator on E switches at E = 2: the prediction jumps there");
	/* but the step is in E only: n's slope there is fine */
	cr_expect_float_eq(effective(m, step, 0), log_slope(m, step, 0), 1e-6);
	/* log2(E)^1.3 at E = 1: 0 with slope 0, so the rest's slope */
	cr_assert_eq(pm_model_predict(m, one, &want, NULL), PM_OK);
	cr_expect_float_eq(effective(m, one, 2), -0.8 * (want - 0.3) / want, 1e-12);
	/* a point the model cannot take: pm_model_predict's error */
	EXPECT_FAIL(pm_model_effective_exponent(m, bad, 2, &e, E), PM_EDOMAIN, "input 'n'");
	pm_model_free(m);
}

Test(scaling, effective_exponent_at_log2s_and_steps_edges)
{
	static const char *const names[] = { "b", "r", "d", "C" };
	const double half[] = { 1, 0.5, 0, 1 }, unit[] = { 1, 1, 0, 1 }, none[] = { 0, 1, 0, 0 };
	const char *f = "b * log2(E)^r + d * [E > 2] + C";
	pm_model *m = formula_model(f, names, half, 4);
	const double one[] = { 1, 0, 1 }, two[] = { 1, 0, 2 };
	double e;

	/* log2(E)^0.5 rises steeply from 0 at E = 1 */
	EXPECT_FAIL(pm_model_effective_exponent(m, one, 2, &e, E), PM_EDOMAIN,
		    "log2(E)^0.5 has no derivative at E = 1");
	/* d = 0: the step at E = 2 is no step */
	cr_expect_float_eq(effective(m, two, 2), log_slope(m, two, 2), 1e-6);
	pm_model_free(m);
	/* log2(E) at E = 1: t = log2(E) + 1 has slope 1/ln 2 in log E, t = 1 */
	m = formula_model(f, names, unit, 4);
	cr_expect_float_eq(effective(m, one, 2), 1 / log(2), 1e-15);
	pm_model_free(m);
	/* nothing left: t = 0 has no log */
	m = formula_model(f, names, none, 4);
	EXPECT_FAIL(pm_model_effective_exponent(m, one, 2, &e, E), PM_EDOMAIN,
		    "the prediction is 0");
	pm_model_free(m);
}
