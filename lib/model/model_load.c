/* Reading model.json, version 1 (written by model_save.c; DESIGN.md §5):
 *
 *   { "format": "perfmodel-model", "version": 1, "library_version": "0.1.0",
 *     "form": "additive" | "multiplicative" | "formula",
 *     "formula": TEXT (not for "additive"), "target": NAME,
 *     "target_kind": "speedup" | "efficiency" | "throughput" (absent: a time),
 *     "resource": INPUT (speedup, efficiency), "per": INPUT (throughput),
 *     "scale": "auto" | "none", "target_scale": T,
 *     "inputs": [ {"name", "role": "intrinsic" | "extrinsic", "log_scale"}
 *               | {"name", "role": "categorical", "levels": [...]} ],
 *     "parameters": [ {"name", "kind", "input", "level", "value", "scaled",
 *                      "std", "bounds": [lo, hi]} ],
 *     "fit": {...}, "run": {...} }          (both only after a fit:
 *                                           model_fit_read.c)
 *
 * "version" is 2 for a target kind other than time (version 1 readers
 * would predict its time scale as the target), 1 otherwise.
 * "fit" holds "test" (metrics as "training") and "test_data" ({"file",
 * "fraction", "split_seed"}) only when the fit held rows out.
 * "seeds" (after "parameters", model_seeds.c) only after repeated fits;
 * "warnings" (after them: strings, pm_model_warning) only when there are;
 * "intervals" (after them, model/interval.h) only when the fit calibrated
 * prediction intervals.
 *
 * The model is rebuilt from the inputs (and the formula, parsed again, so
 * that the file cannot hold terms that disagree with its formula), so
 * "parameters" must list exactly the parameters they imply, in that order; only their "scaled",
 * "std" and "bounds" are read. "value" (the raw parameter), "kind", "input",
 * "level" and "library_version" are for people: raw values are recomputed,
 * so a hand-edited "value" cannot disagree with the predictions.
 *
 * Keys this version does not know are ignored, at every level, so that a
 * later perfmodel can add information without raising "version"; a change
 * that older readers must not misread raises "version" instead.
 *
 * Nothing in the file is trusted: every member is type-checked, counts are
 * taken from the lists themselves, and names are checked for duplicates by
 * sorting, so a huge file costs n log n, not n^2. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json_read.h"
#include "model/interval.h"
#include "model/model_fit_read.h"
#include "model/model_impl.h"
#include "model/model_seeds.h"

static const char *const role_names[] = { "intrinsic", "categorical", "extrinsic", NULL };

/* Indices into parameters and factors are 32-bit (terms.h). */
#define MAX_PARAMS (UINT32_MAX / 4)

/* The inputs as read: strings point into the cJSON tree. */
struct inputs {
	size_t n;
	const char **name;
	pm_role *role;
	size_t *nlevels;
	const char *const **levels;
	const char **level_pool;	/* every level, input after input */
	double *log_scale;
};

