/* pm__fit_each and pm__fit_batch: many independent fits at once, on the
 * library's pool (fit/fit_batch.h). */
#include <stdatomic.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/pool.h"
#include "core/stop.h"
#include "fit/fit_batch.h"

struct batch {
	pm_fit_fn fit;
	const pm_dataset *const *d;
	const pm_spec *const *s;
	const pm_fit_options *o;
	pm_model **model;
	pm_status *st;
	pm_error *err;
	size_t n, always;
	atomic_uint done;	/* fits finished */
	/* the caller's progress callback, which the fits report through */
	void (*progress)(const pm_progress *p, void *arg);
	void *progress_arg;
};

/* Each fit writes only its own slots: no order between fits matters. A fit
 * not begun when a stop request comes is not begun at all: even stopped at
 * once, a fit on many rows spends a good part of a second building its
 * problem and measuring its model. */
static void fit_one(void *ctx, size_t i, unsigned worker)
{
	struct batch *b = ctx;

	(void)worker;
	if (i < b->always || !pm__stop_requested(b->o[i].stop))
		b->st[i] = b->fit(b->d[i], b->s[i], &b->o[i], &b->model[i], &b->err[i]);
	atomic_fetch_add(&b->done, 1);
}

/* A fit's report, with the batch's count of fits added. */
static void batch_progress(const pm_progress *p, void *arg)
{
	struct batch *b = arg;
	pm_progress q = *p;

	q.fits = (unsigned)b->n;
	q.fits_done = atomic_load(&b->done);
	b->progress(&q, b->progress_arg);
}

pm_status pm__fit_each(pm_fit_fn fit, size_t n, size_t always, const pm_dataset *const *d,
		       const pm_spec *const *s, pm_fit_options *o, unsigned threads,
		       pm_model **model, pm_status *st, pm_error *err, pm_error *batch_err)
{
	struct batch b = { .fit = fit, .d = d, .s = s, .o = o, .model = model, .st = st,
			   .err = err, .n = n, .always = always };
	unsigned workers;
	pm_pool *pool = NULL;
	pm_status pst;

	for (size_t i = 0; i < n; i++) {
		model[i] = NULL;
		st[i] = PM_OK;
		err[i] = (pm_error){ 0 };
	}
	if (n == 0)
		return PM_OK;
	atomic_init(&b.done, 0);
	b.progress = o[0].progress;
	b.progress_arg = o[0].progress_arg;
	/* Whole fits in parallel first: they share nothing, whereas one fit
	 * synchronises its threads every generation and polishes serially. */
	threads = threads ? threads : pm_cpu_count();
	workers = threads < n ? threads : (unsigned)n;
	for (size_t i = 0; i < n; i++) {
		o[i].threads = threads / workers;
		/* the batch's fits share the first one's callback */
		o[i].progress = b.progress ? batch_progress : NULL;
		o[i].progress_arg = &b;
	}
	if ((pst = pm__pool_new(workers, &pool, batch_err)))
		return pst;
	pm__pool_for(pool, n, fit_one, &b);
	pm__pool_free(pool);
	return PM_OK;
}

pm_status pm__fit_batch(pm_fit_fn fit, size_t n, size_t always, const pm_dataset *const *d,
			const pm_spec *s, pm_fit_options *o, unsigned threads, pm_model **model,
			pm_error *err)
{
	const pm_spec **specs = calloc(n ? n : 1, sizeof(*specs));
	pm_status *sts = calloc(n ? n : 1, sizeof(*sts)), st;
	pm_error *errs = calloc(n ? n : 1, sizeof(*errs));

	for (size_t i = 0; i < n; i++)
		model[i] = NULL;
	if (!specs || !sts || !errs) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		specs[i] = s;
	st = pm__fit_each(fit, n, always, d, specs, o, threads, model, sts, errs, err);
	for (size_t i = 0; i < n && !st; i++) {
		st = sts[i];
		if (st && err)
			*err = errs[i];
	}
	if (st)
		for (size_t i = 0; i < n; i++) {
			pm_model_free(model[i]);
			model[i] = NULL;
		}
out:
	free(specs);
	free(sts);
	free(errs);
	return st;
}
