/* Many independent fits at once. Private to the library. */
#ifndef PM_FIT_BATCH_H
#define PM_FIT_BATCH_H

#include "perfmodel/perfmodel.h"

/* A fit of d by s and o: pm_fit (select/), or pm__fit_held_out
 * (fit/holdout.h) where pm_fit's own steps would call back (the
 * intervals' fold fits). */
typedef pm_status (*pm_fit_fn)(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			       pm_model **out, pm_error *err);

/* model[i] = fit(d[i], s[i], &o[i]) for i < n, whole fits running side by
 * side on up to `threads` threads (0: all CPUs), each fit given an equal
 * share (o[i].threads is overwritten), fit i's status in st[i] and its
 * error in err[i]. A fit i >= always that has not begun when *o[i].stop
 * becomes nonzero is skipped: model[i] stays NULL, st[i] PM_OK (the first
 * `always` fits always run, stopped at once if need be). The fits report
 * progress through o[0]'s callback, with pm_progress.fits and fits_done
 * set (o[i].progress and progress_arg are overwritten and valid only
 * during the call). Every fit is deterministic, so the results do not
 * depend on `threads`. Returns an error (in *batch_err) only when the
 * batch itself could not run: then no fit ran. */
pm_status pm__fit_each(pm_fit_fn fit, size_t n, size_t always, const pm_dataset *const *d,
		       const pm_spec *const *s, pm_fit_options *o, unsigned threads,
		       pm_model **model, pm_status *st, pm_error *err, pm_error *batch_err);

/* pm__fit_each of one spec s, all or nothing: on failure every model[i] is
 * NULL and err is the first failing fit's, in index order. */
pm_status pm__fit_batch(pm_fit_fn fit, size_t n, size_t always, const pm_dataset *const *d,
			const pm_spec *s, pm_fit_options *o, unsigned threads, pm_model **model,
			pm_error *err);

#endif
