/* perfmodel.fit, select, discover and inspect: the words of the options
 * parsed by the library (options.c, perfmodel/options.h), the call, and its
 * result as Python objects; Ctrl-C as interrupt.c says. */
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* ---- what a call reads, owned by its job ---------------------------------------
 * A call left running after a KeyboardInterrupt (interrupt.c) outlives the
 * Python objects its options came from: its job holds copies. */

struct fit_job {
	struct pmpy_words words;	/* what o points into */
	char *spec_json;		/* a dict spec's text, or NULL */
	pm_options o;
	pm_source src;
	pm_spec *s;
	pm_candidate *cand;
	size_t ncand;
	char *names;		/* what cand points into */
	pm_model *warm;		/* the warm start, owned: loaded, or a copy */
	volatile sig_atomic_t stop;
	pm_fit_result *r;	/* the result */
	/* perfmodel.plan: the candidates' and targets' files (copies), what
	 * to plan, and the plan made */
	char *cand_path, *targets_path;
	pm_plan_options po;
	pm_plan *plan;
	pm_status st;
	pm_error err;
};

enum { MODE_PLAN = 3 };	/* after pm_command's fit, select, discover */

static void fit_run(void *job)
{
	struct fit_job *j = job;
	pm_options *o = &j->o;

	if (j->cand_path) {
		j->st = pm_plan_file(&j->src, j->s, &o->fit, j->cand, j->ncand,
				     &o->select_validation, j->cand_path, j->targets_path, &j->po,
				     &j->plan, &j->err);
		return;
	}
	j->st = o->command == PM_COMMAND_SELECT
		? pm_select_file(&j->src, j->s, &o->fit, j->cand, j->ncand, &o->select_validation,
				 &j->r, &j->err)
		: o->command == PM_COMMAND_DISCOVER
		? pm_discover_file(&j->src, j->s, &o->fit, &o->discover, o->nseeds, &j->r, &j->err)
		: pm_fit_file(&j->src, j->s, &o->fit, o->nseeds, &j->r, &j->err);
}

static void fit_drop(void *job)
{
	struct fit_job *j = job;

	pm_fit_result_free(j->r);
	pm_plan_free(j->plan);
	free(j->cand_path);
	free(j->targets_path);
	free(j->cand);
	free(j->names);
	pm_spec_free(j->s);
	pm_model_free(j->warm);
	pm_options_clear(&j->o);
	pmpy_words_free(&j->words);
	free(j->spec_json);
	free(j);
}

/* The warm start: a Model's (a copy: the Model may be gone before an
 * abandoned fit ends), or the file of --warm-start. */
static pm_status warm_start(PyObject *w, struct fit_job *j)
{
	char *json = NULL;

	if (w != Py_None) {
		j->st = pm_model_to_json(((pmpy_model *)w)->m, &json, &j->err);
		if (!j->st)
			j->st = pm_model_load_string(json, "warm_start", &j->warm, &j->err);
		free(json);
	} else if (j->o.warm_start) {
		j->st = pm_model_load_file(j->o.warm_start, &j->warm, &j->err);
	}
	j->o.fit.warm_start = j->warm;
	return j->st;
}

static const char *const command_name[] = { "fit", "select", "discover", "plan" };

/* The job of _fit's arguments (spec_json of spec_len bytes, NUL-free); NULL with an
 * exception. */