static void inputs_free(struct inputs *in)
{
	free(in->name);
	free(in->role);
	free(in->nlevels);
	free(in->levels);
	free(in->level_pool);
	free(in->log_scale);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first string that occurs twice in s[0..n), or NULL; ENOMEM as *oom. */
static const char *first_duplicate(const char *const *s, size_t n, int *oom)
{
	const char **sorted;
	const char *dup = NULL;

	*oom = 0;
	if (n < 2)
		return NULL;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		*oom = 1;
		return NULL;
	}
	memcpy(sorted, s, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	for (size_t i = 1; i < n && !dup; i++)
		if (strcmp(sorted[i - 1], sorted[i]) == 0)
			dup = sorted[i];
	free(sorted);
	return dup;
}

static pm_status oom(pm_error *err)
{
	return pm__fail(err, PM_ENOMEM, "out of memory");
}

/* "form", and "formula" for a form other than additive: *form is NULL for
 * additive, else the formula text (pm__model_new). */
static pm_status read_form(const pm_jctx *c, const cJSON *root, const char **form)
{
	static const char *const form_names[] = { "additive", "multiplicative", "formula", NULL };
	int f;
	pm_status st = pm__json_enum(c, root, "form", form_names, &f);

	*form = NULL;
	if (st || f == PM_FORM_ADDITIVE)
		return st;
	return pm__json_string(c, root, "formula", form);
}

static pm_status read_header(const pm_jctx *c, const cJSON *root, const char **target,
			     const char **form, pm_scale *scale, double *target_scale)
{
	const cJSON *v;
	uint64_t version;
	int s;
	pm_status st;

	if (!cJSON_IsObject(root))
		return pm__json_fail(c, PM_ESCHEMA,
				     "not a perfmodel model file (not a JSON object)");
	if ((st = pm__json_item(c, root, "format", 0, &v)))
		return st;
	if (!cJSON_IsString(v) || !v->valuestring || strcmp(v->valuestring, PM_MODEL_FORMAT))
		return pm__json_fail(c, PM_ESCHEMA,
				     "not a perfmodel model file (\"format\" is not \"%s\")",
				     PM_MODEL_FORMAT);
	if ((st = pm__json_uint(c, root, "version", UINT32_MAX, &version)))
		return st;
	if (version > PM_MODEL_VERSION)
		return pm__json_fail(c, PM_ESCHEMA,
				     "model format version %llu is newer than this perfmodel (reads %d)",
				     (unsigned long long)version, PM_MODEL_VERSION);
	if (version < 1)
		return pm__json_fail(c, PM_ESCHEMA, "model format version %llu does not exist",
				     (unsigned long long)version);
	if ((st = read_form(c, root, form)))
		return st;
	if ((st = pm__json_string(c, root, "target", target)))
		return st;
	if (!**target)
		return pm__json_fail(c, PM_ESCHEMA, "'target' must not be empty");
	if ((st = pm__json_enum(c, root, "scale", pm__scale_names, &s)))
		return st;
	*scale = (pm_scale)s;
	if ((st = pm__json_number(c, root, "target_scale", target_scale)))
		return st;
	if (!(*target_scale > 0))
		return pm__json_fail(c, PM_ESCHEMA, "'target_scale' must be > 0 (it is %g)",
				     *target_scale);
	return PM_OK;
}

/* One element of "inputs". Levels go to pool[*used..]. */
static pm_status read_input(pm_jctx *c, const cJSON *obj, struct inputs *in, size_t i,
			    size_t *used, size_t pool_size)
{
	const cJSON *levels;
	size_t n, first = *used;
	int role, dup_oom;
	const char *dup;
	pm_status st;

	if (!cJSON_IsObject(obj))
		return pm__json_fail(c, PM_ESCHEMA, "must be an object");
	if ((st = pm__json_string(c, obj, "name", &in->name[i])))
		return st;
	if (!in->name[i][0])
		return pm__json_fail(c, PM_ESCHEMA, "'name' must not be empty");
	if ((st = pm__json_enum(c, obj, "role", role_names, &role)))
		return st;
	in->role[i] = (pm_role)role;
	if (in->role[i] != PM_ROLE_CATEGORICAL)
		return pm__json_number(c, obj, "log_scale", &in->log_scale[i]);
	if ((st = pm__json_array(c, obj, "levels", 1, &levels, &n)))
		return st;
	if (n == 0)
		return pm__json_fail(c, PM_ESCHEMA, "'levels' must not be empty");
	n = 0;
	for (const cJSON *v = levels->child; v; v = v->next, n++) {
		if (!cJSON_IsString(v) || !v->valuestring)
			return pm__json_fail(c, PM_ESCHEMA, "levels[%zu] must be a string", n);
		if (*used >= pool_size)	/* cannot happen: the pool was counted */
			return pm__json_fail(c, PM_ESCHEMA, "'levels' changed while read");
		in->level_pool[(*used)++] = v->valuestring;
	}
	in->nlevels[i] = n;
	in->levels[i] = in->level_pool + first;
	dup = first_duplicate(in->levels[i], n, &dup_oom);
	if (dup_oom)
		return oom(c->err);
	if (dup)
		return pm__json_fail(c, PM_ESCHEMA, "level '%s' is listed twice", dup);
	return PM_OK;
}

static pm_status read_inputs(const pm_jctx *top, const cJSON *root, struct inputs *in)
{
	const cJSON *arr;
	size_t n, nlev = 0, used = 0, i = 0, nparams = 1;
	char where[64];
	pm_jctx c = *top;
	const char *dup;
	int dup_oom;
	pm_status st;

	if ((st = pm__json_array(top, root, "inputs", 1, &arr, &n)))
		return st;
	/* Size the level pool first: only arrays of levels count. */
	for (const cJSON *v = arr->child; v; v = v->next) {
		const cJSON *l = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "levels")
						    : NULL;

		if (cJSON_IsArray(l))
			for (const cJSON *x = l->child; x; x = x->next)
				nlev++;
	}
	in->n = n;
	in->name = calloc(n + 1, sizeof(*in->name));
	in->role = calloc(n + 1, sizeof(*in->role));
	in->nlevels = calloc(n + 1, sizeof(*in->nlevels));
	in->levels = calloc(n + 1, sizeof(*in->levels));
	in->level_pool = calloc(nlev + 1, sizeof(*in->level_pool));
	in->log_scale = calloc(n + 1, sizeof(*in->log_scale));
	if (!in->name || !in->role || !in->nlevels || !in->levels || !in->level_pool ||
	    !in->log_scale)
		return oom(top->err);
	c.where = where;
	for (const cJSON *v = arr->child; v; v = v->next, i++) {
		snprintf(where, sizeof(where), "inputs[%zu]", i);
		if ((st = read_input(&c, v, in, i, &used, nlev)))
			return st;
		nparams += in->role[i] == PM_ROLE_INTRINSIC ? 2
			 : in->role[i] == PM_ROLE_EXTRINSIC ? 1 : in->nlevels[i];
		if (nparams > MAX_PARAMS)
			return pm__json_fail(top, PM_ESCHEMA, "the inputs need too many parameters");
	}
	dup = first_duplicate(in->name, n, &dup_oom);
	if (dup_oom)
		return oom(top->err);
	if (dup)
		return pm__json_fail(top, PM_ESCHEMA, "two inputs are named '%s'", dup);
	return PM_OK;
}

