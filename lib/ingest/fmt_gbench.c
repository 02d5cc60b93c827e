/* Google Benchmark JSON (--benchmark_format=json or --benchmark_out):
 * {"context": {...}, "benchmarks": [{"name", "run_name", "run_type",
 * "real_time", "time_unit", ...}]}. One row per iteration run (aggregate
 * rows such as "_mean" are skipped: we aggregate the runs ourselves), the
 * parameters read from the name, the time real_time in seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest_impl.h"
#include "core/json_read.h"
#include "data/table.h"

#define MAX_FIELDS 64
#define PATTERN_MAX 1024

struct pattern {
	char text[PATTERN_MAX];	/* the pattern, each "{col}" cut to "\0col\0" */
	const char *lit[MAX_FIELDS + 1];	/* literal before field i; lit[n] after the last */
	const char *col[MAX_FIELDS];
	size_t n;
};

/* Split "BM_x/{n}/threads:{t}" into literals and column names. */
static pm_status compile(const pm_jctx *c, const char *src, struct pattern *p)
{
	char *s = p->text;

	if (strlen(src) >= PATTERN_MAX)
		return pm__json_fail(c, PM_EINVAL, "--name-pattern is too long");
	strcpy(p->text, src);
	p->n = 0;
	p->lit[0] = s;
	while ((s = strchr(s, '{'))) {
		char *close = strchr(s, '}');

		if (!close || close == s + 1)
			return pm__json_fail(c, PM_EINVAL, "--name-pattern '%s': '{' needs a column "
					     "name and '}'", src);
		if (p->n == MAX_FIELDS)
			return pm__json_fail(c, PM_EINVAL, "--name-pattern: more than %d columns",
					     MAX_FIELDS);
		if (close[1] == '{')
			return pm__json_fail(c, PM_EINVAL, "--name-pattern '%s': two columns need "
					     "text between them", src);
		*s = *close = '\0';
		p->col[p->n++] = s + 1;
		p->lit[p->n] = s = close + 1;
	}
	if (!p->n)
		return pm__json_fail(c, PM_EINVAL, "--name-pattern '%s' has no {column}", src);
	return PM_OK;
}

/* Match name against p: each field is the shortest non-empty text up to the
 * next literal (the rest of the name for a last field with nothing after).
 * The values are written NUL-separated into buf (as long as name). */
static int match(const struct pattern *p, const char *name, char *buf, const char **val)
{
	size_t l0 = strlen(p->lit[0]);

	if (strncmp(name, p->lit[0], l0))
		return 0;
	name += l0;
	for (size_t i = 0; i < p->n; i++) {
		const char *lit = p->lit[i + 1], *end;
		size_t ll = strlen(lit);

		end = !ll ? (i + 1 == p->n ? name + strlen(name) : NULL)
			  : *name ? strstr(name + 1, lit) : NULL;
		if (!end || end == name)
			return 0;
		memcpy(buf, name, (size_t)(end - name));
		buf[end - name] = '\0';
		val[i] = buf;
		buf += end - name + 1;
		name = end + ll;
	}
	return *name == '\0';
}

/* Parts of a name that are run settings, not parameters. */
static int is_setting(const char *part, size_t n)
{
	static const char *const keys[] = { "min_time:", "min_warmup_time:", "iterations:",
					    "repeats:", NULL };
	int number = n > 0;

	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789.-+e", part[i]))
			number = 0;
	for (int k = 0; keys[k]; k++)
		if (n > strlen(keys[k]) && strncmp(part, keys[k], strlen(keys[k])) == 0)
			return 1;
	/* real_time, process_time, manual_time: words without a value */
	return !number && !memchr(part, ':', n);
}

/* The default pattern from the first name: "BM_x/1024/real_time/threads:2"
 * gives "{benchmark}/{arg1}/real_time/threads:{threads}". */
static void default_pattern(const char *name, char *out, size_t size)
{
	size_t pos = 0, arg = 0;
	int first = 1;

	out[0] = '\0';
	while (*name && pos < size) {
		size_t n = strcspn(name, "/");
		const char *colon = memchr(name, ':', n);

		if (first)
			pos += (size_t)snprintf(out + pos, size - pos, "{benchmark}");
		else if (is_setting(name, n))
			pos += (size_t)snprintf(out + pos, size - pos, "/%.*s", (int)n, name);
		else if (colon)
			pos += (size_t)snprintf(out + pos, size - pos, "/%.*s:{%.*s}",
						(int)(colon - name), name, (int)(colon - name), name);
		else
			pos += (size_t)snprintf(out + pos, size - pos, "/{arg%zu}", ++arg);
		first = 0;
		name += n + (name[n] == '/');
	}
}

static const double *unit_scale(const char *u)
{
	static const double s[] = { 1e-9, 1e-6, 1e-3, 1 };

	return !strcmp(u, "ns") ? &s[0] : !strcmp(u, "us") ? &s[1] : !strcmp(u, "ms") ? &s[2]
	       : !strcmp(u, "s") ? &s[3] : NULL;
}

/* The name a run is known by: run_name when present (aggregates add a
 * suffix to name), else name. */
