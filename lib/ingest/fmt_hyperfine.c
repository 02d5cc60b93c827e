/* hyperfine --export-json: {"results": [{"command", "times": [s...],
 * "exit_codes": [0...], "parameters": {"name": "value"}}]} (hyperfine 1.x;
 * the parameters come from --parameter-scan / --parameter-list, the exit
 * codes from 1.12 on). One row per successful time, in seconds: the times
 * are the repetitions. Without parameters the command is the only column
 * besides the time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest_impl.h"
#include "core/json_read.h"
#include "data/table.h"

#define MAX_PARAMS 64

/* the parameter names of the first result: every result must have them */
static pm_status param_names(pm_jctx *c, const cJSON *first, const char **names,
			     size_t *n, int *by_command)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(first, "parameters");

	*n = 0;
	*by_command = !p || cJSON_GetArraySize(p) == 0;
	if (*by_command) {
		names[(*n)++] = "command";
		return PM_OK;
	}
	if (!cJSON_IsObject(p))
		return pm__json_fail(c, PM_ESCHEMA, "'parameters' must be an object");
	for (const cJSON *v = p->child; v; v = v->next) {
		if (*n == MAX_PARAMS)
			return pm__json_fail(c, PM_ESCHEMA, "more than %d parameters", MAX_PARAMS);
		names[(*n)++] = v->string;
	}
	return PM_OK;
}

/* A run counts unless its exit code (hyperfine >= 1.12 writes them, and
 * keeps failed runs with --ignore-failure) says it failed: a number other
 * than 0, or null (killed by a signal). */
static pm_status run_ok(pm_jctx *c, const cJSON *code, size_t k, int *ok)
{
	if (!code) {
		*ok = 1;
		return PM_OK;
	}
	if (!cJSON_IsNull(code) && !cJSON_IsNumber(code))
		return pm__json_fail(c, PM_ESCHEMA, "exit_codes[%zu] must be a number or null", k);
	*ok = cJSON_IsNumber(code) && code->valuedouble == 0;
	return PM_OK;
}

static pm_status one_result(pm_jctx *c, const cJSON *res, const char *const *names,
			    size_t n, int by_command, pm_table *t)
{
	const cJSON *times, *codes, *code = NULL, *params = NULL, *v;
	const char *cell[MAX_PARAMS];
	size_t ntimes, ncodes, k = 0, kept = 0;
	int ok = 0;
	pm_status rc;

	if (!cJSON_IsObject(res))
		return pm__json_fail(c, PM_ESCHEMA, "must be an object");
	if ((rc = pm__json_array(c, res, "times", 1, &times, &ntimes)) ||
	    (rc = pm__json_array(c, res, "exit_codes", 0, &codes, &ncodes)))
		return rc;
	if (codes && ncodes != ntimes)
		return pm__json_fail(c, PM_ESCHEMA, "%zu exit_codes for %zu times", ncodes,
				     ntimes);
	if (codes)
		code = codes->child;
	if (by_command) {
		if ((rc = pm__json_string(c, res, "command", &cell[0])))
			return rc;
	} else {
		if ((rc = pm__json_object(c, res, "parameters", 1, &params)))
			return rc;
		if (cJSON_GetArraySize(params) != (int)n)
			return pm__json_fail(c, PM_ESCHEMA, "its parameters differ from the "
					     "first result's");
		for (size_t i = 0; i < n; i++) {
			v = cJSON_GetObjectItemCaseSensitive(params, names[i]);
			if (!v)
				return pm__json_fail(c, PM_ESCHEMA, "no parameter '%s'", names[i]);
			if (!cJSON_IsString(v))
				return pm__json_fail(c, PM_ESCHEMA, "parameter '%s' must be a string",
						     names[i]);
			cell[i] = v->valuestring;
		}
	}
	for (v = times->child; v; v = v->next, k++, code = code ? code->next : NULL) {
		if (!cJSON_IsNumber(v) || !(v->valuedouble > 0))
			return pm__json_fail(c, PM_ESCHEMA, "times[%zu] must be a number > 0", k);
		if ((rc = run_ok(c, code, k, &ok)))
			return rc;
		if (!ok)
			continue;
		for (size_t i = 0; i < n; i++)
			if ((rc = pm__table_add(t, cell[i], c->err)))
				return rc;
		if ((rc = pm__table_add_number(t, v->valuedouble, c->err)))
			return rc;
		kept++;
	}
	if (!kept && ntimes)
		return pm__json_fail(c, PM_ESCHEMA, "every run failed (exit_codes): no time to "
				     "use");
	return PM_OK;
}

pm_status pm__read_hyperfine(const char *text, size_t len, const char *name,
			     pm_dataset **out, pm_error *err)
{
	const char *names[MAX_PARAMS + 1];
	char where[48];
	pm_jctx c = { .name = name, .err = err };
	pm_table t = { 0 };
	const cJSON *results, *res;
	cJSON *root = NULL;
	size_t n = 0, nres, i = 0;
	int by_command;
	pm_status rc;

	*out = NULL;
	if ((rc = pm__json_parse(text, len, name, &root, err)))
		return rc;
	if (!cJSON_IsObject(root)) {
		rc = pm__json_fail(&c, PM_ESCHEMA, "a hyperfine export is an object with "
				   "'results'");
		goto out;
	}
	if ((rc = pm__json_array(&c, root, "results", 1, &results, &nres)))
		goto out;
	if (nres == 0) {
		rc = pm__json_fail(&c, PM_ESCHEMA, "'results' is empty");
		goto out;
	}
	c.where = "results[0]";
	if ((rc = param_names(&c, results->child, names, &n, &by_command)))
		goto out;
	names[n] = PM_INGEST_TIME_COLUMN;
	t.ncols = n + 1;
	t.names = names;
	cJSON_ArrayForEach(res, results) {
		snprintf(where, sizeof(where), "results[%zu]", i++);
		c.where = where;
		if ((rc = one_result(&c, res, names, n, by_command, &t)))
			goto out;
	}
	rc = pm__table_build(&t, name, out, err);
out:
	pm__table_free(&t);
	cJSON_Delete(root);
	return rc;
}
