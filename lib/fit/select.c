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

/* Fit to the rows outside fold f and measure on the rows inside it;
 * *constant: the fit predicted one value for all its rows. */
static pm_status one_fold(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			  const unsigned *fold, unsigned f, pm_metrics *held, double *fit_time,
			  size_t *nparams, int *constant, pm_error *err)
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
		*constant = pm_model_fit_info(m)->constant;
	}
	pm_model_free(m);
	pm_dataset_free(test);
	pm_dataset_free(train);
	return st;
}

/* The held-out metrics pm_cv_result gives a mean and a std of. */
#define NMETRICS 6

static double *metric(pm_metrics *x, int k)
{
	double *const v[NMETRICS] = { &x->mape, &x->smape, &x->mae, &x->mse, &x->rmse, &x->r2 };

	return v[k];
}

pm_status pm_cross_validate(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			    unsigned folds, uint64_t seed, pm_cv_result *out, pm_error *err)
{
	pm_fit_options fo;
	size_t n = d ? pm_dataset_nrows(d) : 0;
	unsigned *fold = malloc((n + 1) * sizeof(*fold));
	double sum[NMETRICS] = { 0 }, sumsq[NMETRICS] = { 0 }, time = 0.0;
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
		int constant = 0;

		/* checked before each fold too: even stopped at once, a fit
		 * on many rows takes a good part of a second */
		st = pm__stop_requested(o->stop)
			     ? cut_short(err)
			     : one_fold(d, s, &fo, fold, f, &held, &t, &out->nparams, &constant, err);
		if (st) {
			with_context(st, err, "cross-validation fold %u of %u", f + 1, folds);
			goto out;
		}
		for (int k = 0; k < NMETRICS; k++) {
			sum[k] += *metric(&held, k);
			sumsq[k] += *metric(&held, k) * *metric(&held, k);
		}
		out->mean.n += held.n;
		out->constant_folds += constant != 0;
		time += t;
	}
	for (int k = 0; k < NMETRICS; k++) {
		double mean = sum[k] / folds;

		*metric(&out->mean, k) = mean;
		/* sample std; clamped: rounding can make the difference a hair < 0 */
		*metric(&out->std, k) = sqrt(fmax(0.0, (sumsq[k] - sum[k] * mean) / (folds - 1)));
	}
	/* no unknowns are fitted to held-out rows: adjusted R² means nothing */
	out->mean.adj_r2 = out->std.adj_r2 = NAN;
	out->std.n = out->mean.n;
	out->mape = out->mean.mape;
	out->mape_std = out->std.mape;
	out->r2 = out->mean.r2;
	out->fit_time_s = time / folds;
out:
	free(fold);
	return st;
}

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
	}
	if (!st)
		*best = pm_select_best(cv, n);
	co.loss = cand[*best].loss;
	if (!st && (st = pm_fit(d, fs[*best], &co, out, err)))
		with_context(st, err, "form '%s' on every row", cand[*best].form);
	for (size_t i = 0; i < n; i++)
		pm_spec_free(fs[i]);
	free(fs);
	pm_dataset_free(cvd);
	return st;
}
