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
 *     "fit": {...}, "run": {...} }          (both only after a fit)
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
#include "model/loss.h"
#include "model/model_choice.h"
#include "model/model_reps.h"
#include "model/model_impl.h"
#include "model/model_seeds.h"

static const char *const role_names[] = { "intrinsic", "categorical", "extrinsic", NULL };
static const char *const scale_names[] = { "auto", "none", NULL };	/* pm_scale order */
static const char *const reg_names[] = { "none", "l1", "l2", NULL };	/* pm_reg order */
static const char *const engine_names[] = { "varpro", "de", NULL };	/* pm_engine order */

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
	if ((st = pm__json_enum(c, root, "scale", scale_names, &s)))
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

/* An optional boolean member, written only when true ("interrupted": a
 * fit stopped early; a parameter's "undetermined"): absent is false. */
static pm_status read_flag(const pm_jctx *c, const cJSON *obj, const char *key, int *out)
{
	const cJSON *item;
	pm_status st = pm__json_item(c, obj, key, 0, &item);

	*out = 0;
	if (st || !item)
		return st;
	return pm__json_bool(c, obj, key, out);
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
		    (st = read_flag(&c, v, "undetermined", &m->params[k].undetermined)))
			return st;
	}
	return PM_OK;
}

static pm_status read_unsigned(const pm_jctx *c, const cJSON *obj, const char *key,
			       unsigned *out)
{
	uint64_t u;
	pm_status st = pm__json_uint(c, obj, key, UINT_MAX, &u);

	if (!st)
		*out = (unsigned)u;
	return st;
}

/* Written only by an interrupted pm_fit_seeds (then "seeds" lists the
 * seeds that completed); absent: every seed listed completed. */
static pm_status read_seed_counts(const pm_jctx *c, const cJSON *fit, const pm_model *m,
				  unsigned *asked)
{
	const cJSON *item;
	unsigned done;
	pm_status st;

	*asked = m->nseeds > 1 ? (unsigned)m->nseeds : 0;
	if ((st = pm__json_item(c, fit, "seeds_requested", 0, &item)) || !item)
		return st;
	if ((st = read_unsigned(c, fit, "seeds_requested", asked)) ||
	    (st = read_unsigned(c, fit, "seeds_completed", &done)))
		return st;
	if (done != m->nseeds || *asked < done || *asked < 2)
		return pm__json_fail(c, PM_ESCHEMA, "'seeds_completed' (%u) must be the number "
				     "of seeds listed (%zu), at most 'seeds_requested' (%u, >= 2)",
				     done, m->nseeds, *asked);
	return PM_OK;
}

/* fit.training (required) or fit.test (optional: absent leaves t->n 0). */
static pm_status read_metrics(const pm_jctx *top, const cJSON *fit, const char *key,
			      int required, pm_metrics *t)
{
	const cJSON *o;
	pm_jctx c = *top;
	uint64_t rows;
	pm_status st;

	if ((st = pm__json_object(top, fit, key, required, &o)) || !o)
		return st;
	c.where = strcmp(key, "test") ? "fit.training" : "fit.test";
	if ((st = pm__json_uint(&c, o, "rows", SIZE_MAX, &rows)))
		return st;
	t->n = (size_t)rows;
	if ((st = pm__json_number_or_null(&c, o, "mae", &t->mae)) ||
	    (st = pm__json_number_or_null(&c, o, "mape", &t->mape)) ||
	    (st = pm__json_number_or_null(&c, o, "mse", &t->mse)) ||
	    (st = pm__json_number_or_null(&c, o, "rmse", &t->rmse)) ||
	    (st = pm__json_number_or_null(&c, o, "r2", &t->r2)) ||
	    (st = pm__json_number_or_null(&c, o, "smape", &t->smape)) ||
	    (st = pm__json_number_or_null(&c, o, "adj_r2", &t->adj_r2)))
		return st;
	return PM_OK;
}

