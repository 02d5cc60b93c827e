/* Two measures a choice of model is held against (issue 33): the held-out
 * error of a log-linear fit of the same inputs (a yardstick any model
 * should beat: closed form, it costs next to nothing), and the noise floor
 * of repeated configurations (no model predicts a run better than another
 * run of the same configuration does). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#include "core/detmath.h"
#include "core/error.h"
#include "select/yardstick.h"
#include "spec/configs.h"

/* ---- the noise floor -------------------------------------------------------- */

struct run {
	size_t config;
	double logt;
};

static int by_config(const void *a, const void *b)
{
	const struct run *p = a, *q = b;

	if (p->config != q->config)
		return p->config < q->config ? -1 : 1;
	return (p->logt > q->logt) - (p->logt < q->logt);
}

pm_status pm__noise_floor(const pm_dataset *d, const pm_spec *s, double *floor_pct,
			  pm_error *err)
{
	size_t nr = pm_dataset_nrows(d), nc = 0, counted = 0, repeated = 0, n = 0;
	size_t *id = NULL;
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
		if (t[r] > 0)	/* a 0 has no log: no spread to measure */
			runs[n++] = (struct run){ id[r], pm__log(t[r]) };
	qsort(runs, n, sizeof(*runs), by_config);
	/* what a perfect model of these inputs misses a new run by: each run's
	 * distance from its configuration's median log time (the median: run
	 * times have heavy tails, a slow run in ten would lift a mean's), scaled
	 * by sqrt(m/(m-1)) for the centre's own spread over m runs; for spreads
	 * of tens of % that is the MAPE of predicting the configuration's true
	 * time, and for log-normal noise it errs low by at most a tenth, as a
	 * floor should */
	for (size_t a = 0, b; a < n; a = b) {
		double mid, m;

		for (b = a; b < n && runs[b].config == runs[a].config; b++)
			;
		m = (double)(b - a);
		if (b - a < 2)
			continue;
		/* runs[a..b) are sorted by log time */
		mid = (b - a) % 2 ? runs[a + (b - a) / 2].logt
				  : 0.5 * (runs[a + (b - a) / 2 - 1].logt + runs[a + (b - a) / 2].logt);
		repeated++;
		for (size_t j = a; j < b; j++)
			sum += fabs(runs[j].logt - mid) * sqrt(m / (m - 1));
		counted += b - a;
	}
	/* one noisy pair must not set the bar for every candidate */
	if (repeated >= 3 && 4 * counted >= nr)
		*floor_pct = 100.0 * sum / (double)counted;
out:
	free(id);
	free(t);
	free(runs);
	pm__inputs_free(&in);
	return st;
}

/* ---- the log-linear yardstick --------------------------------------------- */

/* The design of the log-linear fit, row-major in X[nr * p] (*p columns):
 * 1, then per numeric input log x (x itself where some value is <= 0), per
 * categorical an indicator of each level but the first. */
static pm_status design(const pm_dataset *d, const pm_inputs *in, double **out, size_t *pout,
			pm_error *err)
{
	size_t nr = pm_dataset_nrows(d), p = 1, j = 1;
	double *v = malloc((nr + 1) * sizeof(*v)), *X = NULL;
	uint32_t *codes = malloc((nr + 1) * sizeof(*codes));
	pm_status st = PM_OK;

	*out = NULL;
	for (size_t i = 0; i < in->n; i++) {
		size_t nl = in->cat[i] ? pm_dataset_col_nlevels(d, in->col[i]) : 2;

		p += nl > 1 ? nl - 1 : 0;
	}
	if (!v || !codes || !(X = calloc(nr * p + 1, sizeof(*X)))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t r = 0; r < nr; r++)
		X[r * p] = 1.0;
	for (size_t i = 0; i < in->n && !st; i++) {
		if (in->cat[i]) {
			size_t nl = pm_dataset_col_nlevels(d, in->col[i]);

			pm_dataset_col_codes(d, in->col[i], codes);
			for (size_t r = 0; r < nr; r++)
				if (codes[r] > 0)
					X[r * p + j + codes[r] - 1] = 1.0;
			j += nl > 1 ? nl - 1 : 0;
			continue;
		}
		if (!(st = pm_dataset_col_numbers(d, in->col[i], v, err))) {
			int positive = 1;

			for (size_t r = 0; r < nr; r++)
				positive &= v[r] > 0;
			for (size_t r = 0; r < nr; r++)
				X[r * p + j] = positive ? pm__log(v[r]) : v[r];
			j++;
		}
	}
out:
	free(v);
	free(codes);
	if (st)
		free(X);
	else
		*out = X;
	*pout = p;
	return st;
}

