/* The predict config of DESIGN.md §5, read into a model and a dataset of
 * points, so that `perfmodel predict CONFIG` and `predict -m MODEL CSV` share
 * one prediction path. Points are checked here, against the model, because
 * only here can an error say which point is wrong. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "data/dataset_impl.h"
#include "core/error.h"
#include "core/json_read.h"
#include "core/numcodec.h"
#include "model/model_impl.h"

/* The model path as written, resolved against the config's folder. */
static char *resolve_path(const char *config, const char *model)
{
	const char *slash = strrchr(config, '/');
	size_t dir = (model[0] == '/' || !slash) ? 0 : (size_t)(slash - config) + 1;
	size_t len = dir + strlen(model) + 1;
	char *p = malloc(len);

	if (p) {
		memcpy(p, config, dir);
		memcpy(p + dir, model, strlen(model) + 1);
	}
	return p;
}

/* Text for one cell of point k: a number as %.17g (exact), a level as is. */
static pm_status point_cell(const char *path, size_t k, const pm_model *m, size_t i,
			    const cJSON *v, char *buf, size_t size, pm_error *err)
{
	const pm_input *in = &m->inputs[i];
	pm_error lerr = { 0 };
	size_t level;

	if (!v)
		return pm__fail_at(err, PM_ESCHEMA, path, 0, 0, "point %zu: missing '%s'", k + 1,
				   in->name);
	if (in->role == PM_ROLE_CATEGORICAL) {
		if (!cJSON_IsString(v))
			return pm__fail_at(err, PM_ESCHEMA, path, 0, 0,
					   "point %zu: '%s' must be a level name (a string)",
					   k + 1, in->name);
		if (pm_model_level_index(m, i, v->valuestring, &level, &lerr))
			return pm__fail_at(err, PM_EDOMAIN, path, 0, 0, "point %zu: %s", k + 1,
					   lerr.msg);
		snprintf(buf, size, "%s", v->valuestring);
		return PM_OK;
	}
	if (!cJSON_IsNumber(v))
		return pm__fail_at(err, PM_ESCHEMA, path, 0, 0, "point %zu: '%s' must be a number",
				   k + 1, in->name);
	if (pm__input_check(in, v->valuedouble, &lerr))
		return pm__fail_at(err, PM_EDOMAIN, path, 0, 0, "point %zu: %s", k + 1, lerr.msg);
	pm_snprintf(buf, size, "%.17g", v->valuedouble);
	return PM_OK;
}

/* Point k's member of each input, in val[0..ninputs) (NULL: missing); a
 * member that is no input is an error. One pass over the members: the
 * keys were checked distinct. */
static pm_status point_values(const char *path, size_t k, const pm_model *m, const cJSON *pt,
			      const cJSON **val, pm_error *err)
{
	size_t i;

	if (!cJSON_IsObject(pt))
		return pm__fail_at(err, PM_ESCHEMA, path, 0, 0,
				   "point %zu must be an object of input values", k + 1);
	for (i = 0; i < m->ninputs; i++)
		val[i] = NULL;
	for (const cJSON *v = pt->child; v; v = v->next) {
		if (pm_model_input_index(m, v->string, &i, NULL))
			return pm__fail_at(err, PM_ESCHEMA, path, 0, 0,
					   "point %zu: the model has no input '%s'", k + 1,
					   v->string);
		val[i] = v;
	}
	return PM_OK;
}

