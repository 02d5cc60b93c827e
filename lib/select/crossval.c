/* The folds' cross-validation: a fit (pm__fit_held_out, lib/fit/fit.c) to
 * the rows outside each fold, measured on the rows inside it; pm_fit
 * (fit_validated.c) and select measure with it, so that the fit never
 * calls back into its validation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stop.h"
#include "fit/holdout.h"
#include "select/crossval.h"


/* A fold cut short, or not begun, by a stop request: a comparison of
 * candidates on folds not all fitted would be meaningless. */
static pm_status cut_short(pm_error *err)
{
	return pm__fail(err, PM_EFIT, "interrupted: no form chosen, the folds are not all fitted");
}

/* Fit to the rows outside fold f and measure on the rows inside it (with
 * no folds, fit every row of d and measure on o->test); *constant: the fit
 * predicted one value for all its rows. */
static pm_status one_fold(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			  const pm_folds *folds, unsigned f, pm_metrics *held, double *fit_time,
			  size_t *nparams, int *constant, pm_error *err)
{
	pm_dataset *train = NULL, *test = NULL;
	pm_fit_options fo = *o;
	pm_model *m = NULL;
	pm_status st = PM_OK;

	/* the fold's rows are the held-out ones */
	fo.test = NULL;
	if (folds->fold)
		st = pm__fold_subsets(d, folds->fold, f, &train, &test, err);
	if (!st && !(st = pm__fit_held_out(train ? train : d, s, &fo, &m, err)) &&
	    !(st = pm_model_fit_info(m)->interrupted ? cut_short(err) : PM_OK) &&
	    !(st = pm_model_evaluate(m, test ? test : o->test, held, err))) {
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

/* The folds of v, or with no scheme one "fold": o->test. */
static pm_status folds_of(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			  const pm_validation *v, pm_folds *folds, pm_error *err)
{
	if (v && v->scheme != PM_SCHEME_NONE)
		return pm_validation_folds(d, s, v, folds, err);
	*folds = (pm_folds){ .nrows = pm_dataset_nrows(d), .nfolds = 1 };
	if (!o->test)
		return pm__fail(err, PM_EINVAL, "no validation scheme and no held-out rows");
	snprintf(folds->what, sizeof(folds->what), "the rows of %s", pm_dataset_name(o->test));
	return PM_OK;
}

pm_status pm_cross_validate(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			    const pm_validation *v, pm_cv_result *out, pm_error *err)
{
	return pm__cross_validate_on(d, s, o, v, NULL, out, err);
}

pm_status pm__cross_validate_on(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
				const pm_validation *v, const pm_folds *given, pm_cv_result *out,
				pm_error *err)
{
	pm_fit_options fo;
	pm_folds folds = { 0 };
	double sum[NMETRICS] = { 0 }, sumsq[NMETRICS] = { 0 }, time = 0.0;
	unsigned nf, measured[NMETRICS] = { 0 };	/* folds in each metric's mean */
	int single = 0;		/* a fold held out one row */
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the cross-validation");
	*out = (pm_cv_result){ 0 };
	if (!d || !s || !o)
		return pm__fail(err, PM_EINVAL, "cross-validation needs data, a spec and options");
	if (given)
		folds = *given;
	else if ((st = folds_of(d, s, o, v, &folds, err)))
		return st;
	nf = out->folds = folds.nfolds;
	out->kept = folds.kept;
	memcpy(out->what, folds.what, sizeof(out->what));
	/* the folds are the held-out rows */
	fo = *o;
	fo.test_fraction = 0;
	fo.validate.scheme = PM_SCHEME_NONE;
	for (unsigned f = 0; f < nf; f++) {
		pm_metrics held;
		double t = 0.0;
		int constant = 0;

		/* checked before each fold too: even stopped at once, a fit
		 * on many rows takes a good part of a second */
		st = pm__stop_requested(o->stop)
			     ? cut_short(err)
			     : one_fold(d, s, &fo, &folds, f, &held, &t, &out->nparams, &constant,
					err);
		if (st) {
			pm__err_append(err, " (%s, fold %u of %u)", folds.fold ? "cross-validation"
				       : "held-out rows", f + 1, nf);
			goto out;
		}
		for (int k = 0; k < NMETRICS; k++) {
			/* a fold whose held-out values are all 0 has no MAPE
			 * (pm_metrics_compute): the mean is the other folds' */
			if (k == 0 && isnan(held.mape))
				continue;
			sum[k] += *metric(&held, k);
			sumsq[k] += *metric(&held, k) * *metric(&held, k);
			measured[k]++;
		}
		out->mean.n += held.n;
		out->mean.mape_n += held.mape_n;
		single |= held.n < 2;
		out->constant_folds += constant != 0;
		time += t;
	}
	for (int k = 0; k < NMETRICS; k++) {
		unsigned m = measured[k];
		double mean = m ? sum[k] / m : NAN;

		*metric(&out->mean, k) = mean;
		/* sample std, none of one fold; clamped: rounding can make the
		 * difference a hair < 0 */
		*metric(&out->std, k) =
			m < 2 ? NAN : sqrt(fmax(0.0, (sumsq[k] - sum[k] * mean) / (m - 1)));
	}
	/* no unknowns are fitted to held-out rows: adjusted R² means nothing;
	 * nor does R² of one row (leave-one-out), which has no variance */
	out->mean.adj_r2 = out->std.adj_r2 = NAN;
	if (single)
		out->mean.r2 = out->std.r2 = NAN;
	out->std.n = out->mean.n;
	out->mape = out->mean.mape;
	out->mape_std = out->std.mape;
	out->r2 = out->mean.r2;
	out->fit_time_s = time / nf;
out:
	if (!given)
		pm_folds_free(&folds);
	return st;
}
