/* How well prediction intervals cover rows a fit never saw (issue 22;
 * docs/benchmarks.md, "Prediction intervals"). Reported, never asserted.
 *
 * usage: interval_bench DATA.csv SPEC.json SCHEME [LEVEL]
 *
 * The rows are held out by SCHEME (kfold:5, extrapolate:COL, as --validate
 * reads it; seed 1). For each fold, a fit of the other rows with
 * intervals (pm_fit_options.intervals = 5, what perfmodel fit does) and
 * each method below gives the LEVEL (0.9) interval of every held-out row:
 *   library     pm_model_predict_interval: the fit's cross-validated log
 *               residual quantiles, widened beyond the data's ranges
 *   cv          the same quantiles, never widened
 *   cv-level    per level of the categorical input whose levels' residual
 *               spreads differ most, pooled for a level of < 40 residuals
 *   cv-normal   mean ± z·sd of the same residuals (a log-normal model)
 *   conformal   split-conformal: fit half the rows (seeded), the
 *               ceil((n+1)·LEVEL)-th smallest |log residual| of the other
 *               half, symmetric around the half-fit's prediction
 *   in-sample   quantiles of the fit's residuals on its own rows
 * Prints per method the share of held-out rows inside their interval
 * (coverage, %) and the median width over the median width of the
 * narrowest one that would have covered them: the held-out rows' own
 * log-residual quantiles around the fit's predictions (ratio). With the
 * coverage, k of n rows and its 95 % Clopper-Pearson interval, as if the
 * rows were independent draws (they share their fold's fit, so the true
 * uncertainty is larger: an extrapolation split is one fit). The
 * residuals the methods calibrate on are computed here again through the
 * public API, the library's own (method library) from its model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/holdout.h"
#include "perfmodel/perfmodel.h"
#include "select/interval_fit.h"

#define MIN_LEVEL_RESIDUALS 40

enum { LIB, CV, CVLEVEL, NORMAL, CONFORMAL, INSAMPLE, NMETHODS };
static const char *const method_name[NMETHODS] = { "library", "cv", "cv-level", "cv-normal",
						   "conformal", "in-sample" };

static void die(const pm_error *e)
{
	fprintf(stderr, "interval_bench: %s:%u: %s\n", e->file, e->line, e->msg);
	exit(1);
}

static void check(pm_status st, const pm_error *e)
{
	if (st)
		die(e);
}

static int ascending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Type-6 quantile of v[0..n) (copied, sorted). */
static double quantile(const double *v, size_t n, double p)
{
	double *s = malloc(n * sizeof(*s) + 1), q;

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), ascending);
	q = pm__quantile_sorted(s, n, p);
	free(s);
	return q;
}

/* P(X <= k) for X ~ Binomial(n, p). */
static double binom_cdf(size_t k, size_t n, double p)
{
	double s = 0;

	if (p <= 0)
		return 1;
	if (p >= 1)
		return k >= n ? 1 : 0;
	for (size_t i = 0; i <= k && i <= n; i++)
		s += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) +
			 (double)i * log(p) + (double)(n - i) * log1p(-p));
	return s;
}

/* The 95 % Clopper-Pearson interval of k successes in n, by bisection. */
static void clopper_pearson(size_t k, size_t n, double *lo, double *hi)
{
	double a = 0, b = 1;

	for (int it = 0; k > 0 && it < 60; it++) {	/* P(X >= k | lo) = 0.025 */
		double mid = (a + b) / 2;

		if (1 - binom_cdf(k - 1, n, mid) < 0.025)
			a = mid;
		else
			b = mid;
	}
	*lo = k > 0 ? (a + b) / 2 : 0;
	a = 0;
	b = 1;
	for (int it = 0; k < n && it < 60; it++) {	/* P(X <= k | hi) = 0.025 */
		double mid = (a + b) / 2;

		if (binom_cdf(k, n, mid) > 0.025)
			a = mid;
		else
			b = mid;
	}
	*hi = k < n ? (a + b) / 2 : 1;
}

/* log(y / t̂) of every row of d under m, and the predictions. */
static void log_residuals(const pm_model *m, const pm_dataset *d, double *r, double *pred)
{
	size_t n = pm_dataset_nrows(d), col;
	double *y = malloc(n * sizeof(*y) + 1);
	pm_error e;

	check(pm_dataset_col_index(d, pm_model_target(m), &col, &e), &e);
	check(pm_dataset_col_numbers(d, col, y, &e), &e);
	check(pm_model_predict_dataset(m, d, pred, &e), &e);
	for (size_t k = 0; k < n; k++)
		r[k] = log(y[k] / pred[k]);
	free(y);
}

