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

	cr_assert_eq(pm__terms_additive(4, roles, nlevels, 1, &t, &d, &np, NULL), PM_OK);
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

	cr_assert_eq(pm__terms_additive(4, roles, nlevels, 1, &t, &d, &np, NULL), PM_OK);
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

	cr_assert_eq(pm__terms_additive(0, NULL, NULL, 1, &t, &d, &np, NULL), PM_OK);
	cr_expect_eq(np, 1);
	cr_expect_eq(pm__terms_combine(&t, param, pt_factor, pt_level, &p), 7.0);
	free(d);
	pm__terms_free(&t);
	pm__terms_free(NULL);
}

/* Extrinsic inputs alone: eq. 4.4's sum is empty, so the base a0 takes its
 * place (t = a0 * e^q_e * f^q_f + C), first in the list; base 0 gives the
 * list models had before it (q_e q_f C: the constant C). */
Test(terms, extrinsic_alone_gets_the_base_coefficient)
{
	static const pm_role ext[] = { PM_ROLE_EXTRINSIC, PM_ROLE_EXTRINSIC };
	static const size_t none[] = { 0, 0 };
	/* a0 q_e q_f C */
	const double param[] = { 3.0, -1.0, 0.5, 0.25 };
	const double x[] = { 8.0, 4.0 };
	pm_terms t;
	pm_param_desc *d;
	size_t np;
	struct pt p = { &t, param, x, 0 };

	cr_expect(pm__terms_additive_has_base(2, ext));
	cr_expect(!pm__terms_additive_has_base(0, NULL), "no inputs: C alone");
	cr_expect(!pm__terms_additive_has_base(4, roles), "intrinsic terms: no base");
	cr_assert_eq(pm__terms_additive(2, ext, none, 1, &t, &d, &np, NULL), PM_OK);
	cr_assert_eq(np, 4);
	cr_expect_eq(d[0].kind, PM_PARAM_COEF);
	cr_expect_eq(d[0].input, PM_NONE);
	cr_expect_eq(d[1].kind, PM_PARAM_SCALING);
	cr_expect_eq(d[2].input, 1);
	cr_expect_eq(d[3].kind, PM_PARAM_CONST);
	cr_assert_eq(t.nterms, 2);
	cr_expect_eq(t.term[0].coef, 0);
	cr_expect_eq(t.term[0].nfactors, 2, "the base scales with every extrinsic input");
	cr_expect_eq(t.term[1].coef, 3);
	cr_expect_float_eq(pm__terms_combine(&t, param, pt_factor, pt_level, &p),
			   3.0 * pow(8, -1) * pow(4, 0.5) + 0.25, 1e-12);
	free(d);
	pm__terms_free(&t);

	cr_assert_eq(pm__terms_additive(2, ext, none, 0, &t, &d, &np, NULL), PM_OK);
	cr_assert_eq(np, 3);
	cr_expect_eq(d[0].kind, PM_PARAM_SCALING);
	cr_expect_eq(t.nterms, 1);
	cr_expect_eq(pm__terms_combine(&t, param + 1, pt_factor, pt_level, &p), 0.25);
	free(d);
	pm__terms_free(&t);

	/* with an intrinsic input the flag changes nothing */
	cr_assert_eq(pm__terms_additive(4, roles, nlevels, 0, &t, &d, &np, NULL), PM_OK);
	cr_expect_eq(np, 8);
	free(d);
	pm__terms_free(&t);
}
