#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "fit/cost.h"
#include "leak_check.h"
#include "synth.h"

PM_LEAK_CHECKED_SUITE(cost);

/* Allocation failure injection: alloc_fail.h. */
#include "alloc_fail.h"
#include "cost_fixture.h"

static void setup(struct fixture *f, pm_fit_options o)
{
	setup_csv(f, o, syn_csv(60, 0.05, 21), "k,f,h", "act,opt", "threads,batch");
}

/* <0, 0, >0 as a's k codes sort before, with or after b's */
static int memcmp_u32(const uint32_t *a, const uint32_t *b, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (a[j] != b[j])
			return a[j] < b[j] ? -1 : 1;
	return 0;
}

/* A parameter vector inside the default bounds, varied per parameter. */
static void some_point(const pm_model *m, double *x)
{
	for (size_t k = 0; k < m->nparams; k++) {
		pm_param_kind kind = m->params[k].desc.kind;

		x[k] = kind == PM_PARAM_POWER || kind == PM_PARAM_SCALING ? 0.3 - 0.2 * (double)(k % 4)
									  : 0.1 + 0.05 * (double)k;
	}
}


Test(cost, value_is_the_mean_absolute_error_of_the_model)
{
	struct fixture f;
	double x[32], want = 0.0;

	setup(&f, pm_fit_options_default());
	some_point(f.m, x);
	memcpy(f.m->value, x, f.m->nparams * sizeof(double));
	f.m->target_scale = f.p.target_scale;
	for (size_t i = 0; i < f.m->ninputs; i++)
		f.m->inputs[i].log_scale = f.p.col[i].log_scale;
	pm__model_raw(f.m);	/* as a fit ends: the values settled */
	/* the same sum through the public predictor, row by row */
	for (size_t r = 0; r < f.p.nrows; r++) {
		double pt[7], pred;

		for (size_t i = 0; i < 7; i++) {
			size_t col;
			cr_assert_eq(pm_dataset_col_index(f.d, f.m->inputs[i].name, &col, NULL), PM_OK);
			if (f.m->inputs[i].role == PM_ROLE_CATEGORICAL)
				pt[i] = f.p.col[i].code[r];
			else
				cr_assert_eq(pm_dataset_number(f.d, r, col, &pt[i], NULL), PM_OK);
		}
		cr_assert_eq(pm_model_predict(f.m, pt, &pred, NULL), PM_OK);
		want += fabs(f.p.t[r] - pred / f.p.target_scale);
	}
	want /= (double)f.p.nrows;
	cr_expect_float_eq(pm__cost_value(x, &f.c, f.scratch), want, 1e-12 * want);
	teardown(&f);
}

/* pm__cost_smooth's gradient against central differences at x. */
static void expect_gradient(struct fixture *f, const double *x)
{
	double g[32], xp[32], eps = 1e-3;

	cr_assert_leq(f->m->nparams, 32);
	pm__cost_smooth(x, eps, g, &f->c, f->scratch);
	for (size_t k = 0; k < f->m->nparams; k++) {
		double h = 1e-6 * (1.0 + fabs(x[k])), up, down, fd, gk[32];

		memcpy(xp, x, f->m->nparams * sizeof(*x));
		xp[k] = x[k] + h;
		up = pm__cost_smooth(xp, eps, gk, &f->c, f->scratch);
		xp[k] = x[k] - h;
		down = pm__cost_smooth(xp, eps, gk, &f->c, f->scratch);
		fd = (up - down) / (2 * h);
		cr_expect(fabs(fd - g[k]) <= 1e-5 * (1.0 + fabs(fd)),
			  "parameter %s: analytic %.10g, finite difference %.10g",
			  f->m->params[k].name, g[k], fd);
	}
}

static void check_gradient(pm_fit_options o)
{
	struct fixture f;
	double x[32];

	setup(&f, o);
	some_point(f.m, x);
	expect_gradient(&f, x);
	teardown(&f);
}

Test(cost, gradient_matches_finite_differences)
{
	check_gradient(pm_fit_options_default());
}

