/* pm_fit_seeds: the thesis's K fits with consecutive seeds, mean ± std of
 * every parameter (Tables 4.2/4.3), the best fit kept. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "fit/fit_batch.h"
#include "model/model_impl.h"
#include "select/interval_fit.h"

/* A seed's fit that ran to its end: not cut short by a stop request, and
 * not left unbegun by one (model NULL). */
static int completed(const pm_model *m)
{
	return m && !m->info.interrupted;
}

/* Move the values of every completed seed into the best model and set its
 * std over them: a seed cut short would pull the mean towards wherever its
 * search happened to be. */
static pm_status gather(pm_model *best, pm_model *const *model, unsigned nseeds,
			uint64_t seed0, pm_error *err)
{
	size_t np = best->nparams, n = 0;

	best->info.seeds_asked = nseeds;
	best->seed = malloc(nseeds * sizeof(*best->seed));
	best->seed_cost = malloc(nseeds * sizeof(*best->seed_cost));
	best->seed_value = malloc((size_t)nseeds * np * sizeof(*best->seed_value) + 1);
	if (!best->seed || !best->seed_cost || !best->seed_value)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (unsigned i = 0; i < nseeds; i++) {
		if (!completed(model[i]))
			continue;
		best->seed[n] = seed0 + i;
		best->seed_cost[n] = model[i]->info.cost;
		memcpy(best->seed_value + n * np, model[i]->raw, np * sizeof(double));
		n++;
	}
	best->nseeds = n;
	for (size_t k = 0; k < np && n; k++) {
		double mean = pm_model_param_mean(best, k), ss = 0.0;

		for (size_t i = 0; i < n; i++) {
			double dv = best->seed_value[(size_t)i * np + k] - mean;

			ss += dv * dv;
		}
		best->params[k].std = sqrt(ss / n);
	}
	return PM_OK;
}

pm_status pm_fit_seeds(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
		       unsigned nseeds, pm_model **out, pm_error *err)
{
	pm_model **model = NULL;
	pm_fit_options *opt = NULL;
	const pm_dataset **rows = NULL;
	unsigned best = 0, threads;
	struct timespec t0, t1;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the model");
	*out = NULL;
	if (!o || nseeds == 0)
		return pm__fail(err, PM_EINVAL, "no options, or no seeds to fit");
	if (nseeds == 1)
		return pm_fit(d, s, o, out, err);
	if (o->seed > UINT64_MAX - (nseeds - 1))
		return pm__fail(err, PM_EINVAL, "seeds %llu + %u run past the largest seed",
				(unsigned long long)o->seed, nseeds);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	model = calloc(nseeds, sizeof(*model));
	opt = malloc(nseeds * sizeof(*opt));
	rows = malloc(nseeds * sizeof(*rows));
	if (!model || !opt || !rows) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < nseeds; i++) {
		opt[i] = *o;
		opt[i].seed = o->seed + i;
		opt[i].intervals = 0;	/* the best seed's alone, below */
		rows[i] = d;
	}
	/* the first seed's fit always runs: there is a model to return */
	if ((st = pm__fit_batch(pm_fit, nseeds, 1, rows, s, opt, o->threads, model, err)))
		goto out;
	/* the lowest cost of the fits that ran, cut short or not: the best
	 * model so far */
	for (unsigned i = 1; i < nseeds; i++)
		if (model[i] && model[i]->info.cost < model[best]->info.cost)
			best = i;
	if ((st = gather(model[best], model, nseeds, o->seed, err)))
		goto out;
	/* a stop request cut the run short: the saved model says so (its
	 * seeds are those that completed) */
	if (model[best]->nseeds < nseeds) {
		model[best]->info.interrupted = 1;
		snprintf(model[best]->info.stop, sizeof(model[best]->info.stop), "interrupted");
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	threads = o->threads ? o->threads : pm_cpu_count();
	model[best]->info.wall_time_s =
		(double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	/* fits ran side by side, each on info.threads_used threads */
	model[best]->info.threads_used *= threads < nseeds ? threads : nseeds;
	model[best]->info.options.threads = o->threads;
	model[best]->info.options.intervals = o->intervals;
	if ((st = pm__fit_intervals(model[best], d, s, o, err)))
		goto out;
	*out = model[best];
	model[best] = NULL;
out:
	for (unsigned i = 0; model && i < nseeds; i++)
		pm_model_free(model[i]);
	free(model);
	free(opt);
	free(rows);
	return st;
}
