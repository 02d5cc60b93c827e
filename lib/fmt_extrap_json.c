/* Extra-P's JSON inputs (its docs, "file formats"):
 * - JSON: {"parameters": ["p", "n"], "measurements": {CALLPATH: {METRIC:
 *   [{"point": [2, 1000], "values": [0.512, 0.498]}, ...]}}};
 * - JSON Lines: one {"params": {"p": 2, "n": 1000}, "callpath": "stencil",
 *   "metric": "time", "value": 0.512} per line, callpath "<root>" and
 *   metric "time" when absent, as Extra-P reads them; lines with the same
 *   params are repetitions.
 * Each parameter becomes a column (numbers written back exactly, strings as
 * they are), each value a run in PM_INGEST_TIME_COLUMN. The callpath is the
 * region: --region and --metric choose, and without them the file must
 * have one. Errors name the member (JSON) or FILE:LINE (JSON Lines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest_impl.h"
#include "json_read.h"
#include "table.h"

#define MAX_PARAMS 64
#define DEFAULT_CALLPATH "<root>"
#define DEFAULT_METRIC "time"

/* A parameter value: a number, or a string (a categorical level). */
static pm_status add_param(const pm_jctx *c, pm_table *t, const cJSON *v, const char *what,
			   pm_error *err)
{
	if (cJSON_IsNumber(v))
		return pm__table_add_number(t, v->valuedouble, err);
	if (cJSON_IsString(v))
		return pm__table_add(t, v->valuestring, err);
	return pm__json_fail(c, PM_ESCHEMA, "%s must be a number or a string", what);
}

/* The measured values are times: numbers > 0. */
static pm_status add_value(const pm_jctx *c, pm_table *t, const cJSON *v, const char *what,
			   pm_error *err)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble > 0))
		return pm__json_fail(c, PM_ESCHEMA, "%s must be a number > 0", what);
	return pm__table_add_number(t, v->valuedouble, err);
}

/* ---- JSON ---------------------------------------------------------------- */

/* The member of obj called want, or its only member (`what`: region or
 * metric, for the messages). */
static pm_status choose(const pm_jctx *c, const cJSON *obj, const char *want, const char *what,
			const cJSON **out)
{
	if (!cJSON_IsObject(obj))
		return pm__json_fail(c, PM_ESCHEMA, "must be an object of %ss", what);
	if (want) {
		pm_status rc = pm__json_item(c, obj, want, 0, out);

		if (!rc && !*out)
			rc = pm__json_fail(c, PM_ESCHEMA, "no %s '%s'", what, want);
		return rc;
	}
	if (!obj->child)
		return pm__json_fail(c, PM_ESCHEMA, "no %s", what);
	if (obj->child->next)
		return pm__json_fail(c, PM_ESCHEMA, "the file has more than one %s ('%s', '%s'): "
				     "choose one with --%s", what, obj->child->string,
				     obj->child->next->string, what);
	*out = obj->child;
	return PM_OK;
}

static pm_status one_point(const pm_jctx *c, const cJSON *e, size_t np, pm_table *t)
{
	const cJSON *point, *values, *v;
	const cJSON *coord[MAX_PARAMS];
	size_t n, nv, k = 0;
	pm_status rc;

	if (!cJSON_IsObject(e))
		return pm__json_fail(c, PM_ESCHEMA, "must be an object with 'point' and 'values'");
	if ((rc = pm__json_item(c, e, "point", 1, &point)) ||
	    (rc = pm__json_array(c, e, "values", 1, &values, &nv)))
		return rc;
	/* one parameter: the point may be its bare value */
	if (np == 1 && !cJSON_IsArray(point)) {
		coord[0] = point;
	} else {
		if (!cJSON_IsArray(point) || (n = (size_t)cJSON_GetArraySize(point)) != np)
			return pm__json_fail(c, PM_ESCHEMA, "'point' must be an array of %zu values, "
					     "one per parameter", np);
		for (v = point->child; v; v = v->next)
			coord[k++] = v;
	}
	if (!nv)
		return pm__json_fail(c, PM_ESCHEMA, "'values' is empty");
	k = 0;
	cJSON_ArrayForEach(v, values) {
		char what[40];

		for (size_t i = 0; i < np; i++)
			if ((rc = add_param(c, t, coord[i], "each coordinate of 'point'", c->err)))
				return rc;
		snprintf(what, sizeof(what), "values[%zu]", k++);
		if ((rc = add_value(c, t, v, what, c->err)))
			return rc;
	}
	return PM_OK;
}

