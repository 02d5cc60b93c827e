/* pm_fit_options.warm_start: a fit started from an earlier model. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "leak_check.h"
#include "model/model_impl.h"
#include "synth_fit.h"
#include "fit/warm.h"

PM_LEAK_CHECKED_SUITE(warm);

static size_t param_index(const pm_model *m, const char *name)
{
	for (size_t k = 0; k < pm_model_nparams(m); k++)
		if (strcmp(pm_model_param_name(m, k), name) == 0)
			return k;
	cr_assert_fail("no parameter %s", name);
	return 0;
}

/* synth.h's truth, by the additive model's parameter names. */
static const struct {
	const char *name;
	double value;
} truth[] = {
	{ "a_k", 0.002 }, { "p_k", 1.5 }, { "a_f", 0.0005 }, { "p_f", 1.0 },
	{ "a_h", 0.001 }, { "p_h", 0.5 }, { "b_act=relu", 0.004 }, { "b_act=sigmoid", 0.010 },
	{ "b_act=tanh", 0.007 }, { "b_opt=adam", 0.003 }, { "b_opt=sgd", 0.001 },
	{ "q_threads", SYN_Q_THREADS }, { "q_batch", SYN_Q_BATCH }, { "C", 0.001 },
};

/* A model of synth.h's roles whose parameters are the truth: a rough fit
 * to other rows (so other column scales than the fits below), its values
 * overwritten. A warm start reads a power's value and a coefficient's raw
 * value, so those are what is set. */
static pm_model *true_model(void)
{
	pm_dataset *d = syn_dataset(150, 0, 31);
	pm_fit_options o = pm_fit_options_default();
	pm_model *m;

	o.maxiter = 1;
	o.polish = 0;
	m = syn_fit_with(d, o, 1);
	cr_assert_eq(pm_model_nparams(m), sizeof(truth) / sizeof(truth[0]));
	for (size_t i = 0; i < sizeof(truth) / sizeof(truth[0]); i++) {
		size_t k = param_index(m, truth[i].name);

		m->raw[k] = truth[i].value;
		if (m->params[k].desc.kind == PM_PARAM_POWER ||
		    m->params[k].desc.kind == PM_PARAM_SCALING)
			m->value[k] = truth[i].value;
	}
	pm_dataset_free(d);
	return m;
}

/* From the true parameters, one generation without the polish reaches the
 * optimum of noiseless data (cost 0) with either engine; a cold start of
 * the same budget does not. */
static void warm_from_truth(pm_engine engine, double tol)
{
	pm_dataset *d = syn_dataset(300, 0, 32);
	pm_model *t = true_model(), *warm, *cold;
	pm_fit_options o = pm_fit_options_engine(engine);

	o.maxiter = 1;
	o.polish = 0;
	o.seed = 9;
	cold = syn_fit_with(d, o, 1);
	o.warm_start = t;
	warm = syn_fit_with(d, o, 1);
	cr_expect_lt(warm->info.cost, tol, "warm cost %g", warm->info.cost);
	cr_expect_gt(cold->info.cost, 1000 * tol, "cold cost %g", cold->info.cost);
	cr_expect_lt(fabs(pm_model_param_value(warm, param_index(warm, "q_threads")) - SYN_Q_THREADS),
		     1e-6);
	cr_expect_lt(fabs(pm_model_param_value(warm, param_index(warm, "p_k")) - 1.5), 1e-6);
	cr_expect_lt(warm->info.training.mape, 1e-4, "MAPE %g %%", warm->info.training.mape);
	pm_model_free(cold);
	pm_model_free(warm);
	pm_model_free(t);
	pm_dataset_free(d);
}

Test(warm, from_the_true_parameters_varpro_reaches_the_optimum)
{
	warm_from_truth(PM_ENGINE_VARPRO, 1e-6);
}

/* DE searches the coefficients too: the truth's raw coefficients converted
 * to this fit's scaled space (other column and target scales) */
Test(warm, from_the_true_parameters_de_reaches_the_optimum)
{
	warm_from_truth(PM_ENGINE_DE, 1e-9);
}

/* The same seed and warm model: the same bits for any thread count; the
 * fit records what it started from, and model.json keeps it. */