static pm_status run_name(const pm_jctx *c, const cJSON *b, const char **out)
{
	const cJSON *rn = cJSON_GetObjectItemCaseSensitive(b, "run_name");

	if (cJSON_IsString(rn)) {
		*out = rn->valuestring;
		return PM_OK;
	}
	return pm__json_string(c, b, "name", out);
}

static int is_aggregate(const cJSON *b)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "run_type");

	return cJSON_IsString(t) && strcmp(t->valuestring, "aggregate") == 0;
}

static pm_status one_run(const pm_jctx *c, const cJSON *b, const char *const *val, size_t n,
			 pm_table *t)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(b, "error_occurred");
	const char *unit, *msg = "";
	const double *scale;
	double rt;
	pm_status rc;

	if (cJSON_IsTrue(e)) {
		e = cJSON_GetObjectItemCaseSensitive(b, "error_message");
		if (cJSON_IsString(e))
			msg = e->valuestring;
		return pm__json_fail(c, PM_ESCHEMA, "the benchmark failed: %s", msg);
	}
	if ((rc = pm__json_number(c, b, "real_time", &rt)) ||
	    (rc = pm__json_string(c, b, "time_unit", &unit)))
		return rc;
	if (!(scale = unit_scale(unit)))
		return pm__json_fail(c, PM_ESCHEMA, "'time_unit' '%s' is not ns, us, ms or s", unit);
	if (!(rt > 0))
		return pm__json_fail(c, PM_ESCHEMA, "'real_time' must be > 0");
	for (size_t i = 0; i < n; i++)
		if ((rc = pm__table_add(t, val[i], c->err)))
			return rc;
	return pm__table_add_number(t, rt * *scale, c->err);
}

static pm_status read_runs(pm_jctx *c, const cJSON *list, const char *pattern, pm_table *t,
			   struct pattern *p, const char **names)
{
	char where[48], dflt[PATTERN_MAX], *buf = NULL;
	const char *val[MAX_FIELDS], *name, *first = NULL;
	const cJSON *b;
	size_t i = 0, kept = 0;
	pm_status rc = PM_OK;

	cJSON_ArrayForEach(b, list) {
		snprintf(where, sizeof(where), "benchmarks[%zu]", i++);
		c->where = where;
		if (!cJSON_IsObject(b)) {
			rc = pm__json_fail(c, PM_ESCHEMA, "must be an object");
			break;
		}
		if (is_aggregate(b))
			continue;
		if ((rc = run_name(c, b, &name)))
			break;
		if (!first) {
			first = name;
			if (!pattern) {
				default_pattern(name, dflt, sizeof(dflt));
				pattern = dflt;
			}
			if ((rc = compile(c, pattern, p)))
				break;
			for (size_t k = 0; k < p->n; k++)
				names[k] = p->col[k];
			names[p->n] = PM_INGEST_TIME_COLUMN;
			t->ncols = p->n + 1;
			t->names = names;
		}
		free(buf);
		if (!(buf = malloc(strlen(name) + 1))) {
			rc = pm__json_fail(c, PM_ENOMEM, "out of memory");
			break;
		}
		if (!match(p, name, buf, val)) {
			if (pattern != dflt)
				continue;	/* the pattern chooses which benchmarks */
			rc = pm__json_fail(c, PM_ESCHEMA, "name '%s' does not have the parameters "
					   "of '%s' (%s): choose with --name-pattern", name, first,
					   dflt);
			break;
		}
		if ((rc = one_run(c, b, val, p->n, t)))
			break;
		kept++;
	}
	free(buf);
	c->where = NULL;
	if (!rc && !kept)
		rc = first ? pm__json_fail(c, PM_ESCHEMA, "no benchmark name matches "
					   "--name-pattern '%s' (the first is '%s')", pattern, first)
			   : pm__json_fail(c, PM_ESCHEMA, "no benchmark runs (only aggregates?)");
	return rc;
}

pm_status pm__read_gbench(const char *text, size_t len, const char *name,
			  const char *pattern, pm_dataset **out, pm_error *err)
{
	const char *names[MAX_FIELDS + 1];
	pm_jctx c = { .name = name, .err = err };
	struct pattern *p = malloc(sizeof(*p));
	pm_table t = { 0 };
	const cJSON *list;
	cJSON *root = NULL;
	size_t n;
	pm_status rc;

	*out = NULL;
	if (!p)
		return pm__json_fail(&c, PM_ENOMEM, "out of memory");
	if ((rc = pm__json_parse(text, len, name, &root, err)))
		goto out;
	if (!cJSON_IsObject(root)) {
		rc = pm__json_fail(&c, PM_ESCHEMA, "a Google Benchmark file is an object with "
				   "'benchmarks'");
		goto out;
	}
	if ((rc = pm__json_array(&c, root, "benchmarks", 1, &list, &n)) ||
	    (rc = read_runs(&c, list, pattern, &t, p, names)))
		goto out;
	rc = pm__table_build(&t, name, out, err);
out:
	pm__table_free(&t);
	cJSON_Delete(root);
	free(p);
	return rc;
}
