#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(seeds);

static pm_fit_options quick(unsigned threads)
{
	pm_fit_options o = pm_fit_options_default();

	o.maxiter = 30;
	o.threads = threads;
	o.seed = 5;
	return o;
}

/* Every number a repeated fit reports, as one array. */
static double *results(const pm_model *m, size_t *n)
{
	size_t np = pm_model_nparams(m), ns = pm_model_nseeds(m), j = 0;
	double *r = malloc((np * (ns + 3) + ns) * sizeof(*r));

	for (size_t k = 0; k < np; k++) {
		r[j++] = pm_model_param_scaled(m, k);
		r[j++] = pm_model_param_std(m, k);
		r[j++] = pm_model_param_mean(m, k);
	}
	for (size_t i = 0; i < ns; i++) {
		r[j++] = pm_model_seed_cost(m, i);
		for (size_t k = 0; k < np; k++)
			r[j++] = pm_model_seed_value(m, i, k);
	}
	*n = j;
	return r;
}

Test(seeds, same_result_for_any_thread_count)
{
	pm_dataset *d = syn_dataset(120, 0.05, 31);
	pm_model *m1 = syn_fit_with(d, quick(1), 4);
	size_t n1, n;
	double *r1 = results(m1, &n1);

	for (unsigned t = 2; t <= 5; t += 3) {
		pm_model *m = syn_fit_with(d, quick(t), 4);
		double *r = results(m, &n);

		cr_assert_eq(n, n1);
		cr_assert_eq(memcmp(r, r1, n * sizeof(*r)), 0, "%u threads differ from 1", t);
		cr_assert_eq(pm_model_fit_info(m)->options.seed, pm_model_fit_info(m1)->options.seed);
		free(r);
		pm_model_free(m);
	}
	free(r1);
	pm_model_free(m1);
	pm_dataset_free(d);
}

