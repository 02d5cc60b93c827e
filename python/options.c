/* The options dict of perfmodel/__init__.py as the library's structs, as
 * perfmodel fit sets them from its flags. The dict holds only the keys
 * given, typed and checked there (docs/python.md); the library checks what
 * it parses itself (losses, formats, schemes, forms). Strings point into
 * the dict's objects, alive as long as the dict, which the call keeps. */
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* v's UTF-8 (str) or bytes (a path: the file system's own bytes), whole:
 * a NUL inside is an error naming what, not a string cut there. */
static int text_of(PyObject *v, const char *what, const char **out)
{
	Py_ssize_t len;
	const char *s;

	if (PyBytes_Check(v)) {
		s = PyBytes_AS_STRING(v);
		len = PyBytes_GET_SIZE(v);
	} else if (!(s = PyUnicode_AsUTF8AndSize(v, &len)))
		return -1;
	if (strlen(s) != (size_t)len) {
		pmpy_raise_message("%s: contains a NUL character (at %zu)", what, strlen(s));
		return -1;
	}
	*out = s;
	return 1;
}

int pmpy_opt_str(PyObject *o, const char *key, const char **out)
{
	PyObject *v = PyDict_GetItemString(o, key);

	*out = NULL;
	return v ? text_of(v, key, out) : 0;
}

/* 1 and *out when key is there; 0 when absent; -1 with an exception. */
int pmpy_opt_u64(PyObject *o, const char *key, uint64_t *out)
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