/* The validation scheme of the held-out rows, when there was one. */
static pm_status read_validation(const pm_jctx *c, const cJSON *o, pm_fit_info *f)
{
	const cJSON *item;
	char text[320];
	pm_error e;
	pm_status st;

	if ((st = pm__json_item(c, o, "validation", 0, &item)) || !item ||
	    (st = pm__json_fixed(c, o, "validation", text, sizeof(text))))
		return st;
	if (pm_validation_parse(text, &f->options.validate, &e))
		return pm__json_fail(c, PM_ESCHEMA, "'validation': %s", e.msg);
	/* the folds' seed, which the text does not hold (pm_fit records it) */
	if (f->options.validate.scheme == PM_SCHEME_KFOLD)
		f->options.validate.seed = f->options.split_seed;
	return pm__json_fixed(c, o, "description", f->validation, sizeof(f->validation));
}

/* Where the held-out rows came from; written with fit.test only. */
static pm_status read_test_data(const pm_jctx *top, const cJSON *fit, pm_fit_info *f)
{
	const cJSON *o;
	pm_jctx c = *top;
	pm_status st;

	if ((st = pm__json_object(top, fit, "test_data", 0, &o)) || !o)
		return st;
	c.where = "fit.test_data";
	if ((st = pm__json_fixed(&c, o, "file", f->test_name, sizeof(f->test_name))) ||
	    (st = pm__json_number(&c, o, "fraction", &f->options.test_fraction)) ||
	    (st = pm__json_uint(&c, o, "split_seed", UINT64_MAX, &f->options.split_seed)))
		return st;
	if (!(f->options.test_fraction >= 0 && f->options.test_fraction < 1))
		return pm__json_fail(&c, PM_ESCHEMA, "'fraction' must be in [0, 1)");
	return read_validation(&c, o, f);
}

/* A fit's source, "data" or "warm_start": its file and its fingerprint. */
static pm_status read_source(const pm_jctx *c, const cJSON *o, char *file, size_t size,
			     char *fingerprint)
{
	pm_status st = pm__json_fixed(c, o, "file", file, size);

	return st ? st : pm__json_fixed(c, o, "fingerprint", fingerprint,
				    sizeof(((pm_fit_info *)0)->fingerprint));
}

/* "warm_start": the model a warm-started fit began from (optional). */
static pm_status read_warm_start(const pm_jctx *top, const cJSON *fit, pm_fit_info *f)
{
	const cJSON *o;
	pm_jctx c = *top;
	pm_status st = pm__json_object(top, fit, "warm_start", 0, &o);

	if (st || !o)
		return st;
	c.where = "fit.warm_start";
	f->warm_started = 1;
	st = read_source(&c, o, f->warm_data, sizeof(f->warm_data), f->warm_fingerprint);
	return st ? st : pm__json_number_or_null(&c, o, "cost", &f->warm_cost);
}

