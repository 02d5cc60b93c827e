/* pm_fit: eq. 4.4 fitted by differential evolution (DESIGN.md §3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "de.h"
#include "error.h"
#include "model_impl.h"
#include "pool.h"
#include "problem.h"
#include "spec_impl.h"

pm_fit_options pm_fit_options_default(void)
{
	return (pm_fit_options){
		.seed = 1,
		.threads = 0,
		.maxiter = 1000,
		.popsize = 15,
		.tol = 0.01,
		.atol = 0.0,
		.mutation_lo = 0.5,
		.mutation_hi = 1.0,
		.recombination = 0.7,
		.polish = 1,
		.scale = PM_SCALE_AUTO,
		.reg = PM_REG_NONE,
		.lambda_coef = 0.0,
		.lambda_power = 0.0,
	};
}

/* What the cost function reads; shared by all threads, never written. */
struct cost_ctx {
	const pm_problem *p;
	const pm_model *m;	/* terms and parameter kinds */
	size_t *table_at;	/* factor f's table starts at scratch[table_at[f]] */
	double lambda_coef, lambda_power;
	pm_reg reg;
};

/* One row's view for pm__terms_combine. */
struct row {
	const struct cost_ctx *c;
	const double *table;
	size_t r;
};

static double row_factor(const void *ctx, uint32_t f)
{
	const struct row *w = ctx;
	const pm_factor *fa = &w->c->m->terms.factor[f];

	return w->table[w->c->table_at[f] + w->c->p->col[fa->input].code[w->r]];
}

static uint32_t row_level(const void *ctx, uint32_t i)
{
	const struct row *w = ctx;

	return w->c->p->col[i].code[w->r];
}

static double penalty(const struct cost_ctx *c, const double *x)
{
	double coef = 0.0, power = 0.0;

	for (size_t k = 0; k < c->m->nparams; k++) {
		double v = c->reg == PM_REG_L1 ? fabs(x[k]) : x[k] * x[k];

		switch (c->m->params[k].desc.kind) {
		case PM_PARAM_COEF:
		case PM_PARAM_LEVEL:
			coef += v;
			break;
		case PM_PARAM_POWER:
		case PM_PARAM_SCALING:
			power += v;
			break;
		case PM_PARAM_CONST:	/* the intercept is never penalised (thesis §4.1.2) */
			break;
		}
	}
	return c->lambda_coef * coef + c->lambda_power * power;
}

/* Eq. 4.9 plus the penalty of eqs. 4.11/4.12. Rows are summed in order and
 * serially, so the value does not depend on which thread computes it. */
static double cost(const double *x, void *vctx, void *scratch)
{
	const struct cost_ctx *c = vctx;
	const pm_problem *p = c->p;
	const pm_terms *t = &c->m->terms;
	double *table = scratch;
	struct row w = { c, table, 0 };
	double sum = 0.0, f;

	for (size_t k = 0; k < t->nfactors; k++) {
		const pm_column *col = &p->col[t->factor[k].input];
		double *tab = table + c->table_at[k];
		double power = x[t->factor[k].power];

		for (size_t d = 0; d < col->ndistinct; d++)
			tab[d] = pm__factor_value(power, col->u[d]);
	}
	for (w.r = 0; w.r < p->nrows; w.r++)
		sum += fabs(p->t[w.r] - pm__terms_combine(t, x, row_factor, row_level, &w));
	f = sum / (double)p->nrows;
	if (c->reg != PM_REG_NONE)
		f += penalty(c, x);
	return isnan(f) ? INFINITY : f;
}

static pm_status check_options(const pm_fit_options *o, pm_error *err)
{
	if (o->maxiter < 1)
		return pm__fail(err, PM_EINVAL, "maxiter must be >= 1");
	if (o->popsize < 1)
		return pm__fail(err, PM_EINVAL, "popsize must be >= 1");
	if (!(o->tol >= 0) || !(o->atol >= 0) || isinf(o->tol) || isinf(o->atol))
		return pm__fail(err, PM_EINVAL, "tol and atol must be finite and >= 0");
	if (!(o->mutation_lo >= 0 && o->mutation_lo <= o->mutation_hi && o->mutation_hi <= 2))
		return pm__fail(err, PM_EINVAL, "mutation must be lo,hi with 0 <= lo <= hi <= 2");
	if (!(o->recombination >= 0 && o->recombination <= 1))
		return pm__fail(err, PM_EINVAL, "recombination must be in [0, 1]");
	if (!(o->lambda_coef >= 0 && o->lambda_power >= 0) || isinf(o->lambda_coef) ||
	    isinf(o->lambda_power))
		return pm__fail(err, PM_EINVAL, "lambda must be finite and >= 0");
	if (o->reg != PM_REG_NONE && o->reg != PM_REG_L1 && o->reg != PM_REG_L2)
		return pm__fail(err, PM_EINVAL, "unknown regularisation");
	if (o->scale != PM_SCALE_AUTO && o->scale != PM_SCALE_NONE)
		return pm__fail(err, PM_EINVAL, "unknown scaling");
	return PM_OK;
}