int pmpy_opt_uint(PyObject *o, const char *key, unsigned *out)
{
	uint64_t u;
	int r = pmpy_opt_u64(o, key, &u);

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

/* A flag or enum given as a whole number: *out set when key is there. */
static int opt_int(PyObject *o, const char *key, int *out)
{
	unsigned u;
	int r = pmpy_opt_uint(o, key, &u);

	if (r == 1)
		*out = (int)u;
	return r;
}

int pmpy_fit_options(PyObject *o, pm_fit_options *fo, pm_status *st, pm_error *err)
{
	unsigned engine = PM_ENGINE_VARPRO;
	int polish = -1, scale = -1, reg = -1;
	const char *loss;

	if (pmpy_opt_uint(o, "engine", &engine) < 0)
		return -1;
	/* as perfmodel fit: the defaults with the engine's popsize and tol
	 * (cli/util.c engine_defaults), then what was given */
	*fo = pm_fit_options_default();
	fo->engine = (pm_engine)engine;
	fo->popsize = pm_fit_options_engine(fo->engine).popsize;
	fo->tol = pm_fit_options_engine(fo->engine).tol;
	fo->intervals = 5;	/* as perfmodel fit: calibrated unless intervals=False */
	if (pmpy_opt_u64(o, "seed", &fo->seed) < 0 || pmpy_opt_uint(o, "threads", &fo->threads) < 0 ||
	    pmpy_opt_uint(o, "maxiter", &fo->maxiter) < 0 ||
	    pmpy_opt_uint(o, "popsize", &fo->popsize) < 0 || opt_double(o, "tol", &fo->tol) < 0 ||
	    opt_double(o, "atol", &fo->atol) < 0 ||
	    opt_double(o, "mutation_lo", &fo->mutation_lo) < 0 ||
	    opt_double(o, "mutation_hi", &fo->mutation_hi) < 0 ||
	    opt_double(o, "recombination", &fo->recombination) < 0 ||
	    opt_double(o, "lambda_coef", &fo->lambda_coef) < 0 ||
	    opt_double(o, "lambda_power", &fo->lambda_power) < 0 ||
	    opt_double(o, "test_fraction", &fo->test_fraction) < 0 ||
	    pmpy_opt_u64(o, "split_seed", &fo->split_seed) < 0 ||
	    pmpy_opt_uint(o, "intervals", &fo->intervals) < 0 || opt_int(o, "polish", &polish) < 0 ||
	    opt_int(o, "scale", &scale) < 0 || opt_int(o, "reg", &reg) < 0 ||
	    pmpy_opt_str(o, "loss", &loss) < 0)
		return -1;
	if (polish >= 0)
		fo->polish = polish;
	if (scale >= 0)
		fo->scale = (pm_scale)scale;
	if (reg >= 0)
		fo->reg = (pm_reg)reg;
	if (loss && (*st = pm_loss_from_name(loss, &fo->loss, err)))
		return -1;
	return 0;
}

int pmpy_read_options(PyObject *o, pm_read_options *ro, pm_status *st, pm_error *err)
{
	const char *format, *aggregate, *weights;
	int inclusive = -1, drop_incomplete = -1, scaling = -1;

	*ro = pm_read_options_default();
	if (pmpy_opt_str(o, "format", &format) < 0 || pmpy_opt_str(o, "aggregate", &aggregate) < 0 ||
	    pmpy_opt_str(o, "weights", &weights) < 0 ||
	    pmpy_opt_str(o, "throughput", &ro->throughput) < 0 ||
	    pmpy_opt_str(o, "read_per", &ro->per) < 0 ||
	    pmpy_opt_str(o, "name_pattern", &ro->name_pattern) < 0 ||
	    pmpy_opt_str(o, "region", &ro->region) < 0 ||
	    pmpy_opt_str(o, "metric", &ro->metric) < 0 ||
	    pmpy_opt_uint(o, "drop_first", &ro->drop_first) < 0 ||
	    opt_int(o, "inclusive", &inclusive) < 0 ||
	    opt_int(o, "drop_incomplete", &drop_incomplete) < 0 ||
	    opt_int(o, "scaling", &scaling) < 0)
		return -1;
	if ((format && (*st = pm_format_from_name(format, &ro->format, err))) ||
	    (aggregate && (*st = pm_aggregate_from_name(aggregate, &ro->aggregate, err))))
		return -1;
	if (inclusive >= 0)
		ro->inclusive = inclusive;
	if (drop_incomplete >= 0)
		ro->drop_incomplete = drop_incomplete;
	if (scaling >= 0)
		ro->scaling = (pm_cube_scaling)scaling;
	if (weights && strcmp(weights, "inverse-variance") == 0)
		ro->weights = PM_WEIGHTS_INVERSE_VARIANCE;
	return 0;
}

/* The spec's string options, each NULL when absent. */
struct spec_text {
	const char *path, *json, *target, *form, *ignore, *kind, *resource, *per;
	const char *list[4];
};

static const struct { const char *key; pm_spec_list list; } role_lists[] = {
	{ "extrinsic", PM_SPEC_EXTRINSIC }, { "intrinsic", PM_SPEC_INTRINSIC },
	{ "categorical", PM_SPEC_CATEGORICAL }, { "workers", PM_SPEC_WORKERS },
};

static int spec_text(PyObject *o, struct spec_text *t)
{
	for (size_t i = 0; i < sizeof(role_lists) / sizeof(role_lists[0]); i++)
		if (pmpy_opt_str(o, role_lists[i].key, &t->list[i]) < 0)
			return -1;
	return pmpy_opt_str(o, "spec_path", &t->path) < 0 ||
	       pmpy_opt_str(o, "spec_json", &t->json) < 0 ||
	       pmpy_opt_str(o, "target", &t->target) < 0 || pmpy_opt_str(o, "form", &t->form) < 0 ||
	       pmpy_opt_str(o, "ignore", &t->ignore) < 0 ||
	       pmpy_opt_str(o, "target_kind", &t->kind) < 0 ||
	       pmpy_opt_str(o, "resource", &t->resource) < 0 || pmpy_opt_str(o, "per", &t->per) < 0
		       ? -1 : 0;
}

/* The spec: a file or a JSON text (spec_json), or none, then the role
 * options, as perfmodel fit's --spec and role flags (cli/util.c). */
static pm_status spec_from(const struct spec_text *t, pm_spec **out, pm_error *err)
{
	pm_spec *s = NULL;
	pm_status st;

	st = t->path ? pm_spec_read_file(t->path, &s, err)
	     : t->json ? pm_spec_parse(t->json, "<spec>", &s, err) : pm_spec_new(&s, err);
	if (st)
		return st;
	if (t->target && (st = pm_spec_set_target(s, t->target, err)))
		goto fail;
	for (size_t i = 0; i < sizeof(role_lists) / sizeof(role_lists[0]); i++)
		if (t->list[i] && (st = pm_spec_add_names(s, role_lists[i].list, t->list[i], err)))
			goto fail;
	if ((t->form && (st = pm_spec_set_form(s, t->form, err))) ||
	    (t->ignore && (st = pm_spec_ignore(s, t->ignore, err))))
		goto fail;
	if (t->kind || t->resource || t->per) {
		pm_target_kind k = pm_spec_target_kind(s);

		if ((t->kind && (st = pm_target_kind_from_name(t->kind, &k, err))) ||
		    (st = pm_spec_set_target_kind(s, k, t->resource ? t->resource : pm_spec_resource(s),
						  t->per ? t->per : pm_spec_per(s), err)))
			goto fail;
	}
	*out = s;
	return PM_OK;
fail:
	pm_spec_free(s);
	return st;
}

int pmpy_build_spec(PyObject *o, pm_spec **out, pm_status *st, pm_error *err)
{
	struct spec_text t = { 0 };

	if (spec_text(o, &t) < 0)
		return -1;
	return (*st = spec_from(&t, out, err)) ? -1 : 0;
}

/* The candidates of a selection: every form with every loss. */
int pmpy_candidates(PyObject *o, pm_candidate **out, size_t *n, pm_status *st, pm_error *err)
{
	PyObject *forms = PyDict_GetItemString(o, "forms"), *losses = PyDict_GetItemString(o, "losses");
	Py_ssize_t nf, nl;
	pm_candidate *c;

	if (!forms || !losses || !PyList_Check(forms) || !PyList_Check(losses)) {
		PyErr_SetString(PyExc_TypeError, "_fit: select needs the lists forms and losses");
		return -1;
	}
	nf = PyList_GET_SIZE(forms);
	nl = PyList_GET_SIZE(losses);
	/* malloc, not PyMem: freed where the GIL may not be held */
	if (!(c = calloc((size_t)(nf * nl) + 1, sizeof(*c)))) {
		PyErr_NoMemory();
		return -1;
	}
	*n = 0;
	for (Py_ssize_t i = 0; i < nf; i++)
		for (Py_ssize_t j = 0; j < nl; j++) {
			const char *loss;

			if (text_of(PyList_GET_ITEM(forms, i), "forms", &c[*n].form) < 0 ||
			    text_of(PyList_GET_ITEM(losses, j), "loss", &loss) < 0)
				goto fail;
			if ((*st = pm_loss_from_name(loss, &c[(*n)++].loss, err)))
				goto fail;
		}
	*out = c;
	return 0;
fail:
	free(c);
	return -1;
}
