/* pm_model_advise: the fastest, the cheapest and the largest efficient of
 * a grid of configurations, by predicting every one. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "model/interval.h"
#include "model/job.h"
#include "model/model_impl.h"
#include "model/predict_impl.h"

pm_advise_options pm_advise_options_default(void)
{
	return (pm_advise_options){ .resource = 0, .min_efficiency = 0.7,
				    .max_combinations = 10000000, .quantile = 0.0,
				    .max_extrapolation = 2.0, .job = pm_job_default() };
}

static pm_status check(const pm_model *m, const double *x, const pm_vary *vary, size_t nvary,
		       const pm_advise_options *o, size_t *ncomb, pm_error *err)
{
	size_t n = 1;
	pm_status st;

	if (nvary == 0 || nvary > PM_ADVISE_MAX_VARY)
		return pm__fail(err, PM_EINVAL, "vary 1 to %d inputs (not %zu)", PM_ADVISE_MAX_VARY,
				nvary);
	if (o->resource >= nvary)
		return pm__fail(err, PM_EINVAL, "the resource is vary[%zu], but %zu inputs vary",
				o->resource, nvary);
	if (!(o->min_efficiency > 0 && o->min_efficiency <= 1))
		return pm__fail(err, PM_EINVAL, "the minimum efficiency %g is not in (0, 1]",
				o->min_efficiency);
	if (!(o->quantile >= 0 && o->quantile < 1))
		return pm__fail(err, PM_EINVAL, "the quantile %g is not 0 (the prediction) or in "
				"(0, 1)", o->quantile);
	if (o->quantile > 0 && (st = pm__intervals_check(m, o->quantile, err)))
		return st;
	if ((st = pm__job_check(m, &o->job, err)))
		return st;
	if (!(o->max_extrapolation == 0 || (o->max_extrapolation >= 1 &&
					     isfinite(o->max_extrapolation))))
		return pm__fail(err, PM_EINVAL, "the largest extrapolation %g is not a factor >= 1 "
				"(or 0: no limit)", o->max_extrapolation);
	for (size_t j = 0; j < nvary; j++) {
		const pm_vary *v = &vary[j];
		const char *name;

		if (v->input >= m->ninputs)
			return pm__fail(err, PM_EINVAL, "vary[%zu]: the model has no input %zu", j,
					v->input);
		name = m->inputs[v->input].name;
		if (m->inputs[v->input].role == PM_ROLE_CATEGORICAL)
			return pm__fail(err, PM_EINVAL, "input '%s' is categorical: only numeric "
					"inputs can be varied", name);
		for (size_t k = 0; k < j; k++)
			if (vary[k].input == v->input)
				return pm__fail(err, PM_EINVAL, "input '%s' is varied twice", name);
		if (v->n == 0 || !v->values)
			return pm__fail(err, PM_EINVAL, "input '%s': no values to try", name);
		for (size_t k = 0; k < v->n; k++)
			if (!(v->values[k] > 0 && isfinite(v->values[k])))
				return pm__fail(err, PM_EINVAL,
						"input '%s': %g is not a finite number > 0", name,
						v->values[k]);
		if (v->n > o->max_combinations / n)
			return pm__fail(err, PM_EINVAL,
					"more than %zu combinations to predict: narrow the ranges",
					o->max_combinations);
		n *= v->n;
	}
	for (size_t i = 0; i < m->ninputs; i++) {
		size_t j = 0;

		while (j < nvary && vary[j].input != i)
			j++;
		if (j == nvary && isnan(x[i]))
			return pm__fail(err, PM_EINVAL, "missing value for input '%s' (not varied)",
					m->inputs[i].name);
	}
	*ncomb = n;
	return PM_OK;
}

/* Add " (at a=1, b=2)" to the message of a failed prediction. */
static void place(pm_error *err, const pm_model *m, const pm_vary *vary, size_t nvary,
		  const double *x)
{
	for (size_t j = 0; j < nvary; j++)
		pm__err_append(err, "%s%s=%g", j ? ", " : " (at ", m->inputs[vary[j].input].name,
			       x[vary[j].input]);
	pm__err_append(err, ")");
}

/* One combination's numbers: what a pick keeps of it. */
struct comb {
	double t, tq, y, cost, s, e, beyond, beyond_value;
	size_t beyond_input;
};

static void take(pm_advice_pick *p, const pm_vary *vary, size_t nvary, const double *x,
		 const struct comb *c)
{
	p->found = 1;
	for (size_t j = 0; j < nvary; j++)
		p->value[j] = x[vary[j].input];
	p->time = c->t;
	p->quantile_time = c->tq;
	p->predicted = c->y;
	p->cost = c->cost;
	p->speedup = c->s;
	p->efficiency = c->e;
	p->beyond = c->beyond;
	p->beyond_input = c->beyond_input;
	p->beyond_value = c->beyond_value;
}

/* A job's numbers from one run's (o.job other than {1, 0}): its time,
 * setup included, and the speedup and efficiency of such times, the
 * resource ratio against the smallest being ratio. */
static pm_status job_numbers(const pm_job *job, double ratio, struct comb *k, pm_error *err)
{
	double t0 = k->t * k->s, t1 = k->t;
	pm_status st;

	if (job->iterations == 1 && job->setup == 0)
		return PM_OK;	/* the model's own: bits as they were */
	if ((st = pm__job_sum(job, t0, &t0, err)) || (st = pm__job_sum(job, t1, &t1, err)) ||
	    (!isnan(k->tq) && (st = pm__job_sum(job, k->tq, &k->tq, err))))
		return st;
	k->t = t1;
	k->y = t1;	/* a job is of a time model alone (pm__job_check) */
	k->s = t0 / t1;
	k->e = k->s / ratio;
	return PM_OK;
}