static pm_status read_fit(const pm_jctx *top, const cJSON *root, pm_model *m)
{
	const cJSON *fit, *run, *mut, *data, *item;
	pm_fit_info f;
	pm_fit_options *o = &f.options;
	pm_jctx c = *top;
	size_t n;
	int e;
	pm_status st;

	if ((st = pm__json_object(top, root, "fit", 0, &fit)) || !fit)
		return st;
	memset(&f, 0, sizeof(f));
	c.where = "fit";
	/* absent in models saved before there was a choice: DE's */
	if ((st = pm__json_item(&c, fit, "engine", 0, &item)))
		return st;
	if (item && (st = pm__json_enum(&c, fit, "engine", engine_names, &e)))
		return st;
	o->engine = item ? (pm_engine)e : PM_ENGINE_DE;
	if ((st = pm__json_uint(&c, fit, "seed", UINT64_MAX, &o->seed)) ||
	    (st = read_unsigned(&c, fit, "maxiter", &o->maxiter)) ||
	    (st = read_unsigned(&c, fit, "popsize", &o->popsize)) ||
	    (st = pm__json_number(&c, fit, "tol", &o->tol)) ||
	    (st = pm__json_number(&c, fit, "atol", &o->atol)) ||
	    (st = pm__json_array(&c, fit, "mutation", 1, &mut, &n)))
		return st;
	if (n != 2 || !cJSON_IsNumber(mut->child) || !cJSON_IsNumber(mut->child->next) ||
	    !isfinite(mut->child->valuedouble) || !isfinite(mut->child->next->valuedouble))
		return pm__json_fail(&c, PM_ESCHEMA, "'mutation' must be [lo, hi], two finite numbers");
	o->mutation_lo = mut->child->valuedouble;
	o->mutation_hi = mut->child->next->valuedouble;
	if ((st = pm__json_number(&c, fit, "recombination", &o->recombination)) ||
	    (st = pm__json_bool(&c, fit, "polish", &o->polish)))
		return st;
	if ((st = pm__json_enum(&c, fit, "scale", scale_names, &e)))
		return st;
	o->scale = (pm_scale)e;
	/* absent in models saved before there was a choice: the thesis's MAE */
	if ((st = pm__json_item(&c, fit, "loss", 0, &item)))
		return st;
	if (item && (st = pm__json_enum(&c, fit, "loss", pm__loss_names, &e)))
		return st;
	o->loss = item ? (pm_loss)e : PM_LOSS_MAE;
	if ((st = pm__json_enum(&c, fit, "reg", reg_names, &e)))
		return st;
	o->reg = (pm_reg)e;
	if ((st = pm__json_number(&c, fit, "lambda", &o->lambda_coef)) ||
	    (st = pm__json_number(&c, fit, "lambda_power", &o->lambda_power)) ||
	    (st = read_unsigned(&c, fit, "generations", &f.generations)) ||
	    (st = pm__json_uint(&c, fit, "evaluations", UINT64_MAX, &f.evaluations)) ||
	    (st = pm__json_fixed(&c, fit, "stop", f.stop, sizeof(f.stop))) ||
	    (st = pm__json_bool(&c, fit, "polished", &f.polished)) ||
	    (st = read_flag(&c, fit, "interrupted", &f.interrupted)) ||
	    (st = read_flag(&c, fit, "constant", &f.constant)) ||
	    (st = read_seed_counts(&c, fit, m, &f.seeds_asked)) ||
	    (st = pm__json_number_or_null(&c, fit, "cost", &f.cost)) ||
	    (st = read_warm_start(&c, fit, &f)) || (st = pm__model_read_choice(&c, fit, &f)) ||
	    (st = read_metrics(&c, fit, "training", 1, &f.training)) ||
	    (st = read_metrics(&c, fit, "test", 0, &f.test)) ||
	    (st = read_test_data(&c, fit, &f)) ||
	    (st = pm__model_read_repetitions(&c, fit, m, &f.weights)) ||
	    (st = pm__json_object(&c, fit, "data", 1, &data)))
		return st;
	c.where = "fit.data";
	if ((st = read_source(&c, data, f.data_name, sizeof(f.data_name), f.fingerprint)))
		return st;
	/* "run" holds what differs between two identical runs; a file may
	 * have had it removed to compare models, so it is optional. */
	if ((st = pm__json_object(top, root, "run", 0, &run)))
		return st;
	if (run) {
		c.where = "run";
		if ((st = read_unsigned(&c, run, "threads", &o->threads)) ||
		    (st = read_unsigned(&c, run, "threads_used", &f.threads_used)) ||
		    (st = pm__json_number_or_null(&c, run, "wall_time_s", &f.wall_time_s)))
			return st;
	}
	m->info = f;
	m->has_fit_info = 1;
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
	    (st = read_fit(&c, root, m)))
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