Test(warm, same_result_for_any_thread_count_and_recorded)
{
	pm_dataset *early = syn_dataset(120, 0.05, 33), *d = syn_dataset(400, 0.05, 34);
	pm_model *w = syn_fit(early, 1, 50), *m1, *m2, *back = NULL;
	pm_fit_options o = pm_fit_options_default();
	char *j1 = NULL, *j2 = NULL, *j3 = NULL;
	pm_error err = { 0 };

	o.warm_start = w;
	o.threads = 1;
	m1 = syn_fit_with(d, o, 1);
	o.threads = 2;
	m2 = syn_fit_with(d, o, 1);
	cr_expect_eq(m2->info.threads_used, 2);
	cr_expect_eq(memcmp(m1->value, m2->value, m1->nparams * sizeof(double)), 0);
	cr_assert_eq(pm_model_to_json(m1, &j1, &err), PM_OK);
	cr_assert_eq(pm_model_to_json(m2, &j2, &err), PM_OK);
	*strstr(j1, "\"run\"") = '\0';
	*strstr(j2, "\"run\"") = '\0';
	cr_expect_str_eq(j1, j2);
	cr_expect_eq(m1->info.warm_started, 1);
	cr_expect_str_eq(m1->info.warm_fingerprint, w->info.fingerprint);
	cr_expect_str_eq(m1->info.warm_data, "syn.csv");
	cr_expect_eq(m1->info.warm_cost, w->info.cost);
	cr_expect_null(m1->info.options.warm_start, "the pointer is not kept");
	cr_expect(strstr(j1, "\"warm_start\""), "model.json says so");
	/* and reads it back */
	free(j1);
	cr_assert_eq(pm_model_to_json(m1, &j1, &err), PM_OK);
	cr_assert_eq(pm_model_load_string(j1, "m1", &back, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(back->info.warm_started, 1);
	cr_expect_str_eq(back->info.warm_fingerprint, w->info.fingerprint);
	cr_expect_eq(back->info.warm_cost, w->info.cost);
	cr_assert_eq(pm_model_to_json(back, &j3, &err), PM_OK);
	cr_expect_str_eq(j1, j3);
	/* a cold fit says nothing of it */
	free(j3);
	cr_assert_eq(pm_model_to_json(w, &j3, &err), PM_OK);
	cr_expect_null(strstr(j3, "warm_start"));
	cr_expect_eq(w->info.warm_started, 0);
	free(j1);
	free(j2);
	free(j3);
	pm_model_free(back);
	pm_model_free(m1);
	pm_model_free(m2);
	pm_model_free(w);
	pm_dataset_free(early);
	pm_dataset_free(d);
}

/* ---- a model of other inputs ------------------------------------------------
 * Rows of t = 2e-6 n^1.5 threads^-0.8 kind + 0.001, kind taking the levels
 * of `kinds` in turn (a: x1, b: x1.5, c: x2), and a second target t2. */
static pm_dataset *table(size_t n, const char *kinds)
{
	char *s = malloc(64 * (n + 1)), *p = s;
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	p += sprintf(p, "n,threads,kind,t,t2\n");
	for (size_t r = 0; r < n; r++) {
		double nv = 64.0 * (double)(1 + r % 7), th = (double)(1u << (r % 4));
		char k = kinds[r % strlen(kinds)];
		double t = 2e-6 * pow(nv, 1.5) * pow(th, -0.8) * (1.0 + 0.5 * (k - 'a')) + 0.001;

		p += sprintf(p, "%g,%g,%c,%.17g,%.17g\n", nv, th, k, t, 2 * t);
	}
	cr_assert_eq(pm_dataset_parse_csv(s, strlen(s), "t.csv", &d, &err), PM_OK, "%s", err.msg);
	free(s);
	return d;
}

/* roles: "target;intrinsic;categorical;extrinsic"; form NULL: unset */
static pm_spec *spec(const char *target, const char *intr, const char *cat, const char *ext,
		     const char *form)
{
	pm_spec *s = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_new(&s, &err), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, target, &err), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, intr, &err), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_CATEGORICAL, cat, &err), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_EXTRINSIC, ext, &err), PM_OK);
	if (form)
		cr_assert_eq(pm_spec_set_form(s, form, &err), PM_OK, "%s", err.msg);
	return s;
}

/* The defaults, as a scheduler's refit has them (a cut maxiter would
 * leave a new level's parameters half searched), on one thread. */
static pm_fit_options options(void)
{
	pm_fit_options o = pm_fit_options_default();

	o.threads = 1;
	return o;
}

