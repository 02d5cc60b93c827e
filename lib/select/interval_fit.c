/* Calibrating a fit's prediction intervals (docs/maths.md, "Prediction
 * intervals"): K more fits, each on the rows outside one fold of a
 * stratified K-fold split (pm_validation_folds), predict the rows of their
 * fold; the quantiles of those out-of-sample residuals log(t / t̂) are
 * what the predictor widens a prediction by (model/interval.c). In-sample
 * residuals would be too narrow: the fit has bent towards its own rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/detmath.h"
#include "core/error.h"
#include "core/sort.h"
#include "core/stop.h"
#include "fit/fit_batch.h"
#include "fit/holdout.h"
#include "model/interval.h"
#include "model/model_impl.h"
#include "select/interval_fit.h"
#include "select/yardstick.h"

/* The p-quantile of sorted r[0..n): Hyndman and Fan's type 6, the order
 * statistic at p(n + 1), linear between two, the extremes beyond them. An
 * interval between its p and 1 - p quantiles covers a new draw with
 * probability 1 - 2p whatever the distribution (the order statistics of
 * n + 1 exchangeable draws), which the sample quantile of type 7 does not. */
double pm__quantile_sorted(const double *r, size_t n, double p)
{
	double h = p * (double)(n + 1), f = floor(h);
	size_t k = (size_t)f;

	if (h <= 1.0)
		return r[0];
	if (k >= n)
		return r[n - 1];
	return r[k - 1] + (h - f) * (r[k] - r[k - 1]);
}

/* Each fold's held-out residuals into r[*n...], on the time scale: log(t /
 * t̂) of a time, and of a kind's time scale w / y, log(ŷ / y). A time of 0
 * (a fit under mae or mse takes one) has no log residual: its row is left
 * out (pm__fit_intervals says so). */
static pm_status residuals(const pm_model *fm, const pm_dataset *test, double *r, size_t *n,
			   double *mape, pm_error *err)
{
	size_t measured = 0;
	double sum = 0.0;

	size_t rows = pm_dataset_nrows(test), col;
	double *y = malloc(rows * sizeof(*y) + 1), *pred = malloc(rows * sizeof(*pred) + 1);
	pm_status st = PM_OK;

	if (!y || !pred)
		st = pm__fail(err, PM_ENOMEM, "out of memory");
	if (!st && !(st = pm_dataset_col_index(test, fm->target, &col, err)) &&
	    !(st = pm_dataset_col_numbers(test, col, y, err)) &&
	    !(st = pm_model_predict_dataset(fm, test, pred, err)))
		for (size_t k = 0; k < rows && !st; k++) {
			double v = fm->kind == PM_TARGET_TIME ? pm__log(y[k] / pred[k])
							       : pm__log(pred[k] / y[k]);

			if (y[k] == 0)
				continue;
			if (!isfinite(v))
				st = pm__fail(err, PM_ERANGE, "a fold's fit predicts %g where %g was "
					      "measured (line %u): no log residual", pred[k], y[k],
					      pm_dataset_cell_line(test, k, col));
			r[(*n)++] = v;
			sum += fabs(y[k] - pred[k]) / fabs(y[k]);
			measured++;
		}
	/* the fold's held-out MAPE, as pm_metrics_compute has it (rows of 0
	 * left out) */
	*mape = measured ? 100.0 * sum / (double)measured : NAN;
	free(y);
	free(pred);
	return st;
}

/* Each numeric input's smallest and largest value over rows. */
static pm_status ranges(const pm_model *m, const pm_dataset *rows, double *lo, double *hi,
			pm_error *err)
{
	size_t n = pm_dataset_nrows(rows), col;
	double *v = malloc(n * sizeof(*v) + 1);
	pm_status st = v ? PM_OK : pm__fail(err, PM_ENOMEM, "out of memory");

	for (size_t i = 0; i < m->ninputs && !st; i++) {
		lo[i] = hi[i] = 0.0;
		if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
			continue;
		if ((st = pm_dataset_col_index(rows, m->inputs[i].name, &col, err)) ||
		    (st = pm_dataset_col_numbers(rows, col, v, err)))
			break;
		lo[i] = hi[i] = v[0];
		for (size_t r = 1; r < n; r++) {
			lo[i] = fmin(lo[i], v[r]);
			hi[i] = fmax(hi[i], v[r]);
		}
	}
	free(v);
	return st;
}

/* Row r's point for model fm (a categorical input as fm's level index);
 * input i is column col[i] of rows. */
