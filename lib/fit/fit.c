/* pm_fit: eq. 4.4 fitted by differential evolution (DESIGN.md §3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/pool.h"
#include "core/stop.h"
#include "fit/afterfit.h"
#include "fit/blocks.h"
#include "fit/cost.h"
#include "fit/de.h"
#include "fit/holdout.h"
#include "fit/identify.h"
#include "fit/polish.h"
#include "fit/problem.h"
#include "fit/smooth.h"
#include "fit/undetermined.h"
#include "fit/varpro.h"
#include "fit/warm.h"
#include "model/model_impl.h"
#include "spec/leak.h"
#include "spec/spec_impl.h"

pm_fit_options pm_fit_options_default(void)
{
	return pm_fit_options_engine(PM_ENGINE_VARPRO);
}

const char *pm_engine_name(pm_engine engine)
{
	switch (engine) {
	case PM_ENGINE_VARPRO: return "varpro";
	case PM_ENGINE_DE: return "de";
	}
	return NULL;
}

/* Varpro searches the powers alone, a landscape far smaller and smoother
 * than DE's: a population of 10 per power finds the same optimum from
 * every seed on the bundled data, where 15 costs half as much again for
 * nothing. Its stop is tighter: with exact coefficients the costs of a
 * population agree to 1 % long before its powers do (tol 0.01 ended seeds
 * in different basins; 0.001 in one). docs/benchmarks.md, "Engines". */
pm_fit_options pm_fit_options_engine(pm_engine engine)
{
	int de = engine == PM_ENGINE_DE;

	return (pm_fit_options){
		.engine = de ? PM_ENGINE_DE : PM_ENGINE_VARPRO,
		.seed = 1,
		.threads = 0,
		.maxiter = 1000,
		.popsize = de ? 15 : 10,
		.tol = de ? 0.01 : 0.001,
		.atol = 0.0,
		.mutation_lo = 0.5,
		.mutation_hi = 1.0,
		.recombination = 0.7,
		.polish = 1,
		.scale = PM_SCALE_AUTO,
		.loss = PM_LOSS_MAE,
		.reg = PM_REG_NONE,
		.lambda_coef = 0.0,
		.lambda_power = 0.0,
		.split_seed = 1,
	};
}

/* An exchange rather than a store: the CLI's handler needs to know whether
 * this is the second signal, and a handler on another thread may be setting
 * it too (core/stop.h). */
int pm_request_stop(volatile sig_atomic_t *stop)
{
	return stop && __atomic_exchange_n(stop, 1, __ATOMIC_RELAXED) != 0;
}