static pm_model *fit(const pm_dataset *d, const pm_spec *s, unsigned intervals)
{
	pm_fit_options o = pm_fit_options_default();
	pm_model *m;
	pm_error e;

	o.intervals = intervals;
	check(pm_fit(d, s, &o, &m, &e), &e);
	return m;
}

/* Out-of-sample residuals of every row of d: 5-fold cross-validation with
 * the library's folds (seed 1), as its calibration does. */
static void cv_residuals(const pm_dataset *d, const pm_spec *s, double *r)
{
	pm_validation v = { .scheme = PM_SCHEME_KFOLD, .folds = 5, .seed = 1 };
	pm_folds f;
	size_t n = pm_dataset_nrows(d);
	pm_error e;

	check(pm_validation_folds(d, s, &v, &f, &e), &e);
	for (size_t k = 0; k < n; k++)
		r[k] = NAN;	/* a row no fold holds out (kept) */
	for (unsigned g = 0; g < f.nfolds; g++) {
		size_t nh = 0, *held = malloc(n * sizeof(*held) + 1);
		pm_dataset *tr, *te;
		pm_model *m;
		double *rr, *pr;

		for (size_t k = 0; k < n; k++)
			if (f.fold[k] == g)
				held[nh++] = k;
		check(pm__fold_subsets(d, f.fold, g, &tr, &te, &e), &e);
		m = fit(tr, s, 0);
		rr = malloc(nh * sizeof(*rr) + 1);
		pr = malloc(nh * sizeof(*pr) + 1);
		log_residuals(m, te, rr, pr);
		for (size_t k = 0; k < nh; k++)
			r[held[k]] = rr[k];
		free(rr);
		free(pr);
		free(held);
		pm_model_free(m);
		pm_dataset_free(tr);
		pm_dataset_free(te);
	}
	pm_folds_free(&f);
}

/* The finite values of r[0..n) moved to its front; returns how many. */
static size_t finite(double *r, size_t n)
{
	size_t m = 0;

	for (size_t k = 0; k < n; k++)
		if (isfinite(r[k]))
			r[m++] = r[k];
	return m;
}

/* The categorical input of m whose levels' residual spreads (sd over the
 * rows of each level with enough of them) differ most; (size_t)-1 for none. */
static size_t spread_input(const pm_model *m, const pm_dataset *d, const double *r)
{
	size_t best = (size_t)-1, n = pm_dataset_nrows(d);
	double best_ratio = 1.0;
	pm_error e;

	for (size_t i = 0; i < pm_model_ninputs(m); i++) {
		size_t nl = pm_model_nlevels(m, i), col, *cnt;
		double *sum, *ss, lo = INFINITY, hi = 0;

		if (pm_model_input_role(m, i) != PM_ROLE_CATEGORICAL)
			continue;
		check(pm_dataset_col_index(d, pm_model_input_name(m, i), &col, &e), &e);
		cnt = calloc(nl, sizeof(*cnt));
		sum = calloc(nl, sizeof(*sum));
		ss = calloc(nl, sizeof(*ss));
		for (size_t k = 0; k < n; k++) {
			size_t l;

			if (!isfinite(r[k]) || pm_model_level_index(m, i, pm_dataset_cell(d, k, col), &l, &e))
				continue;
			cnt[l]++;
			sum[l] += r[k];
			ss[l] += r[k] * r[k];
		}
		for (size_t l = 0; l < nl; l++) {
			double sd;

			if (cnt[l] < MIN_LEVEL_RESIDUALS)
				continue;
			sd = sqrt(fmax(0, ss[l] / cnt[l] - (sum[l] / cnt[l]) * (sum[l] / cnt[l])));
			lo = fmin(lo, sd);
			hi = fmax(hi, sd);
		}
		if (hi > 0 && lo > 0 && hi / lo > best_ratio) {
			best_ratio = hi / lo;
			best = i;
		}
		free(cnt);
		free(sum);
		free(ss);
	}
	return best;
}

/* Row k of d's level of categorical input i of m; (size_t)-1 if unknown. */
static size_t level_of(const pm_model *m, size_t i, const pm_dataset *d, size_t k)
{
	size_t col, l;
	pm_error e;

	check(pm_dataset_col_index(d, pm_model_input_name(m, i), &col, &e), &e);
	return pm_model_level_index(m, i, pm_dataset_cell(d, k, col), &l, &e) ? (size_t)-1 : l;
}

/* Per method and held-out row: covered, and the interval's width. */
struct tally {
	size_t n;
	int *covered[NMETHODS];
	double *width[NMETHODS];
	double *resid, *pred;	/* held-out log residuals under the fold's fit */
	size_t extrapolated;
};