Test(cost, gradient_with_l2_and_l1_penalties)
{
	pm_fit_options o = pm_fit_options_default();

	o.reg = PM_REG_L2;
	o.lambda_coef = 0.01;
	o.lambda_power = 0.003;
	check_gradient(o);
	o.reg = PM_REG_L1;
	check_gradient(o);
}

/* Each loss's smoothed gradient, with and without a penalty; log and MAPE
 * at a point where every prediction is > 0 (some_point's). */
Test(cost, gradient_for_every_loss)
{
	pm_fit_options o = pm_fit_options_default();

	for (int k = PM_LOSS_MSE; k <= PM_LOSS_LOG; k++) {
		o.loss = (pm_loss)k;
		o.reg = PM_REG_NONE;
		check_gradient(o);
		o.reg = PM_REG_L2;
		o.lambda_coef = o.lambda_power = 0.01;
		check_gradient(o);
	}
}

/* t = a·x^p · e^q + C on four rows in raw units; e = 1, so q does nothing,
 * and with a = 1, p = 1, C = 0 the prediction is x: residuals t − x = 2,
 * −1, 1, 0 on t = 3, 1, 5, 8. csv: the time column in other units. */
static double tiny_cost(pm_loss loss, pm_reg reg, double lambda, const double *x,
			const char *time)
{
	pm_fit_options o = pm_fit_options_default();
	struct fixture f;
	char csv[128];
	double v;
	double t[4];

	cr_assert_eq(sscanf(time, "%lf,%lf,%lf,%lf", &t[0], &t[1], &t[2], &t[3]), 4);
	snprintf(csv, sizeof(csv), "x,e,time\n1,1,%.17g\n2,1,%.17g\n4,1,%.17g\n8,1,%.17g\n",
		 t[0], t[1], t[2], t[3]);
	o.scale = PM_SCALE_NONE;
	o.loss = loss;
	o.reg = reg;
	o.lambda_coef = o.lambda_power = lambda;
	setup_csv(&f, o, strdup(csv), "x", "", "e");
	cr_assert_eq(f.m->nparams, 4);	/* a_x, p_x, q_e, C */
	v = pm__cost_value(x, &f.c, f.scratch);
	teardown(&f);
	return v;
}

Test(cost, every_loss_on_hand_computed_residuals)
{
	const double x[] = { 1.0, 1.0, 0.7, 0.0 };
	const double want[] = {
		[PM_LOSS_MAE] = (2.0 + 1.0 + 1.0 + 0.0) / 4,
		[PM_LOSS_MSE] = (4.0 + 1.0 + 1.0 + 0.0) / 4,
		[PM_LOSS_MAPE] = (2.0 / 3 + 1.0 / 1 + 1.0 / 5 + 0.0 / 8) / 4,
		[PM_LOSS_LOG] = (log(3.0) + log(2.0) + log(5.0 / 4) + 0.0) / 4,
	};

	for (int k = PM_LOSS_MAE; k <= PM_LOSS_LOG; k++) {
		double got = tiny_cost((pm_loss)k, PM_REG_NONE, 0, x, "3,1,5,8");

		cr_expect(fabs(got - want[k]) <= 1e-14 * want[k], "%s: %.17g, want %.17g",
			  pm_loss_name((pm_loss)k), got, want[k]);
	}
}

/* The constant reaches every row: t̂ = x + 0.5. */
Test(cost, every_loss_sees_the_constant)
{
	const double x[] = { 1.0, 1.0, -2.0, 0.5 };
	double log_want = (fabs(log(1.5 / 3)) + fabs(log(2.5 / 1)) + fabs(log(4.5 / 5)) +
			   fabs(log(8.5 / 8))) / 4;
	double mape_want = (1.5 / 3 + 1.5 / 1 + 0.5 / 5 + 0.5 / 8) / 4;

	cr_expect_float_eq(tiny_cost(PM_LOSS_LOG, PM_REG_NONE, 0, x, "3,1,5,8"), log_want, 1e-14);
	cr_expect_float_eq(tiny_cost(PM_LOSS_MAPE, PM_REG_NONE, 0, x, "3,1,5,8"), mape_want,
			   1e-14);
}