static pm_status check_options(const pm_fit_options *o, pm_error *err)
{
	if (!pm_engine_name(o->engine))
		return pm__fail(err, PM_EINVAL, "unknown engine");
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
	if (!(o->test_fraction >= 0 && o->test_fraction < 1))
		return pm__fail(err, PM_EINVAL, "the test fraction must be in [0, 1)");
	if (!pm_loss_name(o->loss))
		return pm__fail(err, PM_EINVAL, "unknown loss");
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
	st = pm__model_new(p->target, p->ncols, names, role, nlevels, levels, s->form, out, err);
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
		case PM_PARAM_LOGMULT:	/* keeps the model's: no spec bound */
		case PM_PARAM_INVALID:	/* not a kind a parameter has */
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

/* Evaluations each polish stage may spend, per unknown. After DE,
 * generous: DE often stops at maxiter far from converged (eq. 4.4 on real
 * data is badly conditioned), and the polish then does much of the work.
 * After varpro, whose point has its coefficients solved and its powers
 * converged, a tenth: on the bundled data a tenth ends within 0.003 % of
 * the full budget's cost, in a tenth of the time (docs/benchmarks.md). */
#define POLISH_FEV_PER_PARAM_DE 1000
#define POLISH_FEV_PER_PARAM_VARPRO 100

/* Finish DE's best point with a local search (DESIGN.md §3): gradient
 * descent on a smoothed cost (fast downhill), Nelder–Mead on the true cost
 * (no gradient: it goes on where the smoothed cost's minimum, which is not
 * the true one, stopped the descent), gradient descent again (to finish
 * what Nelder–Mead found). Each stage keeps only a strictly
 * better point. The stages are serial, so with enough rows each evaluation
 * is split over the pool's threads in fixed blocks of rows (blocks.h):
 * deterministic, and x and *cost change only if the blocked cost of the
 * result is below that of DE's point. A stop request is honoured at the
 * next evaluation (each takes milliseconds on 300 000 rows): the stage
 * then ends at its best point, and the later stages do not run. The
 * blocks compile their own costs: DE's c is then freed first (on many rows
 * its per-row arrays are a good part of the fit's peak memory). */
static pm_status polish(pm_cost *c, const pm_fit_options *o, pm_pool *pool,
			const double *lo, const double *hi, size_t per_param, double *x,
			double *cost, uint64_t *evals, volatile sig_atomic_t *stop, pm_error *err)
{
	const pm_problem *p = c->p;
	const pm_model *m = c->m;
	int blocked = pm__blocks_count(p->nrows) > 1;
	size_t n = m->nparams, budget = per_param * n;
	size_t sb = blocked ? 0 : c->scratch_bytes;	/* the blocks have their own */
	double *scratch = malloc(sb + n * sizeof(double));
	double *xp = scratch ? (double *)(void *)((char *)scratch + sb) : NULL;
	pm_blocks b = { 0 };
	pm_cost_fn f = pm__cost_value;
	pm_smooth_fn fg = pm__cost_smooth;
	void *ctx = (void *)c;
	double fp = *cost;
	pm_status st = PM_OK;

	if (!scratch)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if (blocked) {
		pm__cost_free(c);
		if ((st = pm__blocks_init(&b, p, m, o, pool, err)))
			goto out;
		f = pm__blocks_value;
		fg = pm__blocks_smooth;
		ctx = &b;
		/* the blocked cost differs from DE's by rounding: compare like
		 * with like */
		fp = f(x, ctx, NULL);
		++*evals;
	}
	memcpy(xp, x, n * sizeof(*xp));
	/* smoothing widths start at a tenth of the cost: in the cost's units */
	st = pm__polish_smooth(n, lo, hi, fg, f, ctx, scratch, 0.1 * fp, budget, stop, xp, &fp,
			       evals, err);
	if (!st && !pm__stop_requested(stop))
		st = pm__polish(n, lo, hi, f, ctx, scratch, budget, stop, xp, &fp, evals, err);
	if (!st && !pm__stop_requested(stop))
		st = pm__polish_smooth(n, lo, hi, fg, f, ctx, scratch, 0.1 * fp, budget, stop, xp,
				       &fp, evals, err);
	if (!st && memcmp(xp, x, n * sizeof(*xp)) != 0) {
		memcpy(x, xp, n * sizeof(*x));
		*cost = fp;
	}
out:
	pm__blocks_free(&b);
	free(scratch);
	return st;
}

/* Rows costed a generation per thread, at least: a DE generation is one
 * job for the pool, and a share smaller than this (about 20 µs) gains less
 * than the threads' hand-offs cost. `tune_bench DATA SPEC threads`
 * (bench/tune_bench.c) times a generation of K members x R rows on one and
 * on two threads; the constant is the K·R from which two win. It was set
 * from a GEMM fit (100 rows, 60 members: 6000 rows a generation) whose DE
 * took 0.93 ms on one thread and 1.2-2.9 ms on two, a sleeping thread
 * taking up to 100 µs to wake (docs/benchmarks.md, "Two threads"). The
 * bench on a 2-CPU machine shared with other jobs (load 5) gave ratios of
 * 0.6 to 1.7 at every size, noise: measure on an idle machine before
 * changing it. */
#define ROWS_PER_THREAD 8192

/* The threads a fit uses: as asked (0: every CPU), but no more than its
 * generations have shares of ROWS_PER_THREAD rows (a varpro trial counts
 * PM_VARPRO_ROW_WORK times its rows); the polish's blocks
 * (blocks.h) start at 600 rows, far above. The results do not depend on
 * it; info.threads_used reports it. */
static unsigned fit_threads(const pm_problem *p, const pm_model *m, const pm_fit_options *o,
			    int varpro)
{
	unsigned asked = o->threads ? o->threads : pm_cpu_count();
	double members = varpro ? (double)pm__de_members(o->popsize, pm__varpro_searched(m)) *
					  PM_VARPRO_ROW_WORK
				: (double)pm__de_members(o->popsize, m->nparams);
	double shares = floor(members * (double)p->nrows / ROWS_PER_THREAD);

	return shares < 1.0 ? 1 : shares < (double)asked ? (unsigned)shares : asked;
}

/* DE over the nonlinear parameters alone, the coefficients solved for
 * each trial (varpro.h); x gets the full point. Without nonlinear
 * parameters (a formula of fixed powers) there is nothing to search: the
 * coefficients are solved once. */
static pm_status search_varpro(pm_cost *c, const pm_fit_options *o, const pm_de_settings *ds,
			       pm_pool *pool, const double *lo, const double *hi, double *x,
			       pm_de_result *res, pm_error *err)
{
	pm_varpro v;
	pm_de_settings tds = *ds;
	/* the bounds, then a warm start's start and radius, of the searched */
	double *theta = NULL, *tlo = NULL, *thi = NULL, *tstart, *tradius;
	void *scratch = NULL;
	pm_status st;

	if ((st = pm__varpro_init(&v, c, o, err)))
		return st;
	theta = malloc((v.nnon + 1) * sizeof(double));
	tlo = malloc((v.nnon + 1) * 4 * sizeof(double));
	thi = tlo ? tlo + v.nnon + 1 : NULL;
	tstart = thi ? thi + v.nnon + 1 : NULL;
	tradius = tstart ? tstart + v.nnon + 1 : NULL;
	scratch = aligned_alloc(64, v.scratch_bytes);
	if (!theta || !tlo || !scratch) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t j = 0; j < v.nnon; j++) {
		tlo[j] = lo[v.non[j]];
		thi[j] = hi[v.non[j]];
		if (ds->start) {
			tstart[j] = ds->start[v.non[j]];
			tradius[j] = ds->radius[v.non[j]];
		}
	}
	if (ds->start) {
		tds.start = tstart;
		tds.radius = tradius;
	}
	if (v.nnon > 0) {
		st = pm__de_minimize(v.nnon, tlo, thi, pm__varpro_value, &v, v.scratch_bytes, &tds,
				     pool, theta, res, err);
		if (st)
			goto out;
	} else {
		*res = (pm_de_result){ .stop = "converged" };
	}
	/* DE's best again, its coefficients with it: the same numbers as
	 * when DE costed it */
	pm__varpro_solve(&v, theta, x, scratch);
	res->cost = pm__cost_value(x, c, scratch);
out:
	free(theta);
	free(tlo);
	free(scratch);
	pm__varpro_free(&v);
	return st;
}