Test(seeds, each_seed_is_its_own_fit_and_the_best_is_kept)
{
	pm_dataset *d = syn_dataset(120, 0.1, 32);
	pm_model *m = syn_fit_with(d, quick(2), 3);
	size_t np = pm_model_nparams(m), best = 0;
	int differ = 0;

	cr_assert_eq(pm_model_nseeds(m), 3);
	for (size_t i = 0; i < 3; i++) {
		pm_fit_options o = quick(2);
		pm_model *one;

		o.seed = 5 + i;
		cr_assert_eq(pm_model_seed(m, i), 5 + i);
		one = syn_fit_with(d, o, 1);
		cr_assert_eq(pm_model_seed_cost(m, i), pm_model_fit_info(one)->cost);
		for (size_t k = 0; k < np; k++)
			cr_assert_eq(pm_model_seed_value(m, i, k), pm_model_param_value(one, k));
		if (pm_model_seed_cost(m, i) < pm_model_seed_cost(m, best))
			best = i;
		pm_model_free(one);
	}
	cr_assert_eq(pm_model_fit_info(m)->options.seed, 5 + best);
	cr_assert_eq(pm_model_fit_info(m)->cost, pm_model_seed_cost(m, best));
	for (size_t k = 0; k < np; k++) {
		double mean = 0, ss = 0;

		cr_assert_eq(pm_model_param_value(m, k), pm_model_seed_value(m, best, k));
		for (size_t i = 0; i < 3; i++)
			mean += pm_model_seed_value(m, i, k) / 3;
		for (size_t i = 0; i < 3; i++)
			ss += pow(pm_model_seed_value(m, i, k) - mean, 2);
		cr_assert_float_eq(pm_model_param_mean(m, k), mean, 1e-12 * fabs(mean) + 1e-300);
		cr_assert_float_eq(pm_model_param_std(m, k), sqrt(ss / 3),
				   1e-9 * sqrt(ss / 3) + 1e-300);
		differ |= pm_model_param_std(m, k) > 0;
	}
	cr_assert(differ, "three seeds gave identical fits");
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(seeds, round_trip_through_model_json)
{
	pm_dataset *d = syn_dataset(80, 0.05, 33);
	pm_fit_options o = quick(2);
	pm_model *m, *l;
	char *json;
	size_t n, nl;
	double *r, *rl;

	o.test_fraction = 0.25;
	m = syn_fit_with(d, o, 3);
	cr_assert_eq(pm_model_fit_info(m)->test.n, 20);
	l = json_round_trip(m, &json);
	r = results(m, &n);
	rl = results(l, &nl);
	cr_assert_eq(n, nl);
	cr_assert_eq(memcmp(r, rl, n * sizeof(*r)), 0, "seeds do not read back exactly");
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(pm_model_seed(l, i), 5 + i);
	free(r);
	free(rl);
	free(json);
	pm_model_free(l);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(seeds, bad_seeds_in_model_json)
{
	static const char *const bad[] = {
		"[1]", "[{\"seed\": 1, \"cost\": 1, \"values\": [1]}]",
		"[{\"seed\": -1, \"cost\": 1, \"values\": [1, 2]}]",
		"[{\"seed\": 1, \"cost\": 1, \"values\": [1, \"x\"]}]", "{}",
	};
	static const char head[] =
		"{\"format\": \"perfmodel-model\", \"version\": 1, \"form\": \"additive\", "
		"\"target\": \"t\", "
		"\"scale\": \"none\", \"target_scale\": 1, \"inputs\": [{\"name\": \"e\", "
		"\"role\": \"extrinsic\", \"log_scale\": 0}], \"parameters\": [{\"name\": "
		"\"q_e\", \"scaled\": 1, \"std\": null, \"bounds\": [-5, 5]}, {\"name\": \"C\", "
		"\"scaled\": 0, \"std\": null, \"bounds\": [0, 1]}], \"seeds\": ";
	char doc[1024];
	pm_model *m = NULL;
	pm_error err = { 0 };

	snprintf(doc, sizeof(doc), "%s[{\"seed\": 7, \"cost\": 0.5, \"values\": [1, 2]}]}", head);
	cr_assert_eq(pm_model_load_string(doc, "m.json", &m, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_nseeds(m), 1);
	cr_assert_eq(pm_model_seed(m, 0), 7);
	cr_assert_eq(pm_model_seed_value(m, 0, 1), 2);
	pm_model_free(m);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(doc, sizeof(doc), "%s%s}", head, bad[i]);
		cr_assert_eq(pm_model_load_string(doc, "m.json", &m, &err), PM_ESCHEMA, "case %zu",
			     i);
		cr_assert_null(m);
	}
}

Test(seeds, errors)
{
	pm_dataset *d = syn_dataset(60, 0, 34);
	pm_spec *s = syn_spec();
	pm_fit_options o = quick(1);
	pm_model *m = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_fit_seeds(d, s, &o, 0, &m, &err), PM_EINVAL);
	o.seed = UINT64_MAX - 1;
	cr_assert_eq(pm_fit_seeds(d, s, &o, 3, &m, &err), PM_EINVAL);
	cr_assert_null(m);
	/* a failing fit's error comes back */
	o.seed = 1;
	o.popsize = 0;
	cr_assert_eq(pm_fit_seeds(d, s, &o, 2, &m, &err), PM_EINVAL);
	cr_assert(strstr(err.msg, "popsize"), "%s", err.msg);
	cr_assert_null(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* Sum over the level coefficients b of their std over the seeds. */
static double level_spread(const pm_model *m)
{
	double sum = 0.0;

	for (size_t k = 0; k < pm_model_nparams(m); k++)
		if (pm_model_param_kind(m, k) == PM_PARAM_LEVEL)
			sum += pm_model_param_std(m, k);
	return sum;
}

/* docs/maths.md, identifiability: act and opt are both one-hot coded, so
 * adding δ to every b_act and taking it from every b_opt changes no
 * prediction; unpenalised, each seed lands somewhere on that line. L2 picks
 * the shortest point of it, the same for every seed (thesis Table 4.3). */
Test(seeds, l2_shrinks_the_spread_of_redundant_levels)
{
	pm_dataset *d = syn_dataset(300, 0.1, 35);
	/* DE's: varpro's coordinate descent starts every seed's levels at 0
	 * and so lands on one point of the line even unpenalised */
	pm_fit_options o = pm_fit_options_engine(PM_ENGINE_DE);
	pm_model *plain, *l2;
	double sp, sl;

	o.threads = 2;
	plain = syn_fit_with(d, o, 6);
	o.reg = PM_REG_L2;
	o.lambda_coef = o.lambda_power = 1e-3;
	l2 = syn_fit_with(d, o, 6);
	sp = level_spread(plain);
	sl = level_spread(l2);
	cr_assert_lt(sl, 0.5 * sp, "spread of b over seeds: %g with L2, %g without", sl,
		     sp);
	/* and the fit stays as good: L2 only chose among equal fits */
	cr_assert_lt(pm_model_fit_info(l2)->training.mape,
		     1.2 * pm_model_fit_info(plain)->training.mape + 0.5, "MAPE %g vs %g",
		     pm_model_fit_info(l2)->training.mape, pm_model_fit_info(plain)->training.mape);
	pm_model_free(plain);
	pm_model_free(l2);
	pm_dataset_free(d);
}

Test(seeds, a_stop_request_marks_the_result_interrupted)
{
	pm_dataset *d = syn_dataset(60, 0, 36);
	pm_fit_options o = quick(2);
	volatile sig_atomic_t stop = 1;
	pm_model *m;

	o.stop = &stop;
	m = syn_fit_with(d, o, 3);
	cr_assert(pm_model_fit_info(m)->interrupted);
	cr_assert_str_eq(pm_model_fit_info(m)->stop, "interrupted");
	/* stopped before any began: the first seed's fit ran (stopped at
	 * once) for a model to return; none completed */
	cr_assert_eq(pm_model_nseeds(m), 0);
	cr_assert_eq(pm_model_fit_info(m)->seeds_asked, 3);
	cr_assert_eq(pm_model_fit_info(m)->options.seed, 5);
	cr_assert_eq(pm_model_fit_info(m)->evaluations, 1);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* The stop request comes from the progress callback at generation 3 of the
 * second seed. On one thread the seeds run in order, so seed 5 completed,
 * seed 6 was cut short and seed 7 never began: the mean and std are seed
 * 5's alone, model.json says 1 of 3 completed and reads back so. */
struct stop_at {
	volatile sig_atomic_t stop;
	uint64_t seed;
	unsigned generation;
};

static void stop_at(const pm_progress *p, void *arg)
{
	struct stop_at *s = arg;

	if (p->seed == s->seed && p->generation == s->generation)
		s->stop = 1;
}

Test(seeds, the_statistics_are_over_the_completed_seeds)
{
	pm_dataset *d = syn_dataset(60, 0.05, 36);
	pm_fit_options o = quick(1);
	struct stop_at sa = { 0, 6, 3 };
	pm_model *m, *one, *back;
	const pm_fit_info *fi;
	pm_error err = { 0 };
	char *json;

	o.tol = 0;
	o.stop = &sa.stop;
	o.progress = stop_at;
	o.progress_arg = &sa;
	m = syn_fit_with(d, o, 3);
	fi = pm_model_fit_info(m);
	cr_assert(fi->interrupted);
	cr_assert_eq(fi->seeds_asked, 3);
	cr_assert_eq(pm_model_nseeds(m), 1);
	cr_assert_eq(pm_model_seed(m, 0), 5);
	/* seed 5 on its own, never stopped */
	o.stop = NULL;
	o.progress = NULL;
	one = syn_fit_with(d, o, 1);
	cr_assert_eq(pm_model_fit_info(one)->interrupted, 0);
	cr_assert_eq(pm_model_seed_cost(m, 0), pm_model_fit_info(one)->cost);
	for (size_t k = 0; k < pm_model_nparams(m); k++) {
		cr_assert_eq(pm_model_seed_value(m, 0, k), pm_model_param_value(one, k));
		cr_assert_eq(pm_model_param_mean(m, k), pm_model_param_value(one, k));
		cr_assert_eq(pm_model_param_std(m, k), 0);
	}
	/* the saved fit: the lower cost of seed 5's and seed 6's */
	cr_assert_leq(fi->cost, pm_model_fit_info(one)->cost);
	cr_assert(fi->options.seed == 5 || fi->options.seed == 6);
	back = json_round_trip(m, &json);
	cr_assert(strstr(json, "\"seeds_requested\": 3") != NULL, "%s", json);
	cr_assert(strstr(json, "\"seeds_completed\": 1") != NULL);
	cr_assert_eq(pm_model_fit_info(back)->seeds_asked, 3);
	cr_assert_eq(pm_model_nseeds(back), 1);
	/* a count that is not the number of seeds listed is refused */
	pm_model_free(back);
	strstr(json, "\"seeds_completed\": 1")[19] = '2';
	cr_assert_eq(pm_model_load_string(json, "m.json", &back, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "seeds_completed") != NULL, "%s", err.msg);
	cr_assert_null(back);
	free(json);
	pm_model_free(back);
	pm_model_free(one);
	pm_model_free(m);
	pm_dataset_free(d);
}
