/* pm_model_predict and pm_model_predict_batch against the term list
 * evaluated directly (pm__terms_combine with every factor computed where a
 * term uses it), bit for bit: for a narrow model, whose factor values
 * predict computes once per point, for one with more factors than it
 * keeps at once, and for a formula of every kind of factor; the batch runs
 * in blocks (vectorised, and on x86-64 the AVX-512 or AVX2 clone where the
 * machine has it), single points their power factors in one vector loop
 * of the same clone. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "model/model_impl.h"
#include "core/pcg32.h"

PM_LEAK_CHECKED_SUITE(predict);

/* Built once per clone of the batch code too (tests/meson.build): a clone
 * this CPU cannot run is skipped. */
static void need_target(void)
{
#ifdef PM_VECTOR_TARGET
	__builtin_cpu_init();
	if (!__builtin_cpu_supports(PM_VECTOR_TARGET))
		cr_skip_test("this CPU has no %s", PM_VECTOR_TARGET);
#endif
}

struct direct {
	const pm_model *m;
	const double *x;
};

static double direct_factor(const void *ctx, uint32_t f)
{
	const struct direct *d = ctx;
	const pm_factor *fa = &d->m->terms.factor[f];

	return pm__factor_value(d->m->value[fa->power],
				pm__power_base(d->x[fa->input], d->m->inputs[fa->input].log_scale));
}

static uint32_t direct_level(const void *ctx, uint32_t i)
{
	const struct direct *d = ctx;

	return (uint32_t)d->x[i];
}

/* nintr intrinsic inputs, one categorical of 3 levels, two extrinsic. */
static void check_against_terms(size_t nintr)
{
	static const char *const lv[] = { "a", "b", "c" };
	size_t nin = nintr + 3;
	const char **names = calloc(nin, sizeof(*names));
	pm_role *role = calloc(nin, sizeof(*role));
	size_t *nlevels = calloc(nin, sizeof(*nlevels));
	const char *const **levels = calloc(nin, sizeof(*levels));
	char (*buf)[16] = calloc(nin, sizeof(*buf));
	enum { NPOINTS = 300 };
	double *all = calloc(NPOINTS * nin, sizeof(*all)), want[NPOINTS], got[NPOINTS];
	pm_model *m = NULL;
	pm_pcg32 r;

	cr_assert(names && role && nlevels && levels && buf && all);
	for (size_t i = 0; i < nin; i++) {
		snprintf(buf[i], sizeof(buf[i]), "in%zu", i);
		names[i] = buf[i];
		role[i] = i < nintr ? PM_ROLE_INTRINSIC : i == nintr ? PM_ROLE_CATEGORICAL
								   : PM_ROLE_EXTRINSIC;
		if (role[i] == PM_ROLE_CATEGORICAL) {
			nlevels[i] = 3;
			levels[i] = lv;
		}
	}
	cr_assert_eq(pm__model_new("t", nin, names, role, nlevels, levels, NULL, &m, NULL),
		     PM_OK);
	pm__pcg32_seed(&r, 42, nintr);
	for (size_t k = 0; k < m->nparams; k++)
		m->value[k] = pm__pcg32_uniform(&r) * 2.0 - 0.5;
	for (size_t i = 0; i < nin; i++)
		m->inputs[i].log_scale = pm__pcg32_uniform(&r);
	m->target_scale = 0.75;
	pm__model_raw(m);	/* as a fit or a load ends: the values settled */
	for (int point = 0; point < NPOINTS; point++) {
		double *x = all + point * nin;
		struct direct d = { m, x };

		for (size_t i = 0; i < nin; i++)
			x[i] = role[i] == PM_ROLE_CATEGORICAL ? (double)pm__pcg32_below(&r, 3)
							      : 0.01 + 100.0 * pm__pcg32_uniform(&r);
		want[point] = m->target_scale *
			      pm__terms_combine(&m->terms, m->value, direct_factor, direct_level, &d);
		cr_assert_eq(pm_model_predict(m, x, &got[point], NULL), PM_OK);
		cr_assert(memcmp(&got[point], &want[point], sizeof(got[point])) == 0,
			  "%zu intrinsic, point %d: %.17g, directly %.17g", nintr, point, got[point],
			  want[point]);
	}
	cr_assert_eq(pm_model_predict_batch(m, all, NPOINTS, got, NULL), PM_OK);
	for (int point = 0; point < NPOINTS; point++)
		cr_assert(memcmp(&got[point], &want[point], sizeof(got[point])) == 0,
			  "%zu intrinsic, batch point %d: %.17g, directly %.17g", nintr, point,
			  got[point], want[point]);
	pm_model_free(m);
	free(names);
	free(role);
	free(nlevels);
	free(levels);
	free(buf);
	free(all);
}

