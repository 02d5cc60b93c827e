/* perfmodel.lif: the load-imbalance factor of every run (thesis eq. 3.8),
 * per configuration, and eq. 3.9's regression, as perfmodel lif --json
 * makes them (docs/json.md, "lif"). */
#include <stdlib.h>

#include "binding.h"
#include "perfmodel/lif.h"

/* _lif(path, workers, n, target, by): the document of perfmodel lif
 * --json for the data file at path (read as perfmodel lif reads it), the
 * worker columns (names and globs, "a,b"), N_g's column, t's column and
 * the configuration columns (None: the defaults). */
PyObject *pmpy_lif(PyObject *mod, PyObject *args)
{
	const char *path, *workers, *n_col, *target, *by;
	const pm_read_options ro = pm_read_options_default();
	pm_spec *s = NULL;
	pm_dataset *d = NULL;
	pm_lif_report *r = NULL;
	pm_lif_regression reg;
	pm_error err = { 0 }, rerr = { 0 };
	pm_status st;
	char *doc = NULL;
	PyObject *ret;

	(void)mod;
	if (!PyArg_ParseTuple(args, "sszzz", &path, &workers, &n_col, &target, &by))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	st = pm_spec_new(&s, &err);
	if (!st && target)
		st = pm_spec_set_target(s, target, &err);
	if (!st)
		st = pm_spec_add_names(s, PM_SPEC_WORKERS, workers, &err);
	if (!st && by)
		st = pm_spec_add_names(s, PM_SPEC_EXTRINSIC, by, &err);
	if (!st)
		st = pm_spec_read_data(s, path, &ro, &d, NULL, &err);
	if (!st)
		st = pm_lif_report_new(d, pm_spec_names(s, PM_SPEC_WORKERS),
				       &(pm_lif_options){ .n_col = n_col, .time_col = target,
							  .by = pm_spec_names(s, PM_SPEC_EXTRINSIC) },
				       &r, &err);
	/* the tables stand on their own: eq. 3.9's failure is in the document */
	if (!st)
		st = pm_lif_report_to_json(d, r, target,
					   pm_lif_regress(r->n, r->lif, r->t, r->nrows, &reg, &rerr)
						   ? NULL : &reg,
					   rerr.msg, &doc, &err);
	Py_END_ALLOW_THREADS
	ret = st ? pmpy_raise(&err) : PyUnicode_FromString(doc);
	free(doc);
	pm_lif_report_free(r);
	pm_dataset_free(d);
	pm_spec_free(s);
	return ret;
}