static pm_status read_bounds(const pm_jctx *c, const cJSON *obj, pm_param *p)
{
	const cJSON *b;
	size_t n;
	pm_status st = pm__json_array(c, obj, "bounds", 1, &b, &n);

	if (st)
		return st;
	if (n != 2 || !cJSON_IsNumber(b->child) || !cJSON_IsNumber(b->child->next) ||
	    !isfinite(b->child->valuedouble) || !isfinite(b->child->next->valuedouble))
		return pm__json_fail(c, PM_ESCHEMA, "'bounds' must be [lo, hi], two finite numbers");
	p->lo = b->child->valuedouble;
	p->hi = b->child->next->valuedouble;
	if (!(p->lo <= p->hi))
		return pm__json_fail(c, PM_ESCHEMA, "'bounds' [%g, %g] has lo > hi", p->lo, p->hi);
	return PM_OK;
}

static pm_status read_params(const pm_jctx *top, const cJSON *root, pm_model *m)
{
	const cJSON *arr, *v;
	size_t n, k = 0;
	char where[64];
	pm_jctx c = *top;
	pm_status st;

	if ((st = pm__json_array(top, root, "parameters", 1, &arr, &n)))
		return st;
	c.where = where;
	/* names first, so that a wrong list is reported as such and not as a
	 * bad member of some entry */
	for (v = arr->child; v && k < m->nparams; v = v->next, k++) {
		const char *name;

		snprintf(where, sizeof(where), "parameters[%zu]", k);
		if (!cJSON_IsObject(v))
			return pm__json_fail(&c, PM_ESCHEMA, "must be an object");
		if ((st = pm__json_string(&c, v, "name", &name)))
			return st;
		if (strcmp(name, m->params[k].name) != 0)
			return pm__json_fail(&c, PM_ESCHEMA,
					     "is '%s' where the inputs give '%s' (parameters must be "
					     "listed exactly as perfmodel writes them)",
					     name, m->params[k].name);
	}
	if (n < m->nparams)
		return pm__json_fail(top, PM_ESCHEMA,
				     "'parameters' has %zu entries where the inputs give %zu "
				     "(the first missing one is '%s')",
				     n, m->nparams, m->params[n].name);
	if (n > m->nparams)
		return pm__json_fail(top, PM_ESCHEMA,
				     "'parameters' has %zu entries where the inputs give %zu", n,
				     m->nparams);
	for (v = arr->child, k = 0; v; v = v->next, k++) {
		snprintf(where, sizeof(where), "parameter '%.40s'", m->params[k].name);
		if ((st = pm__json_number(&c, v, "scaled", &m->value[k])) ||
		    (st = pm__json_number_or_null(&c, v, "std", &m->params[k].std)) ||
		    (st = read_bounds(&c, v, &m->params[k])) ||
		    (st = pm__model_read_flag(&c, v, "undetermined", &m->params[k].undetermined)))
			return st;
	}
	return PM_OK;
}

