/* The λ sweep: regularised fits over a log grid of λ, each measured on rows
 * it never saw (thesis §4.3.3), all fits side by side. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/detmath.h"
#include "core/error.h"
#include "core/jsonw.h"
#include "fit/holdout.h"
#include "model/model_impl.h"
#include "fit/fit_batch.h"

void pm_sweep_free(pm_sweep *sw)
{
	if (!sw)
		return;
	for (size_t k = 0; sw->param_name && k < sw->nparams; k++)
		free(sw->param_name[k]);
	free(sw->param_name);
	free(sw->param);
	free(sw->point);
	free(sw);
}

static pm_status check(const pm_dataset *d, const pm_fit_options *o, const pm_sweep_options *so,
		       pm_error *err)
{
	if (!d || !o || !so)
		return pm__fail(err, PM_EINVAL, "no data, options or sweep options");
	if (!(so->lambda_lo > 0 && so->lambda_lo <= so->lambda_hi && isfinite(so->lambda_hi)))
		return pm__fail(err, PM_EINVAL, "the λ grid needs 0 < lo <= hi (finite)");
	if (so->npoints == 0 || so->npoints > 10000)
		return pm__fail(err, PM_EINVAL, "the λ grid needs 1 to 10000 points");
	if (o->reg != PM_REG_L1 && o->reg != PM_REG_L2)
		return pm__fail(err, PM_EINVAL, "a λ sweep needs reg l1 or l2");
	if (o->validate.scheme != PM_SCHEME_NONE)
		return pm__fail(err, PM_EINVAL, "a λ sweep validates by its own scheme, not the "
				"fit options'");
	if (!so->validate.scheme && !(o->test_fraction > 0) && !o->test)
		return pm__fail(err, PM_EINVAL, "a λ sweep needs held-out rows: a validation "
				"scheme, a test fraction or a test file");
	if (so->validate.scheme && (o->test_fraction > 0 || o->test))
		return pm__fail(err, PM_EINVAL, "a validation scheme and a test set exclude each "
				"other");
	return PM_OK;
}

#define LN10 0x1.26bb1bbb55516p+1	/* ln 10 rounded */

/* The nearest integer to e where e is one but for rounding (1e-9 of a
 * decade: far below any grid's step), else e. */
static double snap(double e)
{
	double k = floor(e + 0.5);

	return fabs(e - k) < 1e-9 ? k : e;
}

/* λ_i on a log grid, by detmath.h's log and exp (the C library's pow and
 * log10 differ in their last bits between CPUs, and λ is in every fit of
 * the sweep): the ends exactly λ_lo and λ_hi; between them 10^e as 10^k,
 * k = round(e), read as the text "1e<k>" is (correctly rounded), times
 * exp((e - k) ln 10) (|e - k| <= 1/2: within a few ulp). Exponents that
 * are integers but for rounding are taken as the integers, so that the
 * grid between two decades is exact where it falls on a decade and within
 * a few ulp elsewhere, however far apart the decades are. */
static double grid(const pm_sweep_options *so, size_t i)
{
	double l0 = snap(pm__log(so->lambda_lo) / LN10), l1 = snap(pm__log(so->lambda_hi) / LN10);
	double e, k;
	char text[16];

	if (i == 0 || so->npoints == 1)
		return so->lambda_lo;
	if (i == so->npoints - 1)
		return so->lambda_hi;
	e = snap(l0 + (l1 - l0) * (double)i / (double)(so->npoints - 1));
	k = floor(e + 0.5);
	pm_snprintf(text, sizeof(text), "1e%d", (int)k);	/* |k| < 400: l0, l1 finite */
	return pm_strtod(text, NULL) * (e == k ? 1.0 : pm__exp((e - k) * LN10));
}

/* Training and held-out rows of each fold. */
static pm_status make_folds(const pm_dataset *d, const pm_folds *folds, pm_dataset **train,
			    pm_dataset **test, pm_error *err)
{
	pm_status st = PM_OK;

	for (unsigned f = 0; f < folds->nfolds && !st; f++)
		st = pm__fold_subsets(d, folds->fold, f, &train[f], &test[f], err);
	return st;
}