static pm_status point(const pm_model *fm, const pm_dataset *rows, const size_t *col, size_t r,
		       double *x, pm_error *err)
{
	size_t level;
	pm_status st = PM_OK;

	for (size_t i = 0; i < fm->ninputs && !st; i++) {
		if (fm->inputs[i].role == PM_ROLE_CATEGORICAL) {
			st = pm_model_level_index(fm, i, pm_dataset_cell(rows, r, col[i]), &level, err);
			x[i] = (double)level;
		} else {
			st = pm_dataset_number(rows, r, col[i], &x[i], err);
		}
	}
	return st;
}

/* One range width beyond input i's largest value: on the log scale for a
 * powered input, as the predictor measures distance (model/interval.c). */
static double one_width_out(const pm_input *in, double lo, double hi)
{
	if (in->powered)
		return hi > lo ? hi * (hi / lo) : hi * 2.0;
	return hi > lo ? hi + (hi - lo) : hi + 1.0;
}

/* The largest rate kept: beyond it the K fold fits' spread says only that
 * they disagree (an input the data barely determine: its power falls
 * anywhere), and the interval at one range width out is already 4.1x the
 * residuals' spread. */
#define WIDEN_MAX 4.0

/* How fast input i's intervals widen beyond its range (docs/maths.md,
 * "Prediction intervals"): the K fold fits' predictions of every row with
 * input i moved one range width past its largest value, their grouped-
 * jackknife variance (K - 1)/K sum (log t_f - mean)^2 averaged over the
 * rows, its root over the residuals' standard deviation (from their 5 %
 * and 95 % quantiles, as a normal law's). The fold fits differ only by the
 * rows each left out, so their spread out there is the parameters' error
 * carried beyond the data, which the residuals inside cannot show. Within
 * [PM_WIDEN_DEFAULT, WIDEN_MAX]; capped when the measure was above.
 *
 * The rows go by blocks: each fold fit's point of each row of a block is
 * read once (a categorical's level looked up by name) for every input
 * moved, and predicted by pm_model_predict_batch (the same bits as point
 * by point): one by one, these predictions were about a quarter of an
 * eq. 4.4 fit's serial samples on LeNet-5 (perf, issue 38). */
enum { RATE_BLOCK = 512 };

struct widening {
	double lo, hi;		/* the input's range in the rows */
	double var;		/* the sum over rows of the variance */
	size_t used;		/* rows where every fold fit predicts */
	int capped;
};

/* Fold fit fm's log predictions of the n points x (ninputs each) into l;
 * NaN where it predicts none > 0 (batched, else point by point). */
static void log_predictions(const pm_model *fm, const double *x, size_t n, double *l)
{
	if (pm_model_predict_batch(fm, x, n, l, NULL) != PM_OK)
		for (size_t r = 0; r < n; r++)
			if (pm_model_predict(fm, x + r * fm->ninputs, &l[r], NULL) != PM_OK)
				l[r] = 0.0;
	for (size_t r = 0; r < n; r++)
		l[r] = l[r] > 0 ? pm__log(l[r]) : NAN;
}

/* Input i's share of a block of n rows, whose points for fold fit f are
 * base + f n ninputs (pts, l: scratch of n points and k n values). */
static void rate_block(pm_model *const *fm, size_t k, size_t n, const double *base, size_t i,
		       double *pts, double *l, struct widening *wi)
{
	size_t p = fm[0]->ninputs;
	double v = one_width_out(&fm[0]->inputs[i], wi->lo, wi->hi);

	for (size_t f = 0; f < k; f++) {
		memcpy(pts, base + f * n * p, n * p * sizeof(*pts));
		for (size_t r = 0; r < n; r++)
			pts[r * p + i] = v;
		log_predictions(fm[f], pts, n, l + f * n);
	}
	for (size_t r = 0; r < n; r++) {
		double mean = 0.0, ss = 0.0;
		int finite = 1;

		for (size_t f = 0; f < k; f++) {
			double lf = l[f * n + r];

			if (isnan(lf))
				lf = 0.0, finite = 0;
			mean += lf / (double)k;
		}
		/* a fold fit that cannot predict there at all: as far apart as
		 * the fits can be */
		if (!finite) {
			wi->capped = 1;
			continue;
		}
		for (size_t f = 0; f < k; f++)
			ss += (l[f * n + r] - mean) * (l[f * n + r] - mean);
		wi->var += ss * (double)(k - 1) / (double)k;
		wi->used++;
	}
}