Test(cost, penalty_adds_to_every_loss)
{
	const double x[] = { 1.0, 1.0, 0.7, 0.25 };
	const double lambda = 0.01;
	/* a, p, q penalised, C never */
	const double l2 = lambda * (1.0 + 1.0 + 0.49), l1 = lambda * (1.0 + 1.0 + 0.7);

	for (int k = PM_LOSS_MAE; k <= PM_LOSS_LOG; k++) {
		double plain = tiny_cost((pm_loss)k, PM_REG_NONE, 0, x, "3,1,5,8");

		cr_expect_float_eq(tiny_cost((pm_loss)k, PM_REG_L2, lambda, x, "3,1,5,8") - plain,
				   l2, 1e-14, "%s", pm_loss_name((pm_loss)k));
		cr_expect_float_eq(tiny_cost((pm_loss)k, PM_REG_L1, lambda, x, "3,1,5,8") - plain,
				   l1, 1e-14, "%s", pm_loss_name((pm_loss)k));
	}
}

/* docs/maths.md: the same data in milliseconds-to-seconds units (t and a
 * times 1e-3) gives the same MAPE and log cost; MAE scales by 1e-3, MSE by
 * 1e-6. */
Test(cost, mape_and_log_are_scale_invariant)
{
	const double x[] = { 1.0, 1.0, 0.7, 0.0 }, k = 1e-3, xs[] = { 1e-3, 1.0, 0.7, 0.0 };
	const double factor[] = { [PM_LOSS_MAE] = k, [PM_LOSS_MSE] = k * k, [PM_LOSS_MAPE] = 1,
				  [PM_LOSS_LOG] = 1 };

	for (int l = PM_LOSS_MAE; l <= PM_LOSS_LOG; l++) {
		double raw = tiny_cost((pm_loss)l, PM_REG_NONE, 0, x, "3,1,5,8");
		double small = tiny_cost((pm_loss)l, PM_REG_NONE, 0, xs, "0.003,0.001,0.005,0.008");

		cr_expect_float_eq(small, raw * factor[l], 1e-13 * raw * factor[l], "%s",
				   pm_loss_name((pm_loss)l));
	}
}

/* A prediction of 0 has no logarithm: the trial is infeasible, +inf, never
 * NaN (DE's selection needs an ordered cost); MAPE only divides by t. */
Test(cost, log_of_a_zero_prediction_is_infinite)
{
	const double x[] = { 0.0, 1.0, 0.0, 0.0 };

	cr_expect(isinf(tiny_cost(PM_LOSS_LOG, PM_REG_NONE, 0, x, "3,1,5,8")));
	cr_expect(isfinite(tiny_cost(PM_LOSS_MAPE, PM_REG_NONE, 0, x, "3,1,5,8")));
}

/* MSE needs no smoothing: its smoothed cost is the true one, bit for bit;
 * the others approach theirs as eps shrinks. */
Test(cost, smoothing_approaches_every_loss)
{
	pm_fit_options o = pm_fit_options_default();

	for (int k = PM_LOSS_MSE; k <= PM_LOSS_LOG; k++) {
		struct fixture f;
		double x[32], g[32], exact, smooth;

		o.loss = (pm_loss)k;
		setup(&f, o);
		some_point(f.m, x);
		exact = pm__cost_value(x, &f.c, f.scratch);
		smooth = pm__cost_smooth(x, 1e-12, g, &f.c, f.scratch);
		if (o.loss == PM_LOSS_MSE)
			cr_expect_eq(memcmp(&smooth, &exact, sizeof(exact)), 0, "%.17g %.17g",
				     smooth, exact);
		else
			cr_expect_float_eq(smooth, exact, 1e-9 * exact, "%s", pm_loss_name(o.loss));
		teardown(&f);
	}
}

Test(cost, smoothing_approaches_the_true_cost)
{
	struct fixture f;
	double x[32], g[32], exact, smooth;

	setup(&f, pm_fit_options_default());
	some_point(f.m, x);
	exact = pm__cost_value(x, &f.c, f.scratch);
	smooth = pm__cost_smooth(x, 1e-12, g, &f.c, f.scratch);
	cr_expect_float_eq(smooth, exact, 1e-9 * exact);
	/* smoothing only ever lowers |r|'s contribution */
	cr_expect_lt(pm__cost_smooth(x, 0.1, g, &f.c, f.scratch), exact);
	teardown(&f);
}

