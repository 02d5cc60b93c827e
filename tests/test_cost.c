#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cost.h"
#include "synth.h"

struct fixture {
	pm_dataset *d;
	pm_spec *s;
	pm_problem p;
	pm_model *m;
	pm_cost c;
	double *scratch;
};

static void setup(struct fixture *f, pm_fit_options o)
{
	char *csv = syn_csv(60, 0.05, 21);
	const char *names[] = { "k", "f", "h", "act", "opt", "threads", "batch" };
	pm_role role[7];
	size_t nlevels[7];
	const char *const *levels[7];

	memset(f, 0, sizeof(*f));
	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "syn.csv", &f->d, NULL), PM_OK);
	free(csv);
	cr_assert_eq(pm_spec_new(&f->s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(f->s, "time", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&f->s->intrinsic, "k,f,h", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&f->s->categorical, "act,opt", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&f->s->extrinsic, "threads,batch", NULL), PM_OK);
	f->s->infer_roles = 0;
	cr_assert_eq(pm__problem_build(f->d, f->s, o.scale, &f->p, NULL), PM_OK);
	for (size_t j = 0; j < 7; j++) {
		role[j] = f->p.col[j].role;
		nlevels[j] = f->p.col[j].ndistinct;
		levels[j] = (const char *const *)f->p.col[j].levels;
	}
	cr_assert_eq(pm__model_new_additive("time", 7, names, role, nlevels, levels, &f->m, NULL),
		     PM_OK);
	cr_assert_eq(pm__cost_init(&f->c, &f->p, f->m, &o, NULL), PM_OK);
	f->scratch = malloc(f->c.scratch_bytes);
}

static void teardown(struct fixture *f)
{
	free(f->scratch);
	pm__cost_free(&f->c);
	pm_model_free(f->m);
	pm__problem_free(&f->p);
	pm_spec_free(f->s);
	pm_dataset_free(f->d);
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

static void check_gradient(pm_fit_options o)
{
	struct fixture f;
	double x[32], g[32], xp[32], eps = 1e-3;

	setup(&f, o);
	some_point(f.m, x);
	pm__cost_smooth(x, eps, g, &f.c, f.scratch);
	for (size_t k = 0; k < f.m->nparams; k++) {
		double h = 1e-6 * (1.0 + fabs(x[k])), up, down, fd, gk[32];

		memcpy(xp, x, sizeof(xp));
		xp[k] = x[k] + h;
		up = pm__cost_smooth(xp, eps, gk, &f.c, f.scratch);
		xp[k] = x[k] - h;
		down = pm__cost_smooth(xp, eps, gk, &f.c, f.scratch);
		fd = (up - down) / (2 * h);
		cr_expect(fabs(fd - g[k]) <= 1e-5 * (1.0 + fabs(fd)),
			  "parameter %s: analytic %.10g, finite difference %.10g",
			  f.m->params[k].name, g[k], fd);
	}
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