/* The widening rate from what the rows gave, sd the residuals' spread. */
static double widening_rate(struct widening *wi, double sd)
{
	/* residuals of a fit exact but for rounding (a constant, a law
	 * written to 9 digits) spread by 1e-9 or less, and the fold fits'
	 * own rounding measured against that would look like disagreement:
	 * a spread below 1e-6 in log t is rounding, not a scale */
	double t = wi->used ? sqrt(wi->var / (double)wi->used) / fmax(sd, 1e-6) : 0.0;

	if (!(t <= WIDEN_MAX)) {
		wi->capped = 1;
		t = WIDEN_MAX;
	}
	return wi->capped ? WIDEN_MAX : fmax(t, PM_WIDEN_DEFAULT);
}

/* Each numeric input's widening rate into w (model/interval.h), from the
 * fold fits fm[0..k); a warning names each input whose rate was capped. */
static pm_status rates(pm_model *m, pm_model *const *fm, size_t k, const pm_dataset *rows,
		       const double *lo, const double *hi, double sd, double *w, pm_error *err)
{
	size_t p = m->ninputs, n = pm_dataset_nrows(rows), numeric = 0;
	size_t block = n < RATE_BLOCK ? n : RATE_BLOCK;
	double *base = malloc((k * block * p + 1) * sizeof(*base));
	double *pts = malloc((block * p + 1) * sizeof(*pts));
	double *l = malloc((k * block + 1) * sizeof(*l));
	struct widening *wi = calloc(p + 1, sizeof(*wi));
	size_t *col = malloc(p * sizeof(*col) + 1);
	pm_status st = base && pts && l && wi && col ? PM_OK
						 : pm__fail(err, PM_ENOMEM, "out of memory");

	/* the inputs' columns, found once for every row, fold fit and input */
	for (size_t i = 0; i < p && !st; i++) {
		st = pm_dataset_col_index(rows, m->inputs[i].name, &col[i], err);
		numeric += m->inputs[i].role != PM_ROLE_CATEGORICAL;
		wi[i].lo = lo[i];
		wi[i].hi = hi[i];
	}
	for (size_t at = 0; numeric && at < n && !st; at += block) {
		size_t b = n - at < block ? n - at : block;

		/* row by row, each fold fit's point (the first it cannot
		 * read ends the calibration, as before) */
		for (size_t r = 0; r < b && !st; r++)
			for (size_t f = 0; f < k && !st; f++)
				st = point(fm[f], rows, col, at + r, base + (f * b + r) * p, err);
		for (size_t i = 0; i < p && !st; i++)
			if (m->inputs[i].role != PM_ROLE_CATEGORICAL)
				rate_block(fm, k, b, base, i, pts, l, &wi[i]);
	}
	for (size_t i = 0; i < p && !st; i++) {
		w[i] = 0.0;
		if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
			continue;
		w[i] = widening_rate(&wi[i], sd);
		if (wi[i].capped)
			st = pm__model_add_warning(m, err, "prediction intervals beyond the range "
						   "of '%s' are uncertain: the calibration's fold fits "
						   "disagree there by more than %g times the residuals' "
						   "spread (its widening rate is capped at that)",
						   m->inputs[i].name, WIDEN_MAX);
	}
	free(base);
	free(pts);
	free(l);
	free(wi);
	free(col);
	return st;
}

/* The quantile table of the residuals r[0..n) (sorted here), the ranges of
 * rows and the inputs' widening rates from the fold fits fm[0..k), into
 * m. */
static pm_status keep(pm_model *m, const pm_dataset *rows, double *r, size_t n,
		      pm_model *const *fm, size_t k, pm_error *err)
{
	double p[PM_INTERVAL_STEPS - 1], q[PM_INTERVAL_STEPS - 1];
	double *lo = malloc(m->ninputs * sizeof(*lo) + 1), *hi = malloc(m->ninputs * sizeof(*hi) + 1);
	double *w = malloc(m->ninputs * sizeof(*w) + 1), sd;
	pm_status st = lo && hi && w ? PM_OK : pm__fail(err, PM_ENOMEM, "out of memory");

	qsort(r, n, sizeof(*r), pm__cmp_double);
	for (size_t j = 0; j < PM_INTERVAL_STEPS - 1; j++) {
		p[j] = (double)(j + 1) / PM_INTERVAL_STEPS;
		q[j] = pm__quantile_sorted(r, n, p[j]);
	}
	/* a normal law's 5 % and 95 % quantiles are 1.645 sd from its mean */
	sd = (pm__quantile_sorted(r, n, 0.95) - pm__quantile_sorted(r, n, 0.05)) / (2 * 1.6448536);
	if (!st && !(st = ranges(m, rows, lo, hi, err)) &&
	    !(st = rates(m, fm, k, rows, lo, hi, sd, w, err)))
		st = pm__model_set_intervals(m, n, (unsigned)k, PM_INTERVAL_STEPS - 1, p, q, lo, hi,
					     w, err);
	free(lo);
	free(hi);
	free(w);
	return st;
}