Test(cost, l2_penalty_spares_the_constant)
{
	pm_fit_options o = pm_fit_options_default();
	struct fixture f;
	double x[32], plain, pen, want = 0.0;

	setup(&f, o);
	some_point(f.m, x);
	plain = pm__cost_value(x, &f.c, f.scratch);
	f.c.reg = PM_REG_L2;
	f.c.lambda_coef = 0.5;
	f.c.lambda_power = 0.25;
	for (size_t k = 0; k < f.m->nparams; k++) {
		pm_param_kind kind = f.m->params[k].desc.kind;

		if (kind == PM_PARAM_COEF || kind == PM_PARAM_LEVEL)
			want += 0.5 * x[k] * x[k];
		else if (kind != PM_PARAM_CONST)
			want += 0.25 * x[k] * x[k];
	}
	pen = pm__cost_value(x, &f.c, f.scratch);
	cr_expect_float_eq(pen - plain, want, 1e-12);
	teardown(&f);
}

/* A term list beyond eq. 4.4, over the fixture's inputs k f h act opt
 * threads batch (parameters a_k p_k a_f p_f a_h p_h b_act×3 b_opt×2 q_threads
 * q_batch C): two scaling groups, two powers of one column, a level times a
 * factor, a coefficient times shared factors alone, a level with no factor,
 * coefficients used twice, factors repeated within a term and two
 * constants. The compiled plan must give what the term list does. */
static void install_general_terms(pm_model *m)
{
	static const pm_factor factor[] = {
		{ .input = 5, .power = 11 }, { .input = 6, .power = 12 }, { .input = 0, .power = 1 },
		{ .input = 1, .power = 3 }, { .input = 2, .power = 5 }, { .input = 2, .power = 1 },
		{ .input = 0, .power = 3 }, { .input = 6, .power = 5 }, { .input = 1, .power = 12 },
	};
	static const uint32_t ref[] = {
		2, 0, 1,	/* a_k k^p_k threads^q batch^q */
		3, 0, 1,	/* a_f f^p_f threads^q batch^q */
		0, 1,		/* b_act0 [act=0] threads^q batch^q */
		0,		/* b_act1 [act=1] threads^q */
		4, 5, 7,	/* a_h h^p_h h^p_k batch^p_h */
		0,		/* b_opt0 threads^q */
		6,		/* b_opt1 [opt=1] k^p_f */
		4,		/* b_act2 h^p_h */
		3, 1,		/* a_f f^p_f batch^q */
		6, 6,		/* b_act2 (k^p_f)² */
		8, 8,		/* a_h (f^q_batch)² */
	};
	static const pm_term term[] = {
		{ 0, PM_NONE, 0, 0, 3 }, { 2, PM_NONE, 0, 3, 3 }, { 6, 3, 0, 6, 2 },
		{ 7, 3, 1, 8, 1 }, { 4, PM_NONE, 0, 9, 3 }, { 9, PM_NONE, 0, 12, 1 },
		{ 10, 4, 1, 13, 1 }, { 8, PM_NONE, 0, 14, 1 }, { 13, PM_NONE, 0, 15, 0 },
		{ 2, PM_NONE, 0, 15, 2 }, { 9, 4, 0, 17, 0 }, { 7, PM_NONE, 0, 17, 0 },
		{ 8, PM_NONE, 0, 17, 2 }, { 4, PM_NONE, 0, 19, 2 },
	};
	pm_terms *t = &m->terms;

	cr_assert_eq(m->nparams, 14);
	pm__terms_free(t);
	t->factor = malloc(sizeof(factor));
	t->ref = malloc(sizeof(ref));
	t->term = malloc(sizeof(term));
	cr_assert(t->factor && t->ref && t->term);
	memcpy(t->factor, factor, sizeof(factor));
	memcpy(t->ref, ref, sizeof(ref));
	memcpy(t->term, term, sizeof(term));
	t->nfactors = sizeof(factor) / sizeof(factor[0]);
	t->nterms = sizeof(term) / sizeof(term[0]);
}

struct row_view {
	const pm_problem *p;
	const pm_terms *t;
	const double *x;
	size_t r;
};

