/* perfmodel.fit, select, discover and inspect: the options dict made into
 * the library's structs (options.c), the call, and its result as Python
 * objects; Ctrl-C as interrupt.c says. */
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* ---- what a call reads, owned by its job ---------------------------------------
 * A call left running after a KeyboardInterrupt (interrupt.c) outlives the
 * Python objects its options came from: its job holds copies. */

/* The strings a job points to: nfixed pointers to them, then nmore more
 * each stride bytes after the one before (an array's, or a member of an
 * array of structs). */
struct texts {
	const char **const *fixed;
	size_t nfixed;
	const char **more;
	size_t nmore, stride;
};

static const char **text_at(const struct texts *t, size_t i)
{
	return i < t->nfixed ? t->fixed[i]
			     : (const char **)((char *)t->more + (i - t->nfixed) * t->stride);
}

/* Each of the strings of t (NULL stays NULL) copied into one block,
 * *block, and repointed there. 0, or -1 with MemoryError. */
static int own_texts(const struct texts *t, char **block)
{
	size_t size = 1, n = t->nfixed + t->nmore;
	char *at;

	for (size_t i = 0; i < n; i++)
		size += *text_at(t, i) ? strlen(*text_at(t, i)) + 1 : 0;
	if (!(at = *block = malloc(size))) {
		PyErr_NoMemory();
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (*text_at(t, i)) {
			size_t len = strlen(*text_at(t, i)) + 1;

			*text_at(t, i) = memcpy(at, *text_at(t, i), len);
			at += len;
		}
	return 0;
}

/* The members of read options that point to strings, for struct texts. */
#define READ_TEXTS(ro) &(ro)->target, &(ro)->throughput, &(ro)->per, &(ro)->name_pattern, \
		       &(ro)->region, &(ro)->metric

enum { MODE_FIT, MODE_SELECT, MODE_DISCOVER };

struct fit_job {
	int mode;
	pm_source src;
	pm_spec *s;
	pm_fit_options fo;
	pm_discover_options dopt;
	pm_validation v;
	pm_candidate *cand;
	size_t ncand;
	unsigned nseeds;
	pm_model *warm;		/* the warm start, owned: loaded, or a copy */
	char *strings;		/* what src and cand point to */
	volatile sig_atomic_t stop;
	pm_fit_result *r;	/* the result */
	pm_status st;
	pm_error err;
};

static void fit_run(void *job)
{
	struct fit_job *j = job;

	j->st = j->mode == MODE_SELECT
		? pm_select_file(&j->src, j->s, &j->fo, j->cand, j->ncand, &j->v, &j->r, &j->err)
		: j->mode == MODE_DISCOVER
		? pm_discover_file(&j->src, j->s, &j->fo, &j->dopt, j->nseeds, &j->r, &j->err)
		: pm_fit_file(&j->src, j->s, &j->fo, j->nseeds, &j->r, &j->err);
}

static void fit_drop(void *job)
{
	struct fit_job *j = job;

	pm_fit_result_free(j->r);
	free(j->cand);
	pm_spec_free(j->s);
	pm_model_free(j->warm);
	free(j->strings);
	free(j);
}

/* The warm start: a Model's (a copy: the Model may be gone before an
 * abandoned fit ends) or a file's. -1 with an exception, or *st and err. */
static int warm_start(PyObject *o, struct fit_job *j)
{
	PyObject *w = PyDict_GetItemString(o, "warm_start");
	const char *path;
	char *json = NULL;

	if (w && PyObject_TypeCheck(w, &pmpy_model_type)) {
		j->st = pm_model_to_json(((pmpy_model *)w)->m, &json, &j->err);
		if (!j->st)
			j->st = pm_model_load_string(json, "warm_start", &j->warm, &j->err);
		free(json);
	} else if (w) {
		if (pmpy_opt_str(o, "warm_start", &path) < 0)
			return -1;
		j->st = pm_model_load_file(path, &j->warm, &j->err);
	}
	j->fo.warm_start = j->warm;
	return j->st ? -1 : 0;
}

/* The options of a discovery and a validation, besides pmpy_fit_options':
 * -1 with an exception, or with *st and err filled. */
static int more_options(PyObject *o, struct fit_job *j)
{
	const char *scheme;
	uint64_t seed = 1;

	if (pmpy_opt_uint(o, "nseeds", &j->nseeds) < 0 ||
	    pmpy_opt_uint(o, "max_terms", &j->dopt.max_terms) < 0 ||
	    pmpy_opt_uint(o, "beam", &j->dopt.beam) < 0 ||
	    pmpy_opt_uint(o, "top", &j->dopt.top) < 0 ||
	    pmpy_opt_uint(o, "refine", (unsigned *)&j->dopt.refine) < 0 ||
	    pmpy_opt_str(o, "validate", &scheme) < 0 || pmpy_opt_u64(o, "validate_seed", &seed) < 0)
		return -1;
	if (j->fo.threads > pm_cpu_count())
		j->fo.threads = pm_cpu_count();	/* as perfmodel fit: more only take turns */
	if (scheme) {
		if ((j->st = pm_validation_parse(scheme, &j->v, &j->err)))
			return -1;
		j->v.seed = seed;
	}
	if (j->mode == MODE_FIT)
		j->fo.validate = j->v;
	j->dopt.validate = j->v;
	return 0;
}

/* The job of _fit's arguments; NULL with an exception. */
static struct fit_job *fit_job(int mode, const char *path, PyObject *o)
{
	struct fit_job *j = calloc(1, sizeof(*j));

	if (!j)
		return (void *)PyErr_NoMemory();
	*j = (struct fit_job){ .mode = mode, .dopt = pm_discover_options_default(),
			       .v = { .scheme = PM_SCHEME_NONE }, .nseeds = 1 };
	j->src.path = path;
	if (pmpy_fit_options(o, &j->fo, &j->st, &j->err) < 0 || more_options(o, j) < 0 ||
	    warm_start(o, j) < 0 || pmpy_opt_str(o, "test_path", &j->src.test_path) < 0 ||
	    pmpy_read_options(o, &j->src.read, &j->st, &j->err) < 0 ||
	    pmpy_build_spec(o, &j->s, &j->st, &j->err) < 0 ||
	    (mode == MODE_SELECT && pmpy_candidates(o, &j->cand, &j->ncand, &j->st, &j->err) < 0))
		goto fail;
	j->fo.stop = &j->stop;
	{
		const char **const fixed[] = { &j->src.path, &j->src.test_path,
					       READ_TEXTS(&j->src.read) };
		const struct texts t = { fixed, sizeof(fixed) / sizeof(fixed[0]),
					 j->cand ? &j->cand[0].form : NULL, j->ncand,
					 sizeof(*j->cand) };

		if (own_texts(&t, &j->strings) < 0)
			goto fail;
	}
	return j;
fail:
	if (!PyErr_Occurred())
		pmpy_raise(&j->err);
	fit_drop(j);
	return NULL;
}

/* ---- what a call makes, as Python objects ---------------------------------------- */
struct selection_ctx {
	const pm_fit_result *r;
	const pm_candidate *cand;
};

/* How candidate i of a selection did. */
static PyObject *candidate_item(const void *ctx, size_t i)
{
	const struct selection_ctx *c = ctx;
	const pm_cv_result *cv = &c->r->cv[i];
	PyObject *mean = pmpy_metrics_dict(&cv->mean), *std = pmpy_metrics_dict(&cv->std);
	PyObject *t = mean && std ? Py_BuildValue(
		"{s:s,s:s,s:n,s:d,s:d,s:d,s:I,s:I,s:O,s:O,s:O}", "form", c->cand[i].form,
		"loss", pm_loss_name(c->cand[i].loss), "params", (Py_ssize_t)cv->nparams,
		"mape", cv->mape, "mape_std", cv->mape_std, "r2", cv->r2, "folds", cv->folds,
		"constant_folds", cv->constant_folds, "chosen", i == c->r->best ? Py_True : Py_False,
		"mean", mean, "std", std) : NULL;

	Py_XDECREF(mean);
	Py_XDECREF(std);
	return t;
}

static PyObject *discovered_item(const void *ctx, size_t i)
{
	const pm_discovery *x = ctx;

	return Py_BuildValue("{s:s,s:I,s:d,s:d,s:O}", "formula", x->cand[i].formula,
			     "terms", x->cand[i].terms, "mape", x->cand[i].mape,
			     "mape_se", x->cand[i].mape_se,
			     "chosen", i == x->chosen ? Py_True : Py_False);
}

static PyObject *discovery_dict(const pm_discovery *x)
{
	PyObject *list = pmpy_list_of(x->n, discovered_item, x);

	return list ? Py_BuildValue("{s:N,s:N,s:n,s:n,s:s,s:d}", "candidates", list,
				    "refined", pmpy_str_or_none(x->refined),
				    "hypotheses", (Py_ssize_t)x->hypotheses,
				    "rejected", (Py_ssize_t)x->rejected, "description", x->what,
				    "wall_time_s", x->wall_time_s) : NULL;
}

/* fit's result: (model, extra), extra None after a fit, select's candidates
 * (a list of dicts) or discover's search (a dict). */
static PyObject *fit_result(int mode, pm_fit_result *r, const pm_candidate *cand)
{
	PyObject *extra = mode == MODE_SELECT
		? pmpy_list_of(r->ncand, candidate_item, &(struct selection_ctx){ r, cand })
		: mode == MODE_DISCOVER ? discovery_dict(r->discovery) : Py_NewRef(Py_None);
	PyObject *m, *ret;

	if (!extra)
		return NULL;
	m = pmpy_model_wrap(r->model);
	r->model = NULL;
	ret = m ? Py_BuildValue("(NO)", m, extra) : NULL;
	Py_DECREF(extra);
	return ret;
}

/* _fit(mode, path, options): perfmodel fit, select or discover of the
 * measurements at path. Returns (model, extra), as fit_result. */
PyObject *pmpy_fit(PyObject *mod, PyObject *args)
{
	int mode;
	PyObject *path, *o, *ret;
	struct fit_job *j;

	(void)mod;
	if (!PyArg_ParseTuple(args, "iO&O!", &mode, PyUnicode_FSConverter, &path, &PyDict_Type,
			      &o))
		return NULL;
	j = fit_job(mode, PyBytes_AS_STRING(path), o);
	Py_DECREF(path);
	if (!j || pmpy_run_watched(fit_run, fit_drop, j, &j->stop) < 0)
		return NULL;
	ret = j->st ? pmpy_raise(&j->err) : fit_result(j->mode, j->r, j->cand);
	fit_drop(j);
	return ret;
}

/* ---- inspect --------------------------------------------------------------------- */
struct inspect_job {
	pm_read_options ro;
	const char *path;
	char *strings;		/* what path, ro and key point to */
	const char **key;	/* NULL, or the key's names, NULL-terminated */
	char *doc;		/* the result */
	pm_status st;
	pm_error err;
};

static void inspect_run(void *job)
{
	struct inspect_job *j = job;

	j->st = pm_inspect_to_json(j->path, &j->ro, &j->doc, &j->err);
}

static void inspect_drop(void *job)
{
	struct inspect_job *j = job;

	free(j->strings);
	free(j->key);
	free(j->doc);
	free(j);
}

/* The job of _inspect's arguments; NULL with an exception. */
static struct inspect_job *inspect_job(const char *path, PyObject *o, PyObject *keys)
{
	struct inspect_job *j = calloc(1, sizeof(*j));
	Py_ssize_t n = 0;

	if (!j)
		return (void *)PyErr_NoMemory();
	if (keys != Py_None && (n = PyList_Size(keys)) < 0)
		goto fail;
	if (keys != Py_None && !(j->key = calloc((size_t)n + 1, sizeof(*j->key)))) {
		PyErr_NoMemory();
		goto fail;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		Py_ssize_t len;

		if (!(j->key[i] = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(keys, i), &len)))
			goto fail;
		if (strlen(j->key[i]) != (size_t)len) {
			pmpy_raise_message("key: contains a NUL character");
			goto fail;
		}
	}
	if (pmpy_read_options(o, &j->ro, &j->st, &j->err) < 0 ||
	    pmpy_opt_str(o, "target", &j->ro.target) < 0) {
		if (!PyErr_Occurred())
			pmpy_raise(&j->err);
		goto fail;
	}
	j->ro.key = j->key;
	j->path = path;
	{
		const char **const fixed[] = { &j->path, READ_TEXTS(&j->ro) };
		const struct texts t = { fixed, sizeof(fixed) / sizeof(fixed[0]), j->key, (size_t)n,
					 sizeof(*j->key) };

		if (own_texts(&t, &j->strings) < 0)
			goto fail;
	}
	return j;
fail:
	inspect_drop(j);
	return NULL;
}

/* _inspect(path, options, key): pm_inspect_to_json's text (perfmodel.inspect
 * parses it); options as _fit's read options, "target", and key a list of
 * column names or None. */
PyObject *pmpy_inspect(PyObject *mod, PyObject *args)
{
	PyObject *path, *o, *keys, *ret = NULL;
	struct inspect_job *j;

	(void)mod;
	if (!PyArg_ParseTuple(args, "O&O!O", PyUnicode_FSConverter, &path, &PyDict_Type, &o,
			      &keys))
		return NULL;
	if (keys != Py_None && !PyList_Check(keys)) {
		Py_DECREF(path);
		PyErr_SetString(PyExc_TypeError, "_inspect: key must be a list or None");
		return NULL;
	}
	j = inspect_job(PyBytes_AS_STRING(path), o, keys);
	Py_DECREF(path);
	if (!j || pmpy_run_watched(inspect_run, inspect_drop, j, NULL) < 0)
		return NULL;
	ret = j->st ? pmpy_raise(&j->err) : PyUnicode_FromString(j->doc);
	inspect_drop(j);
	return ret;
}
