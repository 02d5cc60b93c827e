/* pm_point: a model's inputs set by name, for callers that think in names
 * (a scheduler's job description) rather than in the model's order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json_read.h"
#include "model/model_impl.h"

struct pm_point {
	const pm_model *m;
	double *x;	/* by position; NaN: unset */
};

pm_status pm_point_new(const pm_model *m, pm_point **out, pm_error *err)
{
	pm_point *p;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_point_new: out is NULL");
	*out = NULL;
	if (!m)
		return pm__fail(err, PM_EINVAL, "pm_point_new: the model is NULL");
	p = malloc(sizeof(*p));
	if (!p || !(p->x = malloc((m->ninputs + 1) * sizeof(*p->x)))) {
		free(p);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	p->m = m;
	pm_point_clear(p);
	*out = p;
	return PM_OK;
}

void pm_point_free(pm_point *p)
{
	if (!p)
		return;
	free(p->x);
	free(p);
}

void pm_point_clear(pm_point *p)
{
	for (size_t i = 0; p && i < p->m->ninputs; i++)
		p->x[i] = NAN;
}

const double *pm_point_values(const pm_point *p)
{
	return p ? p->x : NULL;
}

/* The index of input `name`, which must have the numeric (want_cat 0) or
 * categorical (1) role; fn, the public function, names a NULL name. */
static pm_status find_input(const char *fn, const pm_point *p, const char *name, int want_cat,
			    size_t *i, pm_error *err)
{
	pm_status st;

	if (!name)
		return pm__fail(err, PM_EINVAL, "%s: the input name is NULL", fn);
	if ((st = pm_model_input_index(p->m, name, i, err)))
		return st;
	if ((p->m->inputs[*i].role == PM_ROLE_CATEGORICAL) != want_cat)
		return pm__fail(err, PM_EINVAL,
				want_cat ? "input '%s' is numeric: set it with a number"
					 : "input '%s' is categorical: set it with a level name",
				name);
	return PM_OK;
}

pm_status pm_point_set_num(pm_point *p, const char *name, double v, pm_error *err)
{
	size_t i;
	pm_status st;

	if (!p)
		return pm__fail(err, PM_EINVAL, "pm_point_set_num: the point is NULL");
	if ((st = find_input("pm_point_set_num", p, name, 0, &i, err)))
		return st;
	if ((st = pm__input_check(&p->m->inputs[i], v, err)))
		return st;
	p->x[i] = v;
	return PM_OK;
}

pm_status pm_point_set_cat(pm_point *p, const char *name, const char *level, pm_error *err)
{
	size_t i, v;
	pm_status st;

	if (!p)
		return pm__fail(err, PM_EINVAL, "pm_point_set_cat: the point is NULL");
	if ((st = find_input("pm_point_set_cat", p, name, 1, &i, err)))
		return st;
	if (!level)
		return pm__fail(err, PM_EINVAL, "pm_point_set_cat: the level of input '%s' is NULL",
				name);
	if ((st = pm_model_level_index(p->m, i, level, &v, err)))
		return st;
	p->x[i] = (double)v;
	return PM_OK;
}

static pm_status set_member(pm_point *p, const pm_jctx *c, const cJSON *v, pm_error *err)
{
	pm_error e = { 0 };
	pm_status st;

	if (cJSON_IsNumber(v))
		st = pm_point_set_num(p, v->string, v->valuedouble, &e);
	else if (cJSON_IsString(v))
		st = pm_point_set_cat(p, v->string, v->valuestring, &e);
	else
		return pm__json_fail(c, PM_ESCHEMA,
				     "'%s' must be a number or a level name (a string)", v->string);
	if (st)
		return pm__fail_at(err, st, c->name, 0, 0, "%s", e.msg);
	return PM_OK;
}

pm_status pm_point_set_json(pm_point *p, const char *json, const char *name, pm_error *err)
{
	cJSON *doc;
	pm_jctx c = { name ? name : "<input>", NULL, err };
	unsigned char *given;
	size_t i;
	pm_status st;

	if (!p || !json)
		return pm__fail(err, PM_EINVAL, "pm_point_set_json: a NULL argument");
	if ((st = pm__json_parse(json, strlen(json), c.name, &doc, err)))
		return st;
	if (!(given = calloc(p->m->ninputs + 1, 1)))
		st = pm__fail(err, PM_ENOMEM, "out of memory");
	else if (!cJSON_IsObject(doc))
		st = pm__json_fail(&c, PM_ESCHEMA,
				   "a point must be an object of input values, "
				   "{\"name\": value, ...}");
	for (const cJSON *v = st ? NULL : doc->child; v && !st; v = v->next) {
		/* cJSON keeps both of two equal keys: refuse, not pick one. Set
		 * first, so that every key is an input, marked as given. */
		st = set_member(p, &c, v, err);
		if (!st && pm_model_input_index(p->m, v->string, &i, NULL) == PM_OK && given[i]++)
			st = pm__json_fail(&c, PM_ESCHEMA, "'%s' is given twice", v->string);
	}
	free(given);
	cJSON_Delete(doc);
	return st;
}

pm_status pm_point_set_json_file(pm_point *p, const char *path, pm_error *err)
{
	char *text;
	size_t len;
	pm_status st;

	if (!p || !path)
		return pm__fail(err, PM_EINVAL, "pm_point_set_json_file: a NULL argument");
	if ((st = pm__read_file(path, &text, &len, err)))
		return st;
	st = pm_point_set_json(p, text, path, err);
	free(text);
	return st;
}

pm_status pm_model_predict_point(const pm_model *m, const pm_point *p, double *out,
				 pm_error *err)
{
	if (!m || !p || !out)
		return pm__fail(err, PM_EINVAL, "pm_model_predict_point: a NULL argument");
	if (p->m != m)
		return pm__fail(err, PM_EINVAL, "the point was made for another model");
	for (size_t i = 0; i < m->ninputs; i++)
		if (isnan(p->x[i]))
			return pm__fail(err, PM_EINVAL, "missing value for input '%s'",
					m->inputs[i].name);
	return pm_model_predict(m, p->x, out, err);
}
