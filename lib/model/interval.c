/* Prediction intervals from the residual quantiles a fit calibrated
 * (lib/select/interval_fit.c) and kept in model.json's "intervals": the
 * predictor's side, cJSON only, nothing allocated after load; detmath.h's
 * log and exp, so that an interval is the same bits on every machine as its
 * prediction is. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detmath.h"
#include "core/error.h"
#include "model/interval.h"
#include "model/model_impl.h"

/* (pm_model_free frees a model's own, so that model.c needs nothing of
 * this file) */
static void release(pm_intervals *iv)
{
	free(iv->p);
	free(iv->q);
	free(iv->lo);
	free(iv->hi);
	free(iv->widen);
	*iv = (pm_intervals){ 0 };
}

static double *copy(const double *v, size_t n)
{
	double *c = malloc(n * sizeof(*c) + 1);

	if (c)
		memcpy(c, v, n * sizeof(*c));
	return c;
}

pm_status pm__model_set_intervals(pm_model *m, size_t nres, unsigned folds, size_t np,
				  const double *p, const double *q, const double *lo,
				  const double *hi, const double *widen, pm_error *err)
{
	pm_intervals iv = { nres, folds, np, NULL, NULL, NULL, NULL, NULL };

	if (nres < 1 || np < 2)
		return pm__fail(err, PM_EINVAL, "intervals need residuals and 2 or more quantiles");
	for (size_t j = 0; j < np; j++) {
		if (!(p[j] > 0 && p[j] < 1) || (j && !(p[j] > p[j - 1])))
			return pm__fail(err, PM_EINVAL, "interval probabilities must increase within "
					"(0, 1): %g is entry %zu", p[j], j);
		if (!isfinite(q[j]) || (j && !(q[j] >= q[j - 1])))
			return pm__fail(err, PM_EINVAL, "interval quantiles must be finite and not "
					"decrease: %g is entry %zu", q[j], j);
	}
	/* a powered input's distance is measured on the log scale: its
	 * range, like its values, must be > 0 */
	for (size_t i = 0; i < m->ninputs; i++)
		if (m->inputs[i].role != PM_ROLE_CATEGORICAL &&
		    !(isfinite(lo[i]) && isfinite(hi[i]) && lo[i] <= hi[i] &&
		      (!m->inputs[i].powered || lo[i] > 0)))
			return pm__fail(err, PM_EINVAL, "the range of input '%s' is [%g, %g]",
					m->inputs[i].name, lo[i], hi[i]);
	for (size_t i = 0; widen && i < m->ninputs; i++)
		if (m->inputs[i].role != PM_ROLE_CATEGORICAL && !(isfinite(widen[i]) && widen[i] >= 0))
			return pm__fail(err, PM_EINVAL, "the widening rate of input '%s' is %g: it "
					"must be a finite number >= 0", m->inputs[i].name, widen[i]);
	iv.p = copy(p, np);
	iv.q = copy(q, np);
	iv.lo = copy(lo, m->ninputs);
	iv.hi = copy(hi, m->ninputs);
	if ((iv.widen = malloc(m->ninputs * sizeof(*iv.widen) + 1)))
		for (size_t i = 0; i < m->ninputs; i++)
			iv.widen[i] = widen && m->inputs[i].role != PM_ROLE_CATEGORICAL
					      ? widen[i] : PM_WIDEN_DEFAULT;
	if (!iv.p || !iv.q || !iv.lo || !iv.hi || !iv.widen) {
		release(&iv);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	release(&m->iv);
	m->iv = iv;
	return PM_OK;
}

int pm_model_has_intervals(const pm_model *m)
{
	return m && m->iv.nres > 0;
}

size_t pm_model_interval_residuals(const pm_model *m)
{
	return m ? m->iv.nres : 0;
}

/* Why m has none: the fit's own warning where it could not calibrate them
 * (too few rows, interrupted, every fold failing), else the two cases that
 * leave no warning. */
static pm_status no_intervals(const pm_model *m, pm_error *err)
{
	static const char why[] = "no prediction intervals: ";

	for (size_t i = 0; i < m->nwarnings; i++)
		if (!strncmp(m->warnings[i], why, sizeof(why) - 1))
			return pm__fail(err, PM_EINVAL, "the model has %s", m->warnings[i]);
	return pm__fail(err, PM_EINVAL, "the model has no prediction intervals: it was fitted "
			"with --no-intervals (pm_fit_options.intervals 0) or written before "
			"perfmodel kept them; fit it again without that option");
}

/* Input i's distance beyond [lo, hi] at v (already checked) over the
 * range's width, on the log scale for a powered input (its values are
 * > 0); 0 within. */
static double input_distance(const pm_model *m, size_t i, double v)
{
	double lo = m->iv.lo[i], hi = m->iv.hi[i], out, width;

	if (m->inputs[i].role == PM_ROLE_CATEGORICAL || (v >= lo && v <= hi))
		return 0.0;
	if (m->inputs[i].powered) {
		out = v > hi ? pm__log(v / hi) : pm__log(lo / v);
		width = hi > lo ? pm__log(hi / lo) : pm__log(2.0);
	} else {
		out = v > hi ? v - hi : lo - v;
		width = hi > lo ? hi - lo : 1.0;
	}
	return out / width;
}

pm_status pm_model_input_range(const pm_model *m, size_t i, double *lo, double *hi,
			       pm_error *err)
{
	if (!m || !lo || !hi)
		return pm__fail(err, PM_EINVAL, "pm_model_input_range: a NULL argument");
	if (i >= m->ninputs)
		return pm__fail(err, PM_EINVAL, "input %zu: the model has %zu inputs", i,
				m->ninputs);
	if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
		return pm__fail(err, PM_EINVAL, "input '%s' is categorical: it has levels, not a "
				"range", m->inputs[i].name);
	if (!m->iv.nres)
		return no_intervals(m, err);
	*lo = m->iv.lo[i];
	*hi = m->iv.hi[i];
	return PM_OK;
}

double pm__beyond_factor(const pm_model *m, const double *x, size_t *input)
{
	double worst = 1.0;

	*input = 0;
	for (size_t i = 0; i < m->ninputs; i++) {
		double lo = m->iv.lo[i], hi = m->iv.hi[i], v = x[i], f = 1.0;

		if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
			continue;
		if (v > hi)
			f = hi > 0 ? v / hi : INFINITY;
		else if (v < lo)
			f = v > 0 ? lo / v : INFINITY;
		if (f > worst) {
			worst = f;
			*input = i;
		}
	}
	return worst;
}

/* x's distance beyond the ranges: the largest input's. One input far out
 * is as uncertain as several a little. With rates, each input's distance
 * times its widening rate: the largest widens the interval. */
static double distance(const pm_model *m, const double *x, int rated)
{
	double d = 0.0;

	for (size_t i = 0; i < m->ninputs; i++)
		d = fmax(d, input_distance(m, i, x[i]) * (rated ? m->iv.widen[i] : 1.0));
	return d;
}

pm_status pm_model_extrapolation(const pm_model *m, const double *x, double *dist,
				 int *extrapolated, pm_error *err)
{
	double d;

	if (!m || (!x && m->ninputs) || !dist)
		return pm__fail(err, PM_EINVAL, "pm_model_extrapolation: a NULL argument");
	if (!m->iv.nres)
		return no_intervals(m, err);
	for (size_t i = 0; i < m->ninputs; i++)
		if (m->inputs[i].role != PM_ROLE_CATEGORICAL && pm__input_check(&m->inputs[i], x[i], err))
			return PM_EDOMAIN;
	d = distance(m, x, 0);
	*dist = d;
	if (extrapolated)
		*extrapolated = d > 0;
	return PM_OK;
}

/* The residuals' quantile at probability q, linear between the grid's
 * points (q within the grid). */
static double table_quantile(const pm_intervals *iv, double q)
{
	size_t a = 0, b = iv->np - 1;

	if (q <= iv->p[0])
		return iv->q[0];
	if (q >= iv->p[b])
		return iv->q[b];
	while (b - a > 1) {
		size_t mid = a + (b - a) / 2;

		if (iv->p[mid] <= q)
			a = mid;
		else
			b = mid;
	}
	return iv->q[a] + (q - iv->p[a]) / (iv->p[b] - iv->p[a]) * (iv->q[b] - iv->q[a]);
}

/* The probabilities n residuals and the grid calibrate: [1/(n+1), n/(n+1)]
 * within [p first, p last]. A hair of slack, so that (1 - 0.9) / 2, which
 * is 0.04999999999999999, is the 5 % of 19 residuals. */
#define SLACK 1e-12

static pm_status check_q(const pm_intervals *iv, double q, pm_error *err)
{
	double n = (double)iv->nres;
	double lo = fmax(iv->p[0], 1.0 / (n + 1.0)), hi = fmin(iv->p[iv->np - 1], n / (n + 1.0));

	if (!(q > 0 && q < 1))
		return pm__fail(err, PM_EINVAL, "quantile %g is not between 0 and 1", q);
	if (q < lo - SLACK || q > hi + SLACK)
		return pm__fail(err, PM_EINVAL, "quantile %g is beyond what the model's %zu "
				"calibration residuals tell: from %.4g to %.4g", q, iv->nres, lo, hi);
	return PM_OK;
}

pm_status pm__intervals_check(const pm_model *m, double q, pm_error *err)
{
	return !m->iv.nres ? no_intervals(m, err) : check_q(&m->iv, q, err);
}

pm_status pm_model_residual_quantile(const pm_model *m, double q, double *r, pm_error *err)
{
	pm_status st;

	if (!m || !r)
		return pm__fail(err, PM_EINVAL, "pm_model_residual_quantile: a NULL argument");
	if ((st = pm__intervals_check(m, q, err)))
		return st;
	*r = table_quantile(&m->iv, q);
	return PM_OK;
}

/* The q-quantile at prediction t and rated distance d of a model with
 * intervals: the spread around the median times sqrt(1 + d^2). The
 * residuals' own spread (the runs' noise, the form's misfit inside the
 * ranges) and the error of parameters carried beyond them are independent,
 * so they add in quadrature: gently near the ranges, linearly far out
 * (docs/maths.md, "Prediction intervals"). *out not finite is PM_ERANGE. */
static pm_status quantile_at(const pm_model *m, double q, double t, double d, double *out,
			     pm_error *err)
{
	double med = table_quantile(&m->iv, 0.5);

	*out = t * pm__exp(med + (table_quantile(&m->iv, q) - med) * sqrt(1.0 + d * d));
	return isfinite(*out) ? PM_OK
			      : pm__fail(err, PM_ERANGE, "the %g-quantile is not a finite number", q);
}

/* The prediction and rated distance at x, for quantiles: t > 0 (their
 * log). */
static pm_status centre(const pm_model *m, const double *x, double *t, double *d,
			pm_error *err)
{
	pm_status st;

	if ((st = pm_model_predict(m, x, t, err)) ||
	    (st = pm_model_extrapolation(m, x, d, NULL, err)))
		return st;
	*d = distance(m, x, 1);
	if (!(*t > 0))
		return pm__fail(err, PM_ERANGE, "the prediction %g is not > 0: no interval on "
				"the log scale the residuals were calibrated on", *t);
	return PM_OK;
}

pm_status pm_model_predict_quantile(const pm_model *m, const double *x, double q, double *value,
				    pm_error *err)
{
	double t, d, v;
	pm_status st;

	if (!m || (!x && m->ninputs) || !value)
		return pm__fail(err, PM_EINVAL, "pm_model_predict_quantile: a NULL argument");
	if (!m->iv.nres)
		return no_intervals(m, err);
	if ((st = check_q(&m->iv, q, err)) || (st = centre(m, x, &t, &d, err)) ||
	    (st = quantile_at(m, q, t, d, &v, err)))
		return st;
	*value = v;
	return PM_OK;
}

pm_status pm_model_predict_interval(const pm_model *m, const double *x, double level,
				    double *lower, double *upper, pm_error *err)
{
	double t, d, lo, hi;
	pm_status st;

	if (!m || (!x && m->ninputs) || !lower || !upper)
		return pm__fail(err, PM_EINVAL, "pm_model_predict_interval: a NULL argument");
	if (!m->iv.nres)
		return no_intervals(m, err);
	if (!(level > 0 && level < 1))
		return pm__fail(err, PM_EINVAL, "interval level %g is not between 0 and 1", level);
	if ((st = check_q(&m->iv, (1 - level) / 2, err)) ||
	    (st = check_q(&m->iv, (1 + level) / 2, err)) || (st = centre(m, x, &t, &d, err)))
		return st;
	if ((st = quantile_at(m, (1 - level) / 2, t, d, &lo, err)) ||
	    (st = quantile_at(m, (1 + level) / 2, t, d, &hi, err)))
		return st;
	*lower = lo;
	*upper = hi;
	return PM_OK;
}

/* A JSON array of n numbers into v[0..n) (malloc'd). */
static pm_status numbers(const pm_jctx *c, const cJSON *o, const char *key, size_t *n,
			 double **v)
{
	const cJSON *arr, *x;
	size_t i = 0;
	pm_status st;

	*v = NULL;
	if ((st = pm__json_array(c, o, key, 1, &arr, n)))
		return st;
	if (!(*v = malloc(*n * sizeof(**v) + 1)))
		return pm__fail(c->err, PM_ENOMEM, "out of memory");
	cJSON_ArrayForEach(x, arr) {
		if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
			return pm__json_fail(c, PM_ESCHEMA, "'%s'[%zu] must be a finite number", key, i);
		(*v)[i++] = x->valuedouble;
	}
	return PM_OK;
}

/* "ranges": [lo, hi] of every numeric input, by name. */
static pm_status read_ranges(const pm_jctx *c, const cJSON *o, const pm_model *m, double *lo,
			     double *hi)
{
	const cJSON *r, *v;
	pm_status st;

	if ((st = pm__json_object(c, o, "ranges", 1, &r)))
		return st;
	for (size_t i = 0; i < m->ninputs; i++) {
		lo[i] = hi[i] = 0.0;
		if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
			continue;
		if ((st = pm__json_item(c, r, m->inputs[i].name, 1, &v)))
			return st;
		if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 || !cJSON_IsNumber(v->child) ||
		    !cJSON_IsNumber(v->child->next))
			return pm__json_fail(c, PM_ESCHEMA, "the range of '%s' must be [lo, hi]",
					     m->inputs[i].name);
		lo[i] = v->child->valuedouble;
		hi[i] = v->child->next->valuedouble;
	}
	return PM_OK;
}

