#include <criterion/criterion.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(progress);

#define MAX_CALLS 2000

struct log {
	size_t n;
	pm_progress call[MAX_CALLS];
};

static void record(const pm_progress *p, void *arg)
{
	struct log *l = arg;

	if (l->n < MAX_CALLS)
		l->call[l->n++] = *p;
}

static pm_fit_options options(void)
{
	pm_fit_options o = pm_fit_options_default();

	o.maxiter = 60;
	o.threads = 2;
	o.polish = 0;	/* so that every evaluation is DE's */
	o.seed = 3;
	return o;
}

/* pm_fit_seeds (one seed: pm_fit) on synthetic rows made with data_seed. */
static pm_model *fit(const pm_fit_options *o, unsigned nseeds, uint64_t data_seed)
{
	pm_dataset *d = syn_dataset(120, 0.05, data_seed);
	pm_spec *s = syn_spec();
	pm_model *m = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_fit_seeds(d, s, o, nseeds, &m, &err), PM_OK, "%s", err.msg);
	pm_spec_free(s);
	pm_dataset_free(d);
	return m;
}

Test(progress, every_generation_is_reported_in_order)
{
	pm_fit_options o = options();
	struct log *l = calloc(1, sizeof(*l));

	o.progress = record;
	o.progress_arg = l;
	pm_model *m = fit(&o, 1, 21);
	const pm_fit_info *fi = pm_model_fit_info(m);

	cr_assert_eq(l->n, fi->generations + 1, "the initial population and each generation");
	for (size_t i = 0; i < l->n; i++) {
		cr_assert_eq(l->call[i].generation, i);
		cr_assert_eq(l->call[i].seed, 3);
		cr_assert_eq(l->call[i].maxiter, 60);
		cr_assert(l->call[i].convergence >= 0);
		if (i > 0) {
			cr_assert_gt(l->call[i].evaluations, l->call[i - 1].evaluations);
			cr_assert_leq(l->call[i].best_cost, l->call[i - 1].best_cost,
				      "selection never loses the best");
		}
	}
	cr_assert_eq(l->call[l->n - 1].evaluations, fi->evaluations);
	cr_assert_eq(l->call[l->n - 1].best_cost, fi->cost);
	/* the measure is the stopping rule's: <= 1 exactly when DE converged */
	cr_assert_eq(l->call[l->n - 1].convergence <= 1, strcmp(fi->stop, "converged") == 0,
		     "stop %s, convergence %g", fi->stop, l->call[l->n - 1].convergence);
	cr_assert_null(fi->options.progress, "the caller's callback is not the model's");
	cr_assert_null(fi->options.progress_arg);
	pm_model_free(m);
	free(l);
}

Test(progress, watching_does_not_change_the_fit)
{
	pm_fit_options o = options();
	struct log *l = calloc(1, sizeof(*l));
	pm_model *a = fit(&o, 1, 22), *b;

	o.progress = record;
	o.progress_arg = l;
	b = fit(&o, 1, 22);
	cr_assert_gt(l->n, 1);
	for (size_t k = 0; k < pm_model_nparams(a); k++) {
		double x = pm_model_param_value(a, k), y = pm_model_param_value(b, k);

		cr_assert(memcmp(&x, &y, sizeof(x)) == 0, "parameter %zu", k);
	}
	pm_model_free(a);
	pm_model_free(b);
	free(l);
}

/* pm_fit_seeds runs fits side by side: the callback hears from each seed,
 * from several threads, and must not need a lock of the library's. */
static atomic_uint seen[4];

static atomic_uint batch_fits, most_done, single_fits;

static void count(const pm_progress *p, void *arg)
{
	unsigned done = p->fits_done, m = atomic_load(&most_done);

	(void)arg;
	if (p->seed >= 1 && p->seed <= 4)
		atomic_fetch_add(&seen[p->seed - 1], 1);
	atomic_store(&batch_fits, p->fits);
	while (done > m && !atomic_compare_exchange_weak(&most_done, &m, done))
		;
}

Test(progress, every_seed_reports)
{
	pm_fit_options o = options();

	o.seed = 1;
	o.maxiter = 20;
	o.progress = count;
	pm_model_free(fit(&o, 4, 23));
	for (int i = 0; i < 4; i++)
		cr_assert_gt(atomic_load(&seen[i]), 0, "seed %d", i + 1);
	/* a batch says how many fits it has and how many are done: with two
	 * threads two fits run at once, so one reports after another ended */
	cr_assert_eq(atomic_load(&batch_fits), 4);
	cr_assert_geq(atomic_load(&most_done), 1);
	cr_assert_lt(atomic_load(&most_done), 4, "no report after the last fit ended");
}

static void single(const pm_progress *p, void *arg)
{
	(void)arg;
	atomic_fetch_add(&single_fits, p->fits + p->fits_done);
}

Test(progress, a_fit_on_its_own_is_no_batch)
{
	pm_fit_options o = options();

	o.maxiter = 5;
	o.progress = single;
	pm_model_free(fit(&o, 1, 24));
	cr_assert_eq(atomic_load(&single_fits), 0);
}