/* The log-linear yardstick on the calibration's folds, next to the model's
 * held-out MAPE on them (the mean of the folds', NaN where a fold had
 * none), into m's info; a warning when the model does worse. */
static pm_status yardstick(pm_model *m, const pm_dataset *rows, const pm_spec *s,
			   const pm_folds *folds, const double *model_mape, pm_error *err)
{
	pm_fit_info *fi = &m->info;
	double *yard = malloc((folds->nfolds + 1) * sizeof(*yard)), mean = 0.0;
	pm_error e = { 0 };
	pm_status st = yard ? pm__yardstick(rows, s, folds->fold, folds->nfolds, &fi->yard_mape,
					     yard, &e)
			    : pm__fail(&e, PM_ENOMEM, "out of memory");
	int worse;

	/* a yardstick that cannot be measured is none, not a failure of the
	 * intervals kept already; only no memory ends the fit */
	if (st) {
		free(yard);
		fi->yard_mape = NAN;
		if (st == PM_ENOMEM && err)
			*err = e;
		return st == PM_ENOMEM ? st : PM_OK;
	}
	for (unsigned f = 0; f < folds->nfolds; f++)
		mean += model_mape[f] / folds->nfolds;
	fi->yard_model_mape = mean;
	snprintf(fi->yard_what, sizeof(fi->yard_what), "%s", folds->what);
	worse = pm__yardstick_beats(model_mape, yard, folds->nfolds);
	free(yard);
	if (!worse)
		return PM_OK;
	return pm__model_add_warning(m, err, "a log-linear fit of the same inputs (log t linear "
				     "in their logs and levels) predicts held-out rows better than "
				     "this model: held-out MAPE %.3g %% against %.3g %% (%s); "
				     "compare the forms (perfmodel fit with no --form or "
				     "--formula chooses among them)", fi->yard_mape,
				     fi->yard_model_mape, folds->what);
}

/* The fold fits and their residuals: the folds' fits side by side, each on
 * a share of the threads (pm__fit_batch: a short warm-started fit gains
 * little from threads of its own, whole fits in parallel share nothing;
 * each fit is deterministic, so the residuals do not depend on how many
 * run at once), their residuals gathered fold after fold; *stopped when a
 * stop request ended, cut short or left unbegun a fold's fit (then
 * nothing is kept). */
static pm_status calibrate(pm_model *m, const pm_dataset *rows, const pm_spec *s,
			   const pm_fit_options *o, int loo, int *stopped, pm_error *err)
{
	pm_validation v = { .scheme = loo ? PM_SCHEME_LOO : PM_SCHEME_KFOLD,
			    .folds = o->intervals, .seed = o->split_seed };
	pm_folds folds = { 0 };
	pm_fit_options fo = *o, *fos = NULL;
	pm_dataset **train = NULL, **test = NULL;
	pm_model **fm = NULL;
	double *r = NULL, *mape = NULL;
	size_t n = 0;
	unsigned nf;
	pm_status st;

	/* the fold fits are plain fits of their rows */
	fo.test_fraction = 0;
	fo.test = NULL;
	fo.validate.scheme = PM_SCHEME_NONE;
	fo.intervals = 0;
	/* each starts from m's optimum (a warm start, fit/warm.c): 4x to 5x
	 * faster on the bundled data, and the held-out residuals stay the
	 * fold's own: varpro solves the coefficients on the fold's rows alone,
	 * and the powers it searches move little without a fifth of the rows
	 * (the residual quantiles' spread within the seeds' noise either way;
	 * docs/benchmarks.md, "Prediction intervals") */
	fo.warm_start = m;
	if ((st = pm_validation_folds(rows, s, &v, &folds, err)))
		return st;
	nf = folds.nfolds;
	r = malloc(pm_dataset_nrows(rows) * sizeof(*r) + 1);
	fm = calloc(nf + 1, sizeof(*fm));
	mape = malloc((nf + 1) * sizeof(*mape));
	train = calloc(nf + 1, sizeof(*train));
	test = calloc(nf + 1, sizeof(*test));
	fos = malloc((nf + 1) * sizeof(*fos));
	if (!r || !fm || !mape || !train || !test || !fos)
		st = pm__fail(err, PM_ENOMEM, "out of memory");
	for (unsigned f = 0; f < nf && !st; f++) {
		fos[f] = fo;
		st = pm__fold_subsets(rows, folds.fold, f, &train[f], &test[f], err);
	}
	if (!st)
		st = pm__fit_batch(pm__fit_held_out, nf, 0, (const pm_dataset *const *)train, s, fos, o->threads, fm,
				   err);
	for (unsigned f = 0; f < nf && !st; f++)
		if (!fm[f] || fm[f]->info.interrupted)
			*stopped = 1;
	for (unsigned f = 0; f < nf && !st && !*stopped; f++)
		st = residuals(fm[f], test[f], r, &n, &mape[f], err);
	if (!st && !*stopped)
		st = keep(m, rows, r, n, fm, nf, err);
	if (!st && !*stopped)
		st = yardstick(m, rows, s, &folds, mape, err);
	for (unsigned f = 0; f < nf; f++) {
		if (fm)
			pm_model_free(fm[f]);
		if (train)
			pm_dataset_free(train[f]);
		if (test)
			pm_dataset_free(test[f]);
	}
	free(fm);
	free(train);
	free(test);
	free(fos);
	free(r);
	free(mape);
	pm_folds_free(&folds);
	return st;
}

