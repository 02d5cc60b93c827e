/* Model.advise: perfmodel advise's three picks (fastest, cheapest, largest
 * within an efficiency) over every combination of the varied inputs' values,
 * the others at a point; perfmodel advise --json's document. */
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* The vary list of vary_items [(name, [values]), ...] into v (values
 * malloc'd, one block per entry). 0, or -1 with an exception. */
static int vary_list(const pm_model *m, PyObject *items, pm_vary *v, size_t *n)
{
	Py_ssize_t k = PyList_GET_SIZE(items);

	if (k < 1 || k > PM_ADVISE_MAX_VARY) {
		pmpy_raise_message("vary: 1 to %d inputs, not %zd", PM_ADVISE_MAX_VARY, k);
		return -1;
	}
	for (*n = 0; *n < (size_t)k; ++*n) {
		PyObject *item = PyList_GET_ITEM(items, *n), *values;
		const char *name;
		size_t i = 0, ni = pm_model_ninputs(m);
		double *x;

		if (!PyArg_ParseTuple(item, "sO!", &name, &PyList_Type, &values))
			return -1;
		while (i < ni && strcmp(pm_model_input_name(m, i), name))
			i++;
		if (i == ni) {
			pmpy_raise_message("vary: '%s' is not an input of the model", name);
			return -1;
		}
		if (!(x = malloc(((size_t)PyList_GET_SIZE(values) + 1) * sizeof(*x)))) {
			PyErr_NoMemory();
			return -1;
		}
		v[*n] = (pm_vary){ .input = i, .n = (size_t)PyList_GET_SIZE(values), .values = x };
		for (Py_ssize_t j = 0; j < PyList_GET_SIZE(values); j++)
			if ((x[j] = PyFloat_AsDouble(PyList_GET_ITEM(values, j))) == -1.0 &&
			    PyErr_Occurred()) {
				++*n;
				return -1;
			}
	}
	return 0;
}

/* _advise(point_json, [(name, [values]), ...], resource, min_efficiency,
 * quantile, max_extrapolation, iterations, setup): perfmodel advise
 * --json's document (a str); resource None: the first varied input. */
PyObject *pmpy_model_advise(PyObject *self, PyObject *args)
{
	const pm_model *m = ((pmpy_model *)self)->m;
	const char *point_json, *resource;
	PyObject *items, *ret = NULL;
	pm_advise_options o = pm_advise_options_default();
	pm_vary v[PM_ADVISE_MAX_VARY];
	size_t nv = 0;
	pm_point *p = NULL;
	pm_advice a;
	pm_error err = { 0 };
	pm_status st;
	char *doc = NULL;

	if (!PyArg_ParseTuple(args, "sO!zddddd", &point_json, &PyList_Type, &items, &resource,
			      &o.min_efficiency, &o.quantile, &o.max_extrapolation,
			      &o.job.iterations, &o.job.setup))
		return NULL;
	if (vary_list(m, items, v, &nv) < 0)
		goto out;
	for (o.resource = 0; resource && o.resource < nv &&
	     strcmp(pm_model_input_name(m, v[o.resource].input), resource); o.resource++)
		;
	if (o.resource == nv) {
		pmpy_raise_message("resource '%s': not one of the varied inputs", resource);
		goto out;
	}
	st = pm_point_new(m, &p, &err);
	if (!st)
		st = pm_point_set_json(p, point_json, "at", &err);
	if (!st)
		st = pm_model_advise(m, pm_point_values(p), v, nv, &o, &a, &err);
	if (!st)
		st = pm_advice_to_json(m, NULL, v, nv, &o, &a, &doc, &err);
	ret = st ? pmpy_raise(&err) : PyUnicode_FromString(doc);
out:
	for (size_t i = 0; i < nv; i++)
		free((double *)v[i].values);
	pm_point_free(p);
	free(doc);
	return ret;
}