/* Run DE on a built problem and model, from w's start if it has one;
 * fills m->value and m->info. */
static pm_status optimise(const pm_problem *p, pm_model *m, const pm_fit_options *o,
			  const pm_warm *w, pm_error *err)
{
	pm_cost c = { 0 };
	pm_de_settings ds = { .seed = o->seed, .maxiter = o->maxiter, .popsize = o->popsize,
			      .tol = o->tol, .atol = o->atol, .mutation_lo = o->mutation_lo,
			      .mutation_hi = o->mutation_hi, .recombination = o->recombination,
			      .stop = o->stop, .progress = o->progress,
			      .progress_arg = o->progress_arg };
	double *lo = malloc(m->nparams * sizeof(*lo));
	double *hi = malloc(m->nparams * sizeof(*hi));
	pm_pool *pool = NULL;
	pm_de_result res = { 0 };
	/* a model whose coefficients are not all linear (none the forms and
	 * formulas make today) is searched by DE whatever was asked, and
	 * says so in its fit record */
	int varpro = o->engine == PM_ENGINE_VARPRO && pm__varpro_applies(m);
	unsigned threads = fit_threads(p, m, o, varpro);
	pm_status st;

	if (!lo || !hi) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	pm__warm_settings(w, &ds);
	for (size_t k = 0; k < m->nparams; k++) {
		lo[k] = m->params[k].lo;
		hi[k] = m->params[k].hi;
	}
	if ((st = pm__cost_init(&c, p, m, o, err)) || (st = pm__pool_new(threads, &pool, err)))
		goto out;
	m->info.options.engine = varpro ? PM_ENGINE_VARPRO : PM_ENGINE_DE;
	if (varpro)
		st = search_varpro(&c, o, &ds, pool, lo, hi, m->value, &res, err);
	else
		st = pm__de_minimize(m->nparams, lo, hi, pm__cost_value, &c, c.scratch_bytes, &ds,
				     pool, m->value, &res, err);
	/* DE's own PM_EFIT speaks of its population; say it in the user's terms
	 * (an interrupted one says so already) */
	if ((st == PM_EFIT && !pm__stop_requested(o->stop)) || (!st && !isfinite(res.cost))) {
		st = pm__fail(err, PM_EFIT, "the fit found no finite cost: the model overflows "
				  "everywhere in the bounds (try --scale auto or narrower bounds)");
		goto out;
	}
	if (st)
		goto out;
	m->info.cost = res.cost;
	m->info.evaluations = res.evaluations;
	if (o->polish && !pm__stop_requested(o->stop) &&
	    (st = polish(&c, o, pool, lo, hi,
			 pm__warm_polish(w, varpro ? POLISH_FEV_PER_PARAM_VARPRO
						   : POLISH_FEV_PER_PARAM_DE), m->value,
			 &m->info.cost, &m->info.evaluations, o->stop, err)))
		goto out;
	m->info.polished = m->info.cost < res.cost;
	m->info.threads_used = pm__pool_threads(pool);
	m->info.generations = res.generations;
	/* a stop request seen anywhere in DE or the polish: what we have is
	 * the best point so far, not the end of the search */
	m->info.interrupted = pm__stop_requested(o->stop);
	snprintf(m->info.stop, sizeof(m->info.stop), "%s",
		 m->info.interrupted ? "interrupted" : res.stop);
out:
	pm__pool_free(pool);
	pm__cost_free(&c);
	free(lo);
	free(hi);
	return st;
}

