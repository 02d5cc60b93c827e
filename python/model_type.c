/* The Model type of perfmodel._perfmodel (CModel; perfmodel.Model builds on
 * it): a fitted or loaded pm_model, what it holds as Python objects, its
 * predictions, JSON and file. */
#include <stdlib.h>
#include <string.h>

#include "binding.h"

PyObject *pmpy_model_wrap(pm_model *m)
{
	pmpy_model *o = PyObject_New(pmpy_model, &pmpy_model_type);

	if (!o) {
		pm_model_free(m);
		return NULL;
	}
	o->m = m;
	o->data = o->test = NULL;
	return (PyObject *)o;
}

static void model_dealloc(PyObject *self)
{
	pmpy_model *o = (pmpy_model *)self;

	pm_model_free(o->m);
	pm_dataset_free(o->data);
	pm_dataset_free(o->test);
	PyObject_Free(self);
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
	const pm_model *m = ((pmpy_model *)self)->m;

	(void)unused;
	return pmpy_list_of(pm_model_nparams(m), param_item, m);
}

/* What the fit recorded (pm_fit_info); None for a model without one. */
static PyObject *model_info(PyObject *self, PyObject *unused)
{
	const pm_fit_info *fi = pm_model_fit_info(((pmpy_model *)self)->m);
	PyObject *train, *test, *d;

	(void)unused;
	if (!fi)
		Py_RETURN_NONE;
	train = pmpy_metrics_dict(&fi->training);
	test = fi->test.n ? pmpy_metrics_dict(&fi->test) : Py_NewRef(Py_None);
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
	const pm_model *m = ((pmpy_model *)self)->m;

	(void)unused;
	return pmpy_list_of(pm_model_nwarnings(m), warning_item, m);
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
			     pmpy_list_of(pm_model_nlevels(m, i), level_item, &c));
}

static PyObject *model_inputs(PyObject *self, PyObject *unused)
{
	const pm_model *m = ((pmpy_model *)self)->m;

	(void)unused;
	return pmpy_list_of(pm_model_ninputs(m), input_item, m);
}

static PyObject *model_describe(PyObject *self, PyObject *unused)
{
	const pm_model *m = ((pmpy_model *)self)->m;

	(void)unused;
	return Py_BuildValue("{s:s,s:N,s:N,s:s,s:O,s:s}", "target", pm_model_target(m),
			     "form", pmpy_str_or_none(pm_model_form(m)),
			     "formula", pmpy_str_or_none(pm_model_formula(m)),
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
	if (pm_model_to_json(((pmpy_model *)self)->m, &json, &err))
		return pmpy_raise(&err);
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
	st = pm_model_save_file(((pmpy_model *)self)->m, PyBytes_AS_STRING(path), &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	if (st)
		return pmpy_raise(&err);
	Py_RETURN_NONE;
}

/* _predict(points, is_path, levels): points a CSV text (is_path false) or
 * the path of a CSV file, read as perfmodel predict reads its points; levels
 * a sequence of interval levels (may be empty). Returns (predictions,
 * bounds): n doubles as bytes, and for each level its lower and upper bound
 * per row, bounds[r * 2L + 2l + {0, 1}], as bytes too. */
static PyObject *model_predict(PyObject *self, PyObject *args)
{
	const pm_model *m = ((pmpy_model *)self)->m;
	const char *text;
	Py_ssize_t len;
	int is_path;
	PyObject *levels, *seq = NULL, *pred = NULL, *bounds = NULL, *out = NULL;
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	pm_status st;
	size_t nq, n;
	double *q = NULL;

	if (!PyArg_ParseTuple(args, "s#pO", &text, &len, &is_path, &levels))
		return NULL;
	if (strlen(text) != (size_t)len)	/* C would read it only up to there */
		return pmpy_raise_message("points: contains a NUL character (at %zu)", strlen(text));
	if (!(seq = PySequence_Fast(levels, "levels must be a sequence")))
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
		pmpy_raise(&err);
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
		pmpy_raise(&err);
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
	{ "_report_html", pmpy_model_report_html, METH_VARARGS,
	  "perfmodel report's page of data and test files (None: the fit's rows)" },
	{ "_plots", pmpy_model_plots, METH_VARARGS,
	  "perfmodel report's plots: [(name, title, svg)]" },
	{ "_rows", pmpy_model_rows, METH_NOARGS, "the fit's rows kept (None: none)" },
	{ "_eval", pmpy_model_eval, METH_O, "perfmodel eval's metrics of a data file" },
	{ "_scaling", pmpy_model_scaling, METH_VARARGS, "the scaling report (fit --json's)" },
	{ "_advise", pmpy_model_advise, METH_VARARGS, "perfmodel advise --json's document" },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject pmpy_model_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "perfmodel._perfmodel.CModel",
	.tp_basicsize = sizeof(pmpy_model),
	.tp_dealloc = model_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A fitted or loaded model (pm_model); perfmodel.Model builds on it.",
	.tp_methods = model_methods,
};

