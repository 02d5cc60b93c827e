#include <criterion/criterion.h>
#include <math.h>

#include "leak_check.h"
#include "model/terms.h"

PM_LEAK_CHECKED_SUITE(terms);

/* inputs: x (intrinsic), c (categorical, 2 levels), e (extrinsic), y (intrinsic) */
static const pm_role roles[] = { PM_ROLE_INTRINSIC, PM_ROLE_CATEGORICAL, PM_ROLE_EXTRINSIC,
				 PM_ROLE_INTRINSIC };
static const size_t nlevels[] = { 0, 2, 0, 0 };

struct pt {
	const pm_terms *t;
	const double *param;
	const double *x;
	uint32_t level;
};

static double pt_factor(const void *ctx, uint32_t f)
{
	const struct pt *p = ctx;

	return pm__factor_value(p->param[p->t->factor[f].power], log(p->x[p->t->factor[f].input]));
}

static uint32_t pt_level(const void *ctx, uint32_t i)
{
	(void)i;
	return ((const struct pt *)ctx)->level;
}

Test(terms, additive_layout_follows_eq_4_4)
{
	pm_terms t;
	pm_param_desc *d;
	size_t np;

	cr_assert_eq(pm__terms_additive(4, roles, nlevels, &t, &d, &np, NULL), PM_OK);
	/* a_x p_x b_c0 b_c1 q_e a_y p_y C */
	cr_assert_eq(np, 8);
	cr_expect_eq(d[0].kind, PM_PARAM_COEF);
	cr_expect_eq(d[1].kind, PM_PARAM_POWER);
	cr_expect_eq(d[2].kind, PM_PARAM_LEVEL);
	cr_expect_eq(d[3].level, 1);
	cr_expect_eq(d[4].kind, PM_PARAM_SCALING);
	cr_expect_eq(d[4].input, 2);
	cr_expect_eq(d[5].input, 3);
	cr_expect_eq(d[7].kind, PM_PARAM_CONST);
	cr_expect_eq(d[7].input, PM_NONE);
	/* terms: a_x, b_c0, b_c1, a_y, C; factors: e (shared), x, y */
	cr_expect_eq(t.nterms, 5);
	cr_expect_eq(t.nfactors, 3);
	cr_expect_eq(t.factor[0].input, 2);
	cr_expect_eq(t.term[4].nfactors, 0);
	cr_expect_eq(t.term[1].level_input, 1);
	free(d);
	pm__terms_free(&t);
}

Test(terms, combine_matches_hand_computation)
{
	pm_terms t;
	pm_param_desc *d;
	size_t np;
	/* a_x p_x b_c0 b_c1 q_e a_y p_y C */
	const double param[] = { 2.0, 1.5, 0.25, 0.75, -0.5, 3.0, 0.5, 0.125 };
	const double x[] = { 4.0, 0.0, 16.0, 9.0 };
	struct pt p = { &t, param, x, 1 };
	double want = (2.0 * pow(4, 1.5) + 0.75 + 3.0 * pow(9, 0.5)) * pow(16, -0.5) + 0.125;

	cr_assert_eq(pm__terms_additive(4, roles, nlevels, &t, &d, &np, NULL), PM_OK);
	cr_expect_float_eq(pm__terms_combine(&t, param, pt_factor, pt_level, &p), want, 1e-12);
	p.level = 0;
	want = (2.0 * pow(4, 1.5) + 0.25 + 3.0 * pow(9, 0.5)) * pow(16, -0.5) + 0.125;
	cr_expect_float_eq(pm__terms_combine(&t, param, pt_factor, pt_level, &p), want, 1e-12);
	free(d);
	pm__terms_free(&t);
}

Test(terms, no_inputs_is_just_the_constant)
{
	pm_terms t;
	pm_param_desc *d;
	size_t np;
	const double param[] = { 7.0 };
	struct pt p = { &t, param, NULL, 0 };

	cr_assert_eq(pm__terms_additive(0, NULL, NULL, &t, &d, &np, NULL), PM_OK);
	cr_expect_eq(np, 1);
	cr_expect_eq(pm__terms_combine(&t, param, pt_factor, pt_level, &p), 7.0);
	free(d);
	pm__terms_free(&t);
	pm__terms_free(NULL);
}
