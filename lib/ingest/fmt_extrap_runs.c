/* What Extra-P's JSON layouts share (fmt_extrap_json.c, fmt_extrap_json_ids.c):
 * the columns, the runs of one point, and choosing a region and a metric run
 * by run. Below both readers, so that neither calls the other back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/fmt_extrap_json.h"

void pm__extrap_columns(pm_table *t, const char **names, size_t np)
{
	names[np] = PM_INGEST_TIME_COLUMN;
	t->ncols = np + 1;
	t->names = names;
}

pm_status pm__extrap_runs(const pm_jctx *c, pm_table *t, const cJSON *const *coord, size_t np,
			  const cJSON *values, const char *coord_what, const char *value_what)
{
	int list = cJSON_IsArray(values);
	const cJSON *v = list ? values->child : values;
	pm_status rc;

	if (list && !v)
		return pm__json_fail(c, PM_ESCHEMA, "'%s' is empty", value_what);
	for (size_t k = 0; v; v = list ? v->next : NULL, k++) {
		for (size_t i = 0; i < np; i++) {
			if (cJSON_IsNumber(coord[i]))
				rc = pm__table_add_number(t, coord[i]->valuedouble, c->err);
			else if (cJSON_IsString(coord[i]))
				rc = pm__table_add(t, coord[i]->valuestring, c->err);
			else
				rc = pm__json_fail(c, PM_ESCHEMA, "%s must be a number or a string",
						   coord_what);
			if (rc)
				return rc;
		}
		/* times or counts: a 0 is read (as Extra-P does), whether it can be
		 * fitted is the fit's to say */
		if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0))
			return list ? pm__json_fail(c, PM_ESCHEMA, "%s[%zu] must be a number >= 0",
						    value_what, k)
				    : pm__json_fail(c, PM_ESCHEMA, "'%s' must be a number >= 0",
						    value_what);
		if ((rc = pm__table_add_number(t, v->valuedouble, c->err)))
			return rc;
	}
	return PM_OK;
}

static const char *const choice_what[2] = { "region", "metric" };

pm_status pm__extrap_take(const pm_jctx *c, pm_extrap_choice *ch, const char *const name[2],
			  int *take)
{
	*take = 0;
	for (int k = 0; k < 2; k++)
		if (ch->want[k] && strcmp(ch->want[k], name[k]))
			return PM_OK;
	for (int k = 0; k < 2; k++) {
		if (ch->want[k])
			continue;
		if (!ch->seen[k] && !(ch->seen[k] = strdup(name[k])))
			return pm__fail(c->err, PM_ENOMEM, "out of memory");
		if (strcmp(ch->seen[k], name[k]))
			return pm__json_fail(c, PM_ESCHEMA, "the file has more than one %s ('%s', "
					     "'%s'): choose one with --%s", choice_what[k],
					     ch->seen[k], name[k], choice_what[k]);
	}
	*take = 1;
	return PM_OK;
}

pm_status pm__extrap_taken_any(const pm_extrap_choice *ch, const pm_table *t, const char *name,
			       const char *unit, pm_error *err)
{
	if (t->ncells || (!ch->want[0] && !ch->want[1]))
		return PM_OK;
	return pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "no %s for region '%s' and metric '%s'",
			   unit, ch->want[0] ? ch->want[0] : "(any)",
			   ch->want[1] ? ch->want[1] : "(any)");
}

void pm__extrap_choice_free(pm_extrap_choice *ch)
{
	free(ch->seen[0]);
	free(ch->seen[1]);
}


struct pm_extrap_point {
	char *key;	/* the coordinates as text, '\x1f' between them */
	char *where;
	int taken;
	size_t at;	/* its place in the file's order */
};

pm_status pm__extrap_point(pm_extrap_points *ps, const cJSON *const *coord, size_t np,
			   int taken, const char *where, pm_error *err)
{
	struct pm_extrap_point *e;
	char *key = NULL;
	size_t len = 0;
	FILE *f;

	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 64;
		struct pm_extrap_point *p = realloc(ps->p, cap * sizeof(*p));

		if (!p)
			return pm__fail(err, PM_ENOMEM, "out of memory");
		ps->p = p;
		ps->cap = cap;
	}
	if (!(f = open_memstream(&key, &len)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t i = 0; i < np; i++) {
		char num[32];

		/* %.17g: two numbers that print alike are equal; through
		 * pm_snprintf, which ignores the host's decimal comma (the key
		 * is in an error message) */
		if (cJSON_IsNumber(coord[i])) {
			pm_snprintf(num, sizeof(num), "%.17g", coord[i]->valuedouble);
			fprintf(f, "%s%s", i ? "\x1f" : "", num);
		} else {
			fprintf(f, "%s'%s'", i ? "\x1f" : "",
				cJSON_IsString(coord[i]) ? coord[i]->valuestring : "?");
		}
	}
	if (fclose(f) || !key) {
		free(key);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	e = &ps->p[ps->n];
	if (!(e->where = strdup(where))) {
		free(key);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	e->key = key;
	e->taken = taken;
	e->at = ps->n;
	ps->n++;
	return PM_OK;
}

/* By key, then taken first: a key's first entry tells whether it was
 * taken; then in the file's order, so that the error names the point's
 * first place in the file whatever the C library's qsort does with ties. */
static int cmp_point(const void *a, const void *b)
{
	const struct pm_extrap_point *p = a, *q = b;
	int c = strcmp(p->key, q->key);

	if (c || p->taken != q->taken)
		return c ? c : q->taken - p->taken;
	return (p->at > q->at) - (p->at < q->at);
}

pm_status pm__extrap_points_check(pm_extrap_points *ps, const pm_extrap_choice *ch,
				  const pm_table *t, const char *name, pm_error *err)
{
	if (!t->ncells)
		return PM_OK;	/* nothing taken: the readers' own error */
	qsort(ps->p, ps->n, sizeof(*ps->p), cmp_point);
	for (size_t i = 0; i < ps->n; i++) {
		const struct pm_extrap_point *e = &ps->p[i];

		if (e->taken || (i && !strcmp(e->key, ps->p[i - 1].key)))
			continue;
		for (char *s = e->key; *s; s++)
			if (*s == '\x1f')
				*s = ' ';
		return pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "the point (%s) of %s has no "
				   "measurement of region '%s' and metric '%s' (Extra-P requires "
				   "each of them to measure every point)", e->key, e->where,
				   ch->want[0] ? ch->want[0] : ch->seen[0],
				   ch->want[1] ? ch->want[1] : ch->seen[1]);
	}
	return PM_OK;
}

void pm__extrap_points_free(pm_extrap_points *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->p[i].key);
		free(ps->p[i].where);
	}
	free(ps->p);
	memset(ps, 0, sizeof(*ps));
}