static pm_status read_json(pm_jctx *c, const cJSON *root, const char *region, const char *metric,
			   const char **names, pm_table *t)
{
	const cJSON *params, *meas, *cp, *points, *e, *p;
	char where[512];
	size_t np, i = 0;
	pm_status rc;

	if (!cJSON_IsObject(root))
		return pm__json_fail(c, PM_ESCHEMA, "an Extra-P JSON file is an object with "
				     "'parameters' and 'measurements'");
	if ((rc = pm__json_array(c, root, "parameters", 1, &params, &np)) ||
	    (rc = pm__json_object(c, root, "measurements", 1, &meas)))
		return rc;
	if (!np || np > MAX_PARAMS)
		return pm__json_fail(c, PM_ESCHEMA, "'parameters' must name 1 to %d parameters",
				     MAX_PARAMS);
	cJSON_ArrayForEach(p, params) {
		if (!cJSON_IsString(p) || !p->valuestring[0])
			return pm__json_fail(c, PM_ESCHEMA, "parameters[%zu] must be a name", i);
		names[i++] = p->valuestring;
	}
	names[np] = PM_INGEST_TIME_COLUMN;
	t->ncols = np + 1;
	t->names = names;
	c->where = "measurements";
	if ((rc = choose(c, meas, region, "region", &cp)))
		return rc;
	snprintf(where, sizeof(where), "measurements.%s", cp->string);
	c->where = where;
	if ((rc = choose(c, cp, metric, "metric", &points)))
		return rc;
	snprintf(where, sizeof(where), "measurements.%s.%s", cp->string, points->string);
	if (!cJSON_IsArray(points))
		return pm__json_fail(c, PM_ESCHEMA, "must be an array of points");
	i = 0;
	cJSON_ArrayForEach(e, points) {
		snprintf(where, sizeof(where), "measurements.%s.%s[%zu]", cp->string, points->string,
			 i++);
		if ((rc = one_point(c, e, np, t)))
			return rc;
	}
	return PM_OK;
}

pm_status pm__read_extrap_json(const char *text, size_t len, const char *name,
			       const char *region, const char *metric, pm_dataset **out,
			       pm_error *err)
{
	const char *names[MAX_PARAMS + 1];
	pm_jctx c = { .name = name, .err = err };
	pm_table t = { 0 };
	cJSON *root = NULL;
	pm_status rc;

	*out = NULL;
	if ((rc = pm__json_parse(text, len, name, &root, err)))
		return rc;
	rc = read_json(&c, root, region, metric, names, &t);
	if (!rc)
		rc = pm__table_build(&t, name, out, err);
	pm__table_free(&t);
	cJSON_Delete(root);
	return rc;
}

/* ---- JSON Lines ---------------------------------------------------------- */

struct lines {
	pm_jctx c;
	const char *region, *metric;	/* wanted; NULL: the only one */
	char *seen[2];			/* the first line's callpath and metric */
	char *names[MAX_PARAMS + 1];	/* the first line's params (owned) */
	size_t np;
	pm_table t;
};

static void lines_free(struct lines *l)
{
	free(l->seen[0]);
	free(l->seen[1]);
	for (size_t i = 0; i < l->np; i++)
		free(l->names[i]);
	pm__table_free(&l->t);
}

static char *copy_text(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	return d ? memcpy(d, s, n) : NULL;
}

/* A string member, or dflt when absent. */
static pm_status text_or(const pm_jctx *c, const cJSON *o, const char *key, const char *dflt,
			 const char **out)
{
	const cJSON *v;
	pm_status rc = pm__json_item(c, o, key, 0, &v);

	if (rc)
		return rc;
	if (v && !cJSON_IsString(v))
		return pm__json_fail(c, PM_ESCHEMA, "'%s' must be a string", key);
	*out = v ? v->valuestring : dflt;
	return PM_OK;
}

/* The first line's params name the columns; every line must have them. */
static pm_status param_names(struct lines *l, const cJSON *params)
{
	l->t.ncols = 0;
	for (const cJSON *v = params->child; v; v = v->next) {
		if (l->np == MAX_PARAMS)
			return pm__json_fail(&l->c, PM_ESCHEMA, "more than %d params", MAX_PARAMS);
		if (!(l->names[l->np] = copy_text(v->string)))
			return pm__fail(l->c.err, PM_ENOMEM, "out of memory");
		l->np++;
	}
	if (!l->np)
		return pm__json_fail(&l->c, PM_ESCHEMA, "'params' is empty");
	l->names[l->np] = (char *)PM_INGEST_TIME_COLUMN;
	l->t.ncols = l->np + 1;
	l->t.names = (const char *const *)l->names;
	return PM_OK;
}

