/* Extra-P's JSON inputs, as Extra-P 4's docs/file-formats.md describes them:
 * - JSON: {"parameters": ["p", "n"], "measurements": {CALLPATH: {METRIC:
 *   [{"point": [2, 1000], "values": [0.512, 0.498]}, ...]}}}; the older
 *   id-based JSON, whose "measurements" is an array, is read by
 *   lib/ingest/fmt_extrap_json_ids.c;
 * - JSON Lines: one {"params": {"p": 2, "n": 1000}, "callpath": "stencil",
 *   "metric": "time", "value": 0.512} per line, "value" a number or a list
 *   of them (repetitions), callpath "<root>" and metric "<default>" when absent,
 *   as Extra-P reads them; lines with the same params are repetitions, and
 *   blank lines are skipped.
 * Each parameter becomes a column (numbers written back exactly, strings as
 * they are), each value a run in PM_INGEST_TIME_COLUMN. The callpath is the
 * region: --region and --metric choose, and without them the file must
 * have one. Errors name the member (JSON) or FILE:LINE (JSON Lines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/fmt_extrap_json.h"
#include "ingest/ingest_impl.h"

#define MAX_PARAMS PM_EXTRAP_MAX_PARAMS

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

/* Entry e's point: its np coordinates into coord, noted in ps (taken: by
 * the chosen region and metric). */
static pm_status point_of(const pm_jctx *c, const cJSON *e, size_t np, int taken,
			  pm_extrap_points *ps, const cJSON **coord)
{
	const cJSON *point, *v;
	size_t k = 0;
	pm_status rc;

	if (!cJSON_IsObject(e))
		return pm__json_fail(c, PM_ESCHEMA, "must be an object with 'point' and 'values'");
	if ((rc = pm__json_item(c, e, "point", 1, &point)))
		return rc;
	/* one parameter: the point may be its bare value */
	if (np == 1 && !cJSON_IsArray(point)) {
		coord[0] = point;
	} else {
		if (!cJSON_IsArray(point) || (size_t)cJSON_GetArraySize(point) != np)
			return pm__json_fail(c, PM_ESCHEMA, "'point' must be an array of %zu values, "
					     "one per parameter", np);
		for (v = point->child; v; v = v->next)
			coord[k++] = v;
	}
	return pm__extrap_point(ps, coord, np, taken, c->where, c->err);
}

static pm_status one_point(const pm_jctx *c, const cJSON *e, size_t np, pm_extrap_points *ps,
			   pm_table *t)
{
	const cJSON *values;
	const cJSON *coord[MAX_PARAMS];
	size_t nv;
	pm_status rc;

	if ((rc = point_of(c, e, np, 1, ps, coord)) ||
	    (rc = pm__json_array(c, e, "values", 1, &values, &nv)))
		return rc;
	return pm__extrap_runs(c, t, coord, np, values, "each coordinate of 'point'", "values");
}

/* The points of every other region and metric, noted as not taken. */
static pm_status other_points(pm_jctx *c, const cJSON *meas, const cJSON *chosen, size_t np,
			      pm_extrap_points *ps, char *where, size_t size)
{
	const cJSON *cp, *list, *e;
	const cJSON *coord[MAX_PARAMS];
	pm_status rc;

	cJSON_ArrayForEach(cp, meas) {
		if (!cJSON_IsObject(cp))
			continue;	/* an error only if chosen */
		cJSON_ArrayForEach(list, cp) {
			size_t i = 0;

			if (list == chosen || !cJSON_IsArray(list))
				continue;
			cJSON_ArrayForEach(e, list) {
				snprintf(where, size, "measurements.%s.%s[%zu]", cp->string,
					 list->string, i++);
				if ((rc = point_of(c, e, np, 0, ps, coord)))
					return rc;
			}
		}
	}
	return PM_OK;
}

static pm_status read_json(pm_jctx *c, const cJSON *root, const char *region, const char *metric,
			   const char **names, pm_extrap_points *ps, pm_table *t)
{
	const cJSON *params, *meas, *cp, *points, *e, *p;
	pm_extrap_choice ch = { .want = { NULL, NULL } };
	char where[512];
	size_t np, i = 0;
	pm_status rc;

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
	pm__extrap_columns(t, names, np);
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
		if ((rc = one_point(c, e, np, ps, t)))
			return rc;
	}
	if ((rc = other_points(c, meas, points, np, ps, where, sizeof(where))))
		return rc;
	c->where = NULL;
	ch.want[0] = cp->string;
	ch.want[1] = points->string;
	return pm__extrap_points_check(ps, &ch, t, c->name, c->err);
}

/* The older layout lists measurements in an array and has coordinates. */
static int id_based(const cJSON *root)
{
	return cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "measurements")) ||
	       cJSON_HasObjectItem(root, "coordinates");
}