static void record(struct tally *t, int method, size_t k, double y, double lo, double hi)
{
	t->covered[method][k] = y >= lo && y <= hi;
	t->width[method][k] = hi - lo;
}

static void one_fold(const pm_dataset *train, const pm_dataset *test, const pm_spec *s,
		     double level, struct tally *t)
{
	size_t n = pm_dataset_nrows(train), nh = pm_dataset_nrows(test), base = t->n, ncv, ni, col;
	double *cv = malloc(n * sizeof(*cv) + 1), *cvs = malloc(n * sizeof(*cvs) + 1);
	double *ins = malloc(n * sizeof(*ins) + 1), *pin = malloc(n * sizeof(*pin) + 1);
	double *rh = malloc(nh * sizeof(*rh) + 1), *ph = malloc(nh * sizeof(*ph) + 1);
	double lo_p = (1 - level) / 2, hi_p = (1 + level) / 2, z, mean = 0, sd = 0, qlo, qhi;
	pm_model *m = fit(train, s, 5), *half;
	size_t cat, *atr, na, *btr, nb;
	double *y = malloc(nh * sizeof(*y) + 1);
	pm_error e;

	/* the held-out rows under the full fit */
	log_residuals(m, test, rh, ph);
	check(pm_dataset_col_index(test, pm_model_target(m), &col, &e), &e);
	check(pm_dataset_col_numbers(test, col, y, &e), &e);
	for (size_t k = 0; k < nh; k++) {
		t->resid[base + k] = rh[k];
		t->pred[base + k] = ph[k];
	}
	/* library: through the predictor, row by row */
	{
		double *lo = malloc(nh * sizeof(*lo) + 1), *q = malloc(2 * nh * sizeof(*q) + 1);
		int *ex = malloc(nh * sizeof(*ex) + 1);
		double qs[2] = { lo_p, hi_p };

		check(pm_model_predict_dataset_quantiles(m, test, 2, qs, lo, q, ex, &e), &e);
		for (size_t k = 0; k < nh; k++) {
			record(t, LIB, base + k, y[k], q[2 * k], q[2 * k + 1]);
			t->extrapolated += ex[k] != 0;
		}
		free(lo);
		free(q);
		free(ex);
	}
	/* cv, cv-normal, cv-level from the training rows' CV residuals */
	cv_residuals(train, s, cv);
	memcpy(cvs, cv, n * sizeof(*cv));
	ncv = finite(cvs, n);
	qlo = quantile(cvs, ncv, lo_p);
	qhi = quantile(cvs, ncv, hi_p);
	for (size_t k = 0; k < ncv; k++)
		mean += cvs[k] / (double)ncv;
	for (size_t k = 0; k < ncv; k++)
		sd += (cvs[k] - mean) * (cvs[k] - mean) / (double)(ncv - 1);
	sd = sqrt(sd);
	/* z of the normal's hi_p quantile, by bisection on erfc */
	{
		double a = 0, b = 10;

		for (int it = 0; it < 100; it++) {
			z = (a + b) / 2;
			if (0.5 * erfc(-z / sqrt(2.0)) < hi_p)
				a = z;
			else
				b = z;
		}
	}
	cat = spread_input(m, train, cv);
	for (size_t k = 0; k < nh; k++) {
		double lq = qlo, hq = qhi;

		record(t, CV, base + k, y[k], ph[k] * exp(qlo), ph[k] * exp(qhi));
		record(t, NORMAL, base + k, y[k], ph[k] * exp(mean - z * sd), ph[k] * exp(mean + z * sd));
		if (cat != (size_t)-1) {
			size_t l = level_of(m, cat, test, k), nl = 0;
			double *v = malloc(n * sizeof(*v) + 1);

			for (size_t j = 0; j < n && l != (size_t)-1; j++)
				if (isfinite(cv[j]) && level_of(m, cat, train, j) == l)
					v[nl++] = cv[j];
			if (nl >= MIN_LEVEL_RESIDUALS) {
				lq = quantile(v, nl, lo_p);
				hq = quantile(v, nl, hi_p);
			}
			free(v);
		}
		record(t, CVLEVEL, base + k, y[k], ph[k] * exp(lq), ph[k] * exp(hq));
	}
	/* in-sample */
	log_residuals(m, train, ins, pin);
	ni = finite(ins, n);
	qlo = quantile(ins, ni, lo_p);
	qhi = quantile(ins, ni, hi_p);
	for (size_t k = 0; k < nh; k++)
		record(t, INSAMPLE, base + k, y[k], ph[k] * exp(qlo), ph[k] * exp(qhi));
	/* split-conformal: half fits, the other half calibrates */
	check(pm_split_rows(n, 0.5, 1, &btr, &nb, &atr, &na, &e), &e);
	{
		pm_dataset *a, *b;
		double *rb = malloc(nb * sizeof(*rb) + 1), *pb = malloc(nb * sizeof(*pb) + 1), qc;
		double *rt = malloc(nh * sizeof(*rt) + 1), *pt = malloc(nh * sizeof(*pt) + 1);
		size_t kth;

		check(pm_dataset_subset(train, atr, na, &a, &e), &e);
		check(pm_dataset_subset(train, btr, nb, &b, &e), &e);
		half = fit(a, s, 0);
		log_residuals(half, b, rb, pb);
		for (size_t k = 0; k < nb; k++)
			rb[k] = fabs(rb[k]);
		qsort(rb, nb, sizeof(*rb), ascending);
		kth = (size_t)ceil((double)(nb + 1) * level);
		qc = kth > nb ? INFINITY : rb[kth - 1];
		log_residuals(half, test, rt, pt);
		for (size_t k = 0; k < nh; k++)
			record(t, CONFORMAL, base + k, y[k], pt[k] * exp(-qc), pt[k] * exp(qc));
		free(rb);
		free(pb);
		free(rt);
		free(pt);
		pm_dataset_free(a);
		pm_dataset_free(b);
		pm_model_free(half);
	}
	t->n += nh;
	free(atr);
	free(btr);
	free(cv);
	free(cvs);
	free(ins);
	free(pin);
	free(rh);
	free(ph);
	free(y);
	pm_model_free(m);
}

