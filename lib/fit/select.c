/* The choice of a model form and loss by validation (issue 10): every
 * candidate is fitted on the same folds (lib/fit/crossval.c), so their
 * held-out errors differ by the candidate alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fit/holdout.h"
#include "fit/spec_impl.h"

/* a before b by mean held-out MAPE: a number before NaN (a fold that
 * could not be measured), then the lower */
static int lower_mape(double a, double b)
{
	return !isnan(a) && (isnan(b) || a < b);
}

size_t pm_select_best(const pm_cv_result *cv, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; cv && i < n; i++) {
		int tie = !lower_mape(cv[i].mape, cv[best].mape) &&
			  !lower_mape(cv[best].mape, cv[i].mape);

		/* a constant fit describes none of the inputs: on a tie, the
		 * candidate that does wins, whatever the order of the list */
		if (lower_mape(cv[i].mape, cv[best].mape) ||
		    (tie && cv[best].constant_folds && !cv[i].constant_folds))
			best = i;
	}
	return best;
}

/* s with the candidate form; a formula is parsed here, before any fit. */
static pm_status form_spec(const pm_spec *s, const char *form, pm_spec **out, pm_error *err)
{
	pm_status st = pm__spec_copy(s, out, err);

	if (!st && (st = pm_spec_set_form(*out, form, err))) {
		pm_spec_free(*out);
		*out = NULL;
		pm__err_append(err, " (form '%s')", form);
	}
	return st;
}

pm_status pm_select(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
		    const pm_candidate *cand, size_t n, const pm_validation *v, pm_cv_result *cv,
		    size_t *best, pm_model **out, pm_error *err)
{
	pm_spec **fs;
	pm_fit_options co;
	pm_dataset *cvd = NULL, *held = NULL;
	char what[512];
	pm_status st = PM_OK;

	if (!out || !best || !cv || !d || !s || !o)
		return pm__fail(err, PM_EINVAL, "pm_select: NULL argument");
	*out = NULL;
	*best = 0;
	if (n == 0 || !cand)
		return pm__fail(err, PM_EINVAL, "no candidate to choose from");
	/* a warm start is of one form: the candidates' differ */
	if (o->warm_start)
		return pm__fail(err, PM_EINVAL, "a warm start refits the form of one model: not "
				"with a selection among forms");
	if (!(fs = calloc(n, sizeof(*fs))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	co = *o;
	/* every form checked before the first (long) fit */
	for (size_t i = 0; i < n && !st; i++)
		st = form_spec(s, cand[i].form, &fs[i], err);
	/* rows o holds out for the final model are held out of the choice too:
	 * the folds split only the rows its fit will train on */
	if (!st && !(st = pm__holdout_split(d, s, o, &cvd, &held, what, err)))
		pm_dataset_free(held);
	for (size_t i = 0; i < n && !st; i++) {
		co.loss = cand[i].loss;
		if ((st = pm_cross_validate(cvd ? cvd : d, fs[i], &co, v, &cv[i], err)))
			pm__err_append(err, " (form '%s', loss %s)", cand[i].form,
				       pm_loss_name(co.loss));
	}
	if (!st)
		*best = pm_select_best(cv, n);
	co.loss = cand[*best].loss;
	if (!st && (st = pm_fit(d, fs[*best], &co, out, err)))
		pm__err_append(err, " (form '%s' on every row)", cand[*best].form);
	for (size_t i = 0; i < n; i++)
		pm_spec_free(fs[i]);
	free(fs);
	pm_dataset_free(cvd);
	return st;
}
