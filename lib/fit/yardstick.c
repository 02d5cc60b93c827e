/* Two measures a choice of model is held against (issue 33): the held-out
 * error of a log-linear fit of the same inputs (a yardstick any model
 * should beat: closed form, it costs next to nothing), and the noise floor
 * of repeated configurations (no model predicts a run better than another
 * run of the same configuration does). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multifit.h>

#include "core/error.h"
#include "fit/configs.h"
#include "fit/yardstick.h"

/* ---- the noise floor -------------------------------------------------------- */

struct run {
	size_t config;
	double t;
};

static int by_config_then_time(const void *a, const void *b)
{
	const struct run *p = a, *q = b;

	if (p->config != q->config)
		return p->config < q->config ? -1 : 1;
	return (p->t > q->t) - (p->t < q->t);
}

/* The median of the sorted v[0..m) without v[j] (m >= 2). */
static double median_without(const struct run *v, size_t m, size_t j)
{
	size_t h = (m - 1) / 2;	/* the others' middle, as indices of them */
#define OTHER(i) v[(i) < j ? (i) : (i) + 1].t

	return (m - 1) % 2 ? OTHER(h) : 0.5 * (OTHER(h - 1) + OTHER(h));
#undef OTHER
}

pm_status pm__noise_floor(const pm_dataset *d, const pm_spec *s, double *floor_pct,
			  pm_error *err)
{
	size_t nr = pm_dataset_nrows(d), nc = 0, counted = 0, *id = NULL;
	pm_inputs in = { 0 };
	double *t = NULL, sum = 0.0;
	struct run *runs = NULL;
	pm_status st;

	*floor_pct = NAN;
	id = malloc((nr + 1) * sizeof(*id));
	t = malloc((nr + 1) * sizeof(*t));
	runs = malloc((nr + 1) * sizeof(*runs));
	if (!id || !t || !runs) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = pm__config_ids(d, s, id, &nc, err)) || (st = pm__inputs_of(d, s, &in, err)) ||
	    (st = pm_dataset_col_numbers(d, in.target, t, err)))
		goto out;
	for (size_t r = 0; r < nr; r++)
		runs[r] = (struct run){ id[r], t[r] };
	qsort(runs, nr, sizeof(*runs), by_config_then_time);
	/* each run of a repeated configuration predicted by the median of its
	 * other runs: what a model of these inputs can do at best on a run it
	 * did not see (the median, as run times have heavy tails: one slow
	 * run in ten would make a mean's floor far above a good model's) */
	for (size_t a = 0, b; a < nr; a = b) {
		for (b = a; b < nr && runs[b].config == runs[a].config; b++)
			;
		for (size_t j = a; b - a >= 2 && j < b; j++) {
			if (runs[j].t == 0)
				continue;
			sum += fabs(runs[j].t - median_without(runs + a, b - a, j - a)) /
			       fabs(runs[j].t);
			counted++;
		}
	}
	if (counted)
		*floor_pct = 100.0 * sum / (double)counted;
out:
	free(id);
	free(t);
	free(runs);
	pm__inputs_free(&in);
	return st;
}

/* ---- the log-linear yardstick --------------------------------------------- */

/* The design of the log-linear fit, row-major in X (nr x p): 1, then per
 * numeric input log x (x itself where some value is <= 0), per categorical
 * an indicator of each level but the first. */
static pm_status design(const pm_dataset *d, const pm_inputs *in, gsl_matrix **out,
			pm_error *err)
{
	size_t nr = pm_dataset_nrows(d), p = 1, j = 1;
	double *v = malloc((nr + 1) * sizeof(*v));
	uint32_t *codes = malloc((nr + 1) * sizeof(*codes));
	gsl_matrix *X = NULL;
	pm_status st = PM_OK;

	*out = NULL;
	for (size_t i = 0; i < in->n; i++) {
		size_t nl = in->cat[i] ? pm_dataset_col_nlevels(d, in->col[i]) : 2;

		p += nl > 1 ? nl - 1 : 0;
	}
	if (!v || !codes || !(X = gsl_matrix_calloc(nr ? nr : 1, p))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t r = 0; r < nr; r++)
		gsl_matrix_set(X, r, 0, 1.0);
	for (size_t i = 0; i < in->n && !st; i++) {
		if (in->cat[i]) {
			size_t nl = pm_dataset_col_nlevels(d, in->col[i]);

			pm_dataset_col_codes(d, in->col[i], codes);
			for (size_t r = 0; r < nr; r++)
				if (codes[r] > 0)
					gsl_matrix_set(X, r, j + codes[r] - 1, 1.0);
			j += nl > 1 ? nl - 1 : 0;
			continue;
		}
		if (!(st = pm_dataset_col_numbers(d, in->col[i], v, err))) {
			int positive = 1;

			for (size_t r = 0; r < nr; r++)
				positive &= v[r] > 0;
			for (size_t r = 0; r < nr; r++)
				gsl_matrix_set(X, r, j, positive ? log(v[r]) : v[r]);
			j++;
		}
	}
out:
	free(v);
	free(codes);
	if (st)
		gsl_matrix_free(X);
	else
		*out = X;
	return st;
}