/* 3 factors: a point computes them one by one (POINT_VECTOR) */
Test(predict, small_model_matches_its_terms, .init = need_target) { check_against_terms(1); }
Test(predict, narrow_model_matches_its_terms, .init = need_target) { check_against_terms(4); }
/* more factors than predict keeps on its stack (64) */
Test(predict, wide_model_matches_its_terms, .init = need_target) { check_against_terms(100); }
/* more inputs than a point's stack array (256): tested a stack at a time */
Test(predict, very_wide_model_matches_its_terms, .init = need_target) { check_against_terms(300); }

/* ... and an input out of range past the first stack of them is found */
Test(predict, very_wide_model_refuses_an_input_past_its_first_256)
{
	enum { NIN = 300 };
	static char buf[NIN][8];
	const char *names[NIN];
	pm_role role[NIN];
	size_t nlevels[NIN] = { 0 };
	const char *const *levels[NIN] = { NULL };
	double x[NIN], t;
	pm_model *m = NULL;
	pm_error e = { 0 };

	for (size_t i = 0; i < NIN; i++) {
		snprintf(buf[i], sizeof(buf[i]), "in%zu", i);
		names[i] = buf[i];
		role[i] = PM_ROLE_INTRINSIC;
		x[i] = 2.0;
	}
	cr_assert_eq(pm__model_new("t", NIN, names, role, nlevels, levels, NULL, &m, NULL), PM_OK);
	pm__model_raw(m);
	cr_expect_eq(pm_model_predict(m, x, &t, &e), PM_OK, "%s", e.msg);
	x[280] = 0.0;
	cr_expect_eq(pm_model_predict(m, x, &t, &e), PM_EDOMAIN);
	cr_expect_str_eq(e.msg, "input 'in280': 0 is not a finite number > 0, as a power needs");
	pm_model_free(m);
}

/* Every factor of a formula directly: pm__factor_eval of pm__factor_base,
 * as the fit's reference computes them (terms.h). */
static double formula_factor(const void *ctx, uint32_t f)
{
	const struct direct *d = ctx;
	const pm_factor *fa = &d->m->terms.factor[f];

	return pm__factor_eval(fa, d->m->value,
			       pm__factor_base(fa, d->x[fa->input],
					       d->m->inputs[fa->input].log_scale));
}

/* n under five powers of two terms (fitted, fixed 1, 2, 0.5 and divided):
 * the batch logs n once for all of them; level(small) picked by selects,
 * level(big) (more levels than the batch selects among) looked up a point;
 * w in an indicator and a log2, so transposed and logged in the factor. */