/* Mean over the folds of point p's fits into sw. A fold whose held-out
 * values are all 0 has no MAPE (pm_metrics_compute): MAPE's mean and std
 * are the other folds' (NaN: none has one). */
static void summarise(pm_sweep *sw, size_t p, pm_model *const *model, unsigned nf)
{
	pm_sweep_point *pt = &sw->point[p];
	double *par = sw->param + p * sw->nparams;
	pm_metrics *t = &pt->test;
	double ss = 0.0;
	unsigned nm = 0;	/* folds with a MAPE */

	memset(t, 0, sizeof(*t));
	for (unsigned f = 0; f < nf; f++)
		nm += !isnan(model[f]->info.test.mape);
	for (unsigned f = 0; f < nf; f++) {
		const pm_fit_info *fi = &model[f]->info;

		t->n += fi->test.n;
		t->mape_n += fi->test.mape_n;
		t->mae += fi->test.mae / nf;
		if (!isnan(fi->test.mape))
			t->mape += fi->test.mape / nm;
		t->mse += fi->test.mse / nf;
		t->rmse += fi->test.rmse / nf;
		t->r2 += fi->test.r2 / nf;
		t->smape += fi->test.smape / nf;
		t->adj_r2 += fi->test.adj_r2 / nf;
		pt->cost += fi->cost / nf;
		for (size_t k = 0; k < sw->nparams; k++)
			par[k] += model[f]->raw[k] / nf;
	}
	for (unsigned f = 0; f < nf; f++) {
		double dev = model[f]->info.test.mape - t->mape;

		if (!isnan(model[f]->info.test.mape))
			ss += dev * dev;
	}
	if (!nm)
		t->mape = NAN;
	pt->mape_std = nm ? sqrt(ss / nm) : NAN;
}

pm_status pm_sweep_run(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
		       const pm_sweep_options *so, pm_sweep **out, pm_error *err)
{
	unsigned nf;
	size_t njobs;
	pm_dataset **train = NULL, **test = NULL;
	const pm_dataset **rows = NULL;
	pm_fit_options *opt = NULL;
	pm_model **model = NULL;
	pm_sweep *sw = NULL;
	pm_folds folds = { 0 };
	struct timespec t0, t1;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the sweep");
	*out = NULL;
	if ((st = check(d, o, so, err)) ||
	    (so->validate.scheme && (st = pm_validation_folds(d, s, &so->validate, &folds, err))))
		return st;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	nf = so->validate.scheme ? folds.nfolds : 1;
	njobs = (size_t)so->npoints * nf;
	train = calloc(nf, sizeof(*train));
	test = calloc(nf, sizeof(*test));
	rows = malloc(njobs * sizeof(*rows));
	opt = malloc(njobs * sizeof(*opt));
	model = calloc(njobs, sizeof(*model));
	sw = calloc(1, sizeof(*sw));
	if (!train || !test || !rows || !opt || !model || !sw ||
	    !(sw->point = calloc(so->npoints, sizeof(*sw->point)))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if (so->validate.scheme && (st = make_folds(d, &folds, train, test, err)))
		goto out;
	for (size_t j = 0; j < njobs; j++) {
		unsigned f = (unsigned)(j % nf);

		opt[j] = *o;
		opt[j].lambda_coef = opt[j].lambda_power = grid(so, j / nf);
		opt[j].intervals = 0;	/* a sweep measures λ; it keeps no model */
		rows[j] = so->validate.scheme ? train[f] : d;
		if (so->validate.scheme)
			opt[j].test = test[f];
	}
	/* the first λ's folds always run: an interrupted sweep has a point */
	if ((st = pm__fit_batch(pm_fit, njobs, nf, rows, s, opt, o->threads, model, err)))
		goto out;
	sw->nparams = model[0]->nparams;
	sw->folds = so->validate.scheme ? folds.nfolds : 0;
	sw->validation = so->validate;
	memcpy(sw->what, folds.what, sizeof(sw->what));
	sw->param = calloc((size_t)so->npoints * sw->nparams, sizeof(*sw->param));
	sw->param_name = calloc(sw->nparams, sizeof(*sw->param_name));
	if (!sw->param || !sw->param_name) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < sw->nparams; k++) {
		size_t len = strlen(model[0]->params[k].name) + 1;

		if (!(sw->param_name[k] = malloc(len))) {
			st = pm__fail(err, PM_ENOMEM, "out of memory");
			goto out;
		}
		memcpy(sw->param_name[k], model[0]->params[k].name, len);
	}
	/* a λ whose folds were not all fitted (a stop request kept some from
	 * starting) has no point: the table shows the λs that have one */
	for (size_t p = 0; p < so->npoints; p++) {
		size_t q = sw->npoints, f = 0;

		while (f < nf && model[p * nf + f])
			f++;
		if (f < nf)
			continue;
		sw->point[q].lambda = grid(so, p);
		summarise(sw, q, model + p * nf, nf);
		if (sw->point[q].test.mape < sw->point[sw->best].test.mape)
			sw->best = q;
		sw->npoints++;
	}
	for (size_t j = 0; j < njobs; j++)
		sw->interrupted |= !model[j] || model[j]->info.interrupted;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sw->wall_time_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	*out = sw;
	sw = NULL;
out:
	for (size_t j = 0; model && j < njobs; j++)
		pm_model_free(model[j]);
	for (unsigned f = 0; train && test && f < nf; f++) {
		pm_dataset_free(train[f]);
		pm_dataset_free(test[f]);
	}
	free(train);
	free(test);
	free(rows);
	free(opt);
	free(model);
	pm_sweep_free(sw);
	pm_folds_free(&folds);
	return st;
}