/* "widen": the rate of every numeric input, by name; absent (a file
 * written before the fit measured them): *rated 0. */
static pm_status read_widen(const pm_jctx *c, const cJSON *o, const pm_model *m, double *w,
			    int *rated)
{
	const cJSON *r, *v;
	pm_status st;

	*rated = 0;
	if ((st = pm__json_object(c, o, "widen", 0, &r)) || !r)
		return st;
	for (size_t i = 0; i < m->ninputs; i++) {
		w[i] = 0.0;
		if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
			continue;
		if ((st = pm__json_item(c, r, m->inputs[i].name, 1, &v)))
			return st;
		if (!cJSON_IsNumber(v))
			return pm__json_fail(c, PM_ESCHEMA, "the widening rate of '%s' must be a "
					     "number", m->inputs[i].name);
		w[i] = v->valuedouble;
	}
	*rated = 1;
	return PM_OK;
}

pm_status pm__model_read_intervals(const pm_jctx *top, const cJSON *root, pm_model *m)
{
	const cJSON *o;
	pm_jctx c = *top;
	const char *method;
	uint64_t folds, nres;
	size_t np = 0, nq = 0;
	double *p = NULL, *q = NULL, *lo = NULL, *hi = NULL, *w = NULL;
	int rated = 0;
	pm_error e;
	pm_status st;

	if ((st = pm__json_object(top, root, "intervals", 0, &o)) || !o)
		return st;
	c.where = "intervals";
	if ((st = pm__json_string(&c, o, "method", &method)))
		return st;
	/* another method would need another predictor: refuse, never misread */
	if (strcmp(method, PM_INTERVAL_METHOD))
		return pm__json_fail(&c, PM_ESCHEMA, "unknown method '%s' (this perfmodel reads "
				     "'%s')", method, PM_INTERVAL_METHOD);
	lo = malloc(m->ninputs * sizeof(*lo) + 1);
	hi = malloc(m->ninputs * sizeof(*hi) + 1);
	w = malloc(m->ninputs * sizeof(*w) + 1);
	if (!lo || !hi || !w)
		st = pm__fail(c.err, PM_ENOMEM, "out of memory");
	if (!st && !(st = pm__json_uint(&c, o, "folds", UINT32_MAX, &folds)) &&
	    !(st = pm__json_uint(&c, o, "residuals", SIZE_MAX, &nres)) &&
	    !(st = numbers(&c, o, "probabilities", &np, &p)) &&
	    !(st = numbers(&c, o, "quantiles", &nq, &q)) &&
	    !(st = read_ranges(&c, o, m, lo, hi)) && !(st = read_widen(&c, o, m, w, &rated))) {
		if (np != nq)
			st = pm__json_fail(&c, PM_ESCHEMA, "%zu probabilities but %zu quantiles", np,
					   nq);
		else if ((st = pm__model_set_intervals(m, (size_t)nres, (unsigned)folds, np, p, q,
						       lo, hi, rated ? w : NULL, &e)))
			st = st == PM_EINVAL ? pm__json_fail(&c, PM_ESCHEMA, "%s", e.msg)
					     : pm__fail(c.err, st, "%s", e.msg);
	}
	free(p);
	free(q);
	free(lo);
	free(hi);
	free(w);
	return st;
}
