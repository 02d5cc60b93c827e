/* Extra-P's older JSON layout (Extra-P 4's docs/file-formats.md), whose
 * lists refer to each other by id:
 *   {"parameters": [{"id": 1, "name": "x"}],
 *    "callpaths": [{"id": 1, "name": "sweep"}],
 *    "metrics": [{"id": 1, "name": "time"}],
 *    "coordinates": [{"id": 1, "parameter_value_pairs":
 *                     [{"parameter_id": 1, "parameter_value": 4}]}],
 *    "measurements": [{"callpath_id": 1, "coordinate_id": 1, "metric_id": 1,
 *                      "id": 1, "value": 3.5}]}
 * Each parameter is a column (in the order listed), each measurement of the
 * chosen callpath and metric a run (in the order listed): measurements of
 * one callpath, coordinate and metric are repetitions. Every id is listed
 * once and every reference names a listed one; a measurement's own id is
 * not read (nothing refers to it). The runs, columns and the choice of
 * region and metric are lib/ingest/fmt_extrap_json.c's, as for the newer layout. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ingest/fmt_extrap_json.h"

enum { PARAMS, CALLPATHS, METRICS, COORDS, NLISTS };
static const char *const list_key[NLISTS] = { "parameters", "callpaths", "metrics",
					      "coordinates" };

struct id_at {
	uint64_t id;
	size_t at;	/* the entry's index in its list */
};

/* One of the lists, its ids sorted for look-ups. */
struct id_list {
	const cJSON *arr;
	struct id_at *by_id;
	const char **name;	/* each entry's name, in file order (not coordinates) */
	size_t n;
};

struct ids {
	pm_jctx *c;
	char where[96];
	struct id_list list[NLISTS];
	const cJSON **coord;	/* each coordinate's value of each parameter */
	unsigned char *measured;	/* each coordinate's: a chosen measurement has it */
	size_t np;
};

/* The errors that follow are about key[i]. */
static void place(struct ids *x, const char *key, size_t i)
{
	snprintf(x->where, sizeof(x->where), "%s[%zu]", key, i);
	x->c->where = x->where;
}

/* By id, then by place: the first of two equal ids is named first. */
static int cmp_id_at(const void *a, const void *b)
{
	const struct id_at *p = a, *q = b;

	if (p->id != q->id)
		return p->id < q->id ? -1 : 1;
	return p->at < q->at ? -1 : p->at > q->at;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_at *p = a, *q = b;

	return p->id < q->id ? -1 : p->id > q->id;
}

/* root's list k: entries with an id each (and a name, but coordinates),
 * no id twice. */
static pm_status read_list(struct ids *x, const cJSON *root, int k)
{
	struct id_list *l = &x->list[k];
	const cJSON *e;
	size_t i = 0;
	pm_status rc;

	if ((rc = pm__json_array(x->c, root, list_key[k], 1, &l->arr, &l->n)))
		return rc;
	l->by_id = malloc((l->n ? l->n : 1) * sizeof(*l->by_id));
	l->name = malloc((l->n ? l->n : 1) * sizeof(*l->name));
	if (!l->by_id || !l->name)
		return pm__fail(x->c->err, PM_ENOMEM, "out of memory");
	cJSON_ArrayForEach(e, l->arr) {
		place(x, list_key[k], i);
		if (!cJSON_IsObject(e))
			return pm__json_fail(x->c, PM_ESCHEMA, "must be an object with 'id'");
		if ((rc = pm__json_uint(x->c, e, "id", UINT32_MAX, &l->by_id[i].id)) ||
		    (k != COORDS && (rc = pm__json_string(x->c, e, "name", &l->name[i]))))
			return rc;
		if (k == PARAMS && !l->name[i][0])
			return pm__json_fail(x->c, PM_ESCHEMA, "'name' is empty");
		l->by_id[i].at = i;
		i++;
	}
	qsort(l->by_id, l->n, sizeof(*l->by_id), cmp_id_at);
	for (i = 1; i < l->n; i++) {
		if (l->by_id[i].id != l->by_id[i - 1].id)
			continue;
		place(x, list_key[k], l->by_id[i].at);
		return pm__json_fail(x->c, PM_ESCHEMA, "id %" PRIu64 " is also that of %s[%zu]",
				     l->by_id[i].id, list_key[k], l->by_id[i - 1].at);
	}
	return PM_OK;
}

/* The entry of list k that obj's member (an id) names. */
static pm_status lookup(struct ids *x, const cJSON *obj, const char *member, int k, size_t *at)
{
	struct id_at key = { 0, 0 };
	const struct id_at *found;
	pm_status rc = pm__json_uint(x->c, obj, member, UINT32_MAX, &key.id);

	if (rc)
		return rc;
	found = bsearch(&key, x->list[k].by_id, x->list[k].n, sizeof(key), cmp_id);
	if (!found)
		return pm__json_fail(x->c, PM_ESCHEMA, "'%s' %" PRIu64 " is not an id in '%s'",
				     member, key.id, list_key[k]);
	*at = found->at;
	return PM_OK;
}