int main(int argc, char **argv)
{
	pm_spec *s;
	pm_dataset *d;
	pm_validation v;
	pm_folds f;
	pm_error e;
	struct tally t = { 0 };
	double level = argc > 4 ? atof(argv[4]) : 0.9, olo, ohi, *ow;
	size_t n;

	if (argc < 4) {
		fprintf(stderr, "usage: interval_bench DATA.csv SPEC.json SCHEME [LEVEL]\n");
		return 2;
	}
	check(pm_spec_read_file(argv[2], &s, &e), &e);
	check(pm_spec_read_data(s, argv[1], NULL, &d, NULL, &e), &e);
	check(pm_validation_parse(argv[3], &v, &e), &e);
	check(pm_validation_folds(d, s, &v, &f, &e), &e);
	n = pm_dataset_nrows(d);
	for (int k = 0; k < NMETHODS; k++) {
		t.covered[k] = calloc(n, sizeof(int));
		t.width[k] = calloc(n, sizeof(double));
	}
	t.resid = calloc(n, sizeof(double));
	t.pred = calloc(n, sizeof(double));
	ow = calloc(n, sizeof(double));
	for (unsigned g = 0; g < f.nfolds; g++) {
		pm_dataset *a, *b;

		check(pm__fold_subsets(d, f.fold, g, &a, &b, &e), &e);
		one_fold(a, b, s, level, &t);
		pm_dataset_free(a);
		pm_dataset_free(b);
	}
	/* the narrowest interval that covers LEVEL of them: their own quantiles */
	olo = quantile(t.resid, t.n, (1 - level) / 2);
	ohi = quantile(t.resid, t.n, (1 + level) / 2);
	for (size_t k = 0; k < t.n; k++)
		ow[k] = t.pred[k] * (exp(ohi) - exp(olo));
	qsort(ow, t.n, sizeof(*ow), ascending);
	printf("# %s %s level %g: %zu held-out rows in %u folds, %zu extrapolated; oracle "
	       "log-residual quantiles %.4f, %.4f\n", argv[1], argv[3], level, t.n, f.nfolds,
	       t.extrapolated, olo, ohi);
	for (int k = 0; k < NMETHODS; k++) {
		size_t cov = 0;
		double clo, chi;

		for (size_t j = 0; j < t.n; j++)
			cov += t.covered[k][j] != 0;
		clopper_pearson(cov, t.n, &clo, &chi);
		qsort(t.width[k], t.n, sizeof(double), ascending);
		printf("%-10s coverage %5.1f %% (%zu/%zu, 95 %% CI %.1f-%.1f)  width ratio %5.2f\n",
		       method_name[k], 100.0 * (double)cov / (double)t.n, cov, t.n, 100 * clo,
		       100 * chi,
		       pm__quantile_sorted(t.width[k], t.n, 0.5) / pm__quantile_sorted(ow, t.n, 0.5));
	}
	return 0;
}
