/* The documents of eval, predict, advise and --version --json
 * (results/results_json.c), to the byte, with their escaping, their exact
 * numbers and their errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "leak_check.h"
#include "model_fixture.h"
#include "model/model_impl.h"

PM_LEAK_CHECKED_SUITE(results_json);

/* t = a * n^p * g^q * b^qb + C with every input named to need escaping:
 * a quote, a backslash, UTF-8. */
static pm_model *toy(void)
{
	static const char *const names[] = { "n", "g\"\xc3\xa9", "b\\" };
	static const pm_role role[] = { PM_ROLE_INTRINSIC, PM_ROLE_EXTRINSIC, PM_ROLE_EXTRINSIC };
	const size_t nlevels[3] = { 0 };
	pm_model *m = NULL;

	cr_assert_eq(pm__model_new("t\x01", 3, (const char **)names, role, nlevels, NULL, NULL,
				   &m, NULL), PM_OK);
	m->value[0] = 1;
	m->value[1] = 1;
	m->value[2] = -1;
	m->value[3] = 0;
	m->value[4] = 0;
	pm__model_raw(m);
	return m;
}

/* doc by address: the call that fills it is an argument of the same call */
static void expect_doc(pm_status st, char **doc, const pm_error *e, const char *want)
{
	cr_assert_eq(st, PM_OK, "%s", e->msg);
	cr_assert_str_eq(*doc, want, "got:\n%s\nwant:\n%s", *doc, want);
	free(*doc);
	*doc = NULL;
}

Test(results_json, eval_document)
{
	pm_model *m = toy();
	const pm_metrics x = { .n = 3, .mape_n = 3, .mae = 0.5, .mape = 10, .mse = 0.25, .rmse = 0.5,
			       .r2 = NAN, .smape = 1e-300, .adj_r2 = -0.1 };
	pm_error e = { 0 };
	char *doc = NULL;

	expect_doc(pm_eval_to_json(m, "m\n.json", "d \xe2\x82\xac.csv", &x, &doc, &e), &doc, &e,
		   "{\"model\": \"m\\n.json\", \"file\": \"d \xe2\x82\xac.csv\", \"target\": "
		   "\"t\\u0001\", \"rows\": 3, \"mae\": 0.5, \"mape\": 10, \"mse\": 0.25, "
		   "\"rmse\": 0.5, \"r2\": null, \"smape\": 1e-300, \"adj_r2\": -0.1}\n");
	expect_doc(pm_eval_to_json(m, NULL, NULL, &x, &doc, &e), &doc, &e,
		   "{\"model\": null, \"file\": null, \"target\": \"t\\u0001\", \"rows\": 3, "
		   "\"mae\": 0.5, \"mape\": 10, \"mse\": 0.25, \"rmse\": 0.5, \"r2\": null, "
		   "\"smape\": 1e-300, \"adj_r2\": -0.1}\n");
	doc = (char *)&x;
	EXPECT_FAIL(pm_eval_to_json(NULL, "m", "d", &x, &doc, E), PM_EINVAL, "no model or metrics");
	cr_expect_null(doc);
	EXPECT_FAIL(pm_eval_to_json(m, "m", "d", NULL, &doc, E), PM_EINVAL, "no model or metrics");
	EXPECT_FAIL(pm_eval_to_json(m, "m", "d", &x, NULL, E), PM_EINVAL,
		    "no place for the document");
	pm_model_free(m);
}

/* A cell is a number when strtod takes all of it and it is finite, else its
 * text; the predictions read back bit-exact. */
Test(results_json, predictions_document)
{
	static const char csv[] =
		"n,\"g\"\"\xc3\xa9\",lab\n"
		"512,1,relu\n"
		"1e3,0x10,\" 5\"\n"
		"-0,inf,\"a\tb\"\n"
		"0.1,,nan\n";
	const double pred[] = { 0.1, 1.0 / 3, -2.5e-7, NAN };
	pm_dataset *d = NULL;
	pm_error e = { 0 };
	char *doc = NULL;

	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "p.csv", &d, &e), PM_OK, "%s", e.msg);
	expect_doc(pm_predictions_to_json(d, pred, NULL, &doc, &e), &doc, &e,
		   "[\n"
		   "  {\"n\": 512, \"g\\\"\xc3\xa9\": 1, \"lab\": \"relu\", \"predicted\": 0.1},\n"
		   "  {\"n\": 1000, \"g\\\"\xc3\xa9\": 16, \"lab\": 5, "
		   "\"predicted\": 0.3333333333333333},\n"
		   "  {\"n\": -0, \"g\\\"\xc3\xa9\": \"inf\", \"lab\": \"a\\tb\", "
		   "\"predicted\": -2.5e-07},\n"
		   "  {\"n\": 0.1, \"g\\\"\xc3\xa9\": \"\", \"lab\": \"nan\", \"predicted\": null}\n"
		   "]\n");
	EXPECT_FAIL(pm_predictions_to_json(NULL, pred, NULL, &doc, E), PM_EINVAL, "no points");
	EXPECT_FAIL(pm_predictions_to_json(d, NULL, NULL, &doc, E), PM_EINVAL, "no points");
	pm_dataset_free(d);
}

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return *s ^ (*s >> 29);
}

