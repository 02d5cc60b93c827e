/* What Extra-P's JSON layouts share (fmt_extrap_json.c, fmt_extrap_json_ids.c):
 * the columns, the runs of one point, and choosing a region and a metric run
 * by run. Below both readers, so that neither calls the other back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/fmt_extrap_json.h"

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
		/* the measured values are times */
		if (!cJSON_IsNumber(v) || !(v->valuedouble > 0))
			return list ? pm__json_fail(c, PM_ESCHEMA, "%s[%zu] must be a number > 0",
						    value_what, k)
				    : pm__json_fail(c, PM_ESCHEMA, "'%s' must be a number > 0",
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

