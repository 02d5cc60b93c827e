/* The lines of perfmodel batch's results (results/batch_json.c): one line
 * each, the model document as model.json has it but for "run" (unless
 * timings), ids of every kind, the marker, and their errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(batch_json);

/* A fitted model with a "run" member (threads used, wall time). */
static pm_model *fitted(void)
{
	char path[4096];
	pm_model *m = NULL;
	pm_error e = { 0 };

	snprintf(path, sizeof(path), "%s/ddp_mlp_multiplicative.json", getenv("PM_TEST_DATA"));
	cr_assert_eq(pm_model_load_file(path, &m, &e), PM_OK, "%s", e.msg);
	return m;
}

/* line's "model" as the text model.json would be, compacted by cJSON: the
 * same members and values as pm_model_to_json's, "run" removed unless
 * keep_run. */
static void expect_same_model(const char *line, const pm_model *m, int keep_run)
{
	cJSON *got = cJSON_Parse(line), *want;
	char *doc = NULL;

	cr_assert_not_null(got, "not JSON: %.200s", line);
	cr_assert_eq(pm_model_to_json(m, &doc, NULL), PM_OK);
	want = cJSON_Parse(doc);
	free(doc);
	if (!keep_run)
		cJSON_DeleteItemFromObjectCaseSensitive(want, "run");
	cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(got, "model"), want, 1));
	cJSON_Delete(got);
	cJSON_Delete(want);
}

Test(batch_json, model_line)
{
	pm_model *m = fitted(), *back = NULL;
	pm_batch_id id = { .text = "gemm \"s3\"", .given = 1 };
	pm_error e = { 0 };
	char *line = NULL;
	cJSON *o;

	cr_assert_eq(pm_batch_line_to_json(&id, m, NULL, 0, &line, &e), PM_OK, "%s", e.msg);
	/* one line, newline-ended, the id first */
	cr_assert_eq(strchr(line, '\n'), line + strlen(line) - 1);
	{
		static const char head[] = "{\"id\": \"gemm \\\"s3\\\"\", \"model\": {\"format\": ";

		cr_assert_eq(strncmp(line, head, sizeof(head) - 1), 0, "%.80s", line);
	}
	cr_assert_null(strstr(line, "wall_time_s"));
	expect_same_model(line, m, 0);
	/* the loader takes the model without its "run" */
	o = cJSON_Parse(line);
	{
		char *model = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(o, "model"));

		cr_assert_eq(pm_model_load_string(model, "line", &back, &e), PM_OK, "%s", e.msg);
		free(model);
	}
	cJSON_Delete(o);
	pm_model_free(back);
	free(line);
	/* --timings keeps it */
	cr_assert_eq(pm_batch_line_to_json(&id, m, NULL, 1, &line, &e), PM_OK, "%s", e.msg);
	cr_assert_not_null(strstr(line, "\"run\": {\"threads\": 0, \"threads_used\": 2, "
				      "\"wall_time_s\": 0.046266551}"));
	expect_same_model(line, m, 1);
	free(line);
	pm_model_free(m);
}

Test(batch_json, error_lines_and_ids)
{
	pm_error e = { 0 };
	char *line = NULL;

	cr_assert_eq(pm_batch_line_to_json(&(pm_batch_id){ .number = -42, .given = 1 }, NULL,
					   "a.csv:3:4: bad \"number\"\n", 0, &line, &e), PM_OK);
	cr_assert_str_eq(line, "{\"id\": -42, \"error\": \"a.csv:3:4: bad \\\"number\\\"\\n\"}\n");
	free(line);
	/* a line that was no job: no id */
	cr_assert_eq(pm_batch_line_to_json(&(pm_batch_id){ .text = "x" }, NULL, "not JSON", 1,
					   &line, &e), PM_OK);
	cr_assert_str_eq(line, "{\"id\": null, \"error\": \"not JSON\"}\n");
	free(line);
	cr_assert_eq(pm_batch_line_to_json(NULL, NULL, "e", 0, &line, &e), PM_OK);
	cr_assert_str_eq(line, "{\"id\": null, \"error\": \"e\"}\n");
	free(line);
}

Test(batch_json, misuse)
{
	pm_model *m = fitted();
	pm_error e = { 0 };
	char *line = (char *)"untouched";

	cr_assert_eq(pm_batch_line_to_json(NULL, NULL, NULL, 0, &line, &e), PM_EINVAL);
	cr_assert_null(line);
	cr_assert_eq(pm_batch_line_to_json(NULL, m, "both", 0, &line, &e), PM_EINVAL);
	cr_assert_null(line);
	cr_assert_eq(pm_batch_line_to_json(NULL, m, NULL, 0, NULL, &e), PM_EINVAL);
	cr_assert_eq(pm_batch_incomplete_to_json(3, 2, &line, &e), PM_EINVAL);
	cr_assert_null(line);
	cr_assert_eq(pm_batch_incomplete_to_json(1, 2, NULL, NULL), PM_EINVAL);
	pm_model_free(m);
}

Test(batch_json, incomplete_marker)
{
	char *line = NULL;

	cr_assert_eq(pm_batch_incomplete_to_json(17, 40, &line, NULL), PM_OK);
	cr_assert_str_eq(line, "{\"incomplete\": true, \"done\": 17, \"jobs\": 40}\n");
	free(line);
	cr_assert_eq(pm_batch_incomplete_to_json(0, 0, &line, NULL), PM_OK);
	cr_assert_str_eq(line, "{\"incomplete\": true, \"done\": 0, \"jobs\": 0}\n");
	free(line);
}