static pm_model *formula_model_of(const char *formula)
{
	static const char *const names[] = { "n", "small", "big", "w" };
	static const pm_role role[] = { PM_ROLE_INTRINSIC, PM_ROLE_CATEGORICAL,
					PM_ROLE_CATEGORICAL, PM_ROLE_EXTRINSIC };
	static const char *const small[] = { "a", "b", "c" };
	static char bigname[20][8];
	static const char *big[20];
	const char *const *levels[] = { NULL, small, big, NULL };
	const size_t nlevels[] = { 0, 3, 20, 0 };
	pm_model *m = NULL;
	pm_error e = { 0 };
	pm_pcg32 r;

	for (int v = 0; v < 20; v++) {
		snprintf(bigname[v], sizeof(bigname[v]), "v%02d", v);
		big[v] = bigname[v];
	}
	cr_assert_eq(pm__model_new("t", 4, (const char **)names, role, nlevels, levels,
				   formula, &m, &e), PM_OK, "%s", e.msg);
	pm__pcg32_seed(&r, 11, 0);
	for (size_t k = 0; k < m->nparams; k++)
		m->value[k] = pm__pcg32_uniform(&r) * 2.0 - 0.5;
	m->inputs[0].log_scale = 1.25;
	m->inputs[3].log_scale = 0.5;
	m->target_scale = 0.5;
	pm__model_raw(m);
	return m;
}

static pm_model *formula_model(void)
{
	return formula_model_of("a * n^p * n^1 * level(small) / w^q + "
				"b * n^2 * n^(1/2) * level(big) * [w > 2] * log2(w)^r + C");
}

/* Single points and the batch of a formula against its terms, bit for bit. */
static void check_formula(const char *formula)
{
	enum { NPOINTS = 300 };
	pm_model *m = formula_model_of(formula);
	double all[NPOINTS * 4], want[NPOINTS], got[NPOINTS];
	pm_pcg32 r;

	pm__pcg32_seed(&r, 12, 0);
	for (int point = 0; point < NPOINTS; point++) {
		double *x = all + point * 4;
		struct direct d = { m, x };

		x[0] = 0.01 + 100.0 * pm__pcg32_uniform(&r);
		x[1] = (double)pm__pcg32_below(&r, 3);
		x[2] = (double)pm__pcg32_below(&r, 20);
		x[3] = 1.0 + (double)pm__pcg32_below(&r, 8);	/* log2 needs >= 1 */
		want[point] = m->target_scale *
			      pm__terms_combine(&m->terms, m->value, formula_factor, direct_level,
						&d);
		cr_assert_eq(pm_model_predict(m, x, &got[point], NULL), PM_OK);
		cr_assert(memcmp(&got[point], &want[point], sizeof(got[point])) == 0,
			  "point %d: %.17g, directly %.17g", point, got[point], want[point]);
	}
	cr_assert_eq(pm_model_predict_batch(m, all, NPOINTS, got, NULL), PM_OK);
	for (int point = 0; point < NPOINTS; point++)
		cr_assert(memcmp(&got[point], &want[point], sizeof(got[point])) == 0,
			  "batch point %d: %.17g, directly %.17g", point, got[point], want[point]);
	pm_model_free(m);
}

Test(predict, formula_matches_its_terms, .init = need_target)
{
	check_formula("a * n^p * n^1 * level(small) / w^q + "
		      "b * n^2 * n^(1/2) * level(big) * [w > 2] * log2(w)^r + C");
}

/* One long term and short ones: padded to the longest, a point would more
 * than double its products; each term is taken at its own length. */
Test(predict, formula_of_terms_of_unequal_lengths_matches_its_terms, .init = need_target)
{
	pm_model *m = formula_model_of("a * n^p * n^1 * n^2 * n^(1/2) * level(small) / w^q + "
				       "b * w^r + c * n^s + d * level(big) + C");

	cr_expect_eq(m->point.width, 0);
	pm_model_free(m);
	check_formula("a * n^p * n^1 * n^2 * n^(1/2) * level(small) / w^q + "
		      "b * w^r + c * n^s + d * level(big) + C");
}

/* Terms conditioned on a categorical's levels: of levels 0..L-1 in order, a
 * point takes the one its level picks (a run); others each on where the
 * point's level is theirs. Both give the terms' own sum, bit for bit. */
