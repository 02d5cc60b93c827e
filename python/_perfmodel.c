/* perfmodel._perfmodel: the CPython binding over libperfmodel (docs/python.md).
 * The C API directly: the module only converts between Python objects and
 * the library's calls. Options arrive checked and typed from
 * perfmodel/__init__.py, which knows their names; the library checks what it
 * parses itself (losses, formats, schemes, forms), and its pm_error becomes
 * perfmodel.Error. Fits and predictions run with the GIL released; a SIGINT
 * during a fit asks the library to stop (pm_request_stop) and is handed back
 * to Python once the fit has returned. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "perfmodel/perfmodel.h"

static PyObject *error_type;	/* perfmodel.Error, a ValueError */

/* Raise perfmodel.Error from err: the message, and as attributes the
 * status's name, the file, line and column (None where the error has no
 * place). Returns NULL. */
static PyObject *raise_error(const pm_error *err)
{
	const char *msg = err->msg[0] ? err->msg : pm_status_string(err->code);
	PyObject *e = PyObject_CallFunction(error_type, "s", msg);

	if (!e)
		return NULL;
	if (PyObject_SetAttrString(e, "status", PyUnicode_FromString(pm_status_string(err->code)))
	    < 0 || PyObject_SetAttrString(e, "message", PyUnicode_FromString(msg)) < 0)
		goto out;
	{
		PyObject *file = err->file[0] ? PyUnicode_DecodeFSDefault(err->file) : Py_NewRef(Py_None);
		PyObject *line = err->line ? PyLong_FromUnsignedLong(err->line) : Py_NewRef(Py_None);
		PyObject *col = err->column ? PyLong_FromUnsignedLong(err->column) : Py_NewRef(Py_None);
		int bad = !file || !line || !col || PyObject_SetAttrString(e, "file", file) < 0 ||
			  PyObject_SetAttrString(e, "line", line) < 0 ||
			  PyObject_SetAttrString(e, "column", col) < 0;

		Py_XDECREF(file);
		Py_XDECREF(line);
		Py_XDECREF(col);
		if (bad)
			goto out;
	}
	PyErr_SetObject(error_type, e);
out:
	Py_DECREF(e);
	return NULL;
}

/* ---- stopping a fit on SIGINT -----------------------------------------------
 * Python's own handler only sets a flag that the interpreter reads between
 * bytecodes, which a fit in C never reaches. So while any fit runs, SIGINT
 * goes to on_sigint, which asks every running fit to stop (they share one
 * flag: Ctrl-C is for the whole process); the last fit to end puts Python's
 * handler back and, when it was asked to stop, hands the signal to Python
 * (PyErr_SetInterruptEx), which raises KeyboardInterrupt where Python would
 * have. */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned fits_running;
static volatile sig_atomic_t stop_flag;
static struct sigaction python_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	pm_request_stop(&stop_flag);
}

static void stop_begin(void)
{
	pthread_mutex_lock(&stop_lock);
	if (fits_running++ == 0) {
		struct sigaction sa = { 0 };

		/* no fit reads the flag now: a fresh start */
		__atomic_store_n(&stop_flag, 0, __ATOMIC_SEQ_CST);
		sa.sa_handler = on_sigint;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, NULL, &python_sigint);
		/* a process that ignores SIGINT (started in the background)
		 * goes on ignoring it */
		if (python_sigint.sa_handler != SIG_IGN)
			sigaction(SIGINT, &sa, NULL);
	}
	pthread_mutex_unlock(&stop_lock);
}

/* 1 when a SIGINT asked the fits to stop. */
static int stop_end(void)
{
	int stopped;

	pthread_mutex_lock(&stop_lock);
	stopped = __atomic_load_n(&stop_flag, __ATOMIC_SEQ_CST) != 0;
	if (--fits_running == 0)
		sigaction(SIGINT, &python_sigint, NULL);
	pthread_mutex_unlock(&stop_lock);
	return stopped;
}