static double view_factor(const void *ctx, uint32_t f)
{
	const struct row_view *v = ctx;
	const pm_factor *fa = &v->t->factor[f];
	const pm_column *col = &v->p->col[fa->input];
	uint32_t d = col->code[v->r];

	return pm__factor_eval(fa, v->x, col->x ? pm__factor_base(fa, col->x[d], col->log_scale)
						: (double)d);
}

static uint32_t view_level(const void *ctx, uint32_t i)
{
	const struct row_view *v = ctx;

	return v->p->col[i].code[v->r];
}

/* The cost straight from the term list, row by row. */
static double reference_cost(const struct fixture *f, const double *x)
{
	double sum = 0.0;

	for (size_t r = 0; r < f->p.nrows; r++) {
		struct row_view v = { &f->p, &f->m->terms, x, r };

		sum += fabs(f->p.t[r] -
			    pm__terms_combine(&f->m->terms, x, view_factor, view_level, &v));
	}
	return sum / (double)f->p.nrows;
}

static void setup_general(struct fixture *f, pm_fit_options o)
{
	setup(f, o);
	pm__cost_free(&f->c);
	free(f->scratch);
	install_general_terms(f->m);
	cr_assert_eq(pm__cost_init(&f->c, &f->p, f->m, &o, NULL), PM_OK);
	f->scratch = malloc(f->c.scratch_bytes);
	cr_assert(f->scratch);
}

/* Each group numbers the key combinations that occur in the rows in the
 * lexicographic order of their codes: combo_code holds each one once, in
 * ascending order, every one is some row's, and a row's number gives back
 * its codes. That pins the numbering down, and so the tables' order. */
static void expect_combos_numbered(const pm_cost *c)
{
	const pm_terms *t = &c->m->terms;
	size_t n = c->p->nrows, checked = 0;

	for (size_t g = 0; g < c->ngroups; g++) {
		const pm_cost_group *gr = &c->group[g];
		size_t k = gr->nkeys;
		char *used;

		if (!k)
			continue;
		used = calloc(gr->ncombos, 1);
		cr_assert(used);
		for (size_t r = 0; r < n; r++) {
			cr_assert_lt(gr->combo[r], gr->ncombos);
			used[gr->combo[r]] = 1;
			for (size_t j = 0; j < k; j++) {
				const pm_column *col = &c->p->col[t->factor[c->key[gr->first_key + j]].input];

				cr_expect_eq(gr->combo_code[gr->combo[r] * k + j], col->code[r],
					     "group %zu row %zu key %zu", g, r, j);
			}
		}
		for (size_t i = 0; i < gr->ncombos; i++) {
			cr_expect(used[i], "group %zu: combination %zu is no row's", g, i);
			if (i > 0)
				cr_expect_lt(memcmp_u32(gr->combo_code + (i - 1) * k,
							gr->combo_code + i * k, k), 0,
					     "group %zu: combinations %zu and %zu out of order", g,
					     i - 1, i);
		}
		free(used);
		checked++;
	}
	cr_expect_gt(checked, 0, "no group with keys: nothing checked");
}

Test(cost, key_combinations_are_numbered_in_code_order)
{
	struct fixture f;

	setup(&f, pm_fit_options_default());
	expect_combos_numbered(&f.c);
	teardown(&f);
	setup_general(&f, pm_fit_options_default());
	expect_combos_numbered(&f.c);
	teardown(&f);
}

/* The plan's cost at some point is the terms' (up to rounding), and its
 * gradient is right. */
static void expect_plan_matches_terms(struct fixture *f)
{
	double x[32], want, got;

	some_point(f->m, x);
	want = reference_cost(f, x);
	got = pm__cost_value(x, &f->c, f->scratch);
	cr_expect_float_eq(got, want, 1e-12 * want, "plan %.17g, terms %.17g", got, want);
	expect_gradient(f, x);
}

/* Only top nodes are gathered per row: a merged node that became another's
 * child holds no row codes (on many rows they were a good part of the
 * fit's memory), and a top always does. Returns the children checked. */
