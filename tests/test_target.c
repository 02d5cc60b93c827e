/* Target kinds (issue 20): a speedup, efficiency or throughput is fitted
 * on the time scale it implies and predicted, evaluated and saved as
 * itself; the errors of each step by name. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "model_fixture.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(target);

/* Amdahl's law with a serial fraction of 0.1 over n = 1..64. */
static const double nodes[] = { 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 };
#define NN (sizeof(nodes) / sizeof(nodes[0]))

static double amdahl(double n)
{
	return 1 / (0.1 + 0.9 / n);
}

/* A CSV of nodes and the kind's value of Amdahl's speedup (efficiency:
 * S/n), into buf. */
static const char *amdahl_csv(char *buf, size_t size, pm_target_kind kind)
{
	size_t used = (size_t)snprintf(buf, size, "nodes,y\n");

	for (size_t i = 0; i < NN; i++)
		used += (size_t)snprintf(buf + used, size - used, "%g,%.17g\n", nodes[i],
					 amdahl(nodes[i]) / (kind == PM_TARGET_EFFICIENCY ? nodes[i] : 1));
	return buf;
}

static pm_dataset *parse(const char *csv)
{
	pm_dataset *d = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "t.csv", &d, &e), PM_OK, "%s", e.msg);
	return d;
}

static pm_spec *spec(const char *target, const char *extrinsic, pm_target_kind kind,
		     const char *resource, const char *per)
{
	pm_spec *s = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_new(&s, &e), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, target, &e), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_EXTRINSIC, extrinsic, &e), PM_OK);
	cr_assert_eq(pm_spec_set_target_kind(s, kind, resource, per, &e), PM_OK, "%s", e.msg);
	return s;
}

static pm_model *fit(const pm_dataset *d, const pm_spec *s)
{
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error e = { 0 };

	o.threads = 1;
	cr_assert_eq(pm_fit(d, s, &o, &m, &e), PM_OK, "%s", e.msg);
	return m;
}

/* Parameter k, which must be `name` (the model's order is part of what
 * is tested). */
static double param(const pm_model *m, size_t k, const char *name)
{
	cr_assert_str_eq(pm_model_param_name(m, k), name);
	return pm_model_param_value(m, k);
}

Test(target, names)
{
	pm_target_kind k = PM_TARGET_INVALID;

	cr_assert_str_eq(pm_target_kind_name(PM_TARGET_TIME), "time");
	cr_assert_str_eq(pm_target_kind_name(PM_TARGET_THROUGHPUT), "throughput");
	cr_assert_null(pm_target_kind_name(PM_TARGET_INVALID));
	cr_assert_null(pm_target_kind_name((pm_target_kind)4));
	cr_assert_eq(pm_target_kind_from_name("efficiency", &k, NULL), PM_OK);
	cr_assert_eq(k, PM_TARGET_EFFICIENCY);
	EXPECT_FAIL(pm_target_kind_from_name("fast", &k, E), PM_EINVAL,
		    "unknown target kind 'fast': expected time, speedup, efficiency or throughput");
	EXPECT_FAIL(pm_target_kind_from_name(NULL, &k, E), PM_EINVAL,
		    "pm_target_kind_from_name: name is NULL");
	cr_assert_eq(pm_model_target_kind(NULL), PM_TARGET_INVALID);
	cr_assert_eq(pm_model_target_resource(NULL), SIZE_MAX);
	cr_assert_eq(pm_model_target_per(NULL), SIZE_MAX);
	cr_assert_str_eq(pm_model_prediction_label(NULL), "predicted");
}

Test(target, spec_setter)
{
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_target_kind(s), PM_TARGET_TIME);
	cr_assert_null(pm_spec_resource(s));
	EXPECT_FAIL(pm_spec_set_target_kind(NULL, PM_TARGET_SPEEDUP, NULL, NULL, E), PM_EINVAL,
		    "no spec");
	EXPECT_FAIL(pm_spec_set_target_kind(s, (pm_target_kind)9, NULL, NULL, E), PM_EINVAL,
		    "no such target kind");
	EXPECT_FAIL(pm_spec_set_target_kind(s, PM_TARGET_TIME, "nodes", NULL, E), PM_EINVAL,
		    "--resource goes with --target-kind speedup or efficiency, not time");
	EXPECT_FAIL(pm_spec_set_target_kind(s, PM_TARGET_SPEEDUP, NULL, "batch", E), PM_EINVAL,
		    "--per goes with --target-kind throughput");
	EXPECT_FAIL(pm_spec_set_target_kind(s, PM_TARGET_SPEEDUP, "", NULL, E), PM_EINVAL,
		    "empty column name in --resource");
	/* a failure leaves the spec as it was */
	cr_assert_eq(pm_spec_target_kind(s), PM_TARGET_TIME);
	cr_assert_eq(pm_spec_set_target_kind(s, PM_TARGET_THROUGHPUT, NULL, "batch", NULL), PM_OK);
	cr_assert_eq(pm_spec_target_kind(s), PM_TARGET_THROUGHPUT);
	cr_assert_str_eq(pm_spec_per(s), "batch");
	cr_assert_eq(pm_spec_target_kind(NULL), PM_TARGET_INVALID);
	pm_spec_free(s);
}