/* Fit the rows outside fold f (least squares on log t, truncated SVD so
 * that a level absent from them costs nothing) and return the MAPE (%) of
 * the rows inside it; NaN when it has none or the fit cannot be made. */
static double held_out_mape(const gsl_matrix *X, const double *logt, const double *t,
			    const unsigned *fold, unsigned f)
{
	size_t nr = X->size1, p = X->size2, ntrain = 0, ntest = 0, rank;
	gsl_matrix *A = NULL, *cov = NULL;
	gsl_vector *y = NULL, *c = NULL;
	gsl_multifit_linear_workspace *w = NULL;
	double chisq, sum = 0.0, mape = NAN;

	for (size_t r = 0; r < nr; r++)
		ntrain += fold[r] != f;
	ntest = nr - ntrain;
	if (ntrain < 2 || ntest == 0)
		return NAN;
	A = gsl_matrix_alloc(ntrain, p);
	y = gsl_vector_alloc(ntrain);
	c = gsl_vector_alloc(p);
	cov = gsl_matrix_alloc(p, p);
	w = gsl_multifit_linear_alloc(ntrain, p);
	if (!A || !y || !c || !cov || !w)
		goto out;
	for (size_t r = 0, k = 0; r < nr; r++)
		if (fold[r] != f) {
			for (size_t j = 0; j < p; j++)
				gsl_matrix_set(A, k, j, gsl_matrix_get(X, r, j));
			gsl_vector_set(y, k++, logt[r]);
		}
	if (gsl_multifit_linear_tsvd(A, y, 1e-12, c, cov, &chisq, &rank, w))
		goto out;
	for (size_t r = 0; r < nr; r++)
		if (fold[r] == f) {
			double pred = 0.0;

			for (size_t j = 0; j < p; j++)
				pred += gsl_matrix_get(X, r, j) * gsl_vector_get(c, j);
			sum += fabs(t[r] - exp(pred)) / t[r];
		}
	mape = isfinite(sum) ? 100.0 * sum / (double)ntest : NAN;
out:
	gsl_matrix_free(A);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(c);
	if (w)
		gsl_multifit_linear_free(w);
	return mape;
}

pm_status pm__yardstick(const pm_dataset *d, const pm_spec *s, const unsigned *fold,
			unsigned nfolds, double *mape, double *fold_mape, pm_error *err)
{
	size_t nr = pm_dataset_nrows(d);
	pm_inputs in;
	gsl_matrix *X = NULL;
	double *t = NULL, *logt = NULL, sum = 0.0;
	unsigned measured = 0;
	int positive = 1;
	pm_status st;

	*mape = NAN;
	for (unsigned f = 0; fold_mape && f < nfolds; f++)
		fold_mape[f] = NAN;
	if ((st = pm__inputs_of(d, s, &in, err)))
		return st;
	t = malloc((nr + 1) * sizeof(*t));
	logt = malloc((nr + 1) * sizeof(*logt));
	if (!t || !logt) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = pm_dataset_col_numbers(d, in.target, t, err)) || (st = design(d, &in, &X, err)))
		goto out;
	for (size_t r = 0; r < nr; r++) {
		positive &= t[r] > 0;
		logt[r] = log(t[r]);
	}
	/* a time of 0 has no log: no yardstick, not an error */
	if (!positive)
		goto out;
	for (unsigned f = 0; f < nfolds; f++) {
		double m = held_out_mape(X, logt, t, fold, f);

		if (fold_mape)
			fold_mape[f] = m;
		if (!isnan(m)) {
			sum += m;
			measured++;
		}
	}
	if (measured == nfolds && nfolds > 0)
		*mape = sum / nfolds;
out:
	gsl_matrix_free(X);
	free(t);
	free(logt);
	pm__inputs_free(&in);
	return st;
}

int pm__yardstick_beats(const double *model, const double *yard, unsigned n)
{
	double sum = 0.0, sumsq = 0.0, ym = 0.0, mm = 0.0, mean;

	if (n < 2)
		return 0;
	for (unsigned f = 0; f < n; f++) {
		double dif = model[f] - yard[f];

		if (isnan(dif))
			return 0;
		sum += dif;
		sumsq += dif * dif;
		mm += model[f] / n;
		ym += yard[f] / n;
	}
	mean = sum / n;
	return mean > sqrt(fmax(0.0, (sumsq - sum * mean) / (n - 1)) / n) && mm > 1.25 * ym;
}