/* Each level is an unknown that needs rows of its own; a categorical with
 * more levels than half the rows is far more likely a numeric column with a
 * typo, or an identifier, than a real category. */
static pm_status check_levels(const pm_problem *p, const char *file, pm_error *err)
{
	for (size_t j = 0; j < p->ncols; j++)
		if (p->col[j].role == PM_ROLE_CATEGORICAL && p->col[j].ndistinct > p->nrows / 2)
			return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
					   "categorical column '%s' has %zu levels in %zu rows "
					   "(more than half): a numeric column with a typo, or an "
					   "identifier?", p->col[j].name, p->col[j].ndistinct,
					   p->nrows);
	return PM_OK;
}

/* A target derived from worker times (fit --target lif): the model says
 * from which columns, so that eval and report can derive it from new data. */
static pm_status keep_workers(pm_model *m, const pm_spec *s, pm_error *err)
{
	if (strcmp(s->target, PM_LIF_COLUMN) || !s->workers.n)
		return PM_OK;
	return pm__model_set_workers(m, s->workers.n, (const char *const *)s->workers.name, err);
}

/* What the target measures: the model predicts the time scale and converts
 * with the same columns (resolved: numeric inputs). */
static pm_status keep_kind(pm_model *m, const pm_spec *s, pm_error *err)
{
	return pm__model_set_target_kind(m, s->kind, s->resource, s->per, err);
}

/* Predictions equal within this relative spread are one value: rounding in
 * a sum of terms whose coefficients are 0 (or as good as) leaves ulps. */
#define CONSTANT_SPREAD 1e-9

/* A fit that predicts one value for every training row says nothing about
 * its inputs, though its table of parameters looks like a finding: eq. 4.4
 * with all a, b at 0, a formula whose terms vanish on these rows, a model
 * of no inputs. Flag it (info.constant) and say so (a warning), so that a
 * reader and pm_select do not take it for a model of the inputs. */
static pm_status check_constant(pm_model *m, const double *pred, size_t n, pm_error *err)
{
	double lo = INFINITY, hi = -INFINITY;
	char names[200] = "";
	size_t used = 0;

	for (size_t r = 0; r < n; r++) {
		lo = fmin(lo, pred[r]);
		hi = fmax(hi, pred[r]);
	}
	if (n < 2 || !(hi - lo <= CONSTANT_SPREAD * fmax(fabs(lo), fabs(hi))))
		return PM_OK;
	m->info.constant = 1;
	for (size_t i = 0; i < m->ninputs && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
					 i ? ", " : "", m->inputs[i].name);
	if (!m->ninputs)
		return pm__model_add_warning(m, err, "constant fit: the model has no inputs and "
					     "predicts %s = %.6g for every row; name the columns "
					     "it depends on (--intrinsic, --categorical, "
					     "--extrinsic)", m->target, lo);
	/* the formula C: chosen (discover, select) or asked for, it says the
	 * inputs do not move the time, which is a finding, not a failed form */
	if (m->formula && pm__spec_is_constant_alone(m->formula))
		return pm__model_add_warning(m, err, "constant fit: the model is %s = %.6g, "
					     "whatever %s: no term of them held out better than "
					     "the constant (check that the runs varied what was "
					     "meant to vary)", m->target, lo, names);
	return pm__model_add_warning(m, err, "constant fit: the model predicts %s = %.6g for "
				     "all %zu training rows, whatever %s: either the time does "
				     "not depend on them or the form cannot follow how it does "
				     "(perfmodel select compares forms)",
				     m->target, lo, n, names);
}

