/* The regularised cost of DESIGN.md §3 (thesis eqs. 4.9, 4.11, 4.12), seen
 * from outside: a fit's final cost minus its training MAE is the penalty at
 * the fitted point, with C left out and each group under its own λ. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(reg);

/* λ_coef Σ_{a,b} φ + λ_pow Σ_{p,q} φ at m's values; C excluded. */
static double penalty(const pm_model *m, pm_reg reg, double lc, double lp)
{
	double f = 0.0;

	for (size_t k = 0; k < pm_model_nparams(m); k++) {
		pm_param_kind kind = pm_model_param_kind(m, k);
		double x = pm_model_param_scaled(m, k), phi = reg == PM_REG_L2 ? x * x : fabs(x);

		if (kind == PM_PARAM_COEF || kind == PM_PARAM_LEVEL)
			f += lc * phi;
		else if (kind != PM_PARAM_CONST)
			f += lp * phi;
	}
	return f;
}

static void check_cost(pm_engine engine, pm_reg reg, double lc, double lp, int see_c)
{
	pm_dataset *d = syn_dataset(120, 0.05, 61);
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_engine(engine);
	pm_model *m = NULL;
	pm_error err = { 0 };
	double mae, pen, cost, c;

	/* raw units: the cost's data term is the training MAE itself */
	o.scale = PM_SCALE_NONE;
	o.maxiter = 60;
	o.threads = 2;
	o.reg = reg;
	o.lambda_coef = lc;
	o.lambda_power = lp;
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	mae = pm_model_fit_info(m)->training.mae;
	cost = pm_model_fit_info(m)->cost;
	pen = penalty(m, reg, lc, lp);
	c = pm_model_param_scaled(m, pm_model_nparams(m) - 1);
	cr_assert_float_eq(cost - mae, pen, 1e-9 * cost, "cost %.17g, MAE %.17g, penalty %.17g",
			   cost, mae, pen);
	/* the constant is not in it: counting it would change the sum by more
	 * than the tolerance above */
	if (see_c) {
		double with_c = pen + lc * (reg == PM_REG_L2 ? c * c : c);

		cr_assert_gt(fabs(cost - mae - with_c), 1e-6 * cost, "C = %g: too small to see", c);
	}
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* DE's L2 fit keeps C > 0 (the truth is 0.001), so C's absence shows */
Test(reg, l2_cost_is_mae_plus_penalty_without_c)
{
	check_cost(PM_ENGINE_DE, PM_REG_L2, 0.01, 0.003, 1);
}
/* varpro's L2 fit ends with C too small to tell: the sum alone */
Test(reg, l2_cost_is_mae_plus_penalty_varpro)
{
	check_cost(PM_ENGINE_VARPRO, PM_REG_L2, 0.01, 0.003, 0);
}
/* L1 drives this fit's C to 0: the sum alone is checked */
Test(reg, l1_cost_is_mae_plus_penalty)
{
	check_cost(PM_ENGINE_DE, PM_REG_L1, 0.002, 0.02, 0);
	check_cost(PM_ENGINE_VARPRO, PM_REG_L1, 0.002, 0.02, 0);
}
Test(reg, no_reg_cost_is_the_mae)
{
	check_cost(PM_ENGINE_DE, PM_REG_NONE, 0, 0, 0);
	check_cost(PM_ENGINE_VARPRO, PM_REG_NONE, 0, 0, 0);
}