static pm_model *fit(const pm_dataset *d, pm_spec *s, const pm_model *warm)
{
	pm_fit_options o = options();
	pm_model *m = NULL;
	pm_error err = { 0 };

	o.warm_start = warm;
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	pm_spec_free(s);
	return m;
}

/* pm_fit with warm refused: PM_ESCHEMA, and the message has `want`. */
static void refused(const pm_dataset *d, pm_spec *s, const pm_model *warm, const char *want)
{
	pm_fit_options o = options();
	pm_model *m = (pm_model *)1;
	pm_error err = { 0 };

	o.warm_start = warm;
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_ESCHEMA, "%s", err.msg);
	cr_expect_null(m);
	cr_expect(strstr(err.msg, want), "'%s' lacks '%s'", err.msg, want);
	pm_spec_free(s);
}

Test(warm, a_model_of_other_inputs_is_refused)
{
	pm_dataset *d = table(60, "ab");
	pm_model *w = fit(d, spec("t", "n", "kind", "threads", NULL), NULL);
	pm_model *w2 = fit(d, spec("t2", "n", "kind", "threads", NULL), NULL);
	pm_model *wn = fit(d, spec("t", "n", "", "threads", NULL), NULL);
	pm_model *wm = fit(d, spec("t", "n", "kind", "threads", "multiplicative"), NULL);
	pm_model *wf = fit(d, spec("t", "", "", "", "a * n^p / threads^q + C"), NULL);
	pm_spec *sk = spec("t", "n", "kind", "threads", NULL);
	pm_error err = { 0 };
	pm_model *ws;

	cr_assert_eq(pm_spec_set_target_kind(sk, PM_TARGET_SPEEDUP, NULL, NULL, &err), PM_OK);
	ws = fit(d, sk, NULL);
	refused(d, spec("t", "n", "kind", "threads", NULL), w2,
		"the warm-start model predicts 't2', this fit 't'");
	refused(d, spec("t", "n", "", "threads", NULL), w,
		"the warm-start model's input 'kind' is not an input of this fit");
	refused(d, spec("t", "n", "kind", "threads", NULL), wn,
		"the warm-start model has no input 'kind'");
	refused(d, spec("t", "n,threads", "kind", "", NULL), w,
		"input 'threads' is extrinsic in the warm-start model, intrinsic in this fit");
	refused(d, spec("t", "n", "kind", "threads", "additive"), wm,
		"the warm-start model's form is multiplicative, this fit's additive");
	refused(d, spec("t", "", "", "", "a * n^p * threads^q + C"), wf,
		"the warm-start model's form is formula a * n^p / threads^q + C, this fit's "
		"formula a * n^p * threads^q + C");
	refused(d, spec("t", "n", "kind", "threads", NULL), ws,
		"the warm-start model's target kind is speedup, this fit's time");
	pm_model_free(w);
	pm_model_free(w2);
	pm_model_free(wn);
	pm_model_free(wm);
	pm_model_free(wf);
	pm_model_free(ws);
	pm_dataset_free(d);
}

