/* pm_fit, the library's fit: one fit of the rows its options leave in
 * (pm__fit_held_out, lib/fit/fit.c), measured on the rows they hold out or,
 * with kfold or loo, by the folds' cross-validation (crossval.c); then its
 * prediction intervals, from fits of their own (interval_fit.c). */
#include <stdio.h>

#include "core/error.h"
#include "core/stop.h"
#include "fit/holdout.h"
#include "model/model_impl.h"
#include "select/interval_fit.h"

/* A fit of every row validated by folds (kfold, loo): the held-out
 * metrics' means over the folds become the model's test accuracy. A stop
 * request during the folds keeps the fit, marked interrupted, unmeasured. */
static pm_status cross_validated(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
				 const pm_fit_options *inner, pm_model **out, pm_error *err)
{
	pm_cv_result cv;
	pm_model *m;
	pm_status st = pm__fit_held_out(d, s, inner, out, err);

	if (st || (*out)->info.interrupted)
		return st;
	m = *out;
	if ((st = pm_cross_validate(d, s, inner, &o->validate, &cv, err))) {
		if (!pm__stop_requested(o->stop)) {
			pm_model_free(m);
			*out = NULL;
			return st;
		}
		m->info.interrupted = 1;
		snprintf(m->info.stop, sizeof(m->info.stop), "interrupted");
		return PM_OK;
	}
	m->info.test = cv.mean;
	m->info.options.validate = o->validate;
	/* model.json keeps the seed that dealt the folds as split_seed (the
	 * CLI's one seed for both): "kfold:K" does not hold it */
	if (o->validate.scheme == PM_SCHEME_KFOLD)
		m->info.options.split_seed = o->validate.seed;
	snprintf(m->info.validation, sizeof(m->info.validation), "%s", cv.what);
	snprintf(m->info.test_name, sizeof(m->info.test_name), "%s", pm_dataset_name(d));
	return PM_OK;
}

pm_status pm_fit(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
		 pm_model **out, pm_error *err)
{
	pm_fit_options inner;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the model");
	*out = NULL;
	if (!o)
		return pm__fail(err, PM_EINVAL, "no fit options");
	if (o->validate.scheme > PM_SCHEME_EXTRAPOLATE)
		return pm__fail(err, PM_EINVAL, "unknown validation scheme");
	if (o->validate.scheme != PM_SCHEME_KFOLD && o->validate.scheme != PM_SCHEME_LOO)
		st = pm__fit_held_out(d, s, o, out, err);
	else if (o->test_fraction > 0 || o->test)
		return pm__fail(err, PM_EINVAL, "a test fraction, a test file and a validation "
				"scheme exclude each other");
	else {
		inner = *o;
		inner.validate.scheme = PM_SCHEME_NONE;
		st = cross_validated(d, s, o, &inner, out, err);
	}
	/* after the fit, from fits of its own: the model's parameters are
	 * what they are without intervals */
	if (!st && (st = pm__fit_intervals(*out, d, s, o, err))) {
		pm_model_free(*out);
		*out = NULL;
	}
	return st;
}