/* Least squares of the rows outside fold f by a truncated SVD (singular
 * values below 1e-12 of the largest dropped, so that a level absent from
 * them costs nothing), on the library's own memory: GSL is given views and
 * workspaces and allocates nothing, so its error handler is never reached
 * (it checks M >= N itself: fewer rows than columns is no fit here). The
 * MAPE (%) of the rows inside fold f; NaN when it has none or the fit
 * cannot be made. */
static double held_out_mape(const double *X, size_t nr, size_t p, const double *logt,
			    const double *t, const unsigned *fold, unsigned f)
{
	size_t ntrain = 0, ntest;
	double *a, *vv, *sv, *wk, *c, sum = 0.0, mape = NAN;

	for (size_t r = 0; r < nr; r++)
		ntrain += fold[r] != f;
	ntest = nr - ntrain;
	if (ntrain < p || ntrain < 2 || ntest == 0)
		return NAN;
	a = malloc(ntrain * p * sizeof(*a));
	vv = malloc(p * p * sizeof(*vv));
	sv = malloc(p * sizeof(*sv));
	wk = malloc(p * sizeof(*wk));
	c = calloc(p, sizeof(*c));
	if (a && vv && sv && wk && c) {
		gsl_matrix_view A = gsl_matrix_view_array(a, ntrain, p);
		gsl_matrix_view V = gsl_matrix_view_array(vv, p, p);
		gsl_vector_view S = gsl_vector_view_array(sv, p), W = gsl_vector_view_array(wk, p);
		size_t k = 0;

		for (size_t r = 0; r < nr; r++)
			if (fold[r] != f)
				memcpy(a + k++ * p, X + r * p, p * sizeof(*a));
		if (gsl_linalg_SV_decomp(&A.matrix, &V.matrix, &S.vector, &W.vector) == GSL_SUCCESS) {
			/* c = V diag(1/s) U^T y over the singular values kept */
			for (size_t i = 0; i < p; i++) {
				double uy = 0.0;

				if (!(sv[i] > 1e-12 * sv[0]))
					continue;
				for (size_t r = 0, q = 0; r < nr; r++)
					if (fold[r] != f)
						uy += a[q++ * p + i] * logt[r];
				for (size_t j = 0; j < p; j++)
					c[j] += vv[j * p + i] * uy / sv[i];
			}
			for (size_t r = 0; r < nr; r++)
				if (fold[r] == f) {
					double pred = 0.0;

					for (size_t j = 0; j < p; j++)
						pred += X[r * p + j] * c[j];
					sum += fabs(t[r] - pm__exp(pred)) / t[r];
				}
			mape = isfinite(sum) ? 100.0 * sum / (double)ntest : NAN;
		}
	}
	free(a);
	free(vv);
	free(sv);
	free(wk);
	free(c);
	return mape;
}

pm_status pm__yardstick(const pm_dataset *d, const pm_spec *s, const unsigned *fold,
			unsigned nfolds, double *mape, double *fold_mape, pm_error *err)
{
	size_t nr = pm_dataset_nrows(d);
	pm_inputs in;
	double *X = NULL, *t = NULL, *logt = NULL, sum = 0.0;
	size_t p = 0;
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
	if ((st = pm_dataset_col_numbers(d, in.target, t, err)) ||
	    (st = design(d, &in, &X, &p, err)))
		goto out;
	for (size_t r = 0; r < nr; r++) {
		positive &= t[r] > 0;
		logt[r] = pm__log(t[r]);
	}
	/* a time of 0 has no log: no yardstick, not an error */
	if (!positive)
		goto out;
	for (unsigned f = 0; f < nfolds; f++) {
		double m = held_out_mape(X, nr, p, logt, t, fold, f);

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
	free(X);
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
	/* a held-out MAPE of a millionth of a percent is exact but for
	 * rounding: nothing predicts better than that */
	return mean > sqrt(fmax(0.0, (sumsq - sum * mean) / (n - 1)) / n) && mm > 1.25 * ym &&
	       mm > 1e-6;
}