/* Coordinate i: one value for each parameter. */
static pm_status read_coordinate(struct ids *x, const cJSON *e, size_t i)
{
	const cJSON **row = x->coord + i * x->np, *pairs, *pair, *v;
	const char *const *param = x->list[PARAMS].name;
	size_t npairs, j = 0, col;
	pm_status rc;

	place(x, list_key[COORDS], i);
	if ((rc = pm__json_array(x->c, e, "parameter_value_pairs", 1, &pairs, &npairs)))
		return rc;
	cJSON_ArrayForEach(pair, pairs) {
		snprintf(x->where, sizeof(x->where), "coordinates[%zu].parameter_value_pairs[%zu]",
			 i, j++);
		if (!cJSON_IsObject(pair))
			return pm__json_fail(x->c, PM_ESCHEMA, "must be an object with "
					     "'parameter_id' and 'parameter_value'");
		if ((rc = lookup(x, pair, "parameter_id", PARAMS, &col)) ||
		    (rc = pm__json_item(x->c, pair, "parameter_value", 1, &v)))
			return rc;
		if (!cJSON_IsNumber(v) && !cJSON_IsString(v))
			return pm__json_fail(x->c, PM_ESCHEMA, "'parameter_value' must be a number "
					     "or a string");
		if (row[col])
			return pm__json_fail(x->c, PM_ESCHEMA, "parameter '%s' a second time",
					     param[col]);
		row[col] = v;
	}
	place(x, list_key[COORDS], i);
	for (col = 0; col < x->np; col++)
		if (!row[col])
			return pm__json_fail(x->c, PM_ESCHEMA, "no value for parameter '%s'",
					     param[col]);
	return PM_OK;
}

/* The measurements of the chosen callpath and metric, one run each. */
static pm_status read_measurements(struct ids *x, const cJSON *root, pm_extrap_choice *ch,
				   pm_table *t)
{
	const cJSON *meas, *m, *v;
	size_t n, i = 0, cp, metric, co;
	int take;
	pm_status rc;

	if ((rc = pm__json_array(x->c, root, "measurements", 1, &meas, &n)))
		return rc;
	cJSON_ArrayForEach(m, meas) {
		const char *name[2];

		place(x, "measurements", i++);
		if (!cJSON_IsObject(m))
			return pm__json_fail(x->c, PM_ESCHEMA, "must be an object with "
					     "'callpath_id', 'coordinate_id', 'metric_id' and "
					     "'value'");
		if ((rc = lookup(x, m, "callpath_id", CALLPATHS, &cp)) ||
		    (rc = lookup(x, m, "metric_id", METRICS, &metric)) ||
		    (rc = lookup(x, m, "coordinate_id", COORDS, &co)))
			return rc;
		name[0] = x->list[CALLPATHS].name[cp];
		name[1] = x->list[METRICS].name[metric];
		if ((rc = pm__extrap_take(x->c, ch, name, &take)))
			return rc;
		if (!take)
			continue;
		if ((rc = pm__json_item(x->c, m, "value", 1, &v)))
			return rc;
		/* one value each: a list is JSON Lines' */
		if (cJSON_IsArray(v))
			return pm__json_fail(x->c, PM_ESCHEMA, "'value' must be a number >= 0");
		if ((rc = pm__extrap_runs(x->c, t, x->coord + co * x->np, x->np, v,
					  "'parameter_value'", "value")))
			return rc;
		x->measured[co] = 1;
	}
	return PM_OK;
}

static pm_status read_ids(struct ids *x, const cJSON *root, pm_extrap_choice *ch,
			  const char **names, pm_table *t)
{
	const struct id_list *params = &x->list[PARAMS], *coords = &x->list[COORDS];
	const cJSON *e;
	size_t i = 0;
	pm_status rc;

	for (int k = 0; k < NLISTS; k++)
		if ((rc = read_list(x, root, k)))
			return rc;
	x->c->where = NULL;
	x->np = params->n;
	if (!x->np || x->np > PM_EXTRAP_MAX_PARAMS)
		return pm__json_fail(x->c, PM_ESCHEMA, "'parameters' must name 1 to %d parameters",
				     PM_EXTRAP_MAX_PARAMS);
	for (i = 0; i < x->np; i++)
		names[i] = params->name[i];
	pm__extrap_columns(t, names, x->np);
	if (!(x->coord = calloc(coords->n ? coords->n * x->np : 1, sizeof(*x->coord))) ||
	    !(x->measured = calloc(coords->n + 1, 1)))
		return pm__fail(x->c->err, PM_ENOMEM, "out of memory");
	i = 0;
	cJSON_ArrayForEach(e, coords->arr)
		if ((rc = read_coordinate(x, e, i++)))
			return rc;
	if ((rc = read_measurements(x, root, ch, t)))
		return rc;
	x->c->where = NULL;
	if ((rc = pm__extrap_taken_any(ch, t, x->c->name, "measurement", x->c->err)))
		return rc;
	/* a coordinate listed but not measured: an error in Extra-P too */
	for (i = 0; i < coords->n && t->ncells; i++) {
		if (x->measured[i])
			continue;
		place(x, list_key[COORDS], i);
		return pm__json_fail(x->c, PM_ESCHEMA, "no measurement of region '%s' and metric "
				     "'%s' (Extra-P requires each of them to measure every "
				     "coordinate)", ch->want[0] ? ch->want[0] : ch->seen[0],
				     ch->want[1] ? ch->want[1] : ch->seen[1]);
	}
	return PM_OK;
}

pm_status pm__read_extrap_json_ids(pm_jctx *c, const cJSON *root, const char *region,
				   const char *metric, const char **names, pm_table *t)
{
	struct ids x = { .c = c };
	pm_extrap_choice ch = { .want = { region, metric } };
	pm_status rc = read_ids(&x, root, &ch, names, t);

	pm__extrap_choice_free(&ch);
	for (int k = 0; k < NLISTS; k++) {
		free(x.list[k].by_id);
		free(x.list[k].name);
	}
	free(x.coord);
	free(x.measured);
	c->where = NULL;
	return rc;
}
