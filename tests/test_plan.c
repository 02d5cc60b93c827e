/* perfmodel plan's library (pm_plan_file): on a known law measured at small
 * sizes only, the picks are the large candidates the targets' uncertainty
 * hangs on; the same bits for any thread count; every refusal by name. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"
#include "temp_csv.h"

PM_LEAK_CHECKED_SUITE(plan);

/* t = 0.1 + 2e-3 n^1.5, measured twice at each small n with +-1 to 2 %
 * noise (a fixed pattern: the test repeats), on devices a and b alike */
static char *measured(void)
{
	static const double ns[] = { 2, 4, 6, 8, 12, 16 };
	char text[4096];
	size_t len = (size_t)snprintf(text, sizeof(text), "n,dev,t\n");

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (int rep = 0; rep < 2; rep++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%g,%s,%.9g\n", ns[i],
						rep ? "a" : "b",
						(0.1 + 2e-3 * pow(ns[i], 1.5)) *
							(1 + 0.02 * (rep ? 1 : -1) * (i % 2 ? 1 : 0.5)));
	return temp_csv(text);
}

struct files {
	char *data, *cand, *targets;
	char *test;	/* --test's rows; NULL: none */
};

static struct files files_of(const char *cand, const char *targets)
{
	return (struct files){ measured(), temp_csv(cand), temp_csv(targets), NULL };
}

static void files_free(struct files *f)
{
	if (f->test)
		unlink(f->test);
	free(f->test);
	unlink(f->data);
	unlink(f->cand);
	unlink(f->targets);
	free(f->data);
	free(f->cand);
	free(f->targets);
}

/* small candidates, not measured, and large ones, each of cost 1 */
static const char equal_cost[] = "n,dev,cost,nodes\n3,a,1,4\n5,a,1,4\n7,a,1,4\n10,a,1,4\n"
				 "14,a,1,4\n64,a,1,4\n128,a,1,4\n256,a,1,4\n512,a,1,4\n";
static const char far[] = "n,dev\n1024,a\n2048,a\n";

/* The plan of f, fitted as t = a n^p + b_dev + C. */
static pm_status plan_with(const struct files *f, unsigned threads, pm_plan_options po,
			   pm_plan **out, pm_error *err)
{
	pm_spec *s;
	pm_fit_options o = pm_fit_options_default();
	pm_source src = { .path = f->data, .test_path = f->test };
	pm_status st;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "t", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, "n", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_CATEGORICAL, "dev", NULL), PM_OK);
	cr_assert_eq(pm_spec_set_form(s, "additive", NULL), PM_OK);
	o.threads = threads;
	st = pm_plan_file(&src, s, &o, NULL, 0, NULL, f->cand, f->targets, &po, out, err);
	pm_spec_free(s);
	return st;
}

static pm_plan_options by_column(void)
{
	pm_plan_options po = pm_plan_options_default();

	po.cost_column = "cost";
	return po;
}

static double cand_n(const pm_plan *p, size_t k)
{
	size_t col;

	cr_assert_eq(pm_dataset_col_index(p->candidates, "n", &col, NULL), PM_OK);
	return atof(pm_dataset_cell(p->candidates, p->picks[k].row, col));
}

/* The targets lie far beyond the data: the large candidates tell the
 * power, the small ones repeat what is known. At equal cost every pick of
 * three is a large one, each gains, and the targets' spread shrinks. */