static struct fit_job *fit_job(int mode, PyObject *words, const char *spec_json,
			       Py_ssize_t spec_len, PyObject *warm)
{
	struct fit_job *j;
	pm_options *o;

	if (spec_json && strlen(spec_json) != (size_t)spec_len)	/* C reads it up to there */
		return (void *)pmpy_raise_message("spec: contains a NUL character (at %zu)",
						  strlen(spec_json));
	if (!(j = calloc(1, sizeof(*j))))
		return (void *)PyErr_NoMemory();
	if (pmpy_argv(words, command_name[mode], NULL, &j->words) < 0)
		goto fail;
	if (spec_json && !(j->spec_json = strdup(spec_json))) {
		PyErr_NoMemory();
		goto fail;
	}
	o = &j->o;
	*o = pm_options_default(mode == MODE_PLAN ? PM_COMMAND_FIT : (pm_command)mode);
	o->spec_json = j->spec_json;
	o->spec_name = "spec";
	if ((j->st = pm_options_parse(o, j->words.argc, j->words.argv, &j->err)))
		goto fail;
	if (o->help || (o->json | o->quiet) || o->plot_dir || strcmp(o->output, "model.json")) {
		pmpy_raise_message("perfmodel.%s: --help, -o, --json, --quiet and --plot-dir are "
				   "the command line's", command_name[mode]);
		goto fail;
	}
	if (o->fit.threads > pm_cpu_count())
		o->fit.threads = pm_cpu_count();	/* as perfmodel fit: more only take turns */
	j->src = (pm_source){ .path = o->data, .test_path = o->test_path, .read = o->read };
	o->fit.stop = &j->stop;
	j->src.read.stop = &j->stop;	/* a CUBE set's reading stops too */
	if (warm_start(warm, j) || (j->st = pm_options_spec(o, &j->s, &j->err)) ||
	    (o->command == PM_COMMAND_SELECT &&
	     (j->st = pm_options_candidates(o, &j->cand, &j->ncand, &j->names, &j->err))))
		goto fail;
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
static PyObject *fit_result(pm_command mode, pm_fit_result *r, const pm_candidate *cand)
{
	PyObject *extra = mode == PM_COMMAND_SELECT
		? pmpy_list_of(r->ncand, candidate_item, &(struct selection_ctx){ r, cand })
		: mode == PM_COMMAND_DISCOVER ? discovery_dict(r->discovery) : Py_NewRef(Py_None);
	PyObject *m, *ret;

	if (!extra)
		return NULL;
	m = pmpy_model_wrap(r->model);
	r->model = NULL;
	if (m) {	/* the rows, for the model's report */
		((pmpy_model *)m)->data = r->data;
		((pmpy_model *)m)->test = r->test;
		r->data = r->test = NULL;
	}
	ret = m ? Py_BuildValue("(NOi)", m, extra, (int)mode) : NULL;
	Py_DECREF(extra);
	return ret;
}

/* _fit(mode, words, spec_json, warm): perfmodel fit, select or discover
 * (mode 0, 1, 2) of the words, as the command line's (the data after
 * "--"), with a dict spec's text (or None) and a Model to start from (or
 * None). Returns (model, extra, the command run), as fit_result. */
PyObject *pmpy_fit(PyObject *mod, PyObject *args)
{
	int mode;
	PyObject *words, *warm, *ret;
	const char *spec_json;
	Py_ssize_t len = 0;
	struct fit_job *j;

	(void)mod;
	if (!PyArg_ParseTuple(args, "iO!z#O", &mode, &PyList_Type, &words, &spec_json, &len,
			      &warm))
		return NULL;
	if (mode < PM_COMMAND_FIT || mode > PM_COMMAND_DISCOVER ||
	    (warm != Py_None && !PyObject_TypeCheck(warm, &pmpy_model_type))) {
		PyErr_SetString(PyExc_TypeError, "_fit: mode 0, 1 or 2, warm a CModel or None");
		return NULL;
	}
	j = fit_job(mode, words, spec_json, len, warm);
	if (!j || pmpy_run_watched(fit_run, fit_drop, j, &j->stop, &j->stop) < 0)
		return NULL;
	ret = j->st ? pmpy_raise(&j->err) : fit_result(j->o.command, j->r, j->cand);
	fit_drop(j);
	return ret;
}

/* _check(mode, words, spec_json): the words parsed and the spec read as
 * _fit(mode, ...) would, nothing run: None, or the error raised (the
 * options every job of fit_groups shares, checked once). */
PyObject *pmpy_check(PyObject *mod, PyObject *args)
{
	int mode;
	PyObject *words;
	const char *spec_json;
	Py_ssize_t len = 0;
	struct fit_job *j;

	(void)mod;
	if (!PyArg_ParseTuple(args, "iO!z#", &mode, &PyList_Type, &words, &spec_json, &len))
		return NULL;
	if (mode < PM_COMMAND_FIT || mode > PM_COMMAND_DISCOVER) {
		PyErr_SetString(PyExc_TypeError, "_check: mode 0, 1 or 2");
		return NULL;
	}
	if (!(j = fit_job(mode, words, spec_json, len, Py_None)))
		return NULL;
	fit_drop(j);
	Py_RETURN_NONE;
}

/* ---- plan ------------------------------------------------------------------------ */
/* The picks' rows in the candidates (0-based), in pick order. */
static PyObject *pick_row(const void *ctx, size_t i)
{
	return PyLong_FromSize_t(((const pm_plan *)ctx)->picks[i].row);
}

/* _plan(words, spec_json, candidates, targets, count, budget, cost_column,
 * cost_scale, members): perfmodel plan of the words (fit's options, the
 * data after "--"), the candidates' and targets' files; count, budget and
 * members 0 for their defaults (count 0 with a budget: no limit). Returns
 * (the plan's JSON document, the picks' rows in the candidates). */
PyObject *pmpy_plan(PyObject *mod, PyObject *args)
{
	PyObject *words, *ret = NULL;
	const char *spec_json, *cand, *targets, *cost_column, *cost_scale;
	Py_ssize_t len = 0;
	unsigned count, members;
	double budget;
	struct fit_job *j;
	char *doc = NULL;

	(void)mod;
	if (!PyArg_ParseTuple(args, "O!z#ssIdzzI", &PyList_Type, &words, &spec_json, &len, &cand,
			      &targets, &count, &budget, &cost_column, &cost_scale, &members))
		return NULL;
	if (!(j = fit_job(MODE_PLAN, words, spec_json, len, Py_None)))
		return NULL;
	j->po = pm_plan_options_default();
	if (count || budget > 0)
		j->po.count = count;
	j->po.budget = budget;
	j->po.cost_column = cost_column;	/* read during the call only */
	j->po.cost_scale = cost_scale;
	if (members)
		j->po.members = members;
	j->po.seed = j->o.fit.seed;
	j->o.fit.intervals = 0;	/* the refits measure the uncertainty */
	if (!(j->cand_path = strdup(cand)) || !(j->targets_path = strdup(targets))) {
		fit_drop(j);
		return PyErr_NoMemory();
	}
	if (pmpy_run_watched(fit_run, fit_drop, j, &j->stop, &j->stop) < 0)
		return NULL;
	if (j->st || (j->st = pm_plan_to_json(j->plan, &doc, &j->err)))
		ret = pmpy_raise(&j->err);
	else
		ret = Py_BuildValue("(sN)", doc, pmpy_list_of(j->plan->npicks, pick_row, j->plan));
	free(doc);
	fit_drop(j);
	return ret;
}

/* ---- inspect --------------------------------------------------------------------- */
struct inspect_job {
	struct pmpy_words words, keys;	/* what o and ro point into */
	pm_options o;		/* the words parsed */
	pm_read_options ro;	/* o's reading, with its target and the key */
	/* asked when the caller leaves on a signal, so that the reading of a
	 * CUBE set left behind ends at its next run, not at its last */
	volatile sig_atomic_t stop;
	char *doc;		/* the result */
	pm_status st;
	pm_error err;
};

static void inspect_run(void *job)
{
	struct inspect_job *j = job;

	j->st = pm_inspect_to_json(j->o.data, &j->ro, &j->doc, &j->err);
}

static void inspect_drop(void *job)
{
	struct inspect_job *j = job;

	pm_options_clear(&j->o);
	pmpy_words_free(&j->words);
	pmpy_words_free(&j->keys);
	free(j->doc);
	free(j);
}

/* The job of _inspect's arguments; NULL with an exception. */
static struct inspect_job *inspect_job(PyObject *words, PyObject *keys)
{
	struct inspect_job *j = calloc(1, sizeof(*j));

	if (!j)
		return (void *)PyErr_NoMemory();
	if (pmpy_argv(words, "inspect", NULL, &j->words) < 0 ||
	    (keys != Py_None && pmpy_argv(keys, "key", "key", &j->keys) < 0))
		goto fail;
	j->o = pm_options_default(PM_COMMAND_FIT);
	if ((j->st = pm_options_parse(&j->o, j->words.argc, j->words.argv, &j->err))) {
		pmpy_raise(&j->err);
		goto fail;
	}
	j->ro = j->o.read;
	j->ro.stop = &j->stop;
	j->ro.target = j->o.target;
	/* --per: time = per/throughput as it is read, whatever the kind */
	j->ro.per = j->o.read.per ? j->o.read.per : j->o.per;
	/* the key's names after the word "key" (argv[0]), NULL-terminated */
	j->ro.key = keys != Py_None ? (const char **)j->keys.argv + 1 : NULL;
	return j;
fail:
	inspect_drop(j);
	return NULL;
}

/* _inspect(words, key): pm_inspect_to_json's text (perfmodel.inspect parses
 * it) of the data after "--" in words, read as fit's reading options in
 * words say; key a list of column names or None. */
PyObject *pmpy_inspect(PyObject *mod, PyObject *args)
{
	PyObject *words, *keys, *ret = NULL;
	struct inspect_job *j;

	(void)mod;
	if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &words, &keys))
		return NULL;
	if (keys != Py_None && !PyList_Check(keys)) {
		PyErr_SetString(PyExc_TypeError, "_inspect: key must be a list or None");
		return NULL;
	}
	j = inspect_job(words, keys);
	if (!j || pmpy_run_watched(inspect_run, inspect_drop, j, NULL, &j->stop) < 0)
		return NULL;
	ret = j->st ? pmpy_raise(&j->err) : PyUnicode_FromString(j->doc);
	inspect_drop(j);
	return ret;
}
