/* Cross-validation, and the choice of a model form and loss by it (issue
 * 10): every candidate is fitted on the same seeded folds, so their held-out
 * errors differ by the candidate alone. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stop.h"
#include "core/numcodec.h"
#include "fit/holdout.h"
#include "fit/spec_impl.h"

/* Add where a failure happened to err's message, keeping its place. */
static pm_status with_context(pm_status st, pm_error *err, const char *fmt, ...)
	PM_PRINTF(3, 4);

static pm_status with_context(pm_status st, pm_error *err, const char *fmt, ...)
{
	char what[128];
	size_t len;
	va_list ap;

	if (!err)
		return st;
	va_start(ap, fmt);
	pm_vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, " (%s)", what);
	return st;
}

/* A fold cut short, or not begun, by a stop request: a comparison of
 * candidates on folds not all fitted would be meaningless. */
static pm_status cut_short(pm_error *err)
{
	return pm__fail(err, PM_EFIT, "interrupted: no form chosen, the folds are not all fitted");
}

/* Fit to the rows outside fold f and measure on the rows inside it. */
static pm_status one_fold(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			  const unsigned *fold, unsigned f, pm_metrics *held, double *fit_time,
			  size_t *nparams, pm_error *err)
{
	pm_dataset *train = NULL, *test = NULL;
	pm_model *m = NULL;
	pm_status st;

	if (!(st = pm__fold_subsets(d, fold, f, &train, &test, err)) &&
	    !(st = pm_fit(train, s, o, &m, err)) &&
	    !(st = pm_model_fit_info(m)->interrupted ? cut_short(err) : PM_OK) &&
	    !(st = pm_model_evaluate(m, test, held, err))) {
		*fit_time = pm_model_fit_info(m)->wall_time_s;
		*nparams = pm_model_nparams(m);
	}
	pm_model_free(m);
	pm_dataset_free(test);
	pm_dataset_free(train);
	return st;
}

pm_status pm_cross_validate(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			    unsigned folds, uint64_t seed, pm_cv_result *out, pm_error *err)
{
	pm_fit_options fo;
	size_t n = d ? pm_dataset_nrows(d) : 0;
	unsigned *fold = malloc((n + 1) * sizeof(*fold));
	double sum = 0.0, sumsq = 0.0, r2 = 0.0, time = 0.0;
	pm_status st;

	*out = (pm_cv_result){ .folds = folds };
	if (!fold) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if (!d || !s || !o) {
		st = pm__fail(err, PM_EINVAL, "cross-validation needs data, a spec and options");
		goto out;
	}
	if ((st = pm_kfold_assign(n, folds, seed, fold, err)))
		goto out;
	/* the folds are the held-out rows */
	fo = *o;
	fo.test_fraction = 0;
	fo.test = NULL;
	for (unsigned f = 0; f < folds; f++) {
		pm_metrics held;
		double t = 0.0;

		/* checked before each fold too: even stopped at once, a fit
		 * on many rows takes a good part of a second */
		st = pm__stop_requested(o->stop)
			     ? cut_short(err)
			     : one_fold(d, s, &fo, fold, f, &held, &t, &out->nparams, err);
		if (st) {
			with_context(st, err, "cross-validation fold %u of %u", f + 1, folds);
			goto out;
		}
		sum += held.mape;
		sumsq += held.mape * held.mape;
		r2 += held.r2;
		time += t;
	}
	out->mape = sum / folds;
	/* sample std; clamped: rounding can make the difference a hair < 0 */
	out->mape_std = sqrt(fmax(0.0, (sumsq - sum * out->mape) / (folds - 1)));
	out->r2 = r2 / folds;
	out->fit_time_s = time / folds;
out:
	free(fold);
	return st;
}

/* s with the candidate form; a formula is parsed here, before any fit. */
static pm_status form_spec(const pm_spec *s, const char *form, pm_spec **out, pm_error *err)
{
	pm_status st = pm__spec_copy(s, out, err);

	if (!st && (st = pm_spec_set_form(*out, form, err))) {
		pm_spec_free(*out);
		*out = NULL;
		with_context(st, err, "form '%s'", form);
	}
	return st;
}

pm_status pm_select(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
		    const pm_candidate *cand, size_t n, unsigned folds, uint64_t seed,
		    pm_cv_result *cv, size_t *best, pm_model **out, pm_error *err)
{
	pm_spec **fs;
	pm_fit_options co;
	pm_dataset *cvd = NULL, *held = NULL;
	pm_status st = PM_OK;

	if (!out || !best || !cv || !d || !s || !o)
		return pm__fail(err, PM_EINVAL, "pm_select: NULL argument");
	*out = NULL;
	*best = 0;
	if (n == 0 || !cand)
		return pm__fail(err, PM_EINVAL, "no candidate to choose from");
	if (!(fs = calloc(n, sizeof(*fs))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	co = *o;
	/* every form checked before the first (long) fit */
	for (size_t i = 0; i < n && !st; i++)
		st = form_spec(s, cand[i].form, &fs[i], err);
	/* rows o holds out for the final model are held out of the choice too:
	 * the folds split only the rows its fit will train on */
	if (!st && !(st = pm__holdout_split(d, o, &cvd, &held, err)))
		pm_dataset_free(held);
	for (size_t i = 0; i < n && !st; i++) {
		co.loss = cand[i].loss;
		if ((st = pm_cross_validate(cvd ? cvd : d, fs[i], &co, folds, seed, &cv[i], err)))
			with_context(st, err, "form '%s', loss %s", cand[i].form,
				     pm_loss_name(co.loss));
		else if (cv[i].mape < cv[*best].mape)
			*best = i;
	}
	co.loss = cand[*best].loss;
	if (!st && (st = pm_fit(d, fs[*best], &co, out, err)))
		with_context(st, err, "form '%s' on every row", cand[*best].form);
	for (size_t i = 0; i < n; i++)
		pm_spec_free(fs[i]);
	free(fs);
	pm_dataset_free(cvd);
	return st;
}