/* "workers": the worker columns of a derived target (optional: a measured
 * target, or a file written before models kept them). */
static pm_status read_workers(const pm_jctx *c, const cJSON *root, pm_model *m)
{
	const cJSON *arr, *v;
	const char **names;
	size_t n, i = 0;
	pm_status st;

	if ((st = pm__json_array(c, root, "workers", 0, &arr, &n)) || !arr)
		return st;
	if (!(names = malloc((n + 1) * sizeof(*names))))
		return oom(c->err);
	cJSON_ArrayForEach(v, arr) {
		if (!cJSON_IsString(v) || !v->valuestring || !*v->valuestring) {
			free(names);
			return pm__json_fail(c, PM_ESCHEMA, "'workers' must be column names");
		}
		names[i++] = v->valuestring;
	}
	st = pm__model_set_workers(m, n, names, c->err);
	free(names);
	return st;
}

/* An optional string member: *out NULL when absent. */
static pm_status optional_string(const pm_jctx *c, const cJSON *root, const char *key,
				 const char **out)
{
	const cJSON *v;
	pm_status st;

	*out = NULL;
	if ((st = pm__json_item(c, root, key, 0, &v)) || !v)
		return st;
	return pm__json_string(c, root, key, out);
}

/* "target_kind", "resource", "per" (optional: a time, as every file
 * before target kinds). The inputs must be the model's numeric ones. */
static pm_status read_target_kind(const pm_jctx *c, const cJSON *root, pm_model *m)
{
	const char *resource, *per;
	const cJSON *v;
	int kind = PM_TARGET_TIME;
	pm_status st;

	if ((st = pm__json_item(c, root, "target_kind", 0, &v)) ||
	    (v && (st = pm__json_enum(c, root, "target_kind", pm__target_kind_names, &kind))) ||
	    (st = optional_string(c, root, "resource", &resource)) ||
	    (st = optional_string(c, root, "per", &per)))
		return st;
	if ((st = pm__model_set_target_kind(m, (pm_target_kind)kind, resource, per, c->err)))
		pm__err_set_file(c->err, c->name);
	return st;
}

/* "warnings": what the fit found (optional: none). */
static pm_status read_warnings(const pm_jctx *c, const cJSON *root, pm_model *m)
{
	const cJSON *arr, *v;
	size_t n;
	pm_status st;

	if ((st = pm__json_array(c, root, "warnings", 0, &arr, &n)) || !arr)
		return st;
	cJSON_ArrayForEach(v, arr) {
		if (!cJSON_IsString(v) || !v->valuestring)
			return pm__json_fail(c, PM_ESCHEMA, "'warnings' must be strings");
		if ((st = pm__model_add_warning(m, c->err, "%s", v->valuestring)))
			return st;
	}
	return PM_OK;
}