Test(target, spec_file_keys)
{
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_parse("{\"target\": \"e\", \"extrinsic\": [\"n\", \"g\"], "
				   "\"target_kind\": \"efficiency\", \"resource\": \"g\"}",
				   "s.json", &s, NULL), PM_OK);
	cr_assert_eq(pm_spec_target_kind(s), PM_TARGET_EFFICIENCY);
	cr_assert_str_eq(pm_spec_resource(s), "g");
	pm_spec_free(s);
	EXPECT_FAIL(pm_spec_parse("{\"target\": \"e\", \"target_kind\": \"fast\"}", "s.json",
				  &s, E), PM_ESCHEMA, "unknown target kind 'fast'");
	EXPECT_FAIL(pm_spec_parse("{\"target\": \"e\", \"target_kind\": 2}", "s.json", &s, E),
		    PM_ESCHEMA, "'target_kind' must be a string");
	EXPECT_FAIL(pm_spec_parse("{\"target\": \"e\", \"per\": \"b\"}", "s.json", &s, E),
		    PM_ESCHEMA, "--per goes with --target-kind throughput");
	EXPECT_FAIL(pm_spec_parse("{\"target\": \"e\", \"target_kinds\": \"speedup\"}", "s.json",
				  &s, E), PM_ESCHEMA, "did you mean 'target_kind'?");
}