pm_status pm__read_extrap_json(const char *text, size_t len, const char *name,
			       const char *region, const char *metric, pm_dataset **out,
			       pm_error *err)
{
	const char *names[MAX_PARAMS + 1];
	pm_jctx c = { .name = name, .err = err };
	pm_extrap_points ps = { 0 };
	pm_table t = { 0 };
	cJSON *root = NULL;
	pm_status rc;

	*out = NULL;
	if ((rc = pm__json_parse(text, len, name, &root, err)))
		return rc;
	if (!cJSON_IsObject(root))
		rc = pm__json_fail(&c, PM_ESCHEMA, "an Extra-P JSON file is an object with "
				   "'parameters' and 'measurements'");
	else if (id_based(root))
		rc = pm__read_extrap_json_ids(&c, root, region, metric, names, &t);
	else
		rc = read_json(&c, root, region, metric, names, &ps, &t);
	if (!rc)
		rc = pm__table_build(&t, name, out, err);
	pm__extrap_points_free(&ps);
	pm__table_free(&t);
	cJSON_Delete(root);
	return rc;
}

/* ---- JSON Lines ---------------------------------------------------------- */

struct lines {
	pm_jctx c;
	pm_extrap_choice ch;
	pm_extrap_points ps;
	char *names[MAX_PARAMS + 1];	/* the first line's params (owned) */
	size_t np;
	pm_table t;
};

static void lines_free(struct lines *l)
{
	pm__extrap_choice_free(&l->ch);
	pm__extrap_points_free(&l->ps);
	for (size_t i = 0; i < l->np; i++)
		free(l->names[i]);
	pm__table_free(&l->t);
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
	for (const cJSON *v = params->child; v; v = v->next) {
		if (l->np == MAX_PARAMS)
			return pm__json_fail(&l->c, PM_ESCHEMA, "more than %d params", MAX_PARAMS);
		if (!(l->names[l->np] = strdup(v->string)))
			return pm__fail(l->c.err, PM_ENOMEM, "out of memory");
		l->np++;
	}
	if (!l->np)
		return pm__json_fail(&l->c, PM_ESCHEMA, "'params' is empty");
	pm__extrap_columns(&l->t, (const char **)l->names, l->np);
	return PM_OK;
}

static pm_status one_line(struct lines *l, const cJSON *o, unsigned line)
{
	char where[32];
	const cJSON *params, *value;
	const cJSON *coord[MAX_PARAMS];
	const char *name[2] = { NULL, NULL };
	int take;
	pm_status rc;

	if (!cJSON_IsObject(o))
		return pm__json_fail(&l->c, PM_ESCHEMA, "each line must be an object with "
				     "'params' and 'value'");
	if ((rc = pm__json_object(&l->c, o, "params", 1, &params)) ||
	    (rc = pm__json_item(&l->c, o, "value", 1, &value)) ||
	    (rc = text_or(&l->c, o, "callpath", PM_EXTRAP_DEFAULT_CALLPATH, &name[0])) ||
	    (rc = text_or(&l->c, o, "metric", PM_EXTRAP_DEFAULT_METRIC, &name[1])) ||
	    (rc = pm__extrap_take(&l->c, &l->ch, name, &take)))
		return rc;
	/* the first line names the parameters, as in Extra-P, whichever
	 * region it measures: every line's point is noted */
	if (!l->np && (rc = param_names(l, params)))
		return rc;
	if ((size_t)cJSON_GetArraySize(params) != l->np)
		return pm__json_fail(&l->c, PM_ESCHEMA, "its params differ from the first line's");
	for (size_t i = 0; i < l->np; i++) {
		if ((rc = pm__json_item(&l->c, params, l->names[i], 0, &coord[i])))
			return rc;
		if (!coord[i])
			return pm__json_fail(&l->c, PM_ESCHEMA, "no param '%s'", l->names[i]);
	}
	snprintf(where, sizeof(where), "line %u", line);
	if ((rc = pm__extrap_point(&l->ps, coord, l->np, take, where, l->c.err)) || !take)
		return rc;
	return pm__extrap_runs(&l->c, &l->t, coord, l->np, value, "each param", "value");
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
	struct lines l = { .c = { .name = name, .err = err },
			   .ch = { .want = { region, metric } } };
	unsigned line = 0;
	pm_status rc = PM_OK;

	*out = NULL;
	for (size_t at = 0; at < len && !rc;) {
		const char *s = text + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at, b = 0;
		cJSON *o = NULL;

		at += n + (nl != NULL);
		line++;
		/* not strchr(" \t\r", ...): it would take a NUL for a blank */
		while (b < n && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r'))
			b++;
		if (b == n)
			continue;	/* blank lines are allowed: Extra-P's examples have them */
		l.t.at_line = line;	/* the cells' place: line alone, as in the errors */
		rc = pm__json_parse(s, n, name, &o, err);
		if (!rc)
			rc = one_line(&l, o, line);
		cJSON_Delete(o);
		rc = at_line(rc, err, line);
	}
	if (!rc)
		rc = pm__extrap_taken_any(&l.ch, &l.t, name, "line", err);
	if (!rc && !l.t.ncells)
		rc = pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "no measurements");
	if (!rc)
		rc = pm__extrap_points_check(&l.ps, &l.ch, &l.t, name, err);
	if (!rc)
		rc = pm__table_build(&l.t, name, out, err);
	lines_free(&l);
	return rc;
}