static pm_status new_model(const pm_problem *p, const pm_spec *s, pm_scale scale,
			   pm_model **out, pm_error *err)
{
	const char **names = malloc((p->ncols + 1) * sizeof(*names));
	pm_role *role = malloc((p->ncols + 1) * sizeof(*role));
	size_t *nlevels = malloc((p->ncols + 1) * sizeof(*nlevels));
	const char *const **levels = malloc((p->ncols + 1) * sizeof(*levels));
	pm_status st;

	if (!names || !role || !nlevels || !levels) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t j = 0; j < p->ncols; j++) {
		names[j] = p->col[j].name;
		role[j] = p->col[j].role;
		nlevels[j] = p->col[j].ndistinct;
		levels[j] = (const char *const *)p->col[j].levels;
	}
	st = pm__model_new_additive(p->target, p->ncols, names, role, nlevels, levels, out, err);
	if (st)
		goto out;
	(*out)->scale = scale;
	(*out)->target_scale = p->target_scale;
	for (size_t j = 0; j < p->ncols; j++)
		(*out)->inputs[j].log_scale = p->col[j].log_scale;
	for (size_t k = 0; k < (*out)->nparams; k++) {
		pm_param *pa = &(*out)->params[k];

		switch (pa->desc.kind) {
		case PM_PARAM_COEF:
		case PM_PARAM_LEVEL:
			pa->lo = s->bounds.coef_lo;
			pa->hi = s->bounds.coef_hi;
			break;
		case PM_PARAM_POWER:
		case PM_PARAM_SCALING:
			pa->lo = s->bounds.power_lo;
			pa->hi = s->bounds.power_hi;
			break;
		case PM_PARAM_CONST:
			pa->lo = s->bounds.const_lo;
			pa->hi = s->bounds.const_hi;
			break;
		}
	}
out:
	free(names);
	free(role);
	free(nlevels);
	free(levels);
	return st;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* Run DE on a built problem and model; fills m->value and m->info. */
static pm_status optimise(const pm_problem *p, pm_model *m, const pm_fit_options *o,
			  pm_error *err)
{
	struct cost_ctx c = { p, m, NULL, o->lambda_coef, o->lambda_power, o->reg };
	pm_de_settings ds = { o->seed, o->maxiter, o->popsize, o->tol, o->atol,
			      o->mutation_lo, o->mutation_hi, o->recombination, o->polish };
	double *lo = malloc(m->nparams * sizeof(*lo));
	double *hi = malloc(m->nparams * sizeof(*hi));
	pm_pool *pool = NULL;
	pm_de_result res = { 0 };
	size_t table_len = 0;
	unsigned threads = o->threads ? o->threads : pm__cpu_count();
	pm_status st;

	c.table_at = malloc((m->terms.nfactors + 1) * sizeof(*c.table_at));
	if (!lo || !hi || !c.table_at) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < m->terms.nfactors; k++) {
		c.table_at[k] = table_len;
		table_len += p->col[m->terms.factor[k].input].ndistinct;
	}
	for (size_t k = 0; k < m->nparams; k++) {
		lo[k] = m->params[k].lo;
		hi[k] = m->params[k].hi;
	}
	if ((st = pm__pool_new(threads, &pool, err)))
		goto out;
	st = pm__de_minimize(m->nparams, lo, hi, cost, &c, table_len * sizeof(double), &ds, pool,
			     m->value, &res, err);
	if (st)
		goto out;
	if (!isfinite(res.cost)) {
		st = pm__fail(err, PM_EFIT, "the fit found no finite cost: the model overflows "
				  "everywhere in the bounds (try --scale auto or narrower bounds)");
		goto out;
	}
	m->info.threads_used = pm__pool_threads(pool);
	m->info.generations = res.generations;
	m->info.evaluations = res.evaluations;
	snprintf(m->info.stop, sizeof(m->info.stop), "%s", res.stop);
	m->info.polished = res.polished;
	m->info.cost = res.cost;
out:
	pm__pool_free(pool);
	free(c.table_at);
	free(lo);
	free(hi);
	return st;
}

pm_status pm_fit(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
		 pm_model **out, pm_error *err)
{
	pm_spec *rs = NULL;
	pm_problem p = { 0 };
	pm_model *m = NULL;
	double *pred = NULL;
	struct timespec t0;
	pm_status st;

	*out = NULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((st = check_options(o, err)) || (st = pm__spec_copy(s, &rs, err)) ||
	    (st = pm_spec_resolve(rs, d, err)) ||
	    (st = pm__problem_build(d, rs, o->scale, &p, err)) ||
	    (st = new_model(&p, rs, o->scale, &m, err)))
		goto out;
	if (p.nrows < m->nparams) {
		st = pm__fail(err, PM_EINVAL,
			      "%zu rows but %zu unknowns: a fit needs at least as many rows",
			      p.nrows, m->nparams);
		goto out;
	}
	if ((st = optimise(&p, m, o, err)))
		goto out;
	pm__model_raw(m);
	m->has_fit_info = 1;
	m->info.options = *o;
	snprintf(m->info.data_name, sizeof(m->info.data_name), "%s", pm_dataset_name(d));
	pm_dataset_fingerprint(d, m->info.fingerprint);
	pred = malloc(p.nrows * sizeof(*pred));
	if (!pred) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	/* Training accuracy through the public predictor: what a user gets. */
	if ((st = pm_model_predict_dataset(m, d, pred, err)) ||
	    (st = pm_metrics_compute(p.t_raw, pred, p.nrows, m->nparams, &m->info.training, err)))
		goto out;
	m->info.wall_time_s = seconds_since(&t0);
	*out = m;
	m = NULL;
out:
	free(pred);
	pm_model_free(m);
	pm__problem_free(&p);
	pm_spec_free(rs);
	return st;
}