static const char *const point_keys[] = { "mape", "mape_std", "r2", "mae", "rmse", "cost" };

pm_status pm_sweep_to_json(const pm_sweep *sw, const pm_fit_options *o, char **out,
			   pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, sw && o, "sweep or options", err)))
		return st;
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "reg");
	pm__jw_string(&w, o->reg == PM_REG_L1 ? "l1" : "l2");
	if (sw->validation.scheme) {
		char text[320];

		pm_validation_text(&sw->validation, text, sizeof(text));
		pm__jw_key(&w, "validation");
		pm__jw_string(&w, text);
		pm__jw_key(&w, "description");
		pm__jw_string(&w, sw->what);
	}
	pm__jw_key(&w, "folds");
	pm__jw_uint(&w, sw->folds);
	pm__jw_key(&w, "seed");
	pm__jw_uint(&w, o->seed);
	if (sw->interrupted) {	/* only then: a finished sweep's document is unchanged */
		pm__jw_key(&w, "interrupted");
		pm__jw_bool(&w, 1);
	}
	pm__jw_key(&w, "best_lambda");
	pm__jw_double(&w, sw->point[sw->best].lambda);
	pm__jw_key(&w, "points");
	pm__jw_array_begin(&w);
	for (size_t p = 0; p < sw->npoints; p++) {
		const pm_sweep_point *pt = &sw->point[p];

		const double v[] = { pt->test.mape, pt->mape_std, pt->test.r2, pt->test.mae,
				     pt->test.rmse, pt->cost };

		pm__jw_object_begin(&w);
		pm__jw_key(&w, "lambda");
		pm__jw_double(&w, pt->lambda);
		pm__jw_key(&w, "rows");
		pm__jw_uint(&w, pt->test.n);
		pm__jw_doubles(&w, point_keys, v, sizeof(v) / sizeof(v[0]));
		pm__jw_key(&w, "parameters");
		pm__jw_object_begin(&w);
		pm__jw_doubles(&w, (const char *const *)sw->param_name, sw->param + p * sw->nparams,
			       sw->nparams);
		pm__jw_object_end(&w);
		pm__jw_object_end(&w);
	}
	pm__jw_array_end(&w);
	pm__jw_key(&w, "wall_time_s");
	pm__jw_double(&w, sw->wall_time_s);
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}