/* How many of rows' values of m's target are 0 (the fit read them all). */
static pm_status zero_rows(const pm_model *m, const pm_dataset *rows, size_t *zeros,
			   pm_error *err)
{
	size_t n = pm_dataset_nrows(rows), col;
	double *y = malloc(n * sizeof(*y) + 1);
	pm_status st = y ? PM_OK : pm__fail(err, PM_ENOMEM, "out of memory");

	*zeros = 0;
	if (!st && !(st = pm_dataset_col_index(rows, m->target, &col, err)) &&
	    !(st = pm_dataset_col_numbers(rows, col, y, err)))
		for (size_t r = 0; r < n; r++)
			*zeros += y[r] == 0;
	free(y);
	return st;
}

pm_status pm__fit_intervals(pm_model *m, const pm_dataset *d, const pm_spec *s,
			    const pm_fit_options *o, pm_error *err)
{
	pm_dataset *train = NULL, *test = NULL;
	char what[512];
	pm_error e = { 0 };
	int stopped = 0;
	size_t rows = 0, zeros = 0, used;
	pm_status st;

	if (!o->intervals || m->info.interrupted)
		return PM_OK;
	/* the rows the model was fitted to: those a test fraction or an
	 * extrapolation left it (pm__holdout_split again: seeded, the same);
	 * those of a time of 0 give no residual; K folds need enough rows
	 * for each to hold out several, leave-one-out fewer, and too few none */
	if ((st = pm__holdout_split(d, s, o, &train, &test, what, &e)) == PM_OK &&
	    (st = zero_rows(m, train ? train : d, &zeros, &e)) == PM_OK &&
	    (rows = pm_dataset_nrows(train ? train : d)) - zeros >= PM_INTERVAL_MIN_LOO_ROWS)
		st = calibrate(m, train ? train : d, s, o, rows - zeros < PM_INTERVAL_MIN_ROWS,
			       &stopped, &e);
	used = rows - zeros;
	pm_dataset_free(train);
	pm_dataset_free(test);
	if (st == PM_ENOMEM) {
		if (err)
			*err = e;
		return st;
	}
	/* the fit itself stands: a calibration that cannot be made is a
	 * warning, and predicting an interval from the model says there is none */
	if (st)
		return pm__model_add_warning(m, err, "no prediction intervals: %s", e.msg);
	if (stopped)
		return pm__model_add_warning(m, err, "no prediction intervals: interrupted while "
					     "calibrating them (the fit itself is complete)");
	if (used < PM_INTERVAL_MIN_LOO_ROWS && zeros)
		return pm__model_add_warning(m, err, "no prediction intervals: %zu of the %zu rows "
					     "fitted have %s = 0, which has no residual on the log "
					     "scale the intervals are calibrated on, and the %zu "
					     "others are fewer than the %d they need", zeros, rows,
					     m->target, used, PM_INTERVAL_MIN_LOO_ROWS);
	if (used < PM_INTERVAL_MIN_LOO_ROWS)
		return pm__model_add_warning(m, err, "no prediction intervals: %zu rows are too "
					     "few to calibrate them (each predicted by a fit of the "
					     "others, they need %d)", rows, PM_INTERVAL_MIN_LOO_ROWS);
	if (zeros)	/* calibrated without them */
		return pm__model_add_warning(m, err, "prediction intervals are calibrated on the "
					     "%zu of %zu rows fitted where %s is not 0: a 0 has no "
					     "residual on their log scale, and an interval, a "
					     "multiple of the prediction, never reaches 0", used, rows,
					     m->target);
	return PM_OK;
}