/* Eq. 4.4 of extrinsic inputs alone gained a base coefficient a0 (issue
 * 20, pm__terms_additive) within version 1: a file saved before lists its
 * parameters without it, q_j... then C, one fewer. Such a file is built as
 * it was written, so that it still loads, saves and predicts what it always
 * did (the constant C); the form to give pm__model_new. (An older reader
 * refuses a file with a0 by its name, so the version need not change.) */
static const char *additive_form(const cJSON *root, const struct inputs *in)
{
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "parameters");

	if (pm__terms_additive_has_base(in->n, in->role) && cJSON_IsArray(params) &&
	    (size_t)cJSON_GetArraySize(params) == in->n + 1)
		return pm__form_additive_no_base;
	return NULL;
}

static pm_status load_doc(const cJSON *root, const char *name, pm_model **out, pm_error *err)
{
	pm_jctx c = { name, NULL, err };
	struct inputs in = { 0 };
	const char *target = NULL, *form = NULL;
	pm_scale scale = PM_SCALE_AUTO;
	double target_scale = 1.0;
	pm_model *m = NULL;
	pm_status st;

	if ((st = read_header(&c, root, &target, &form, &scale, &target_scale)) ||
	    (st = read_inputs(&c, root, &in)))
		goto out;
	if (!form)
		form = additive_form(root, &in);
	st = pm__model_new(target, in.n, in.name, in.role, in.nlevels, in.levels, form, &m, err);
	/* placed in the formula: say which file's */
	if (st == PM_EPARSE)
		pm__err_append(err, " (the 'formula' of %s)", name);
	if (st)
		goto out;
	/* the preset's formula is built from its text: the model is still the
	 * preset, as the file says (a warm start compares forms) */
	if (form && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "form")) &&
	    strcmp(cJSON_GetObjectItemCaseSensitive(root, "form")->valuestring,
		   "multiplicative") == 0)
		m->form = PM_FORM_MULTIPLICATIVE;
	m->scale = scale;
	m->target_scale = target_scale;
	for (size_t i = 0; i < in.n; i++)
		m->inputs[i].log_scale = in.role[i] == PM_ROLE_CATEGORICAL ? 0.0 : in.log_scale[i];
	if ((st = read_workers(&c, root, m)) || (st = read_target_kind(&c, root, m)) ||
	    (st = read_params(&c, root, m)) || (st = pm__model_read_seeds(&c, root, m)) ||
	    (st = read_warnings(&c, root, m)) || (st = pm__model_read_intervals(&c, root, m)) ||
	    (st = pm__model_read_fit(&c, root, m)))
		goto out;
	pm__model_raw(m);
	*out = m;
	m = NULL;
out:
	pm_model_free(m);
	inputs_free(&in);
	return st;
}

static pm_status load_text(const char *text, size_t len, const char *name, pm_model **out,
			   pm_error *err)
{
	cJSON *doc;
	pm_status st = pm__json_parse(text, len, name, &doc, err);

	if (st)
		return st;
	st = load_doc(doc, name, out, err);
	cJSON_Delete(doc);
	return st;
}

pm_status pm_model_load_string(const char *json, const char *name, pm_model **out,
			       pm_error *err)
{
	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_model_load_string: out is NULL");
	*out = NULL;
	if (!json)
		return pm__fail(err, PM_EINVAL, "pm_model_load_string: json is NULL");
	return load_text(json, strlen(json), name ? name : "<input>", out, err);
}

pm_status pm_model_load_file(const char *path, pm_model **out, pm_error *err)
{
	char *text;
	size_t len;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_model_load_file: out is NULL");
	*out = NULL;
	if (!path)
		return pm__fail(err, PM_EINVAL, "pm_model_load_file: path is NULL");
	if ((st = pm__read_file(path, &text, &len, err)))
		return st;
	st = load_text(text, len, path, out, err);
	free(text);
	return st;
}