static size_t expect_row_codes_on_tops_only(const pm_cost *c)
{
	size_t children = 0;

	for (size_t k = 0; k < c->nnodes; k++) {
		int top = 0;

		for (size_t g = 0; g < c->ngroups; g++)
			for (size_t q = c->group[g].first_top;
			     q < c->group[g].first_top + c->group[g].ntops; q++)
				top |= c->top[q] == k;
		if (top) {
			cr_expect_not_null(c->node[k].code, "top node %zu", k);
		} else if (c->node[k].child[0] != PM_NONE) {
			cr_expect_null(c->node[k].code, "merged child %zu", k);
			cr_expect_null(c->node[k].own_code, "merged child %zu", k);
			children++;
		}
	}
	return children;
}

/* 2000 rows: merged nodes are merged again (a child's row codes become its
 * parent's, rewritten in place), and the plan still costs what the terms
 * say, with the right gradient. */
Test(cost, only_top_nodes_keep_row_codes)
{
	struct fixture f;

	setup_csv(&f, pm_fit_options_default(), syn_csv(2000, 0.05, 21), "k,f,h", "act,opt",
		  "threads,batch");
	cr_expect_gt(expect_row_codes_on_tops_only(&f.c), 0,
		     "no merged node became a child: nothing checked");
	expect_plan_matches_terms(&f);
	teardown(&f);
}

static size_t merged_nodes(const pm_cost *c)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nnodes; k++)
		n += c->node[k].child[0] != PM_NONE;
	return n;
}

/* The merge share (bench/tune_bench sweeps it): 0 merges nothing, a larger
 * share merges less (400: a combination per 5 rows at most), 4 is pm__cost_init's, and every plan costs what the
 * terms say, with the right gradient. */
Test(cost, merge_share_changes_the_plan_not_the_cost)
{
	pm_fit_options o = pm_fit_options_default();
	struct fixture f;
	pm_cost deflt, plan[3];
	const unsigned share[3] = { 0, 400, 4 };
	pm_error e = { 0 };

	setup_csv(&f, o, syn_csv(2000, 0.05, 21), "k,f,h", "act,opt", "threads,batch");
	deflt = f.c;
	cr_assert_gt(merged_nodes(&deflt), 1, "the fixture merges little: nothing checked");
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(pm__cost_init_merging(&plan[i], &f.p, f.m, &o, share[i], &e), PM_OK,
			     "%s", e.msg);
		f.c = plan[i];
		free(f.scratch);
		cr_assert(f.scratch = malloc(f.c.scratch_bytes));
		expect_plan_matches_terms(&f);
	}
	cr_expect_eq(merged_nodes(&plan[0]), 0);
	cr_expect_lt(merged_nodes(&plan[1]), merged_nodes(&deflt));
	cr_expect_eq(plan[2].nnodes, deflt.nnodes, "pm__cost_init's share is 4");
	cr_expect_eq(merged_nodes(&plan[2]), merged_nodes(&deflt));
	for (int i = 0; i < 3; i++)
		pm__cost_free(&plan[i]);
	f.c = deflt;
	teardown(&f);
}

/* Its errors are pm__cost_init's. */
Test(cost, merge_share_needs_rows)
{
	struct fixture f;
	pm_problem empty;
	pm_cost c;
	pm_error e = { 0 };
	pm_fit_options o = pm_fit_options_default();

	setup(&f, o);
	empty = f.p;
	empty.nrows = 0;
	cr_expect_eq(pm__cost_init_merging(&c, &empty, f.m, &o, 4, &e), PM_EINVAL);
	cr_expect_str_eq(e.msg, "no rows to fit");
	teardown(&f);
}

Test(cost, any_term_list_compiles_to_the_same_value)
{
	struct fixture f;
	double x[32], want, got;

	setup_general(&f, pm_fit_options_default());
	some_point(f.m, x);
	want = reference_cost(&f, x);
	got = pm__cost_value(x, &f.c, f.scratch);
	cr_expect_float_eq(got, want, 1e-12 * want, "plan %.17g, terms %.17g", got, want);
	/* and the eq. 4.4 fixture's plan merged tables, so was exercised too */
	teardown(&f);
}

Test(cost, any_term_list_has_the_right_gradient)
{
	pm_fit_options o = pm_fit_options_default();
	struct fixture f;
	double x[32];

	o.reg = PM_REG_L1;
	o.lambda_coef = 0.01;
	o.lambda_power = 0.003;
	setup_general(&f, o);
	some_point(f.m, x);
	expect_gradient(&f, x);
	teardown(&f);
}