/* Every combination was beyond the limit: which came nearest, and how far. */
static pm_status all_beyond(const pm_model *m, const pm_vary *vary, size_t nvary,
			    const pm_advise_options *o, const double *near, double factor,
			    size_t input, pm_error *err)
{
	const char *name = m->inputs[input].name;
	double v = near[input], lo = m->iv.lo[input], hi = m->iv.hi[input];

	pm__fail(err, PM_EDOMAIN, "every one of the combinations lies beyond %g times the data "
		 "the model was fitted to (--max-extrapolation); the nearest has %s = %g, %.3g "
		 "times %s the fitted %g to %g", o->max_extrapolation, name, v, factor,
		 v > hi ? "above" : "below", lo, hi);
	place(err, m, vary, nvary, near);
	pm__err_append(err, "; --max-extrapolation none (a limit of 0) advises beyond it");
	return PM_EDOMAIN;
}

/* The time a pick was ranked by: the q-quantile's when q > 0. */
static double ranked(const pm_advice_pick *p, double q)
{
	return q > 0 ? p->quantile_time : p->time;
}

pm_status pm_model_advise(const pm_model *m, const double *x, const pm_vary *vary,
			  size_t nvary, const pm_advise_options *opt, pm_advice *out,
			  pm_error *err)
{
	pm_advise_options o = opt ? *opt : pm_advise_options_default();
	size_t idx[PM_ADVISE_MAX_VARY] = { 0 }, ncomb = 0, ri, near_input = 0;
	double *pt, *near, rmin, near_factor = INFINITY;
	const pm_vary *res;
	pm_status st;

	if (!m || !x || !vary || !out)
		return pm__fail(err, PM_EINVAL, "pm_model_advise: a NULL argument");
	memset(out, 0, sizeof(*out));
	out->fastest.quantile_time = out->cheapest.quantile_time = out->largest.quantile_time = NAN;
	if ((st = check(m, x, vary, nvary, &o, &ncomb, err)))
		return st;
	res = &vary[o.resource];
	ri = res->input;
	rmin = res->values[0];
	for (size_t k = 1; k < res->n; k++)
		rmin = res->values[k] < rmin ? res->values[k] : rmin;
	out->ranges = m->iv.nres > 0;
	pt = malloc((2 * m->ninputs + 1) * sizeof(*pt));
	if (!pt)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	near = pt + m->ninputs;
	memcpy(pt, x, m->ninputs * sizeof(*pt));
	for (size_t c = 0; c < ncomb; c++) {
		struct comb k = { .tq = NAN, .beyond = NAN };
		double r, rank;

		for (size_t j = 0; j < nvary; j++)
			pt[vary[j].input] = vary[j].values[idx[j]];
		r = pt[ri];
		/* ranked by time (or its quantile); the target's own quantity
		 * shown beside it */
		if ((st = pm__scaling_at(m, pt, ri, rmin, r, &k.t, &k.s, &k.e, err)) ||
		    (st = pm_model_target_value(m, pt, k.t, &k.y, err)) ||
		    (o.quantile > 0 &&
		     (st = pm_model_predict_quantile(m, pt, o.quantile, &k.tq, err))) ||
		    (st = job_numbers(&o.job, r / rmin, &k, err))) {
			place(err, m, vary, nvary, pt);
			goto out;
		}
		/* after the prediction, which checked the point */
		if (out->ranges) {
			k.beyond = pm__beyond_factor(m, pt, &k.beyond_input);
			k.beyond_value = pt[k.beyond_input];
		}
		if (o.max_extrapolation > 0 && k.beyond > o.max_extrapolation) {
			if (k.beyond < near_factor) {
				near_factor = k.beyond;
				near_input = k.beyond_input;
				memcpy(near, pt, m->ninputs * sizeof(*pt));
			}
			out->left_beyond++;
			goto next;
		}
		rank = o.quantile > 0 ? k.tq : k.t;
		k.cost = r * rank;
		if (!out->fastest.found || rank < ranked(&out->fastest, o.quantile) ||
		    (rank == ranked(&out->fastest, o.quantile) && k.cost < out->fastest.cost))
			take(&out->fastest, vary, nvary, pt, &k);
		if (!out->cheapest.found || k.cost < out->cheapest.cost ||
		    (k.cost == out->cheapest.cost && rank < ranked(&out->cheapest, o.quantile)))
			take(&out->cheapest, vary, nvary, pt, &k);
		if (k.e >= o.min_efficiency &&
		    (!out->largest.found || r > out->largest.value[o.resource] ||
		     (r == out->largest.value[o.resource] &&
		      rank < ranked(&out->largest, o.quantile))))
			take(&out->largest, vary, nvary, pt, &k);
next:		/* the next combination: the last input varies fastest */
		for (size_t j = nvary; j-- > 0;) {
			if (++idx[j] < vary[j].n)
				break;
			idx[j] = 0;
		}
	}
	out->combinations = ncomb;
	if (out->left_beyond == ncomb)
		st = all_beyond(m, vary, nvary, &o, near, near_factor, near_input, err);
out:
	free(pt);
	return st;
}
