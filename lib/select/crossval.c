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
#include "fit/fit_batch.h"
#include "fit/holdout.h"
#include "select/crossval.h"


/* A fold cut short, or not begun, by a stop request: a comparison of
 * candidates on folds not all fitted would be meaningless. */
static pm_status cut_short(pm_error *err)
{
	return pm__fail(err, PM_EFIT, "interrupted: no form chosen, the folds are not all fitted");
}

/* The held-out metrics pm_cv_result gives a mean and a std of. */
#define NMETRICS 6

static double *metric(pm_metrics *x, int k)
{
	double *const v[NMETRICS] = { &x->mape, &x->smape, &x->mae, &x->mse, &x->rmse, &x->r2 };

	return v[k];
}

pm_status pm__cv_folds(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
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
	pm_folds folds = { 0 };
	pm_status st, one = PM_OK;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the cross-validation");
	*out = (pm_cv_result){ 0 };
	if (!d || !s || !o)
		return pm__fail(err, PM_EINVAL, "cross-validation needs data, a spec and options");
	if (given)
		folds = *given;
	else if ((st = pm__cv_folds(d, s, o, v, &folds, err)))
		return st;
	st = pm__cross_validate_set(d, 1, &s, o, &folds, out, &one, err, err);
	if (!given)
		pm_folds_free(&folds);
	return st ? st : one;
}

/* One candidate's means and stds over its folds, from the folds' held-out
 * metrics in fold order. */
static void summarise(const pm_metrics *held, unsigned nf, const double *fit_time,
		      pm_cv_result *out)
{
	double sum[NMETRICS] = { 0 }, sumsq[NMETRICS] = { 0 }, time = 0.0;
	unsigned measured[NMETRICS] = { 0 };	/* folds in each metric's mean */
	int single = 0;		/* a fold held out one row */

	for (unsigned f = 0; f < nf; f++) {
		pm_metrics h = held[f];

		for (int k = 0; k < NMETRICS; k++) {
			/* a fold whose held-out values are all 0 has no MAPE
			 * (pm_metrics_compute): the mean is the other folds' */
			if (k == 0 && isnan(h.mape))
				continue;
			sum[k] += *metric(&h, k);
			sumsq[k] += *metric(&h, k) * *metric(&h, k);
			measured[k]++;
		}
		out->mean.n += h.n;
		out->mean.mape_n += h.mape_n;
		single |= h.n < 2;
		time += fit_time[f];
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
}

/* Candidate i's folds measured, in fold order, from its fits fm[0..nf) on
 * the folds' training rows (fst, ferr: each fit's status and error; a NULL
 * model of status PM_OK was not begun, a stop request came first) against
 * the rows each held out. */
static pm_status measure(pm_model *const *fm, const pm_status *fst, const pm_error *ferr,
			 const pm_folds *folds, pm_dataset *const *test, const pm_dataset *o_test,
			 pm_cv_result *out, pm_error *err)
{
	unsigned nf = folds->nfolds;
	pm_metrics *held = calloc(nf, sizeof(*held));
	double *fit_time = calloc(nf, sizeof(*fit_time));
	pm_status st = held && fit_time ? PM_OK : pm__fail(err, PM_ENOMEM, "out of memory");

	for (unsigned f = 0; f < nf && !st; f++) {
		if (fst[f]) {
			st = fst[f];
			if (err)
				*err = ferr[f];
		} else if (!fm[f] || pm_model_fit_info(fm[f])->interrupted) {
			st = cut_short(err);
		} else if (!(st = pm_model_evaluate(fm[f], test[f] ? test[f] : o_test, &held[f],
						    err))) {
			fit_time[f] = pm_model_fit_info(fm[f])->wall_time_s;
			out->nparams = pm_model_nparams(fm[f]);
			out->constant_folds += pm_model_fit_info(fm[f])->constant != 0;
			continue;
		}
		pm__err_append(err, " (%s, fold %u of %u)", folds->fold ? "cross-validation"
			       : "held-out rows", f + 1, nf);
	}
	if (!st)
		summarise(held, nf, fit_time, out);
	free(held);
	free(fit_time);
	return st;
}

/* Why fits to the folds' training rows run side by side: each is a whole
 * fit that shares nothing with the others, whereas one fit on many threads
 * synchronises them every generation and polishes on one; so n candidates
 * of nf folds are n * nf fits at once (pm__fit_each), each deterministic,
 * and the results do not depend on the thread count. */
pm_status pm__cross_validate_set(const pm_dataset *d, size_t n, const pm_spec *const *s,
				 const pm_fit_options *o, const pm_folds *folds,
				 pm_cv_result *out, pm_status *st, pm_error *cerr, pm_error *err)
{
	unsigned nf = folds->nfolds;
	size_t njobs = n * nf;
	pm_dataset **train = calloc(nf, sizeof(*train)), **test = calloc(nf, sizeof(*test));
	const pm_dataset **rows = calloc(njobs ? njobs : 1, sizeof(*rows));
	const pm_spec **specs = calloc(njobs ? njobs : 1, sizeof(*specs));
	pm_fit_options *fo = calloc(njobs ? njobs : 1, sizeof(*fo));
	pm_model **fm = calloc(njobs ? njobs : 1, sizeof(*fm));
	pm_status *fst = calloc(njobs ? njobs : 1, sizeof(*fst)), bst = PM_OK;
	pm_error *ferr = calloc(njobs ? njobs : 1, sizeof(*ferr));

	for (size_t i = 0; i < n; i++) {
		out[i] = (pm_cv_result){ .folds = nf, .kept = folds->kept };
		memcpy(out[i].what, folds->what, sizeof(out[i].what));
		st[i] = PM_OK;
	}
	if (!train || !test || !rows || !specs || !fo || !fm || !fst || !ferr)
		bst = pm__fail(err, PM_ENOMEM, "out of memory");
	/* the folds' rows, once for every candidate */
	for (unsigned f = 0; f < nf && !bst && folds->fold; f++)
		bst = pm__fold_subsets(d, folds->fold, f, &train[f], &test[f], err);
	for (size_t j = 0; j < njobs && !bst; j++) {
		size_t i = j / nf;

		rows[j] = train[j % nf] ? train[j % nf] : d;
		specs[j] = s[i];
		/* the folds are the held-out rows */
		fo[j] = o[i];
		fo[j].test = NULL;
		fo[j].test_fraction = 0;
		fo[j].validate.scheme = PM_SCHEME_NONE;
	}
	/* a stop request before any fold: none is begun */
	if (!bst)
		bst = pm__fit_each(pm__fit_held_out, njobs, 0, rows, specs, fo, o[0].threads, fm,
				   fst, ferr, err);
	for (size_t i = 0; i < n && !bst; i++)
		st[i] = measure(fm + i * nf, fst + i * nf, ferr + i * nf, folds, test, o[i].test,
				&out[i], &cerr[i]);
	for (size_t j = 0; fm && j < njobs; j++)
		pm_model_free(fm[j]);
	for (unsigned f = 0; f < nf && train; f++)
		pm_dataset_free(train[f]);
	for (unsigned f = 0; f < nf && test; f++)
		pm_dataset_free(test[f]);
	free(train);
	free(test);
	free(rows);
	free(specs);
	free(fo);
	free(fm);
	free(fst);
	free(ferr);
	return bst;
}