Test(predict, terms_on_a_level_match_their_terms, .init = need_target)
{
	const char *runs = "a * n^p * [small == \"a\"] + b * [small == \"b\"] + "
			   "c * w^q * [small == \"c\"] + d * [big == \"v03\"] + "
			   "e * n^r * [big == \"v01\"] + C";
	pm_model *m = formula_model_of(runs);

	cr_expect_eq(m->point.nseg, 4, "%zu runs", m->point.nseg);
	cr_expect_eq(m->point.seg[0].kind, PM_RUN_LEVELS);
	cr_expect_eq(m->point.seg[0].n, 3);
	cr_expect_eq(m->point.seg[1].kind, PM_RUN_ONE);
	cr_expect_eq(m->point.seg[2].kind, PM_RUN_ONE);
	cr_expect_eq(m->point.seg[3].kind, PM_RUN_EVERY);
	pm_model_free(m);
	check_formula(runs);
	/* out of order: no run */
	m = formula_model_of("b * [small == \"b\"] + a * [small == \"a\"] + "
			     "c * [small == \"c\"] + C");
	cr_expect_eq(m->point.seg[0].kind, PM_RUN_ONE);
	pm_model_free(m);
	check_formula("b * [small == \"b\"] + a * [small == \"a\"] + c * [small == \"c\"] + C");
}

/* A point's inputs are tested against bounds (the model's point plan): the
 * same values refused as check_point refuses, one input at a time, by a
 * single point, the batch and a speedup's varied input. */
Test(predict, a_point_is_refused_exactly_where_its_inputs_are_out_of_range,
     .init = need_target)
{
	static const struct {
		size_t input;
		double v;
		int bad;
	} cases[] = {
		{ 0, DBL_TRUE_MIN, 0 }, { 0, 1e300, 0 }, { 0, 0.0, 1 }, { 0, -0.0, 1 },
		{ 0, -1.0, 1 }, { 0, INFINITY, 1 }, { 0, NAN, 1 }, { 0, -DBL_TRUE_MIN, 1 },
		{ 1, 0.0, 0 }, { 1, -0.0, 0 }, { 1, 2.0, 0 }, { 1, 3.0, 1 }, { 1, 1.5, 1 },
		{ 1, -1.0, 1 }, { 1, NAN, 1 }, { 1, INFINITY, 1 }, { 1, 0x1p60, 1 },
		{ 2, 19.0, 0 }, { 2, 20.0, 1 }, { 2, 0.5, 1 },
		{ 3, 1.0, 0 }, { 3, 0x1p600, 0 }, { 3, 0.999, 1 }, { 3, 0.0, 1 }, { 3, NAN, 1 },
	};
	pm_model *m = formula_model();

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		double x[4] = { 2.0, 1.0, 3.0, 4.0 }, batch[2] = { 0 }, t, s;
		double xs[8] = { 2.0, 1.0, 3.0, 4.0, 2.0, 1.0, 3.0, 4.0 };
		pm_status want = cases[c].bad ? PM_EDOMAIN : PM_OK, got;

		x[cases[c].input] = cases[c].v;
		xs[4 + cases[c].input] = cases[c].v;
		got = pm_model_predict(m, x, &t, NULL);
		/* a valid input far out may overflow: not a refusal of the input */
		cr_expect(got == want || (!cases[c].bad && got == PM_ERANGE),
			  "case %zu: input %zu at %g: status %d", c, cases[c].input, cases[c].v, got);
		got = pm_model_predict_batch(m, xs, 2, batch, NULL);
		cr_expect(got == want || (!cases[c].bad && got == PM_ERANGE),
			  "case %zu, batch: status %d", c, got);
		/* the caller's x at the varied input is not looked at: the values
		 * the speedup sets are */
		if (cases[c].input != 3)
			continue;
		got = pm_model_speedup(m, x, 3, 2.0, 4.0, &s, NULL);
		cr_expect_eq(got, PM_OK, "case %zu: speedup from 2 to 4: %d", c, got);
		x[3] = 4.0;
		got = pm_model_speedup(m, x, 3, 2.0, cases[c].v, &s, NULL);
		cr_expect(got == want || (!cases[c].bad && got == PM_ERANGE),
			  "case %zu: speedup to %g: status %d", c, cases[c].v, got);
	}
	pm_model_free(m);
}