Test(plan, picks_large_before_small)
{
	struct files f = files_of(equal_cost, far);
	pm_plan *p = NULL;
	pm_error err = { 0 };
	pm_plan_options po = by_column();

	po.count = 3;
	cr_assert_eq(plan_with(&f, 1, po, &p, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(p->npicks, 3);
	for (size_t k = 0; k < 3; k++) {
		cr_expect_geq(cand_n(p, k), 64, "pick %zu is n = %g", k + 1, cand_n(p, k));
		cr_expect(p->picks[k].gain > 0 && p->picks[k].gain < 1, "gain %g",
			  p->picks[k].gain);
		cr_expect_eq(p->picks[k].cost, 1);
	}
	cr_expect_lt(p->spread_after, p->spread_before);
	cr_expect_eq(p->members, 16);
	cr_expect_eq(p->total_cost, 3);
	cr_expect_eq(p->ndropped, 0);
	pm_plan_free(p);
	files_free(&f);
}

/* The default cost is the predicted time (times --cost-scale's column),
 * which makes the small candidates cheap: the plan weighs gain by cost. */
Test(plan, cost_is_predicted_time_by_default)
{
	struct files f = files_of(equal_cost, far);
	pm_plan *p = NULL, *q = NULL;
	pm_error err = { 0 };
	pm_plan_options po = pm_plan_options_default();

	cr_assert_eq(plan_with(&f, 1, po, &p, &err), PM_OK, "%s", err.msg);
	po.cost_scale = "nodes";
	cr_assert_eq(plan_with(&f, 1, po, &q, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(p->npicks, 5);
	cr_assert_eq(q->npicks, 5);
	for (size_t k = 0; k < 5; k++) {
		cr_expect_eq(p->picks[k].cost, p->picks[k].predicted);
		/* every candidate's cost scaled alike: the same order */
		cr_expect_eq(q->picks[k].row, p->picks[k].row);
		cr_expect_float_eq(q->picks[k].cost, 4 * p->picks[k].predicted, 1e-12);
	}
	pm_plan_free(p);
	pm_plan_free(q);
	files_free(&f);
}

/* A budget alone buys as many as it covers, and no more. */
Test(plan, budget_limits_the_picks)
{
	struct files f = files_of(equal_cost, far);
	pm_plan *p = NULL;
	pm_error err = { 0 };
	pm_plan_options po = by_column();

	po.count = 0;
	po.budget = 2.5;
	cr_assert_eq(plan_with(&f, 1, po, &p, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(p->npicks, 2);
	cr_expect_eq(p->total_cost, 2);
	pm_plan_free(p);
	files_free(&f);
}

/* The same seed: the same bits with 1 and 2 threads; another seed draws
 * other resamples. */
Test(plan, deterministic_for_any_thread_count)
{
	struct files f = files_of(equal_cost, far);
	pm_plan *p = NULL, *q = NULL, *r = NULL;
	pm_error err = { 0 };
	pm_plan_options po = by_column();

	cr_assert_eq(plan_with(&f, 1, po, &p, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(plan_with(&f, 2, po, &q, &err), PM_OK, "%s", err.msg);
	po.seed = 7;
	cr_assert_eq(plan_with(&f, 1, po, &r, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(p->npicks, q->npicks);
	cr_expect_eq(memcmp(p->picks, q->picks, p->npicks * sizeof(*p->picks)), 0);
	cr_expect_eq(memcmp(&p->spread_before, &q->spread_before, sizeof(double)), 0);
	cr_expect_eq(memcmp(&p->spread_after, &q->spread_after, sizeof(double)), 0);
	cr_expect_neq(p->spread_before, r->spread_before);
	pm_plan_free(p);
	pm_plan_free(q);
	pm_plan_free(r);
	files_free(&f);
}

/* t = 0.05 + c n^1.5 m measured on n, m = 1..4 with up to +-1 % noise
 * (a fixed pattern), dev a or b alternately: a product eq. 4.4 (a sum of
 * powers) cannot follow and the power law can; at c = 1e-4 too small there
 * to tell the forms apart, dominant far beyond, where they disagree */
static char *product_measured(double c)
{
	char text[4096];
	size_t len = (size_t)snprintf(text, sizeof(text), "n,m,dev,t\n");
	int k = 0;

	for (int n = 1; n <= 4; n++)
		for (int m = 1; m <= 4; m++, k++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%d,%d,%c,%.9g\n", n,
						m, "ab"[k % 2],
						(0.05 + c * pow(n, 1.5) * m) *
							(1 + 0.005 * ((k * 7) % 5 - 2)));
	return temp_csv(text);
}

/* The plan of the product law with the form chosen among cand[0..n)
 * (kfold:3), as perfmodel plan with no --form: t ~ n, m and dev. */
static pm_status plan_chosen(const struct files *f, unsigned threads, const pm_candidate *cand,
			     size_t n, pm_plan **out, pm_error *err)
{
	pm_spec *s;
	pm_fit_options o = pm_fit_options_default();
	pm_validation v = { .scheme = PM_SCHEME_KFOLD, .folds = 3, .seed = 1 };
	pm_source src = { .path = f->data };
	pm_plan_options po = by_column();
	pm_status st;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "t", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, "n,m", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_CATEGORICAL, "dev", NULL), PM_OK);
	o.threads = threads;
	st = pm_plan_file(&src, s, &o, cand, n, &v, f->cand, f->targets, &po, out, err);
	pm_spec_free(s);
	return st;
}

static struct files product_files(double c)
{
	return (struct files){ product_measured(c),
			       temp_csv("n,m,dev,cost\n6,1,a,1\n1,6,a,1\n8,8,a,1\n16,16,a,1\n"
					"16,2,a,1\n2,16,a,1\n"),
			       temp_csv("n,m,dev\n64,64,a\n128,64,a\n"), NULL };
}

/* How likely candidate k holds out as well as the lowest (low), as
 * lib/plan/forms.c weighs a form: erfc(delta / sqrt(2 (se_k^2 + se_low^2))). */
static double standing(const pm_choice *ch, size_t k, size_t low)
{
	double delta = ch->cand[k].mape - ch->cand[low].mape;
	double se2 = ch->cand[k].mape_se * ch->cand[k].mape_se +
		     ch->cand[low].mape_se * ch->cand[low].mape_se;

	return delta > 0 ? erfc(delta / sqrt(2 * se2)) : 1;
}

/* With the form chosen, the refits come from every form the choice
 * measured, one loss each: the chosen candidate's first, the other form's
 * of the lower held-out MAPE, the 16 members split between them by how
 * likely each holds out as well as the lowest. The forms disagree at the
 * targets: the spread is wider than that of the chosen form's refits
 * alone. The same bits for 1 and 2 threads. */
Test(plan, refits_of_every_form_the_choice_measured)
{
	static const pm_candidate cand[] = { { "additive", PM_LOSS_MAE, NULL, NULL },
					     { "additive", PM_LOSS_LOG, NULL, NULL },
					     { "multiplicative", PM_LOSS_MAE, NULL, NULL } };
	struct files f = product_files(1e-4);
	pm_plan *p = NULL, *q = NULL, *one = NULL;
	const pm_choice *ch;
	pm_error err = { 0 };
	double w0, w1;

	cr_assert_eq(plan_chosen(&f, 1, cand, 3, &p, &err), PM_OK, "%s", err.msg);
	ch = &pm_model_fit_info(p->model)->choice;
	cr_assert_lt(ch->chosen, 2, "eq. 4.4 chosen (listed first, held out alike)");
	cr_assert_eq(p->nforms, 2);
	cr_expect_str_eq(p->forms[0].form, "additive");
	cr_expect_eq(p->forms[0].loss, ch->cand[ch->chosen].loss);
	cr_expect_str_eq(p->forms[1].form, "multiplicative");
	cr_expect_eq(p->forms[1].loss, PM_LOSS_MAE);
	cr_expect_eq(p->forms[0].members + p->forms[1].members, p->members);
	cr_expect_eq(p->members, 16);
	w0 = standing(ch, ch->chosen, ch->lowest);
	w1 = standing(ch, 2, ch->lowest);
	cr_expect_gt(w1, 0.1, "the power law holds out nearly as well: %g", w1);
	cr_expect_leq(fabs(p->forms[1].members - 16 * w1 / (w0 + w1)), 1, "%u of 16 for %g / %g",
		      p->forms[1].members, w1, w0 + w1);

	cr_assert_eq(plan_chosen(&f, 1, &cand[ch->chosen], 1, &one, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(one->nforms, 1);
	cr_expect_eq(one->forms[0].members, one->members);
	cr_expect_gt(p->spread_before, one->spread_before, "%g against %g", p->spread_before,
		     one->spread_before);

	cr_assert_eq(plan_chosen(&f, 2, cand, 3, &q, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(p->npicks, q->npicks);
	cr_expect_eq(memcmp(p->picks, q->picks, p->npicks * sizeof(*p->picks)), 0);
	cr_expect_eq(memcmp(&p->spread_before, &q->spread_before, sizeof(double)), 0);
	pm_plan_free(p);
	pm_plan_free(q);
	pm_plan_free(one);
	files_free(&f);
}

/* Every refit of p of the fit's form, form. */
static void expect_one_form(const pm_plan *p, const char *form)
{
	cr_expect_eq(p->nforms, 1);
	cr_expect_str_eq(p->forms[0].form, form);
	cr_expect_eq(p->forms[0].members, p->members);
}

/* A form the choice finds far behind (eq. 4.4 on a product of tenfold the
 * size: 6 % held out against the power law's 1 %, many standard errors
 * apart) brings no refits. */
Test(plan, a_form_far_behind_brings_no_refits)
{
	static const pm_candidate cand[] = { { "additive", PM_LOSS_MAE, NULL, NULL },
					     { "multiplicative", PM_LOSS_MAE, NULL, NULL } };
	struct files f = product_files(1e-3);
	pm_plan *p = NULL;
	const pm_choice *ch;
	pm_error err = { 0 };

	cr_assert_eq(plan_chosen(&f, 1, cand, 2, &p, &err), PM_OK, "%s", err.msg);
	ch = &pm_model_fit_info(p->model)->choice;
	cr_assert_eq(ch->chosen, 1);
	cr_assert_lt(16 * standing(ch, 0, 1), 0.5, "eq. 4.4 %g %% against %g %%", ch->cand[0].mape,
		     ch->cand[1].mape);
	expect_one_form(p, "multiplicative");
	pm_plan_free(p);
	files_free(&f);
}

/* A candidate the choice left out (skip: not tried) brings no refits. */
Test(plan, a_candidate_left_out_is_no_form)
{
	static const pm_candidate cand[] = { { "multiplicative", PM_LOSS_MAE, NULL, NULL },
					     { "additive", PM_LOSS_MAE, NULL, "not tried" } };
	struct files f = product_files(1e-4);
	pm_plan *p = NULL;
	pm_error err = { 0 };

	cr_assert_eq(plan_chosen(&f, 1, cand, 2, &p, &err), PM_OK, "%s", err.msg);
	expect_one_form(p, "multiplicative");
	pm_plan_free(p);
	files_free(&f);
}

/* A candidate measured already is left out, with the data line it repeats;
 * the others are planned. */
Test(plan, measured_candidate_dropped)
{
	struct files f = files_of("n,dev,cost\n4,a,1\n64,a,1\n", far);
	pm_plan *p = NULL;
	pm_error err = { 0 };

	cr_assert_eq(plan_with(&f, 1, by_column(), &p, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(p->ndropped, 1);
	cr_expect_eq(p->dropped[0], 0);
	cr_expect_eq(p->dropped_match[0], 5);	/* n = 4 on device a: data line 5 */
	cr_assert_eq(p->npicks, 1);
	cr_expect_eq(p->picks[0].row, 1);
	pm_plan_free(p);
	files_free(&f);
}

/* Each refusal, by its status and what it names. */
static void refused(const char *cand, const char *targets, pm_plan_options po, pm_status want,
		    const char *says, unsigned line)
{
	struct files f = files_of(cand, targets);
	pm_plan *p = (pm_plan *)&p;
	pm_error err = { 0 };

	cr_expect_eq(plan_with(&f, 1, po, &p, &err), want, "status %d: %s", err.code, err.msg);
	cr_expect_null(p);
	cr_expect(strstr(err.msg, says), "'%s' does not say '%s'", err.msg, says);
	if (line)
		cr_expect_eq(err.line, line, "%s at line %u", err.msg, err.line);
	files_free(&f);
}

/* f with its data replaced by text. */
static struct files files_with_data(const char *data, const char *cand, const char *targets)
{
	struct files f = files_of(cand, targets);

	unlink(f.data);
	free(f.data);
	f.data = temp_csv(data);
	return f;
}

Test(plan, candidates_without_an_input)
{
	refused("dev,cost\na,1\n", far, by_column(), PM_ESCHEMA, "no column 'n'", 0);
}

Test(plan, targets_without_an_input)
{
	refused(equal_cost, "n\n1024\n", by_column(), PM_ESCHEMA, "no column 'dev'", 0);
}

Test(plan, unknown_level_in_candidates)
{
	refused("n,dev,cost\n64,a,1\n128,gpu,1\n", far, by_column(), PM_EDOMAIN,
		"unknown level 'gpu'", 3);
}

Test(plan, unknown_level_in_targets)
{
	refused(equal_cost, "n,dev\n1024,a\n2048,tpu\n", by_column(), PM_EDOMAIN,
		"unknown level 'tpu'", 3);
}

Test(plan, target_measured_already)
{
	refused(equal_cost, "n,dev\n1024,a\n8,b\n", by_column(), PM_EINVAL,
		"target 2 is a configuration already measured", 3);
	/* and which data row it is */
	refused(equal_cost, "n,dev\n8,b\n", by_column(), PM_EINVAL, "line 8)", 2);
}

Test(plan, every_candidate_measured)
{
	refused("n,dev,cost\n4,a,1\n2,b,1\n", far, by_column(), PM_EINVAL,
		"has been measured already", 0);
}

Test(plan, no_budget_left)
{
	pm_plan_options po = by_column();

	po.budget = 0.5;
	refused(equal_cost, far, po, PM_EINVAL, "no budget left", 0);
}

Test(plan, both_cost_options)
{
	pm_plan_options po = by_column();

	po.cost_scale = "nodes";
	refused(equal_cost, far, po, PM_EINVAL, "give one of --cost-column and --cost-scale", 0);
}

Test(plan, negative_or_nonfinite_cost)
{
	refused("n,dev,cost\n64,a,1\n128,a,-2\n", far, by_column(), PM_EDOMAIN,
		"candidate 2 costs -2", 3);
	refused("n,dev,cost\n64,a,1\n128,a,0\n", far, by_column(), PM_EDOMAIN, "costs 0", 3);
	refused("n,dev,cost\n64,a,1\n128,a,inf\n", far, by_column(), PM_ESCHEMA, "cost", 3);
}

Test(plan, cost_column_absent)
{
	pm_plan_options po = pm_plan_options_default();

	po.cost_column = "price";
	refused(equal_cost, far, po, PM_ESCHEMA, "no column 'price'", 0);
}

Test(plan, empty_files)
{
	refused("", far, by_column(), PM_EPARSE, "", 0);
	refused("n,dev,cost\n", far, by_column(), PM_EPARSE, "", 0);
	refused(equal_cost, "n,dev\n", by_column(), PM_EPARSE, "", 0);
}

Test(plan, neither_count_nor_budget)
{
	pm_plan_options po = by_column();

	po.count = 0;
	refused(equal_cost, far, po, PM_EINVAL, "no count and no budget", 0);
	po = by_column();
	po.members = 1;
	refused(equal_cost, far, po, PM_EINVAL, "members 1", 0);
}

/* The CSV: the candidates' columns but cost, then cost and gain, in pick
 * order; numbers that read back exactly. */
Test(plan, csv_and_json)
{
	struct files f = files_of(equal_cost, far);
	pm_plan *p = NULL;
	pm_error err = { 0 };
	pm_plan_options po = by_column();
	char *csv = NULL, *json = NULL, line[256], want[256];

	po.count = 2;
	cr_assert_eq(plan_with(&f, 1, po, &p, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_plan_to_csv(p, &csv, &err), PM_OK);
	cr_assert_eq(pm_plan_to_json(p, &json, &err), PM_OK);
	cr_expect_eq(strncmp(csv, "n,dev,nodes,cost,gain\n", 22), 0, "%s", csv);
	snprintf(want, sizeof(want), "%s,a,4,1,", pm_dataset_cell(p->candidates, p->picks[0].row, 0));
	memcpy(line, csv + 22, strlen(want));
	line[strlen(want)] = '\0';
	cr_expect_str_eq(line, want);
	cr_expect(strstr(json, "\"picks\""));
	cr_expect(strstr(json, "\"spread_before\""));
	free(csv);
	cr_expect_eq(pm_plan_to_csv(NULL, &csv, &err), PM_EINVAL);
	cr_expect_null(csv);
	free(json);
	pm_plan_free(p);
	files_free(&f);
}

/* Configurations measured unequally often: a resample of groups can hold
 * more rows than the data (a buffer sized by the rows overflowed once). */
Test(plan, groups_of_unequal_size)
{
	char text[2048];
	size_t len = (size_t)snprintf(text, sizeof(text), "n,dev,t\n");
	struct files f;
	pm_plan *p = NULL;
	pm_error err = { 0 };
	pm_plan_options po = by_column();

	for (int rep = 0; rep < 12; rep++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "16,a,%.9g\n",
					(0.1 + 2e-3 * 64) * (1 + 0.01 * (rep % 3 - 1)));
	for (int n = 2; n <= 8; n *= 2)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%d,a,%.9g\n%d,b,%.9g\n", n,
					0.1 + 2e-3 * pow(n, 1.5), n, 0.1 + 2e-3 * pow(n, 1.5));
	f = files_of(equal_cost, far);
	unlink(f.data);
	free(f.data);
	f.data = temp_csv(text);
	po.members = 64;
	cr_assert_eq(plan_with(&f, 1, po, &p, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(p->npicks, 5);
	pm_plan_free(p);
	files_free(&f);
}

/* A run counts as the fit's loss weighs it: under an absolute loss (mae,
 * the default) a run's noise is the plan's times the median measured time
 * over its predicted time; under a relative one (log) it is the plan's. */
Test(plan, noise_weighed_by_the_loss)
{
	struct files f = files_of(equal_cost, far);
	pm_spec *s;
	pm_fit_options o = pm_fit_options_default();
	pm_source src = { .path = f.data };
	pm_plan *p = NULL, *q = NULL;
	pm_error err = { 0 };
	/* the data's 12 times: the median is the upper middle one, the 7th
	 * smallest, n = 8 on device b, 2 % low: (0.1 + 2e-3 * 8^1.5) * 0.98 */
	double median = (0.1 + 2e-3 * pow(8, 1.5)) * 0.98;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "t", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, "n", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_CATEGORICAL, "dev", NULL), PM_OK);
	cr_assert_eq(pm_spec_set_form(s, "additive", NULL), PM_OK);
	o.threads = 1;
	cr_assert_eq(pm_plan_file(&src, s, &o, NULL, 0, NULL, f.cand, f.targets,
				  &(pm_plan_options){ .count = 5, .members = 16, .seed = 1,
						      .cost_column = "cost" }, &p, &err),
		     PM_OK, "%s", err.msg);
	o.loss = PM_LOSS_LOG;
	cr_assert_eq(pm_plan_file(&src, s, &o, NULL, 0, NULL, f.cand, f.targets,
				  &(pm_plan_options){ .count = 5, .members = 16, .seed = 1,
						      .cost_column = "cost" }, &q, &err),
		     PM_OK, "%s", err.msg);
	for (size_t k = 0; k < p->npicks; k++)
		cr_expect_float_eq(p->picks[k].noise,
				   fmax(p->noise * median / p->picks[k].predicted, 1e-3), 1e-9,
				   "pick %zu: noise %g, plan's %g, predicted %g", k + 1,
				   p->picks[k].noise, p->noise, p->picks[k].predicted);
	for (size_t k = 0; k < q->npicks; k++)
		cr_expect_eq(q->picks[k].noise, q->noise);
	pm_plan_free(p);
	pm_plan_free(q);
	pm_spec_free(s);
	files_free(&f);
}

/* A speedup model predicts no time to cost a run by: it needs a cost
 * column, and plans with one. */
Test(plan, target_kind_needs_a_cost_column)
{
	char *data = temp_csv("nodes,speedup\n1,1\n2,1.8\n4,3.1\n8,4.9\n");
	char *cand = temp_csv("nodes,cost\n16,16\n32,32\n");
	char *targets = temp_csv("nodes\n64\n");
	pm_spec *s;
	pm_fit_options o = pm_fit_options_default();
	pm_source src = { .path = data };
	pm_plan_options po = pm_plan_options_default();
	pm_plan *p = (pm_plan *)&p;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "speedup", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_EXTRINSIC, "nodes", NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target_kind(s, PM_TARGET_SPEEDUP, NULL, NULL, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_form(s, "additive", NULL), PM_OK);
	o.threads = 1;
	cr_expect_eq(pm_plan_file(&src, s, &o, NULL, 0, NULL, cand, targets, &po, &p, &err),
		     PM_EINVAL);
	cr_expect_null(p);
	cr_expect(strstr(err.msg, "predicts a speedup, not a time"), "%s", err.msg);
	po.cost_column = "cost";
	cr_expect_eq(pm_plan_file(&src, s, &o, NULL, 0, NULL, cand, targets, &po, &p, &err),
		     PM_OK, "%s", err.msg);
	cr_expect_eq(p->npicks, 2);
	pm_plan_free(p);
	pm_spec_free(s);
	unlink(data);
	unlink(cand);
	unlink(targets);
	free(data);
	free(cand);
	free(targets);
}

/* A stop request before the call: the fit stops at once, nothing is
 * planned. */
Test(plan, interrupted)
{
	struct files f = files_of(equal_cost, far);
	pm_spec *s;
	pm_fit_options o = pm_fit_options_default();
	pm_source src = { .path = f.data };
	pm_plan *p = (pm_plan *)&p;
	pm_error err = { 0 };
	volatile sig_atomic_t stop = 1;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "t", NULL), PM_OK);
	cr_assert_eq(pm_spec_set_form(s, "additive", NULL), PM_OK);
	o.threads = 1;
	o.stop = &stop;
	cr_expect_eq(pm_plan_file(&src, s, &o, NULL, 0, NULL, f.cand, f.targets,
				  &(pm_plan_options){ .count = 5, .members = 16, .seed = 1 }, &p,
				  &err),
		     PM_EFIT);
	cr_expect_null(p);
	cr_expect(strstr(err.msg, "interrupted"), "%s", err.msg);
	pm_spec_free(s);
	files_free(&f);
}

/* The plan of data as t = a n^p + C (no device), t of the kind given:
 * its status, and the message. */
static pm_status plan_n_only(const char *data, pm_target_kind kind, pm_plan **p, pm_error *err)
{
	struct files f = files_with_data(data, "n,cost\n3,1\n64,1\n", "n\n1024\n");
	pm_spec *s;
	pm_fit_options o = pm_fit_options_default();
	pm_source src = { .path = f.data };
	pm_plan_options po = by_column();
	pm_status st;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "t", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, "n", NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target_kind(s, kind, NULL, NULL, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_form(s, "additive", NULL), PM_OK);
	o.threads = 1;
	st = pm_plan_file(&src, s, &o, NULL, 0, NULL, f.cand, f.targets, &po, p, err);
	pm_spec_free(s);
	files_free(&f);
	return st;
}

/* One configuration measured (four times): every resample is the same,
 * the spread is no uncertainty; refused, saying what to measure. */
Test(plan, one_configuration_refused)
{
	pm_plan *p = (pm_plan *)&p;
	pm_error err = { 0 };

	cr_expect_eq(plan_n_only("n,t\n4,0.11\n4,0.12\n4,0.115\n4,0.118\n", PM_TARGET_TIME, &p, &err),
		     PM_EINVAL, "%s", err.msg);
	cr_expect_null(p);
	cr_expect(strstr(err.msg, "holds 1 measured configuration:") &&
		  strstr(err.msg, "at least 2 (better as many as the model has unknowns, 3)"),
		  "%s", err.msg);
}

/* A constant law the data pins exactly: the refits agree at the target
 * (to the optimiser's 1e-5); refused rather than ranked by that. */
Test(plan, no_spread_refused)
{
	pm_plan *p = (pm_plan *)&p;
	pm_error err = { 0 };

	cr_expect_eq(plan_n_only("n,t\n2,1\n4,1\n8,1\n16,1\n32,1\n", PM_TARGET_TIME, &p, &err),
		     PM_EFIT,
		     "%s", err.msg);
	cr_expect_null(p);
	cr_expect(strstr(err.msg, "predict the targets alike"), "%s", err.msg);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A throughput model is fitted on 1/X: under mae a run's noise is the
 * plan's times the median measured 1/X over the candidate's predicted 1/X
 * (it was X over X^: the weights inverted). */
Test(plan, noise_on_the_time_scale_of_a_throughput)
{
	static const double ns[] = { 2, 4, 6, 8, 12, 16 };
	char text[1024];
	size_t len = (size_t)snprintf(text, sizeof(text), "n,t\n");
	double inv[12];
	pm_plan *p = NULL;
	pm_error err = { 0 };

	for (size_t i = 0; i < 6; i++)
		for (int rep = 0; rep < 2; rep++) {
			double x = 1 / ((0.1 + 2e-3 * pow(ns[i], 1.5)) * (1 + 0.01 * (rep ? 1 : -1)));

			len += (size_t)snprintf(text + len, sizeof(text) - len, "%g,%.9g\n", ns[i], x);
			inv[2 * i + (size_t)rep] = 1 / atof(strrchr(text, ',') + 1);
		}
	qsort(inv, 12, sizeof(*inv), by_value);	/* the upper middle one is the median */
	cr_assert_eq(plan_n_only(text, PM_TARGET_THROUGHPUT, &p, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(p->npicks, 2);
	for (size_t k = 0; k < p->npicks; k++)
		cr_expect_float_eq(p->picks[k].noise,
				   fmax(p->noise * inv[6] * p->picks[k].predicted, 1e-3), 1e-9,
				   "pick %zu: noise %g, plan's %g, predicted %g", k + 1,
				   p->picks[k].noise, p->noise, p->picks[k].predicted);
	pm_plan_free(p);
}

/* A candidate listed twice is one configuration: the later row is left
 * out, naming the first, and never picked twice. */
Test(plan, duplicate_candidates_are_one)
{
	struct files f = files_of("n,dev,cost\n512,a,1\n64,a,1\n512,a,1\n", far);
	pm_plan *p = NULL;
	pm_error err = { 0 };

	cr_assert_eq(plan_with(&f, 1, by_column(), &p, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(p->ndropped, 1);
	cr_expect_eq(p->dropped[0], 2);
	cr_expect_eq(p->dropped_in[0], PM_PLAN_IN_CANDIDATES);
	cr_expect_eq(p->dropped_match[0], 2);
	cr_assert_eq(p->npicks, 2);
	cr_expect_neq(p->picks[0].row, 2);
	cr_expect_neq(p->picks[1].row, 2);
	pm_plan_free(p);
	files_free(&f);
}

/* A measured candidate is left out: its cost is never used, so not checked. */
Test(plan, cost_of_a_dropped_candidate_not_checked)
{
	struct files f = files_of("n,dev,cost\n4,a,-1\n64,a,1\n", far);
	pm_plan *p = NULL;
	pm_error err = { 0 };

	cr_assert_eq(plan_with(&f, 1, by_column(), &p, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(p->ndropped, 1);
	cr_expect_eq(p->npicks, 1);
	pm_plan_free(p);
	files_free(&f);
}

/* The rows of --test were measured too: a candidate among them is left
 * out (naming the test file's line), a target among them refused. */
Test(plan, test_rows_are_measured)
{
	struct files f = files_of("n,dev,cost\n64,a,1\n32,a,1\n", far);
	pm_plan *p = NULL;
	pm_error err = { 0 };

	f.test = temp_csv("n,dev,t\n32,a,0.46\n1024,b,65\n");
	cr_assert_eq(plan_with(&f, 1, by_column(), &p, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(p->ndropped, 1);
	cr_expect_eq(p->dropped[0], 1);
	cr_expect_eq(p->dropped_in[0], PM_PLAN_IN_TEST);
	cr_expect_eq(p->dropped_match[0], 2);
	pm_plan_free(p);
	p = (pm_plan *)&p;
	unlink(f.targets);
	free(f.targets);
	f.targets = temp_csv("n,dev\n1024,b\n");
	cr_expect_eq(plan_with(&f, 1, by_column(), &p, &err), PM_EINVAL, "%s", err.msg);
	cr_expect_null(p);
	cr_expect(strstr(err.msg, "target 1 is a configuration already measured") &&
		  strstr(err.msg, "line 3)"), "%s", err.msg);
	files_free(&f);
}

/* Subnormal costs (1e-320) rank as costs of 1 do (gain / cost
 * overflowed to inf for all: a tie, the first row won). */
Test(plan, tiny_costs_rank_as_any_scale)
{
	static const char tiny[] = "n,dev,cost\n3,a,1e-320\n5,a,1e-320\n64,a,1e-320\n"
				   "512,a,1e-320\n";
	struct files f = files_of(tiny, far), g = files_of("n,dev,cost\n3,a,1\n5,a,1\n64,a,1\n"
							   "512,a,1\n", far);
	pm_plan *p = NULL, *q = NULL;
	pm_error err = { 0 };
	pm_plan_options po = by_column();

	po.count = 3;
	cr_assert_eq(plan_with(&f, 1, po, &p, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(plan_with(&g, 1, po, &q, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(p->npicks, 3);
	for (size_t k = 0; k < 3; k++)
		cr_expect_eq(p->picks[k].row, q->picks[k].row, "pick %zu: row %zu, not %zu", k + 1,
			     p->picks[k].row, q->picks[k].row);
	cr_expect_geq(cand_n(p, 0), 64);
	pm_plan_free(p);
	pm_plan_free(q);
	files_free(&f);
	files_free(&g);
}

/* Costs 0.1 and 0.2 fit in a budget of 0.3, though 0.3 - 0.1 < 0.2 in
 * doubles. */
Test(plan, exact_decimal_budget)
{
	struct files f = files_of("n,dev,cost\n256,a,0.1\n512,a,0.2\n", far);
	pm_plan *p = NULL;
	pm_error err = { 0 };
	pm_plan_options po = by_column();

	po.count = 0;
	po.budget = 0.3;
	cr_assert_eq(plan_with(&f, 1, po, &p, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(p->npicks, 2);
	pm_plan_free(p);
	files_free(&f);
}