Test(results_json, predictions_read_back_exactly)
{
	enum { N = 5000 };
	static double pred[N];
	size_t cap = 8 + 4 * N, len = 0;
	char *csv = malloc(cap), *doc = NULL;
	uint64_t s = 3;
	pm_dataset *d = NULL;
	pm_error e = { 0 };
	cJSON *root, *it;
	size_t i = 0;

	len += (size_t)snprintf(csv + len, cap - len, "x\n");
	for (size_t k = 0; k < N; k++) {
		uint64_t bits = next(&s);

		memcpy(&pred[k], &bits, sizeof(double));
		if (!isfinite(pred[k]))
			pred[k] = (double)bits;
		len += (size_t)snprintf(csv + len, cap - len, "%zu\n", k % 100);
	}
	cr_assert_eq(pm_dataset_parse_csv(csv, len, "x.csv", &d, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_predictions_to_json(d, pred, NULL, &doc, &e), PM_OK, "%s", e.msg);
	root = cJSON_Parse(doc);
	cr_assert_not_null(root);
	cJSON_ArrayForEach(it, root) {
		double got = cJSON_GetObjectItemCaseSensitive(it, "predicted")->valuedouble;

		cr_assert_eq(memcmp(&got, &pred[i], sizeof(got)), 0, "row %zu: %a read back as %a",
			     i, pred[i], got);
		cr_assert_eq(cJSON_GetObjectItemCaseSensitive(it, "x")->valuedouble,
			     (double)(i % 100));
		i++;
	}
	cr_assert_eq(i, N);
	cJSON_Delete(root);
	pm_dataset_free(d);
	free(doc);
	free(csv);
}

/* An advice of toy(): g varied over 1, 2 and b at 8; no largest pick. */
static const double toy_gs[] = { 1, 2 }, toy_bs[] = { 8 };
static const pm_vary toy_vary[] = { { 1, 2, toy_gs }, { 2, 1, toy_bs } };
static const pm_advice toy_advice = {
	.combinations = 2,
	.fastest = { 1, { 2, 8 }, 0.25, 0.5, 2, 1 },
	.cheapest = { 1, { 1, 8 }, 0.5, 0.5, 1, 1 },
	.largest = { 0 },
};

Test(results_json, advice_document)
{
	pm_model *m = toy();
	const pm_vary *vary = toy_vary;
	pm_advise_options o = pm_advise_options_default();
	const pm_advice a = toy_advice;
	pm_error e = { 0 };
	char *doc = NULL;

	o.min_efficiency = 0.7;
	expect_doc(pm_advice_to_json(m, "m.json", vary, 2, &o, &a, &doc, &e), &doc, &e,
		   "{\n"
		   "  \"model\": \"m.json\",\n"
		   "  \"target\": \"t\\u0001\",\n"
		   "  \"resource\": \"g\\\"\xc3\xa9\",\n"
		   "  \"min_efficiency\": 0.7,\n"
		   "  \"combinations\": 2,\n"
		   "  \"max_extrapolation\": null,\n"
		   "  \"left_beyond\": 0,\n"
		   "  \"fastest\": {\"values\": {\"g\\\"\xc3\xa9\": 2, \"b\\\\\": 8}, "
		   "\"time\": 0.25, "
		   "\"cost\": 0.5, \"speedup\": 2, \"efficiency\": 1, \"extrapolated\": null},\n"
		   "  \"cheapest\": {\"values\": {\"g\\\"\xc3\xa9\": 1, \"b\\\\\": 8}, "
		   "\"time\": 0.5, "
		   "\"cost\": 0.5, \"speedup\": 1, \"efficiency\": 1, \"extrapolated\": null},\n"
		   "  \"largest\": null\n"
		   "}\n");
	o.resource = 1;
	cr_assert_eq(pm_advice_to_json(m, "m.json", vary, 2, &o, &a, &doc, &e), PM_OK);
	cr_assert(strstr(doc, "\"resource\": \"b\\\\\""), "%s", doc);
	free(doc);
	/* advise --quantile: the quantile, and each pick's quantile time */
	{
		pm_advice aq = a;

		aq.fastest.quantile_time = 0.375;
		aq.cheapest.quantile_time = 0.75;
		o.quantile = 0.9;
		cr_assert_eq(pm_advice_to_json(m, "m.json", vary, 2, &o, &aq, &doc, &e), PM_OK);
		cr_expect(strstr(doc, "\"min_efficiency\": 0.7,\n  \"quantile\": 0.9,\n"), "%s", doc);
		cr_expect(strstr(doc, "\"efficiency\": 1, \"quantile_time\": 0.375, "
				 "\"extrapolated\": null},\n"), "%s", doc);
		cr_expect(strstr(doc, "\"efficiency\": 1, \"quantile_time\": 0.75, "
				 "\"extrapolated\": null},\n"), "%s", doc);
		free(doc);
		o.quantile = 0;
	}

	o.resource = 2;
	EXPECT_FAIL(pm_advice_to_json(m, "m", vary, 2, &o, &a, &doc, E), PM_EINVAL, "resource 2");
	cr_expect_null(doc);
	o.resource = 0;
	EXPECT_FAIL(pm_advice_to_json(m, "m", vary, 0, &o, &a, &doc, E), PM_EINVAL,
		    "0 varied inputs");
	EXPECT_FAIL(pm_advice_to_json(m, "m", vary, PM_ADVISE_MAX_VARY + 1, &o, &a, &doc, E),
		    PM_EINVAL, "9 varied inputs");
	const pm_vary out_of_range[] = { { 3, 2, toy_gs } };
	EXPECT_FAIL(pm_advice_to_json(m, "m", out_of_range, 1, &o, &a, &doc, E), PM_EINVAL,
		    "varied input 3: the model has 3 inputs");
	EXPECT_FAIL(pm_advice_to_json(m, "m", vary, 2, NULL, &a, &doc, E), PM_EINVAL, "no model");
	EXPECT_FAIL(pm_advice_to_json(m, "m", vary, 2, &o, NULL, &doc, E), PM_EINVAL, "no model");
	pm_model_free(m);
}

/* advise --slurm --json: the advice document, then "slurm" with the
 * limits, their risks, each varied input's option and the sbatch text. */
Test(results_json, slurm_document)
{
	pm_model *m = toy();
	const pm_vary *vary = toy_vary;
	pm_advise_options o = pm_advise_options_default();
	const pm_advice a = toy_advice;
	const pm_slurm_limits l = { 3828.5, 1790, 64, 30, "01:04:00", "00:30:00", 2, 1 };
	const char *const option[] = { "--cpus-per-task", NULL };
	pm_slurm_pick s = { "fastest", 0.95, 0.8, option, &l };
	pm_error e = { 0 };
	char *doc = NULL, *plain = NULL;

	cr_assert_eq(pm_advice_to_json(m, "m.json", vary, 2, &o, &a, &plain, &e), PM_OK);
	cr_assert_eq(pm_advice_slurm_to_json(m, "m.json", vary, 2, &o, &a, &s, &doc, &e), PM_OK,
		     "%s", e.msg);
	/* the advice document unchanged up to its last member */
	cr_expect_eq(strncmp(doc, plain, strlen(plain) - 3), 0, "%s", doc);
	cr_expect(strstr(doc,
			 "  \"largest\": null,\n"
			 "  \"slurm\": {\n"
			 "    \"pick\": \"fastest\",\n"
			 "    \"time\": {\"limit\": \"01:04:00\", \"minutes\": 64, \"quantile\": 0.95, "
			 "\"seconds\": 3828.5, \"kill_risk\": 0.05},\n"
			 "    \"time_min\": {\"limit\": \"00:30:00\", \"minutes\": 30, \"quantile\": 0.8, "
			 "\"seconds\": 1790, \"kill_risk\": 0.2},\n"
			 "    \"options\": [\n"
			 "      {\"input\": \"g\\\"\xc3\xa9\", \"option\": \"--cpus-per-task\", \"value\": 2},\n"
			 "      {\"input\": \"b\\\\\", \"option\": null, \"value\": 8}\n"
			 "    ],\n"
			 "    \"sbatch\": [\"--time=01:04:00\", \"--time-min=00:30:00\", "
			 "\"--cpus-per-task=2\"],\n"
			 "    \"extrapolated\": true,\n"
			 "    \"distance\": 2\n"
			 "  }\n"
			 "}\n"), "%s", doc);
	free(doc);
	free(plain);
	/* no options at all: every input's null, sbatch the two limits */
	s.option = NULL;
	s.pick = "cheapest";
	cr_assert_eq(pm_advice_slurm_to_json(m, "m.json", vary, 2, &o, &a, &s, &doc, &e), PM_OK);
	cr_expect(strstr(doc, "\"sbatch\": [\"--time=01:04:00\", \"--time-min=00:30:00\"],"),
		  "%s", doc);
	cr_expect(strstr(doc, "\"option\": null, \"value\": 1}"), "%s", doc);
	free(doc);

	s.pick = "largest";
	EXPECT_FAIL(pm_advice_slurm_to_json(m, "m", vary, 2, &o, &a, &s, &doc, E), PM_EINVAL,
		    "the largest pick found no combination");
	cr_expect_null(doc);
	s.pick = "slowest";
	EXPECT_FAIL(pm_advice_slurm_to_json(m, "m", vary, 2, &o, &a, &s, &doc, E), PM_EINVAL,
		    "no pick 'slowest': fastest, cheapest or largest");
	s.pick = "fastest";
	EXPECT_FAIL(pm_advice_slurm_to_json(m, "m", vary, 0, &o, &a, &s, &doc, E), PM_EINVAL,
		    "0 varied inputs");
	EXPECT_FAIL(pm_advice_slurm_to_json(m, "m", vary, 2, &o, &a, NULL, &doc, E), PM_EINVAL,
		    "no model, vary list, options, advice or Slurm pick");
	s.limits = NULL;
	EXPECT_FAIL(pm_advice_slurm_to_json(m, "m", vary, 2, &o, &a, &s, &doc, E), PM_EINVAL,
		    "Slurm pick");
	s.limits = &l;
	s.pick = NULL;
	EXPECT_FAIL(pm_advice_slurm_to_json(m, "m", vary, 2, &o, &a, &s, &doc, E), PM_EINVAL,
		    "Slurm pick");
	EXPECT_FAIL(pm_advice_slurm_to_json(m, "m", vary, 2, &o, &a, &s, NULL, E), PM_EINVAL,
		    "no place for the document");
	pm_model_free(m);
}

/* A real search's document reads back as the advice it came from. */
Test(results_json, advice_of_a_search_reads_back)
{
	pm_model *m = load_fixture("docs/examples/ddp_mlp_model.json");
	const double ws[] = { 1, 2, 4, 8 }, bs[] = { 32, 64 };
	pm_vary v[2] = { { 0, 4, ws }, { 0, 2, bs } };
	pm_advise_options o = pm_advise_options_default();
	pm_point *p = NULL;
	pm_advice a;
	pm_error e = { 0 };
	char *doc = NULL;
	cJSON *root, *f;

	cr_assert_eq(pm_model_input_index(m, "world_size", &v[0].input, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_model_input_index(m, "batch_size", &v[1].input, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_point_new(m, &p, &e), PM_OK);
	cr_assert_eq(pm_point_set_json(p, "{\"hidden\": 256, \"layers\": 2, \"input_dim\": 784, "
				       "\"activation\": \"relu\"}", NULL, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_model_advise(m, pm_point_values(p), v, 2, &o, &a, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_advice_to_json(m, "x.json", v, 2, &o, &a, &doc, &e), PM_OK, "%s", e.msg);
	root = cJSON_Parse(doc);
	cr_assert_not_null(root, "%s", doc);
	cr_assert_eq(cJSON_GetObjectItem(root, "combinations")->valuedouble, 8);
	f = cJSON_GetObjectItem(root, "fastest");
	cr_assert_eq(cJSON_GetObjectItem(f, "time")->valuedouble, a.fastest.time);
	cr_assert_eq(cJSON_GetObjectItem(f, "cost")->valuedouble, a.fastest.cost);
	f = cJSON_GetObjectItem(f, "values");
	cr_assert_eq(cJSON_GetObjectItem(f, "world_size")->valuedouble, a.fastest.value[0]);
	cJSON_Delete(root);
	free(doc);
	pm_point_free(p);
	pm_model_free(m);
}

Test(results_json, version_document)
{
	char want[128], *doc = NULL;
	pm_error e = { 0 };

	snprintf(want, sizeof(want), "{\"name\": \"perfmodel\", \"version\": \"%s\"}\n",
		 pm_version());
	expect_doc(pm_version_to_json(&doc, &e), &doc, &e, want);
	EXPECT_FAIL(pm_version_to_json(NULL, E), PM_EINVAL, "no place for the document");
}