static pm_status build_points(const char *path, const pm_model *m, const cJSON *pts,
			      size_t n, pm_dataset **out, pm_error *err)
{
	size_t ni = m->ninputs, k = 0;
	const char **names = malloc((ni + 1) * sizeof(*names));
	const cJSON **val = malloc((ni + 1) * sizeof(*val));
	char **cells = calloc(n * ni + 1, sizeof(*cells));
	pm_status st = PM_OK;
	char buf[64];

	if (!names || !val || !cells) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ni; i++)
		names[i] = m->inputs[i].name;
	/* pts: the array of "points", or the one object of "point" */
	for (const cJSON *pt = cJSON_IsArray(pts) ? pts->child : pts; pt; pt = pt->next, k++) {
		if ((st = point_values(path, k, m, pt, val, err)))
			goto out;
		for (size_t i = 0; i < ni; i++) {
			const cJSON *v = val[i];

			if ((st = point_cell(path, k, m, i, v, buf, sizeof(buf), err)))
				goto out;
			if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
				cells[k * ni + i] = strdup(v->valuestring);
			else
				cells[k * ni + i] = strdup(buf);
			if (!cells[k * ni + i]) {
				st = pm__fail(err, PM_ENOMEM, "out of memory");
				goto out;
			}
		}
		if (!cJSON_IsArray(pts))
			break;
	}
	st = pm__dataset_build(path, ni, names, n, (const char *const *)cells, NULL, NULL, out,
			       err);
out:
	for (size_t c = 0; cells && c < n * ni; c++)
		free(cells[c]);
	free(cells);
	free(val);
	free(names);
	return st;
}

pm_status pm_predict_config_read(const char *path, pm_model **model, pm_dataset **points,
				 pm_error *err)
{
	char *text = NULL, *mpath = NULL;
	size_t len;
	cJSON *doc = NULL;
	const cJSON *mv, *pts, *pt;
	pm_status st;
	size_t n;

	if (!path || !model || !points) {
		if (model)
			*model = NULL;
		if (points)
			*points = NULL;
		return pm__fail(err, PM_EINVAL, "pm_predict_config_read: a NULL argument");
	}
	*model = NULL;
	*points = NULL;
	if ((st = pm__read_file(path, &text, &len, err)) ||
	    (st = pm__json_parse(text, len, path, &doc, err)))
		goto out;
	if (!cJSON_IsObject(doc)) {
		st = pm__fail_at(err, PM_ESCHEMA, path, 0, 0, "a predict config must be an object");
		goto out;
	}
	/* as strict as a spec: {"n": 1, "n": 2} is no point */
	if ((st = pm__json_distinct_keys(doc, path, err)))
		goto out;
	for (const cJSON *v = doc->child; v; v = v->next)
		if (strcmp(v->string, "model") && strcmp(v->string, "points") &&
		    strcmp(v->string, "point")) {
			st = pm__fail_at(err, PM_ESCHEMA, path, 0, 0,
					 "unknown key '%s' (expected model, points or point)",
					 v->string);
			goto out;
		}
	mv = cJSON_GetObjectItemCaseSensitive(doc, "model");
	pts = cJSON_GetObjectItemCaseSensitive(doc, "points");
	pt = cJSON_GetObjectItemCaseSensitive(doc, "point");
	if (!cJSON_IsString(mv) || !mv->valuestring[0]) {
		st = pm__fail_at(err, PM_ESCHEMA, path, 0, 0,
				 "\"model\" must name the model file (a string)");
		goto out;
	}
	if (!!pts == !!pt || (pts && !cJSON_IsArray(pts))) {
		st = pm__fail_at(err, PM_ESCHEMA, path, 0, 0,
				 "give either \"points\": [ {...}, ... ] or \"point\": {...}");
		goto out;
	}
	/* one point is one object: an array there would be read as several
	 * points where one was counted */
	if (pt && !cJSON_IsObject(pt)) {
		st = pm__fail_at(err, PM_ESCHEMA, path, 0, 0, "\"point\" must be one object of "
				 "input values (several points: \"points\": [ {...}, ... ])");
		goto out;
	}
	n = pts ? (size_t)cJSON_GetArraySize(pts) : 1;
	if (n == 0) {
		st = pm__fail_at(err, PM_ESCHEMA, path, 0, 0, "\"points\" is empty");
		goto out;
	}
	if (!(mpath = resolve_path(path, mv->valuestring))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = pm_model_load_file(mpath, model, err)) ||
	    (st = build_points(path, *model, pts ? pts : pt, n, points, err))) {
		pm_model_free(*model);
		*model = NULL;
	}
out:
	cJSON_Delete(doc);
	free(text);
	free(mpath);
	return st;
}
