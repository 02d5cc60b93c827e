/* perfmodel.Model against rows (docs/python.md): perfmodel report's page and
 * plots, of the rows the model was fitted to (which a CModel made by a fit
 * keeps, fit_call.c) or of data files read for the model as perfmodel
 * report reads them (CSV, the rows as they are); perfmodel eval's metrics;
 * the scaling report. */
#include <stdlib.h>

#include "binding.h"

struct report_rows {
	pm_report_data rd;
	pm_dataset *data, *test;	/* read here, freed with it */
};

static void rows_clear(struct report_rows *r)
{
	pm_dataset_free(r->data);
	pm_dataset_free(r->test);
}

/* The rows of the report: the files data and test (either may be NULL)
 * read for the model, or the model's own without data. 0, or -1 with an
 * exception. */
static int rows_read(const pmpy_model *o, const char *data, const char *test,
		     struct report_rows *r)
{
	const pm_read_options csv = { .format = PM_FORMAT_CSV };
	pm_error err = { 0 };
	pm_status st = PM_OK;

	*r = (struct report_rows){ 0 };
	if (!data) {
		if (!o->data || test) {
			pmpy_raise_message(test ? "test: give the data it is held out from too"
					   : "data: this model was not fitted here (loaded): give the "
					   "rows to report on");
			return -1;
		}
		r->rd = (pm_report_data){ .data = o->data, .test = o->test };
		return 0;
	}
	Py_BEGIN_ALLOW_THREADS
	st = pm_model_read_data(o->m, data, &csv, &r->data, NULL, &err);
	if (!st && test)
		st = pm_model_read_data(o->m, test, &csv, &r->test, NULL, &err);
	Py_END_ALLOW_THREADS
	if (st) {
		rows_clear(r);
		pmpy_raise(&err);
		return -1;
	}
	r->rd = (pm_report_data){ .data = r->data, .test = r->test };
	return 0;
}

/* _report_html(data, test, name): the page of perfmodel report (a str) of
 * the data and test files (None: the model's own rows), the model named
 * name (or None) on it. */
PyObject *pmpy_model_report_html(PyObject *self, PyObject *args)
{
	const char *data, *test, *name;
	struct report_rows r;
	pm_error err = { 0 };
	pm_status st;
	char *html = NULL;
	PyObject *ret;

	if (!PyArg_ParseTuple(args, "zzz", &data, &test, &name) ||
	    rows_read((pmpy_model *)self, data, test, &r) < 0)
		return NULL;
	r.rd.model_name = name;
	Py_BEGIN_ALLOW_THREADS
	st = pm_report_html(((pmpy_model *)self)->m, &r.rd, &html, &err);
	Py_END_ALLOW_THREADS
	ret = st ? pmpy_raise(&err) : PyUnicode_FromString(html);
	free(html);
	rows_clear(&r);
	return ret;
}

static PyObject *plot_item(const void *ctx, size_t i)
{
	const pm_plot *p = &((const pm_plots *)ctx)->plot[i];

	return Py_BuildValue("(sss)", p->name, p->title, p->svg);
}

/* _plots(data, test): perfmodel report's plots as [(file name, title,
 * SVG)], in the page's order, of the rows as _report_html's. */
PyObject *pmpy_model_plots(PyObject *self, PyObject *args)
{
	const char *data, *test;
	struct report_rows r;
	pm_error err = { 0 };
	pm_status st;
	pm_plots *plots = NULL;
	PyObject *ret;

	if (!PyArg_ParseTuple(args, "zz", &data, &test) ||
	    rows_read((pmpy_model *)self, data, test, &r) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	st = pm_report_plots(((pmpy_model *)self)->m, &r.rd, &plots, &err);
	Py_END_ALLOW_THREADS
	ret = st ? pmpy_raise(&err) : pmpy_list_of(plots->n, plot_item, plots);
	pm_plots_free(plots);
	rows_clear(&r);
	return ret;
}

/* _scaling(data): perfmodel fit --json's document (docs/json.md: the
 * model's members, "scaling" and "baseline") of the scaling report of the
 * data file's rows (None: the model's own), as a str. */
PyObject *pmpy_model_scaling(PyObject *self, PyObject *args)
{
	const char *data;
	struct report_rows r;
	pm_scaling_report *rep = NULL;
	pm_error err = { 0 };
	pm_status st;
	char *doc = NULL;
	PyObject *ret;

	if (!PyArg_ParseTuple(args, "z", &data) ||
	    rows_read((pmpy_model *)self, data, NULL, &r) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	st = pm_scaling_report_new(((pmpy_model *)self)->m, r.rd.data, &rep, &err);
	if (!st)
		st = pm_fit_report_to_json(((pmpy_model *)self)->m, rep, &doc, &err);
	Py_END_ALLOW_THREADS
	ret = st ? pmpy_raise(&err) : PyUnicode_FromString(doc);
	free(doc);
	pm_scaling_report_free(rep);
	rows_clear(&r);
	return ret;
}

/* _eval(path): perfmodel eval's metrics of the model on the file at path,
 * read as perfmodel eval reads it without options (pm_metrics as a dict). */
PyObject *pmpy_model_eval(PyObject *self, PyObject *arg)
{
	const pm_read_options ro = pm_read_options_default();
	PyObject *path = NULL, *ret;
	pm_dataset *d = NULL;
	pm_metrics x;
	pm_error err = { 0 };
	pm_status st;

	if (!PyUnicode_FSConverter(arg, &path))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	st = pm_model_read_data(((pmpy_model *)self)->m, PyBytes_AS_STRING(path), &ro, &d, NULL,
				&err);
	if (!st)
		st = pm_model_evaluate(((pmpy_model *)self)->m, d, &x, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	ret = st ? pmpy_raise(&err) : pmpy_metrics_dict(&x);
	pm_dataset_free(d);
	return ret;
}

/* _rows(): how many rows the model was fitted to, as it keeps them; None
 * for a model without them (loaded). */
PyObject *pmpy_model_rows(PyObject *self, PyObject *unused)
{
	const pm_dataset *d = ((pmpy_model *)self)->data;

	(void)unused;
	if (!d)
		Py_RETURN_NONE;
	return PyLong_FromSize_t(pm_dataset_nrows(d));
}