/* A spec without a form takes the warm model's: its preset or formula. */
Test(warm, an_unset_form_is_the_models)
{
	pm_dataset *d = table(60, "ab");
	pm_model *wa = fit(d, spec("t", "n", "kind", "threads", NULL), NULL);
	pm_model *wf = fit(d, spec("t", "", "", "", "a * n^p / threads^q + C"), NULL);
	pm_model *fitted = fit(d, spec("t", "n", "kind", "threads", "multiplicative"), NULL);
	pm_model *wm = NULL, *a, *m, *f;
	char *json = NULL;
	pm_error err = { 0 };

	/* as a scheduler has it: saved, then loaded (still the preset) */
	cr_assert_eq(pm_model_to_json(fitted, &json, &err), PM_OK);
	cr_assert_eq(pm_model_load_string(json, "mult.json", &wm, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(pm_model_form(wm), "multiplicative");
	free(json);
	pm_model_free(fitted);

	a = fit(d, spec("t", "n", "kind", "threads", NULL), wa);
	m = fit(d, spec("t", "n", "kind", "threads", NULL), wm);
	f = fit(d, spec("t", "", "", "", NULL), wf);

	cr_expect_str_eq(pm_model_form(a), "additive");
	cr_expect_str_eq(pm_model_form(m), "multiplicative");
	cr_expect_str_eq(pm_model_form(f), "formula");
	cr_expect_str_eq(pm_model_formula(f), "a * n^p / threads^q + C");
	pm_model_free(a);
	pm_model_free(m);
	pm_model_free(f);
	pm_model_free(wa);
	pm_model_free(wm);
	pm_model_free(wf);
	pm_dataset_free(d);
}

/* A level the earlier rows lacked: its parameters are searched as in a cold
 * fit, whatever the form; a level new to the data and first by name moves
 * the log multipliers' reference (a), which a warm start then searches
 * afresh. Either way the fit is as good as a cold one (the noiseless
 * optimum, for the multiplicative form that made the data). */
static void new_level(const char *early_kinds, const char *form)
{
	pm_dataset *early = table(60, early_kinds), *d = table(90, "abc");
	pm_model *w = fit(early, spec("t", "n", "kind", "threads", form), NULL);
	pm_model *m = fit(d, spec("t", "n", "kind", "threads", NULL), w);
	pm_model *cold = fit(d, spec("t", "n", "kind", "threads", form), NULL);

	cr_expect_eq(pm_model_nlevels(m, 1), 3);
	cr_expect_eq(pm_model_nlevels(w, 1), 2);
	/* noiseless: a cost near 0, where a ratio means nothing (the scaled
	 * space's times are about 1) */
	cr_expect_leq(m->info.cost, 1.01 * cold->info.cost + 1e-6, "warm %g, cold %g",
		      m->info.cost, cold->info.cost);
	if (form) {
		cr_expect_lt(m->info.training.mape, 0.05, "MAPE %g %%", m->info.training.mape);
		double c = pm_model_param_value(m, param_index(m, "lm_kind=c"));
		double b = pm_model_param_value(m, param_index(m, "lm_kind=b"));

		cr_expect_lt(fabs(c - log(2.0)), 1e-3, "lm_kind=c %g", c);
		cr_expect_lt(fabs(b - log(1.5)), 1e-3, "lm_kind=b %g", b);
	} else {
		param_index(m, "b_kind=c");
	}
	pm_model_free(cold);
	pm_model_free(m);
	pm_model_free(w);
	pm_dataset_free(early);
	pm_dataset_free(d);
}

Test(warm, a_new_level_is_searched_as_in_a_cold_fit)
{
	new_level("ab", NULL);
	new_level("ab", "multiplicative");
}

Test(warm, a_new_reference_level_is_searched_as_in_a_cold_fit)
{
	new_level("bc", "multiplicative");
}

/* How each parameter starts (fit/warm.h): a parameter warm has keeps its
 * value with a narrow spread; a new level's, and the log multipliers of a
 * categorical whose reference level changed, spread over their bounds. */
Test(warm, start_and_spread_of_each_parameter)
{
	pm_dataset *ab = table(60, "ab"), *bc = table(60, "bc"), *d = table(90, "abc");
	pm_model *wab = fit(ab, spec("t", "n", "kind", "threads", "multiplicative"), NULL);
	pm_model *wbc = fit(bc, spec("t", "n", "kind", "threads", "multiplicative"), NULL);
	pm_model *m = fit(d, spec("t", "n", "kind", "threads", "multiplicative"), NULL);
	size_t b = param_index(m, "lm_kind=b"), c = param_index(m, "lm_kind=c");
	size_t p = param_index(m, "p_n"), a = param_index(m, "a");
	pm_warm w;
	pm_error err = { 0 };

	cr_assert_eq(pm__warm_init(wab, m, &w, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(w.start[b], wab->value[param_index(wab, "lm_kind=b")]);
	cr_expect(isfinite(w.radius[b]) && w.radius[b] > 0, "radius %g", w.radius[b]);
	cr_expect(isinf(w.radius[c]), "a new level: radius %g", w.radius[c]);
	cr_expect_eq(w.start[p], wab->value[param_index(wab, "p_n")]);
	/* the coefficient in this fit's scaled space predicts as warm's raw */
	cr_expect_lt(fabs(w.start[a] * m->target_scale *
			  exp(-w.start[p] * m->inputs[0].log_scale -
			      w.start[param_index(m, "q_threads")] * m->inputs[2].log_scale) /
			  wab->raw[param_index(wab, "a")] - 1.0), 1e-9);
	pm__warm_free(&w);
	cr_assert_eq(pm__warm_init(wbc, m, &w, &err), PM_OK, "%s", err.msg);
	cr_expect(isinf(w.radius[b]) && isinf(w.radius[c]), "a new reference: %g %g",
		  w.radius[b], w.radius[c]);
	cr_expect(isfinite(w.radius[p]));
	pm__warm_free(&w);
	pm_model_free(wab);
	pm_model_free(wbc);
	pm_model_free(m);
	pm_dataset_free(ab);
	pm_dataset_free(bc);
	pm_dataset_free(d);
}

/* pm__warm_init with warm refused: PM_ESCHEMA naming `want`, nothing kept. */
static void out_of_bounds(const pm_model *warm, const pm_model *m, const char *want)
{
	pm_warm w;
	pm_error err = { 0 };

	cr_expect_eq(pm__warm_init(warm, m, &w, &err), PM_ESCHEMA, "%s", err.msg);
	cr_expect(strstr(err.msg, want), "'%s' lacks '%s'", err.msg, want);
	cr_expect_null(w.start);
	cr_expect_null(w.radius);
}

/* Every parameter taken over lies within this fit's bounds: a fit keeps
 * its own within them and model.json reads them back bit for bit, so one
 * outside (a hand-edited power of 1e300; other bounds since) is refused,
 * not clamped; one on a bound is a fit's, and taken. */
Test(warm, a_parameter_outside_the_bounds_is_refused)
{
	pm_dataset *d = table(60, "ab");
	pm_model *w = fit(d, spec("t", "n", "kind", "threads", NULL), NULL);
	pm_model *m = fit(d, spec("t", "n", "kind", "threads", NULL), NULL);
	size_t p = param_index(w, "p_n"), a = param_index(w, "a_n");
	pm_warm ws;
	pm_error err = { 0 };

	cr_assert_eq(m->params[p].hi, 5);
	w->value[p] = 1e300;
	out_of_bounds(w, m, "the warm-start model's p_n = 1e+300 is outside this fit's bounds "
		      "for it, [-5, 5]: no fit with these bounds makes it (a hand-edited model, "
		      "or other \"bounds\" in the spec); refit cold, or widen the bounds");
	w->value[p] = nextafter(5.0, 6.0);
	out_of_bounds(w, m, "p_n = 5.000000000000001 is outside");
	w->value[p] = -5.5;
	out_of_bounds(w, m, "p_n = -5.5 is outside");
	/* on the bound: a fit's value, taken as it is */
	w->value[p] = 5;
	cr_assert_eq(pm__warm_init(w, m, &ws, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(ws.start[p], 5);
	pm__warm_free(&ws);
	/* narrower bounds in this fit's spec than the earlier one's */
	m->params[p].lo = -1;
	m->params[p].hi = 1;
	w->value[p] = 1.5;
	out_of_bounds(w, m, "p_n = 1.5 is outside this fit's bounds for it, [-1, 1]");
	w->value[p] = 1;
	/* a coefficient, in the scaled space the box applies in */
	w->value[a] = -1e-3;
	pm__model_raw(w);
	out_of_bounds(w, m, "the warm-start model's a_n (scaled) = -0.001 is outside this fit's "
		      "bounds for it, [0, 1000]");
	w->value[a] = 2000;
	pm__model_raw(w);
	out_of_bounds(w, m, "a_n (scaled) = 2000 is outside");
	pm_model_free(w);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* A selection compares forms: a warm start, of one form, is refused. */
Test(warm, a_selection_refuses_a_warm_start)
{
	pm_dataset *d = table(60, "ab");
	pm_model *w = fit(d, spec("t", "n", "kind", "threads", NULL), NULL), *m = NULL;
	pm_spec *s = spec("t", "n", "kind", "threads", NULL);
	pm_candidate cand[2] = {
		{ .form = "additive", .loss = PM_LOSS_MAE },
		{ .form = "multiplicative", .loss = PM_LOSS_MAE }
	};
	pm_validation v = { .scheme = PM_SCHEME_KFOLD, .folds = 2, .seed = 1 };
	pm_cv_result cv[2];
	pm_fit_options o = options();
	pm_error err = { 0 };
	size_t best;

	o.warm_start = w;
	cr_expect_eq(pm_select(d, s, &o, cand, 2, &v, cv, &best, &m, &err), PM_EINVAL);
	cr_expect(strstr(err.msg, "a warm start refits the form of one model"), "%s", err.msg);
	cr_expect_null(m);
	pm_spec_free(s);
	pm_model_free(w);
	pm_dataset_free(d);
}
