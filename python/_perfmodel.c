/* perfmodel._perfmodel: the CPython binding over libperfmodel (docs/python.md).
 * The C API directly: the module only converts between Python objects and
 * the library's calls. Options arrive checked and typed from
 * perfmodel/__init__.py, which knows their names; the library checks what it
 * parses itself (losses, formats, schemes, forms), and its pm_error becomes
 * perfmodel.Error. Library calls run with the GIL released; Ctrl-C during
 * them reaches Python (interrupt.c). This file: the module, its errors and
 * what the other files share (binding.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

static PyObject *error_type;	/* perfmodel.Error, a ValueError */

/* Raise perfmodel.Error from err: the message, and as attributes the
 * status's name, the file, line and column (None where the error has no
 * place) and row (None: perfmodel/_data.py names a DataFrame's row when the
 * place is in one). Returns NULL. */
PyObject *pmpy_raise(const pm_error *err)
{
	const char *msg = err->msg[0] ? err->msg : pm_status_string(err->code);
	PyObject *e = PyObject_CallFunction(error_type, "s", msg);

	if (!e)
		return NULL;
	if (PyObject_SetAttrString(e, "status", PyUnicode_FromString(pm_status_string(err->code)))
	    < 0 || PyObject_SetAttrString(e, "message", PyUnicode_FromString(msg)) < 0 ||
	    PyObject_SetAttrString(e, "row", Py_None) < 0)
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

PyObject *pmpy_raise_message(const char *fmt, ...)
{
	pm_error err = { .code = PM_EINVAL };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	return pmpy_raise(&err);
}

PyObject *pmpy_str_or_none(const char *s)
{
	return s ? PyUnicode_FromString(s) : Py_NewRef(Py_None);
}

/* A list of n items, item(ctx, i) each: a new reference, or NULL with an
 * exception, which fails the whole list. */
PyObject *pmpy_list_of(size_t n, PyObject *(*item)(const void *ctx, size_t i), const void *ctx)
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
PyObject *pmpy_metrics_dict(const pm_metrics *x)
{
	return Py_BuildValue("{s:n,s:n,s:d,s:d,s:d,s:d,s:d,s:d,s:d}", "rows", (Py_ssize_t)x->n,
			     "mape_rows", (Py_ssize_t)x->mape_n, "mae", x->mae, "mape", x->mape, "mse", x->mse, "rmse", x->rmse,
			     "r2", x->r2, "smape", x->smape, "adj_r2", x->adj_r2);
}

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
	return st ? pmpy_raise(&err) : pmpy_model_wrap(m);
}

static PyObject *py_loads(PyObject *mod, PyObject *args)
{
	const char *json, *name;
	pm_model *m = NULL;
	pm_error err = { 0 };
	Py_ssize_t len;

	(void)mod;
	if (!PyArg_ParseTuple(args, "s#s", &json, &len, &name))
		return NULL;
	if (strlen(json) != (size_t)len)	/* C would read it only up to there */
		return pmpy_raise_message("%s: contains a NUL character (at %zu)", name,
					  strlen(json));
	if (pm_model_load_string(json, name, &m, &err))
		return pmpy_raise(&err);
	return pmpy_model_wrap(m);
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
	{ "_fit", pmpy_fit, METH_VARARGS, "fit, select or discover (perfmodel.fit and friends)" },
	{ "_plan", pmpy_plan, METH_VARARGS, "which runs to measure next (perfmodel.plan)" },
	{ "_batch", pmpy_batch, METH_VARARGS, "jobs run by the library's batch (batch, fit_groups)" },
	{ "_check", pmpy_check, METH_VARARGS, "fit's options checked, nothing run" },
	{ "_lif", pmpy_lif, METH_VARARGS, "perfmodel lif --json's document" },
	{ "_load", py_load, METH_O, "load a model.json file" },
	{ "_loads", py_loads, METH_VARARGS, "load a model.json text" },
	{ "_is_scheme", py_is_scheme, METH_VARARGS, "whether validate= names a scheme, not a file" },
	{ "_inspect", pmpy_inspect, METH_VARARGS, "what an input holds (pm_inspect_to_json)" },
	{ "_option_table", pmpy_option_table, METH_NOARGS,
	  "the options of fit, select and discover: [(name, takes_value, flags)]" },
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

	if (PyType_Ready(&pmpy_model_type) < 0 || !(mod = PyModule_Create(&module_def)))
		return NULL;
	error_type = PyErr_NewExceptionWithDoc(
		"perfmodel.Error",
		"An error of the perfmodel library: its message, and as attributes status, file, "
		"line and column (None where it has no place); in a DataFrame or dict given as "
		"data, row (the index label) and column (the column's name) instead of file and "
		"line.", PyExc_ValueError, NULL);
	if (!error_type || PyModule_AddObjectRef(mod, "Error", error_type) < 0 ||
	    PyModule_AddObjectRef(mod, "CModel", (PyObject *)&pmpy_model_type) < 0 ||
	    PyModule_AddStringConstant(mod, "version", pm_version()) < 0 ||
	    PyModule_AddIntConstant(mod, "OPTION_IDENTITY", PM_OPTION_IDENTITY) < 0 ||
	    PyModule_AddIntConstant(mod, "OPTION_OUTPUT", PM_OPTION_OUTPUT) < 0 ||
	    PyModule_AddIntConstant(mod, "OPTION_HELP", PM_OPTION_HELP) < 0) {
		Py_DECREF(mod);
		return NULL;
	}
	return mod;
}
