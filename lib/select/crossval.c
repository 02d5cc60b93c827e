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

/* Fold f of a candidate measured from its fit m (fst, ferr: the fit's
 * status and error; a NULL model of status PM_OK was not begun, a stop
 * request came first) on the rows the fold held out: held, the fit's wall
 * time, into out its unknowns and whether it was constant. */
static pm_status measure(pm_model *m, pm_status fst, const pm_error *ferr, const pm_folds *folds,
			 unsigned f, const pm_dataset *test, pm_metrics *held, double *fit_time,
			 pm_cv_result *out, pm_error *err)
{
	pm_status st;

	if (fst) {
		st = fst;
		if (err)
			*err = *ferr;
	} else if (!m || pm_model_fit_info(m)->interrupted) {
		st = cut_short(err);
	} else if (!(st = pm_model_evaluate(m, test, held, err))) {
		*fit_time = pm_model_fit_info(m)->wall_time_s;
		out->nparams = pm_model_nparams(m);
		out->constant_folds += pm_model_fit_info(m)->constant != 0;
		return PM_OK;
	}
	pm__err_append(err, " (%s, fold %u of %u)", folds->fold ? "cross-validation" : "held-out rows",
		       f + 1, folds->nfolds);
	return st;
}

/* What one window of folds holds: the folds' rows, and each fit's options,
 * model, status and error, for the candidates still measured. */
struct window {
	pm_dataset **train, **test;
	const pm_dataset **rows;
	const pm_spec **specs;
	pm_fit_options *fo;
	pm_model **fm;
	pm_status *fst;
	pm_error *ferr;
	size_t *cand;		/* each fit's candidate */
	unsigned *fold;		/* and fold */
};

static void window_free(struct window *w, unsigned nw, size_t njobs)
{
	for (size_t j = 0; w->fm && j < njobs; j++)
		pm_model_free(w->fm[j]);
	for (unsigned f = 0; f < nw && w->train; f++)
		pm_dataset_free(w->train[f]);
	for (unsigned f = 0; f < nw && w->test; f++)
		pm_dataset_free(w->test[f]);
	free(w->train);
	free(w->test);
	free(w->rows);
	free(w->specs);
	free(w->fo);
	free(w->fm);
	free(w->fst);
	free(w->ferr);
	free(w->cand);
	free(w->fold);
}

/* Folds [f0, f0 + nw) of the candidates not failed yet (st[i] PM_OK),
 * fitted side by side, then measured in fold order into held and fit_time
 * (n * nf each, candidate-major); a candidate's first failing fold ends it
 * (st[i], cerr[i]). */
static pm_status run_window(const pm_dataset *d, size_t n, const pm_spec *const *s,
			    const pm_fit_options *o, const pm_folds *folds, unsigned f0,
			    unsigned nw, pm_metrics *held, double *fit_time, pm_cv_result *out,
			    pm_status *st, pm_error *cerr, pm_error *err)
{
	unsigned nf = folds->nfolds;
	size_t most = n * nw, njobs = 0;
	struct window w = {
		.train = calloc(nw, sizeof(*w.train)), .test = calloc(nw, sizeof(*w.test)),
		.rows = calloc(most, sizeof(*w.rows)), .specs = calloc(most, sizeof(*w.specs)),
		.fo = calloc(most, sizeof(*w.fo)), .fm = calloc(most, sizeof(*w.fm)),
		.fst = calloc(most, sizeof(*w.fst)), .ferr = calloc(most, sizeof(*w.ferr)),
		.cand = calloc(most, sizeof(*w.cand)), .fold = calloc(most, sizeof(*w.fold))
	};
	pm_status bst = PM_OK;

	if (!w.train || !w.test || !w.rows || !w.specs || !w.fo || !w.fm || !w.fst || !w.ferr ||
	    !w.cand || !w.fold)
		bst = pm__fail(err, PM_ENOMEM, "out of memory");
	for (unsigned k = 0; k < nw && !bst && folds->fold; k++)
		bst = pm__fold_subsets(d, folds->fold, f0 + k, &w.train[k], &w.test[k], err);
	for (size_t i = 0; i < n && !bst; i++)
		for (unsigned k = 0; k < nw && !st[i]; k++, njobs++) {
			w.cand[njobs] = i;
			w.fold[njobs] = k;
			w.rows[njobs] = w.train[k] ? w.train[k] : d;
			w.specs[njobs] = s[i];
			/* the folds are the held-out rows */
			w.fo[njobs] = o[i];
			w.fo[njobs].test = NULL;
			w.fo[njobs].test_fraction = 0;
			w.fo[njobs].validate.scheme = PM_SCHEME_NONE;
		}
	/* a stop request before a fold: it is not begun */
	if (!bst)
		bst = pm__fit_each(pm__fit_held_out, njobs, 0, w.rows, w.specs, w.fo, o[0].threads,
				   w.fm, w.fst, w.ferr, err);
	for (size_t j = 0; j < njobs && !bst; j++) {
		size_t i = w.cand[j], at = i * nf + f0 + w.fold[j];

		if (!st[i])
			st[i] = measure(w.fm[j], w.fst[j], &w.ferr[j], folds, f0 + w.fold[j],
					w.test[w.fold[j]] ? w.test[w.fold[j]] : o[i].test, &held[at],
					&fit_time[at], &out[i], cerr ? &cerr[i] : NULL);
	}
	window_free(&w, nw, njobs);
	return bst;
}

/* Why fits to the folds' training rows run side by side: each is a whole
 * fit that shares nothing with the others, whereas one fit on many threads
 * synchronises them every generation and polishes on one; so n candidates
 * of nf folds are n * nf fits at once (pm__fit_each), each deterministic,
 * and the results do not depend on the thread count. At most WINDOW_FOLDS
 * folds (or two per thread) are held at once: leave-one-out deals a fold
 * per configuration, and every fold's training rows and models at once
 * would grow with the square of the rows. */
#define WINDOW_FOLDS 8u

pm_status pm__cross_validate_set(const pm_dataset *d, size_t n, const pm_spec *const *s,
				 const pm_fit_options *o, const pm_folds *folds,
				 pm_cv_result *out, pm_status *st, pm_error *cerr, pm_error *err)
{
	unsigned nf = folds->nfolds, threads = o[0].threads ? o[0].threads : pm_cpu_count();
	unsigned wide = threads > WINDOW_FOLDS / 2 ? 2 * threads : WINDOW_FOLDS;
	pm_metrics *held = calloc(n * nf + 1, sizeof(*held));
	double *fit_time = calloc(n * nf + 1, sizeof(*fit_time));
	pm_status bst = held && fit_time ? PM_OK : pm__fail(err, PM_ENOMEM, "out of memory");

	for (size_t i = 0; i < n; i++) {
		out[i] = (pm_cv_result){ .folds = nf, .kept = folds->kept };
		memcpy(out[i].what, folds->what, sizeof(out[i].what));
		st[i] = PM_OK;
	}
	for (unsigned f0 = 0; f0 < nf && !bst; f0 += wide)
		bst = run_window(d, n, s, o, folds, f0, nf - f0 < wide ? nf - f0 : wide, held,
				 fit_time, out, st, cerr, err);
	for (size_t i = 0; i < n && !bst; i++)
		if (!st[i])
			summarise(held + i * nf, nf, fit_time + i * nf, &out[i]);
	free(held);
	free(fit_time);
	return bst;
}

double pm__cv_std_error(const pm_cv_result *cv)
{
	return cv->folds > 1 && isfinite(cv->mape_std) ? cv->mape_std / sqrt(cv->folds) : 0.0;
}