/* Seven numeric columns with many values each: too many combinations to
 * merge, so a row sums more tables than one pass takes. */
static char *wide_csv(size_t n)
{
	size_t cap = 64 + n * 160, len = 0;
	char *s = malloc(cap);
	pm_pcg32 r;

	cr_assert(s);
	pm__pcg32_seed(&r, 5, 3);
	len += (size_t)snprintf(s + len, cap - len, "x1,x2,x3,x4,x5,x6,x7,e,time\n");
	for (size_t i = 0; i < n; i++) {
		for (int j = 0; j < 7; j++)
			len += (size_t)snprintf(s + len, cap - len, "%u,",
						1 + pm__pcg32_below(&r, 12));
		len += (size_t)snprintf(s + len, cap - len, "%u,%.6f\n",
					1 + pm__pcg32_below(&r, 4), 0.5 + pm__pcg32_uniform(&r));
	}
	return s;
}

Test(cost, many_tables_per_row)
{
	struct fixture f;

	setup_csv(&f, pm_fit_options_default(), wide_csv(40), "x1,x2,x3,x4,x5,x6,x7", "", "e");
	cr_assert_geq(f.c.group[0].ntops, 6, "%zu tables", f.c.group[0].ntops);
	expect_plan_matches_terms(&f);
	teardown(&f);
}

Test(cost, value_depends_on_x_alone)
{
	struct fixture f;
	double x[32], a, b, c;
	double *other;

	setup(&f, pm_fit_options_default());
	other = malloc(f.c.scratch_bytes);
	cr_assert(other);
	some_point(f.m, x);
	a = pm__cost_value(x, &f.c, f.scratch);
	memset(other, 0xff, f.c.scratch_bytes);	/* stale NaNs must not matter */
	b = pm__cost_value(x, &f.c, other);
	x[0] *= 2.0;
	pm__cost_value(x, &f.c, f.scratch);
	x[0] /= 2.0;
	c = pm__cost_value(x, &f.c, f.scratch);
	cr_expect_eq(memcmp(&a, &b, sizeof(a)), 0);
	cr_expect_eq(memcmp(&a, &c, sizeof(a)), 0);
	free(other);
	teardown(&f);
}

#ifndef NO_ALLOC_HOOK
/* Every allocation pm__cost_init makes, failed in turn: PM_ENOMEM and
 * nothing left behind, or, where a failure is survivable (qsort's buffer),
 * success. */
static void init_survives_every_allocation_failure(int general)
{
	pm_fit_options o = pm_fit_options_default();
	struct fixture f;
	long total;

	if (general)
		setup_general(&f, o);
	else
		setup(&f, o);
	pm__cost_free(&f.c);
	calls = 0;
	fail_in = -1;
	armed = 1;
	cr_assert_eq(pm__cost_init(&f.c, &f.p, f.m, &o, NULL), PM_OK);
	armed = 0;
	pm__cost_free(&f.c);
	total = calls;
	cr_expect_gt(total, 5, "only %ld allocations", total);
	for (long k = 0; k < total; k++) {
		pm_error err = { 0 };
		pm_status st;

		alloc_arm(k);
		st = pm__cost_init(&f.c, &f.p, f.m, &o, &err);
		if (st == PM_OK)
			pm__cost_free(&f.c);
		armed = 0;
		cr_expect_lt(fail_in, 0, "allocation %ld was never asked for", k);
		if (st != PM_OK) {
			cr_expect_eq(st, PM_ENOMEM, "allocation %ld: status %d", k, st);
			cr_expect_eq(err.code, PM_ENOMEM);
			pm__cost_free(&f.c);	/* a no-op after a failed init */
		}
		cr_expect_eq(live, 0, "allocation %ld failed: %ld blocks left", k, live);
	}
	cr_assert_eq(pm__cost_init(&f.c, &f.p, f.m, &o, NULL), PM_OK);
	teardown(&f);
}

Test(cost, init_frees_everything_when_out_of_memory)
{
	init_survives_every_allocation_failure(0);
	init_survives_every_allocation_failure(1);
}
#endif