/* After a fit that SIGINT stopped: the signal, to Python's handler. -1 when
 * it raised (KeyboardInterrupt by default), 0 when it did not (a handler of
 * the user's, or a thread other than the main one: the main thread gets it). */
static int deliver_sigint(void)
{
	PyErr_SetInterruptEx(SIGINT);
	return PyErr_CheckSignals();
}

/* ---- the Model type ---------------------------------------------------------- */
typedef struct {
	PyObject_HEAD
	pm_model *m;
} model_object;

static PyTypeObject model_type;

static PyObject *model_wrap(pm_model *m)
{
	model_object *o = PyObject_New(model_object, &model_type);

	if (!o) {
		pm_model_free(m);
		return NULL;
	}
	o->m = m;
	return (PyObject *)o;
}

static void model_dealloc(PyObject *self)
{
	pm_model_free(((model_object *)self)->m);
	PyObject_Free(self);
}

static PyObject *str_or_none(const char *s)
{
	return s ? PyUnicode_FromString(s) : Py_NewRef(Py_None);
}

/* A list of n items, item(ctx, i) each: a new reference, or NULL with an
 * exception, which fails the whole list. */
static PyObject *list_of(size_t n, PyObject *(*item)(const void *ctx, size_t i), const void *ctx)
{
	PyObject *list = PyList_New((Py_ssize_t)n);

	for (size_t i = 0; list && i < n; i++) {
		PyObject *x = item(ctx, i);

		if (!x) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, x);
	}
	return list;
}

/* (name, value, std) of parameter k: the value as the formula writes it
 * (pm_model_param_value), the std over seeds (NaN for one fit). */
static PyObject *param_item(const void *m, size_t k)
{
	return Py_BuildValue("(sdd)", pm_model_param_name(m, k), pm_model_param_value(m, k),
			     pm_model_param_std(m, k));
}

static PyObject *model_params(PyObject *self, PyObject *unused)
{
	const pm_model *m = ((model_object *)self)->m;

	(void)unused;
	return list_of(pm_model_nparams(m), param_item, m);
}

static PyObject *metrics_dict(const pm_metrics *x)
{
	return Py_BuildValue("{s:n,s:d,s:d,s:d,s:d,s:d,s:d,s:d}", "rows", (Py_ssize_t)x->n,
			     "mae", x->mae, "mape", x->mape, "mse", x->mse, "rmse", x->rmse,
			     "r2", x->r2, "smape", x->smape, "adj_r2", x->adj_r2);
}

/* What the fit recorded (pm_fit_info); None for a model without one. */
static PyObject *model_info(PyObject *self, PyObject *unused)
{
	const pm_fit_info *fi = pm_model_fit_info(((model_object *)self)->m);
	PyObject *train, *test, *d;

	(void)unused;
	if (!fi)
		Py_RETURN_NONE;
	train = metrics_dict(&fi->training);
	test = fi->test.n ? metrics_dict(&fi->test) : Py_NewRef(Py_None);
	d = train && test ? Py_BuildValue(
		"{s:O,s:O,s:K,s:s,s:I,s:K,s:d,s:d,s:O,s:s,s:s,s:s,s:I,s:O,s:O}",
		"training", train, "test", test,
		"seed", (unsigned long long)fi->options.seed, "stop", fi->stop,
		"generations", fi->generations, "evaluations", (unsigned long long)fi->evaluations,
		"cost", fi->cost, "wall_time_s", fi->wall_time_s,
		"interrupted", fi->interrupted ? Py_True : Py_False,
		"data", fi->data_name, "fingerprint", fi->fingerprint, "validation", fi->validation,
		"threads_used", fi->threads_used, "constant", fi->constant ? Py_True : Py_False,
		"polished", fi->polished ? Py_True : Py_False) : NULL;
	Py_XDECREF(train);
	Py_XDECREF(test);
	return d;
}

static PyObject *warning_item(const void *m, size_t i)
{
	return PyUnicode_FromString(pm_model_warning(m, i));
}

