/* perfmodel.fit, select, discover and inspect: the options dict made into
 * the library's structs (options.c), the call, and its result as Python
 * objects; Ctrl-C as interrupt.c says. */
#include <stdlib.h>
#include <string.h>

#include "binding.h"

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

enum { MODE_FIT, MODE_SELECT, MODE_DISCOVER };

/* The options of a discovery, a validation and warm start, besides
 * pmpy_fit_options': -1 with an exception, or with *st and err filled. */
static int more_options(PyObject *o, int mode, pm_fit_options *fo, pm_discover_options *dopt,
			pm_validation *v, unsigned *nseeds, pm_model **warm, pm_status *st,
			pm_error *err)
{
	const char *scheme, *warm_path;
	PyObject *warm_obj = PyDict_GetItemString(o, "warm_start");
	uint64_t seed = 1;

	if (pmpy_opt_uint(o, "nseeds", nseeds) < 0 ||
	    pmpy_opt_uint(o, "max_terms", &dopt->max_terms) < 0 ||
	    pmpy_opt_uint(o, "beam", &dopt->beam) < 0 || pmpy_opt_uint(o, "top", &dopt->top) < 0 ||
	    pmpy_opt_uint(o, "refine", (unsigned *)&dopt->refine) < 0 ||
	    pmpy_opt_str(o, "validate", &scheme) < 0 || pmpy_opt_u64(o, "validate_seed", &seed) < 0)
		return -1;
	if (fo->threads > pm_cpu_count())
		fo->threads = pm_cpu_count();	/* as perfmodel fit: more only take turns */
	if (scheme) {
		if ((*st = pm_validation_parse(scheme, v, err)))
			return -1;
		v->seed = seed;
	}
	if (mode == MODE_FIT)
		fo->validate = *v;
	dopt->validate = *v;
	if (warm_obj && PyObject_TypeCheck(warm_obj, &pmpy_model_type))
		fo->warm_start = ((pmpy_model *)warm_obj)->m;
	else if (warm_obj) {
		if (pmpy_opt_str(o, "warm_start", &warm_path) < 0 ||
		    (*st = pm_model_load_file(warm_path, warm, err)))
			return -1;
		fo->warm_start = *warm;
	}
	return 0;
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
	int mode, stopped;
	PyObject *path_obj, *o, *ret = NULL;
	pm_fit_options fo;
	pm_discover_options dopt = pm_discover_options_default();
	pm_validation v = { .scheme = PM_SCHEME_NONE };
	pm_source src = { 0 };
	pm_spec *s = NULL;
	pm_model *warm = NULL;
	pm_candidate *cand = NULL;
	size_t ncand = 0;
	pm_fit_result *r = NULL;
	pm_error err = { 0 };
	pm_status st = PM_OK;
	unsigned nseeds = 1;

	(void)mod;
	if (!PyArg_ParseTuple(args, "iO&O!", &mode, PyUnicode_FSConverter, &path_obj,
			      &PyDict_Type, &o))
		return NULL;
	src.path = PyBytes_AS_STRING(path_obj);
	if (pmpy_fit_options(o, &fo, &st, &err) < 0 ||
	    more_options(o, mode, &fo, &dopt, &v, &nseeds, &warm, &st, &err) < 0 ||
	    pmpy_opt_str(o, "test_path", &src.test_path) < 0 ||
	    pmpy_read_options(o, &src.read, &st, &err) < 0 || pmpy_build_spec(o, &s, &st, &err) < 0 ||
	    (mode == MODE_SELECT && pmpy_candidates(o, &cand, &ncand, &st, &err) < 0))
		goto fail;
	fo.stop = pmpy_stop_begin();
	Py_BEGIN_ALLOW_THREADS
	st = mode == MODE_SELECT ? pm_select_file(&src, s, &fo, cand, ncand, &v, &r, &err)
	     : mode == MODE_DISCOVER ? pm_discover_file(&src, s, &fo, &dopt, nseeds, &r, &err)
				     : pm_fit_file(&src, s, &fo, nseeds, &r, &err);
	Py_END_ALLOW_THREADS
	stopped = pmpy_stop_end();
	/* Ctrl-C: KeyboardInterrupt, as Python would raise it; where Python's
	 * handler does not raise, an interrupted fit returns its best model
	 * (info["interrupted"]) */
	if (stopped && pmpy_deliver_sigint() < 0)
		goto out;
	if (!st) {
		ret = fit_result(mode, r, cand);
		goto out;
	}
fail:
	if (!PyErr_Occurred())
		pmpy_raise(&err);
out:
	Py_DECREF(path_obj);
	pm_fit_result_free(r);
	PyMem_Free(cand);
	pm_spec_free(s);
	pm_model_free(warm);
	return ret;
}

/* ---- inspect: watched (interrupt.c), so its job owns copies of all it reads */
struct inspect_job {
	pm_read_options ro;
	char *path, *strings;	/* strings: ro's and key's texts, one block */
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

	free(j->path);
	free(j->strings);
	free(j->key);
	free(j->doc);
	free(j);
}

/* *s copied into the block at *at (NULL stays NULL). */
static void keep(const char **s, char **at)
{
	if (*s) {
		size_t n = strlen(*s) + 1;

		*s = memcpy(*at, *s, n);
		*at += n;
	}
}

/* The job's own copies of what ro and key point into (Python's objects,
 * which may be gone before an abandoned call ends). 0, or -1 (no memory). */
static int own_strings(struct inspect_job *j, size_t nkey)
{
	const char **texts[] = { &j->ro.target, &j->ro.throughput, &j->ro.per,
				 &j->ro.name_pattern, &j->ro.region, &j->ro.metric };
	size_t n = 1, ntexts = sizeof(texts) / sizeof(texts[0]);
	char *at;

	for (size_t i = 0; i < ntexts + nkey; i++) {
		const char *s = i < ntexts ? *texts[i] : j->key[i - ntexts];

		n += s ? strlen(s) + 1 : 0;
	}
	if (!(at = j->strings = malloc(n)))
		return -1;
	for (size_t i = 0; i < ntexts + nkey; i++)
		keep(i < ntexts ? texts[i] : &j->key[i - ntexts], &at);
	j->ro.key = j->key;
	return 0;
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
	if (!(j->path = strdup(path)) || own_strings(j, (size_t)n) < 0) {
		PyErr_NoMemory();
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
	if (!j || pmpy_run_watched(inspect_run, inspect_drop, j) < 0)
		return NULL;
	ret = j->st ? pmpy_raise(&j->err) : PyUnicode_FromString(j->doc);
	inspect_drop(j);
	return ret;
}