/* With no --region (--metric), every line must have the first one's. */
static pm_status same_as_first(struct lines *l, int k, const char *cur, const char *what)
{
	if (!l->seen[k])
		return (l->seen[k] = copy_text(cur)) ? PM_OK :
						 pm__fail(l->c.err, PM_ENOMEM, "out of memory");
	if (strcmp(l->seen[k], cur))
		return pm__json_fail(&l->c, PM_ESCHEMA, "the file has more than one %s ('%s', "
				     "'%s'): choose one with --%s", what, l->seen[k], cur, what);
	return PM_OK;
}

static pm_status one_line(struct lines *l, const cJSON *o)
{
	const cJSON *params, *value, *v;
	const char *cp = NULL, *metric = NULL;
	pm_status rc;

	if (!cJSON_IsObject(o))
		return pm__json_fail(&l->c, PM_ESCHEMA, "each line must be an object with "
				     "'params' and 'value'");
	if ((rc = pm__json_object(&l->c, o, "params", 1, &params)) ||
	    (rc = pm__json_item(&l->c, o, "value", 1, &value)) ||
	    (rc = text_or(&l->c, o, "callpath", DEFAULT_CALLPATH, &cp)) ||
	    (rc = text_or(&l->c, o, "metric", DEFAULT_METRIC, &metric)))
		return rc;
	if (!cJSON_IsObject(params))
		return pm__json_fail(&l->c, PM_ESCHEMA, "'params' must be an object");
	if ((l->region && strcmp(l->region, cp)) || (l->metric && strcmp(l->metric, metric)))
		return PM_OK;
	if ((!l->region && (rc = same_as_first(l, 0, cp, "region"))) ||
	    (!l->metric && (rc = same_as_first(l, 1, metric, "metric"))))
		return rc;
	if (!l->np && (rc = param_names(l, params)))
		return rc;
	if ((size_t)cJSON_GetArraySize(params) != l->np)
		return pm__json_fail(&l->c, PM_ESCHEMA, "its params differ from the first line's");
	for (size_t i = 0; i < l->np; i++) {
		if ((rc = pm__json_item(&l->c, params, l->names[i], 0, &v)))
			return rc;
		if (!v)
			return pm__json_fail(&l->c, PM_ESCHEMA, "no param '%s'", l->names[i]);
		if ((rc = add_param(&l->c, &l->t, v, "each param", l->c.err)))
			return rc;
	}
	return add_value(&l->c, &l->t, value, "'value'", l->c.err);
}

/* A schema or parse error of line `line`: placed there (the JSON parser and
 * the getters know the line alone). */
static pm_status at_line(pm_status rc, pm_error *err, unsigned line)
{
	if (rc && rc != PM_ENOMEM && err)
		err->line = rc == PM_EPARSE ? line + err->line - 1 : line;
	return rc;
}

pm_status pm__read_extrap_jsonl(const char *text, size_t len, const char *name,
				const char *region, const char *metric, pm_dataset **out,
				pm_error *err)
{
	struct lines l = { .c = { .name = name, .err = err }, .region = region,
			   .metric = metric };
	unsigned line = 0;
	pm_status rc = PM_OK;

	*out = NULL;
	for (size_t at = 0; at < len && !rc;) {
		const char *s = text + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at, b = 0;
		cJSON *o = NULL;

		at += n + (nl != NULL);
		line++;
		while (b < n && strchr(" \t\r", s[b]))
			b++;
		if (b == n)
			continue;	/* blank lines are allowed, as between documents */
		l.t.at_line = line;	/* the cells' place: line alone, as in the errors */
		rc = pm__json_parse(s, n, name, &o, err);
		if (!rc)
			rc = one_line(&l, o);
		cJSON_Delete(o);
		rc = at_line(rc, err, line);
	}
	if (!rc && !l.t.ncells && (region || metric))
		rc = pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "no line for region '%s' and "
				 "metric '%s'", region ? region : "(any)", metric ? metric : "(any)");
	if (!rc && !l.np)
		rc = pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "no measurements");
	if (!rc)
		rc = pm__table_build(&l.t, name, out, err);
	lines_free(&l);
	return rc;
}