/* pm_fit of every row of d: o holds no rows out. */
static pm_status fit_rows(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			  pm_model **out, pm_error *err)
{
	pm_spec *rs = NULL;
	pm_problem p = { 0 };
	pm_model *m = NULL;
	double *pred = NULL;
	unsigned char *named = NULL;	/* columns a warning before the fit names */
	pm_warm warm = { 0 };
	struct timespec t0;
	pm_status st;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((st = check_options(o, err)) || (st = pm__spec_copy(s, &rs, err)) ||
	    (o->warm_start && (st = pm__warm_form(rs, o->warm_start, err))) ||
	    (st = pm__spec_formula_roles(rs, d, err)) || (st = pm_spec_resolve(rs, d, err)) ||
	    (st = pm__problem_build(d, rs, o->scale, o->loss, &p, err)) ||
	    (st = new_model(&p, rs, o->scale, &m, err)) || (st = keep_workers(m, rs, err)) ||
	    (st = keep_kind(m, rs, err)) || (st = pm__leak_warnings(d, rs, m, err)) ||
	    (o->warm_start && (st = pm__warm_init(o->warm_start, m, &warm, err))))
		goto out;
	if (p.nrows < m->nparams) {
		st = pm__fail(err, PM_EINVAL,
			      "%zu rows but %zu unknowns: a fit needs at least as many rows",
			      p.nrows, m->nparams);
		goto out;
	}
	if (!(named = calloc(p.ncols + 1, 1))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = check_levels(&p, pm_dataset_name(d), err)) ||
	    (st = pm__fit_identify(&p, m, named, err)))
		goto out;
	m->info.options = *o;
	m->info.options.stop = NULL;	/* the caller's flag: not the model's to keep */
	m->info.options.progress = NULL;
	m->info.options.progress_arg = NULL;
	m->info.options.warm_start = NULL;	/* recorded below, not kept */
	if (o->warm_start)
		pm__warm_record(m, o->warm_start);
	if ((st = optimise(&p, m, o, &warm, err)) ||	/* records the engine that ran */
	    (st = pm__fit_undetermined(&p, m, err)))
		goto out;
	pm__model_raw(m);
	m->has_fit_info = 1;
	snprintf(m->info.data_name, sizeof(m->info.data_name), "%s", pm_dataset_name(d));
	pm_dataset_fingerprint(d, m->info.fingerprint);
	pm_dataset_weights(d, &m->info.weights);
	if ((st = pm__model_set_repetitions(m, p.nrows, pm_dataset_reps(d), pm_dataset_cv(d), p.w,
					    err)))
		goto out;
	pred = malloc(p.nrows * sizeof(*pred));
	if (!pred) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	/* Training accuracy through the public predictor: what a user gets. */
	if ((st = pm_model_predict_dataset(m, d, pred, err)) ||
	    (st = pm_metrics_compute(p.t_raw, pred, p.nrows, m->nparams, &m->info.training, err)) ||
	    (st = check_constant(m, pred, p.nrows, err)) ||
	    (st = pm__fit_after(&p, m, o, pred, named, err)))
		goto out;
	m->info.wall_time_s = seconds_since(&t0);
	*out = m;
	m = NULL;
out:
	pm__warm_free(&warm);
	free(named);
	free(pred);
	pm_model_free(m);
	pm__problem_free(&p);
	pm_spec_free(rs);
	return st;
}

pm_status pm__fit_held_out(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			   pm_model **out, pm_error *err)
{
	pm_fit_options inner;
	pm_dataset *train = NULL, *test = NULL;
	char what[512] = "";
	pm_status st;

	*out = NULL;
	if (o->validate.scheme == PM_SCHEME_KFOLD || o->validate.scheme == PM_SCHEME_LOO)
		return pm__fail(err, PM_EINVAL, "folds validate a fit: pm_fit's, not a held-out fit's");
	if (!(o->test_fraction > 0) && !o->test && !o->validate.scheme)
		return fit_rows(d, s, o, out, err);
	/* the held-out rows are set apart here: the fit itself sees none */
	inner = *o;
	inner.test_fraction = 0;
	inner.test = NULL;
	inner.validate.scheme = PM_SCHEME_NONE;
	if (!(st = pm__holdout_split(d, s, o, &train, &test, what, err)) &&
	    !(st = fit_rows(train ? train : d, s, &inner, out, err)) &&
	    (st = pm__holdout_record(*out, d, test ? test : o->test, o, what, err))) {
		pm_model_free(*out);
		*out = NULL;
	}
	pm_dataset_free(train);
	pm_dataset_free(test);
	return st;
}