static PyObject *model_warnings(PyObject *self, PyObject *unused)
{
	const pm_model *m = ((model_object *)self)->m;

	(void)unused;
	return list_of(pm_model_nwarnings(m), warning_item, m);
}

struct input_ctx {
	const pm_model *m;
	size_t input;
};

static PyObject *level_item(const void *ctx, size_t l)
{
	const struct input_ctx *c = ctx;

	return PyUnicode_FromString(pm_model_level_name(c->m, c->input, l));
}

/* (name, role, [levels]) of input i: role "numeric" or "categorical"
 * (levels empty for a numeric input). */
static PyObject *input_item(const void *m, size_t i)
{
	const struct input_ctx c = { m, i };

	return Py_BuildValue("(ssN)", pm_model_input_name(m, i),
			     pm_model_input_role(m, i) == PM_ROLE_CATEGORICAL ? "categorical"
										 : "numeric",
			     list_of(pm_model_nlevels(m, i), level_item, &c));
}

static PyObject *model_inputs(PyObject *self, PyObject *unused)
{
	const pm_model *m = ((model_object *)self)->m;

	(void)unused;
	return list_of(pm_model_ninputs(m), input_item, m);
}

static PyObject *model_describe(PyObject *self, PyObject *unused)
{
	const pm_model *m = ((model_object *)self)->m;

	(void)unused;
	return Py_BuildValue("{s:s,s:N,s:N,s:s,s:O,s:s}", "target", pm_model_target(m),
			     "form", str_or_none(pm_model_form(m)),
			     "formula", str_or_none(pm_model_formula(m)),
			     "target_kind", pm_target_kind_name(pm_model_target_kind(m)),
			     "has_intervals", pm_model_has_intervals(m) ? Py_True : Py_False,
			     "label", pm_model_prediction_label(m));
}

static PyObject *model_to_json(PyObject *self, PyObject *unused)
{
	char *json = NULL;
	pm_error err = { 0 };
	PyObject *s;

	(void)unused;
	if (pm_model_to_json(((model_object *)self)->m, &json, &err))
		return raise_error(&err);
	s = PyUnicode_FromString(json);
	free(json);
	return s;
}

static PyObject *model_save(PyObject *self, PyObject *arg)
{
	PyObject *path = NULL;
	pm_error err = { 0 };
	pm_status st;

	if (!PyUnicode_FSConverter(arg, &path))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	st = pm_model_save_file(((model_object *)self)->m, PyBytes_AS_STRING(path), &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	if (st)
		return raise_error(&err);
	Py_RETURN_NONE;
}

/* _predict(points, is_path, levels): points a CSV text (is_path false) or
 * the path of a CSV file, read as perfmodel predict reads its points; levels
 * a sequence of interval levels (may be empty). Returns (predictions,
 * bounds): n doubles as bytes, and for each level its lower and upper bound
 * per row, bounds[r * 2L + 2l + {0, 1}], as bytes too. */
static PyObject *model_predict(PyObject *self, PyObject *args)
{
	const pm_model *m = ((model_object *)self)->m;
	const char *text;
	Py_ssize_t len;
	int is_path;
	PyObject *levels, *seq = NULL, *pred = NULL, *bounds = NULL, *out = NULL;
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	pm_status st;
	size_t nq, n;
	double *q = NULL;

	if (!PyArg_ParseTuple(args, "s#pO", &text, &len, &is_path, &levels) ||
	    !(seq = PySequence_Fast(levels, "levels must be a sequence")))
		return NULL;
	nq = 2 * (size_t)PySequence_Fast_GET_SIZE(seq);
	if (!(q = PyMem_Malloc((nq + 1) * sizeof(*q)))) {
		PyErr_NoMemory();
		goto out;
	}
	for (size_t j = 0; j < nq / 2; j++) {
		double l = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)j));

		if (l == -1 && PyErr_Occurred())
			goto out;
		/* the central interval: as perfmodel predict --interval L */
		q[2 * j] = (1 - l) / 2;
		q[2 * j + 1] = (1 + l) / 2;
	}
	Py_BEGIN_ALLOW_THREADS
	st = is_path ? pm_dataset_read_csv(text, &d, &err)
		     : pm_dataset_parse_csv(text, (size_t)len, "<points>", &d, &err);
	Py_END_ALLOW_THREADS
	if (st) {
		raise_error(&err);
		goto out;
	}
	n = pm_dataset_nrows(d);
	pred = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * sizeof(double)));
	bounds = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * nq * sizeof(double)));
	if (!pred || !bounds)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	st = pm_model_predict_dataset_quantiles(m, d, nq, q, (double *)PyBytes_AS_STRING(pred),
						(double *)PyBytes_AS_STRING(bounds), NULL, &err);
	Py_END_ALLOW_THREADS
	if (st)
		raise_error(&err);
	else
		out = PyTuple_Pack(2, pred, bounds);