/* A block logs its inputs as normal numbers and again, with the
 * subnormals' scaling, where one is subnormal: a subnormal n in a block
 * (and the normal numbers around 2^-1022) gives the same bits as a single
 * point and as the terms evaluated directly. */
Test(predict, a_subnormal_input_in_a_block_gives_the_same_bits, .init = need_target)
{
	static const double tiny[] = { 0x1p-1074, 0x1p-1060, 0x1.8p-1023, 0x1p-1022,
				       0x1.0000000000001p-1022, 0x1p-1021 };
	enum { NPOINTS = 64 };
	/* n^(-1/8): the subnormal n's term dominates its point's time */
	pm_model *m = formula_model_of("a * n^p * level(small) + b / n^(1/8) * [w > 2] + C");
	double all[NPOINTS * 4], want[NPOINTS], got[NPOINTS];

	for (size_t t = 0; t < sizeof(tiny) / sizeof(tiny[0]); t++) {
		for (int point = 0; point < NPOINTS; point++) {
			double *x = all + point * 4;

			x[0] = point == 37 ? tiny[t] : 1.0 + point;
			x[1] = point % 3;
			x[2] = point % 20;
			x[3] = 1.0 + point % 8;
		}
		cr_assert_eq(pm_model_predict_batch(m, all, NPOINTS, got, NULL), PM_OK);
		for (int point = 0; point < NPOINTS; point++) {
			struct direct d = { m, all + point * 4 };

			want[point] = m->target_scale * pm__terms_combine(&m->terms, m->value,
									  formula_factor,
									  direct_level, &d);
			cr_assert(memcmp(&got[point], &want[point], sizeof(got[point])) == 0,
				  "n = %a, point %d: %.17g, directly %.17g", tiny[t], point,
				  got[point], want[point]);
		}
	}
	pm_model_free(m);
}

/* n is logged as a block reads it, and checked there: a value no power
 * takes, in a later block, is still found and named, with the points
 * before it predicted. */
Test(predict, a_logged_input_out_of_range_is_named, .init = need_target)
{
	static const double bad[] = { 0.0, -3.0, INFINITY, NAN };
	static const char *const why[] = {
		"point 200: input 'n': 0 is not a finite number > 0, as a power needs",
		"point 200: input 'n': -3 is not a finite number > 0, as a power needs",
		"point 200: input 'n': inf is not a finite number > 0, as a power needs",
		"point 200: input 'n' has no value (NaN)",
	};
	enum { NPOINTS = 300 };
	pm_model *m = formula_model();
	double all[NPOINTS * 4], got[NPOINTS], one;
	pm_error e = { 0 };

	for (int point = 0; point < NPOINTS; point++) {
		double *x = all + point * 4;

		x[0] = 1.0 + point;
		x[1] = point % 3;
		x[2] = point % 20;
		x[3] = 1.0 + point % 8;
	}
	for (size_t t = 0; t < sizeof(bad) / sizeof(bad[0]); t++) {
		all[199 * 4] = bad[t];
		cr_expect_eq(pm_model_predict_batch(m, all, NPOINTS, got, &e), PM_EDOMAIN);
		cr_expect_str_eq(e.msg, why[t]);
		cr_assert_eq(pm_model_predict(m, all + 198 * 4, &one, NULL), PM_OK);
		cr_expect(memcmp(&one, &got[198], sizeof(one)) == 0, "point 199 predicted");
	}
	pm_model_free(m);
}