Test(target, resolve)
{
	pm_dataset *d = parse("nodes,gpus,y,mode\n1,1,1,a\n2,2,2,b\n");
	pm_spec *s = spec("y", "gpus,nodes", PM_TARGET_SPEEDUP, NULL, NULL);
	pm_error e = { 0 };

	/* the first extrinsic column is the resource by default */
	cr_assert_eq(pm_spec_resolve(s, d, &e), PM_OK, "%s", e.msg);
	cr_assert_str_eq(pm_spec_resource(s), "gpus");
	pm_spec_free(s);
	s = spec("y", "", PM_TARGET_EFFICIENCY, NULL, NULL);
	pm_spec_add_names(s, PM_SPEC_INTRINSIC, "nodes", NULL);
	EXPECT_FAIL(pm_spec_resolve(s, d, E), PM_ESCHEMA,
		    "--target-kind efficiency is over a resource (threads, nodes, GPUs), by "
		    "default the first extrinsic column; there is none: name it with --resource");
	pm_spec_free(s);
	s = spec("y", "nodes", PM_TARGET_EFFICIENCY, "mode", NULL);
	pm_spec_add_names(s, PM_SPEC_CATEGORICAL, "mode", NULL);
	EXPECT_FAIL(pm_spec_resolve(s, d, E), PM_ESCHEMA,
		    "--resource 'mode' is not a numeric input of the model");
	pm_spec_free(s);
	s = spec("y", "nodes", PM_TARGET_THROUGHPUT, NULL, "batch");
	EXPECT_FAIL(pm_spec_resolve(s, d, E), PM_ESCHEMA, "no column 'batch'");
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* Fitted as 1/S = 0.9 n^-1 + 0.1: eq. 4.4 of one extrinsic input recovers
 * the serial fraction C/(a0 + C), and predicts and evaluates in speedup. */
Test(target, speedup_recovers_amdahl)
{
	char buf[2048];
	pm_dataset *d = parse(amdahl_csv(buf, sizeof(buf), PM_TARGET_SPEEDUP));
	pm_spec *s = spec("y", "nodes", PM_TARGET_SPEEDUP, NULL, NULL);
	pm_model *m = fit(d, s);
	double a0 = param(m, 0, "a0"), c = param(m, 2, "C"), y, x = 100, t;
	pm_metrics mt;

	cr_assert_eq(pm_model_target_kind(m), PM_TARGET_SPEEDUP);
	cr_assert_eq(pm_model_target_resource(m), 0);
	cr_assert_eq(pm_model_target_per(m), SIZE_MAX);
	cr_assert_str_eq(pm_model_prediction_label(m), "predicted_speedup");
	cr_assert_float_eq(param(m, 1, "q_nodes"), -1, 1e-3);
	cr_assert_float_eq(c / (a0 + c), 0.1, 1e-3);
	cr_assert_eq(pm_model_predict_target(m, &x, &y, NULL), PM_OK);
	cr_assert_float_eq(y, amdahl(100), 1e-3 * amdahl(100));
	/* the time scale is 1/S */
	cr_assert_eq(pm_model_predict(m, &x, &t, NULL), PM_OK);
	cr_assert_eq(y, 1 / t);
	/* training accuracy in speedups: near exact */
	cr_assert_lt(pm_model_fit_info(m)->training.mape, 1e-2);
	cr_assert_eq(pm_model_evaluate(m, d, &mt, NULL), PM_OK);
	cr_assert_lt(mt.mae, 1e-3);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* E = S/n, fitted as 1/(n E) = 1/S: the same parameters as the speedup. */
Test(target, efficiency)
{
	char buf[2048];
	pm_dataset *d = parse(amdahl_csv(buf, sizeof(buf), PM_TARGET_EFFICIENCY));
	pm_spec *s = spec("y", "nodes", PM_TARGET_EFFICIENCY, "nodes", NULL);
	pm_model *m = fit(d, s);
	double x = 128, y, t;

	cr_assert_float_eq(param(m, 1, "q_nodes"), -1, 1e-3);
	cr_assert_eq(pm_model_predict_target(m, &x, &y, NULL), PM_OK);
	cr_assert_float_eq(y, amdahl(128) / 128, 1e-3 * y);
	cr_assert_eq(pm_model_predict(m, &x, &t, NULL), PM_OK);
	cr_assert_eq(y, 1 / x / t);
	/* conversion errors: a resource that is no count, a time scale <= 0 */
	x = 0;
	EXPECT_FAIL(pm_model_target_value(m, &x, t, &y, E), PM_EDOMAIN,
		    "resource 'nodes': 0 is not a finite number > 0");
	x = 2;
	EXPECT_FAIL(pm_model_target_value(m, &x, 0, &y, E), PM_ERANGE, "no efficiency");
	EXPECT_FAIL(pm_model_target_value(m, NULL, t, &y, E), PM_EINVAL, "NULL argument");
	EXPECT_FAIL(pm_model_target_value(m, &x, t, NULL, E), PM_EINVAL, "NULL argument");
	EXPECT_FAIL(pm_model_predict_target(m, &x, NULL, E), PM_EINVAL, "NULL argument");
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* X = b / t with t = 0.002 b / w + 0.01 s per batch: with per = b the time
 * scale is that time, recovered; without per, 1/X. */
Test(target, throughput_per)
{
	char buf[2048];
	size_t used = (size_t)snprintf(buf, sizeof(buf), "w,b,x\n");
	pm_dataset *d;
	pm_spec *s;
	pm_model *m;
	double pt[2] = { 128, 16 }, y;	/* intrinsic b, then extrinsic w */

	for (int w = 1; w <= 8; w *= 2)
		for (int b = 16; b <= 64; b *= 2)
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%d,%d,%.17g\n", w,
						 b, b / (0.002 * b / w + 0.01));
	d = parse(buf);
	s = spec("x", "w", PM_TARGET_THROUGHPUT, NULL, "b");
	pm_spec_add_names(s, PM_SPEC_INTRINSIC, "b", NULL);
	m = fit(d, s);
	cr_assert_eq(pm_model_target_per(m), 0);
	cr_assert_float_eq(param(m, 3, "C"), 0.01, 1e-4);
	cr_assert_float_eq(param(m, 1, "p_b"), 1, 1e-3);
	cr_assert_eq(pm_model_predict_target(m, pt, &y, NULL), PM_OK);
	cr_assert_float_eq(y, 128 / (0.002 * 128 / 16 + 0.01), 1e-3 * y);
	pt[0] = -1;
	EXPECT_FAIL(pm_model_target_value(m, pt, 1, &y, E), PM_EDOMAIN, "per 'b': -1 is not");
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* The target's values and the kind's columns are checked by cell. */
Test(target, bad_values)
{
	pm_dataset *d = parse("n,y\n1,1\n2,0\n3,2.5\n4,3\n");
	pm_spec *s = spec("y", "n", PM_TARGET_SPEEDUP, NULL, NULL);
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;

	EXPECT_FAIL(pm_fit(d, s, &o, &m, E), PM_EDOMAIN, "target 'y': 0 is not a speedup > 0");
	pm_spec_free(s);
	pm_dataset_free(d);
	/* a resource only in an indicator is not checked by its power: by the kind */
	d = parse("n,y\n1,1\n2,0.9\n0,0.8\n4,0.7\n");
	s = spec("y", "n", PM_TARGET_EFFICIENCY, NULL, NULL);
	cr_assert_eq(pm_spec_set_form(s, "a * [n > 1] + C", NULL), PM_OK);
	{
		pm_error e = { 0 };

		cr_assert_eq(pm_fit(d, s, &o, &m, &e), PM_EDOMAIN);
		cr_assert(strstr(e.msg, "resource 'n': 0 is not > 0"), "%s", e.msg);
		cr_assert_eq(e.line, 4);
		cr_assert_eq(e.column, 1);
		cr_assert_str_eq(e.file, "t.csv");
	}
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* An edit of a saved model's text: the first `from` replaced by `to`. */
static char *edit(const char *json, const char *from, const char *to)
{
	const char *at = strstr(json, from);
	size_t n = strlen(json) - strlen(from) + strlen(to) + 1, head;
	char *out = malloc(n);

	cr_assert_not_null(at, "no '%s'", from);
	head = (size_t)(at - json);
	memcpy(out, json, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	return out;
}

Test(target, model_file)
{
	/* edits of the saved text (from, to) and the error they give */
	static const char *const broken[][3] = {
		{ "\"efficiency\"", "\"fast\"", "target_kind" },
		{ "  \"resource\": \"nodes\",\n", "", "target kind efficiency needs its resource" },
		{ "\"resource\": \"nodes\"", "\"resource\": \"gpus\"",
		  "resource 'gpus' is not a numeric input of the model" },
		{ "\"resource\": \"nodes\"", "\"per\": \"nodes\"",
		  "per goes with target kind throughput, not efficiency" },
		{ "\"efficiency\"", "\"time\"",
		  "a resource goes with target kind speedup or efficiency, not time" },
	};
	char buf[2048], *json = NULL, *bad;
	pm_dataset *d = parse(amdahl_csv(buf, sizeof(buf), PM_TARGET_EFFICIENCY));
	pm_spec *s = spec("y", "nodes", PM_TARGET_EFFICIENCY, NULL, NULL);
	pm_model *m = fit(d, s), *back = NULL;
	double x = 40, y1, y2;

	cr_assert_eq(pm_model_to_json(m, &json, NULL), PM_OK);
	cr_assert(strstr(json, "\"version\": 2,"), "%s", json);
	cr_assert(strstr(json, "\"target_kind\": \"efficiency\",\n  \"resource\": \"nodes\""));
	cr_assert_eq(pm_model_load_string(json, "m.json", &back, NULL), PM_OK);
	cr_assert_eq(pm_model_target_kind(back), PM_TARGET_EFFICIENCY);
	cr_assert_eq(pm_model_predict_target(m, &x, &y1, NULL), PM_OK);
	cr_assert_eq(pm_model_predict_target(back, &x, &y2, NULL), PM_OK);
	cr_assert_eq(y1, y2);
	pm_model_free(back);
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		bad = edit(json, broken[i][0], broken[i][1]);
		EXPECT_FAIL(pm_model_load_string(bad, "m.json", &back, E), PM_ESCHEMA,
			    broken[i][2]);
		free(bad);
	}
	/* a model without the members is a time model, as every file before */
	bad = edit(json, "  \"target_kind\": \"efficiency\",\n  \"resource\": \"nodes\",\n", "");
	cr_assert_eq(pm_model_load_string(bad, "m.json", &back, NULL), PM_OK);
	cr_assert_eq(pm_model_target_kind(back), PM_TARGET_TIME);
	cr_assert_eq(pm_model_target_value(back, NULL, 2.5, &y1, NULL), PM_OK);
	cr_assert_eq(y1, 2.5);
	cr_assert_str_eq(pm_model_prediction_label(back), "predicted");
	pm_model_free(back);
	free(bad);
	free(json);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}
