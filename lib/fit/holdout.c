/* Held-out accuracy (thesis §4.2: 1000 rows fitted, 500 held out): the rows
 * set apart before a fit, and their accuracy recorded after it. pm_fit
 * calls both around its one fit; nothing here fits, so that the scheme
 * depends on the fit and not the other way round. */
#include "fit/holdout.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "model/model_impl.h"

/* The extrapolation's training rows (those no fold holds out) and the
 * rows it is measured on (fold 0). */
static pm_status extrapolation(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			       pm_dataset **train, pm_dataset **test, char *what, pm_error *err)
{
	pm_folds f;
	pm_status st = pm_validation_folds(d, s, &o->validate, &f, err);

	if (st)
		return st;
	st = pm__fold_subsets(d, f.fold, 0, train, test, err);
	snprintf(what, sizeof(f.what), "%s", f.what);
	pm_folds_free(&f);
	return st;
}

pm_status pm__holdout_split(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			    pm_dataset **train, pm_dataset **test, char *what, pm_error *err)
{
	size_t *tr = NULL, *te = NULL, ntr, nte;
	pm_status st;

	*train = *test = NULL;
	if ((o->test != NULL) + (o->test_fraction > 0) + (o->validate.scheme != PM_SCHEME_NONE) > 1)
		return pm__fail(err, PM_EINVAL, "a test fraction, a test file and a validation "
				"scheme exclude each other");
	if (o->validate.scheme == PM_SCHEME_EXTRAPOLATE)
		return extrapolation(d, s, o, train, test, what, err);
	if (!(o->test_fraction > 0))
		return PM_OK;
	if (!(st = pm_split_rows(pm_dataset_nrows(d), o->test_fraction, o->split_seed, &tr, &ntr,
				 &te, &nte, err)) &&
	    !(st = pm_dataset_subset(d, tr, ntr, train, err)))
		st = pm_dataset_subset(d, te, nte, test, err);
	if (st) {
		pm_dataset_free(*train);
		*train = NULL;
	}
	free(tr);
	free(te);
	return st;
}

pm_status pm__holdout_record(pm_model *m, const pm_dataset *d, const pm_dataset *test,
			     const pm_fit_options *o, const char *what, pm_error *err)
{
	pm_status st = pm_model_evaluate(m, test, &m->info.test, err);

	if (st)
		return st;
	m->info.options.test_fraction = o->test_fraction;
	m->info.options.split_seed = o->split_seed;
	m->info.options.validate = o->validate;
	snprintf(m->info.validation, sizeof(m->info.validation), "%s", what ? what : "");
	snprintf(m->info.test_name, sizeof(m->info.test_name), "%s", pm_dataset_name(test));
	pm_dataset_fingerprint(d, m->info.fingerprint);
	return PM_OK;
}