out:
	pm_dataset_free(d);
	PyMem_Free(q);
	Py_XDECREF(seq);
	Py_XDECREF(pred);
	Py_XDECREF(bounds);
	return out;
}

static PyMethodDef model_methods[] = {
	{ "_params", model_params, METH_NOARGS, "[(name, value, std)] in the model's order" },
	{ "_info", model_info, METH_NOARGS, "the fit's record (pm_fit_info) as a dict, or None" },
	{ "_warnings", model_warnings, METH_NOARGS, "the model's warnings" },
	{ "_inputs", model_inputs, METH_NOARGS, "[(name, role, levels)] in the model's order" },
	{ "_describe", model_describe, METH_NOARGS, "target, form, formula, target kind" },
	{ "_predict", model_predict, METH_VARARGS, "predictions and interval bounds as bytes" },
	{ "to_json", model_to_json, METH_NOARGS, "the model as model.json's text" },
	{ "_save", model_save, METH_O, "write model.json atomically" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject model_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "perfmodel._perfmodel.CModel",
	.tp_basicsize = sizeof(model_object),
	.tp_dealloc = model_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A fitted or loaded model (pm_model); perfmodel.Model builds on it.",
	.tp_methods = model_methods,
};

/* ---- loading ----------------------------------------------------------------- */
static PyObject *py_load(PyObject *mod, PyObject *arg)
{
	PyObject *path = NULL;
	pm_model *m = NULL;
	pm_error err = { 0 };
	pm_status st;

	(void)mod;
	if (!PyUnicode_FSConverter(arg, &path))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	st = pm_model_load_file(PyBytes_AS_STRING(path), &m, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	return st ? raise_error(&err) : model_wrap(m);
}

static PyObject *py_loads(PyObject *mod, PyObject *args)
{
	const char *json, *name;
	pm_model *m = NULL;
	pm_error err = { 0 };

	(void)mod;
	if (!PyArg_ParseTuple(args, "ss", &json, &name))
		return NULL;
	if (pm_model_load_string(json, name, &m, &err))
		return raise_error(&err);
	return model_wrap(m);
}

/* ---- fitting -------------------------------------------------------------------
 * The options dict holds only the keys given, typed by perfmodel/__init__.py.
 * Strings it holds stay alive as long as the dict, which the call keeps. */
static const char *opt_str(PyObject *o, const char *key)
{
	PyObject *v = PyDict_GetItemString(o, key);

	return v ? PyUnicode_AsUTF8(v) : NULL;
}

/* 1 and *out when key is there; 0 when absent; -1 with an exception. */
static int opt_u64(PyObject *o, const char *key, uint64_t *out)
{
	PyObject *v = PyDict_GetItemString(o, key);
	unsigned long long u;

	if (!v)
		return 0;
	u = PyLong_AsUnsignedLongLong(v);
	if (u == (unsigned long long)-1 && PyErr_Occurred())
		return -1;
	*out = u;
	return 1;
}

static int opt_uint(PyObject *o, const char *key, unsigned *out)
{
	uint64_t u;
	int r = opt_u64(o, key, &u);

	if (r == 1)
		*out = (unsigned)u;	/* __init__.py checked the range */
	return r;
}

static int opt_double(PyObject *o, const char *key, double *out)
{
	PyObject *v = PyDict_GetItemString(o, key);
	double d;

	if (!v)
		return 0;
	d = PyFloat_AsDouble(v);
	if (d == -1 && PyErr_Occurred())
		return -1;
	*out = d;
	return 1;
}

/* The fit options, as perfmodel fit sets them from its flags: -1 with a
 * Python exception, or with err filled (a loss the library does not know). */
static int fit_options(PyObject *o, pm_fit_options *fo, pm_error *err)
{
	unsigned engine = PM_ENGINE_VARPRO, u;

	if (opt_uint(o, "engine", &engine) < 0)
		return -1;
	/* as perfmodel fit: the defaults with the engine's popsize and tol
	 * (cli/util.c engine_defaults), then what was given */
	*fo = pm_fit_options_default();
	fo->engine = (pm_engine)engine;
	fo->popsize = pm_fit_options_engine(fo->engine).popsize;
	fo->tol = pm_fit_options_engine(fo->engine).tol;
	fo->intervals = 5;	/* as perfmodel fit: calibrated unless intervals=False */
	if (opt_u64(o, "seed", &fo->seed) < 0 || opt_uint(o, "threads", &fo->threads) < 0 ||
	    opt_uint(o, "maxiter", &fo->maxiter) < 0 || opt_uint(o, "popsize", &fo->popsize) < 0 ||
	    opt_double(o, "tol", &fo->tol) < 0 || opt_double(o, "atol", &fo->atol) < 0 ||
	    opt_double(o, "mutation_lo", &fo->mutation_lo) < 0 ||
	    opt_double(o, "mutation_hi", &fo->mutation_hi) < 0 ||
	    opt_double(o, "recombination", &fo->recombination) < 0 ||
	    opt_double(o, "lambda_coef", &fo->lambda_coef) < 0 ||
	    opt_double(o, "lambda_power", &fo->lambda_power) < 0 ||
	    opt_double(o, "test_fraction", &fo->test_fraction) < 0 ||
	    opt_u64(o, "split_seed", &fo->split_seed) < 0 ||
	    opt_uint(o, "intervals", &fo->intervals) < 0)
		return -1;
	if (opt_str(o, "loss") && pm_loss_from_name(opt_str(o, "loss"), &fo->loss, err))
		return -1;
	if (opt_uint(o, "polish", &u) == 1)
		fo->polish = (int)u;
	if (opt_uint(o, "scale", &u) == 1)
		fo->scale = (pm_scale)u;
	if (opt_uint(o, "reg", &u) == 1)
		fo->reg = (pm_reg)u;
	return PyErr_Occurred() ? -1 : 0;
}

static pm_status read_options(PyObject *o, pm_read_options *ro, pm_error *err)
{
	const char *format = opt_str(o, "format"), *aggregate = opt_str(o, "aggregate");
	unsigned u;
	pm_status st;

	*ro = pm_read_options_default();
	if ((format && (st = pm_format_from_name(format, &ro->format, err))) ||
	    (aggregate && (st = pm_aggregate_from_name(aggregate, &ro->aggregate, err))))
		return st;
	opt_uint(o, "drop_first", &ro->drop_first);
	ro->throughput = opt_str(o, "throughput");
	ro->per = opt_str(o, "read_per");
	ro->name_pattern = opt_str(o, "name_pattern");
	ro->region = opt_str(o, "region");
	ro->metric = opt_str(o, "metric");
	if (opt_uint(o, "inclusive", &u) == 1)
		ro->inclusive = (int)u;
	if (opt_uint(o, "drop_incomplete", &u) == 1)
		ro->drop_incomplete = (int)u;
	if (opt_uint(o, "scaling", &u) == 1)
		ro->scaling = (pm_cube_scaling)u;
	if (opt_str(o, "weights") && strcmp(opt_str(o, "weights"), "inverse-variance") == 0)
		ro->weights = PM_WEIGHTS_INVERSE_VARIANCE;
	return PM_OK;
}

/* The spec: a file or a JSON text (spec_json), or none, then the role
 * options, as perfmodel fit's --spec and role flags (cli/util.c). */
static pm_status build_spec(PyObject *o, pm_spec **out, pm_error *err)
{
	const char *path = opt_str(o, "spec_path"), *json = opt_str(o, "spec_json");
	const char *kind = opt_str(o, "target_kind"), *resource = opt_str(o, "resource");
	const char *per = opt_str(o, "per");
	static const struct { const char *key; pm_spec_list list; } lists[] = {
		{ "extrinsic", PM_SPEC_EXTRINSIC }, { "intrinsic", PM_SPEC_INTRINSIC },
		{ "categorical", PM_SPEC_CATEGORICAL }, { "workers", PM_SPEC_WORKERS },
	};
	pm_spec *s = NULL;
	pm_status st;

	st = path ? pm_spec_read_file(path, &s, err)
	     : json ? pm_spec_parse(json, "<spec>", &s, err) : pm_spec_new(&s, err);
	if (st)
		return st;
	if (opt_str(o, "target") && (st = pm_spec_set_target(s, opt_str(o, "target"), err)))
		goto fail;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (opt_str(o, lists[i].key) &&
		    (st = pm_spec_add_names(s, lists[i].list, opt_str(o, lists[i].key), err)))
			goto fail;
	if ((opt_str(o, "form") && (st = pm_spec_set_form(s, opt_str(o, "form"), err))) ||
	    (opt_str(o, "ignore") && (st = pm_spec_ignore(s, opt_str(o, "ignore"), err))))
		goto fail;
	if (kind || resource || per) {
		pm_target_kind k = pm_spec_target_kind(s);

		if ((kind && (st = pm_target_kind_from_name(kind, &k, err))) ||
		    (st = pm_spec_set_target_kind(s, k, resource ? resource : pm_spec_resource(s),
						  per ? per : pm_spec_per(s), err)))
			goto fail;
	}
	*out = s;
	return PM_OK;
fail:
	pm_spec_free(s);
	return st;
}

/* The candidates of a selection: every form with every loss. */
static pm_status candidates(PyObject *o, pm_candidate **out, size_t *n, pm_error *err)
{
	PyObject *forms = PyDict_GetItemString(o, "forms"), *losses = PyDict_GetItemString(o, "losses");
	Py_ssize_t nf = PyList_GET_SIZE(forms), nl = PyList_GET_SIZE(losses);
	pm_candidate *c = PyMem_Calloc((size_t)(nf * nl) + 1, sizeof(*c));
	pm_status st;

	*n = 0;
	if (!c) {
		*err = (pm_error){ .code = PM_ENOMEM };
		return PM_ENOMEM;
	}
	for (Py_ssize_t i = 0; i < nf; i++)
		for (Py_ssize_t j = 0; j < nl; j++) {
			c[*n].form = PyUnicode_AsUTF8(PyList_GET_ITEM(forms, i));
			if ((st = pm_loss_from_name(PyUnicode_AsUTF8(PyList_GET_ITEM(losses, j)),
						    &c[(*n)++].loss, err))) {
				PyMem_Free(c);
				return st;
			}
		}
	*out = c;
	return PM_OK;
}

struct selection_ctx {
	const pm_fit_result *r;
	const pm_candidate *cand;
};

/* How candidate i of a selection did. */
static PyObject *candidate_item(const void *ctx, size_t i)
{
	const struct selection_ctx *c = ctx;
	const pm_cv_result *cv = &c->r->cv[i];
	PyObject *mean = metrics_dict(&cv->mean), *std = metrics_dict(&cv->std);
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
	PyObject *list = list_of(x->n, discovered_item, x);

	return list ? Py_BuildValue("{s:N,s:N,s:n,s:n,s:s,s:d}", "candidates", list,
				    "refined", str_or_none(x->refined),
				    "hypotheses", (Py_ssize_t)x->hypotheses,
				    "rejected", (Py_ssize_t)x->rejected, "description", x->what,
				    "wall_time_s", x->wall_time_s) : NULL;
}

enum { MODE_FIT, MODE_SELECT, MODE_DISCOVER };

/* _fit(mode, path, options): perfmodel fit, select or discover of the
 * measurements at path. Returns (model, extra): extra is None after a fit,
 * select's candidates (a list of dicts) or discover's search (a dict). */
static PyObject *py_fit(PyObject *mod, PyObject *args)
{
	int mode;
	const char *path;
	PyObject *o, *warm_obj, *extra = NULL, *ret = NULL;
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
	pm_status st;
	unsigned nseeds = 1;
	int stopped;

	(void)mod;
	if (!PyArg_ParseTuple(args, "isO!", &mode, &path, &PyDict_Type, &o))
		return NULL;
	if (fit_options(o, &fo, &err) < 0)
		return PyErr_Occurred() ? NULL : raise_error(&err);
	if (opt_uint(o, "nseeds", &nseeds) < 0 ||
	    opt_uint(o, "max_terms", &dopt.max_terms) < 0 || opt_uint(o, "beam", &dopt.beam) < 0 ||
	    opt_uint(o, "top", &dopt.top) < 0 || opt_uint(o, "refine", (unsigned *)&dopt.refine) < 0)
		return NULL;
	if (fo.threads > pm_cpu_count())
		fo.threads = pm_cpu_count();	/* as perfmodel fit: more only take turns */
	src.path = path;
	src.test_path = opt_str(o, "test_path");
	if (opt_str(o, "validate")) {
		uint64_t seed = 1;

		if (pm_validation_parse(opt_str(o, "validate"), &v, &err))
			return raise_error(&err);
		opt_u64(o, "validate_seed", &seed);
		v.seed = seed;
	}
	if (mode == MODE_FIT)
		fo.validate = v;
	dopt.validate = v;
	warm_obj = PyDict_GetItemString(o, "warm_start");
	if (warm_obj && PyObject_TypeCheck(warm_obj, &model_type))
		fo.warm_start = ((model_object *)warm_obj)->m;
	else if (warm_obj) {
		st = pm_model_load_file(PyUnicode_AsUTF8(warm_obj), &warm, &err);
		if (st)
			return raise_error(&err);
		fo.warm_start = warm;
	}
	if ((st = read_options(o, &src.read, &err)) || (st = build_spec(o, &s, &err)) ||
	    (mode == MODE_SELECT && (st = candidates(o, &cand, &ncand, &err))))
		goto fail;
	stop_begin();
	fo.stop = &stop_flag;
	Py_BEGIN_ALLOW_THREADS
	st = mode == MODE_SELECT ? pm_select_file(&src, s, &fo, cand, ncand, &v, &r, &err)
	     : mode == MODE_DISCOVER ? pm_discover_file(&src, s, &fo, &dopt, nseeds, &r, &err)
				     : pm_fit_file(&src, s, &fo, nseeds, &r, &err);
	Py_END_ALLOW_THREADS
	stopped = stop_end();
	/* Ctrl-C: KeyboardInterrupt, as Python would raise it; where Python's
	 * handler does not raise, an interrupted fit returns its best model
	 * (info["interrupted"]) */
	if (stopped && deliver_sigint() < 0)
		goto out;
	if (st)
		goto fail;
	extra = mode == MODE_SELECT
		? list_of(r->ncand, candidate_item, &(struct selection_ctx){ r, cand })
		: mode == MODE_DISCOVER ? discovery_dict(r->discovery) : Py_NewRef(Py_None);
	if (extra) {
		PyObject *m = model_wrap(r->model);

		r->model = NULL;
		ret = m ? Py_BuildValue("(NO)", m, extra) : NULL;
	}
	goto out;
fail:
	raise_error(&err);
out:
	Py_XDECREF(extra);
	pm_fit_result_free(r);
	PyMem_Free(cand);
	pm_spec_free(s);
	pm_model_free(warm);
	return ret;
}

/* _inspect(path, options, key): pm_inspect_to_json's text (perfmodel.inspect
 * parses it); options as _fit's read options, "target", and key a list of
 * column names or None. */
static PyObject *py_inspect(PyObject *mod, PyObject *args)
{
	const char *path, **key = NULL;
	PyObject *o, *keys, *ret = NULL;
	pm_read_options ro;
	pm_error err = { 0 };
	char *doc = NULL;
	pm_status st;

	(void)mod;
	if (!PyArg_ParseTuple(args, "sO!O", &path, &PyDict_Type, &o, &keys))
		return NULL;
	if (keys != Py_None) {
		Py_ssize_t n = PyList_Size(keys);

		if (n < 0 || !(key = PyMem_Calloc((size_t)n + 1, sizeof(*key))))
			return n < 0 ? NULL : PyErr_NoMemory();
		for (Py_ssize_t i = 0; i < n; i++)
			if (!(key[i] = PyUnicode_AsUTF8(PyList_GetItem(keys, i))))
				goto out;
	}
	if ((st = read_options(o, &ro, &err)))
		goto fail;
	ro.target = opt_str(o, "target");
	ro.key = key;
	Py_BEGIN_ALLOW_THREADS
	st = pm_inspect_to_json(path, &ro, &doc, &err);
	Py_END_ALLOW_THREADS
	if (!st) {
		ret = PyUnicode_FromString(doc);
		goto out;
	}
fail:
	raise_error(&err);
out:
	free(doc);
	PyMem_Free(key);
	return ret;
}

static PyObject *py_is_scheme(PyObject *mod, PyObject *args)
{
	const char *text;

	(void)mod;
	if (!PyArg_ParseTuple(args, "s", &text))
		return NULL;
	return PyBool_FromLong(pm_validation_is_scheme(text));
}

static PyObject *py_cpu_count(PyObject *mod, PyObject *unused)
{
	(void)mod;
	(void)unused;
	return PyLong_FromUnsignedLong(pm_cpu_count());
}

static PyMethodDef module_methods[] = {
	{ "_fit", py_fit, METH_VARARGS, "fit, select or discover (perfmodel.fit and friends)" },
	{ "_load", py_load, METH_O, "load a model.json file" },
	{ "_loads", py_loads, METH_VARARGS, "load a model.json text" },
	{ "_is_scheme", py_is_scheme, METH_VARARGS, "whether validate= names a scheme, not a file" },
	{ "_inspect", py_inspect, METH_VARARGS, "what an input holds (pm_inspect_to_json)" },
	{ "cpu_count", py_cpu_count, METH_NOARGS, "the CPUs online (threads=0 uses them all)" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "_perfmodel",
	"The C core of perfmodel: the bindings over libperfmodel.", -1, module_methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__perfmodel(void)
{
	PyObject *mod;

	if (PyType_Ready(&model_type) < 0 || !(mod = PyModule_Create(&module_def)))
		return NULL;
	error_type = PyErr_NewExceptionWithDoc(
		"perfmodel.Error",
		"An error of the perfmodel library: its message, and as attributes status, file, "
		"line and column (None where it has no place).", PyExc_ValueError, NULL);
	if (!error_type || PyModule_AddObjectRef(mod, "Error", error_type) < 0 ||
	    PyModule_AddObjectRef(mod, "CModel", (PyObject *)&model_type) < 0 ||
	    PyModule_AddStringConstant(mod, "version", pm_version()) < 0) {
		Py_DECREF(mod);
		return NULL;
	}
	return mod;
}
