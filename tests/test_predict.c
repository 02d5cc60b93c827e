/* pm_model_predict and pm_model_predict_batch against the term list
 * evaluated directly (pm__terms_combine with every factor computed where a
 * term uses it), bit for bit: for a narrow model, whose factor values
 * predict computes once per point, and for one with more factors than it
 * keeps at once; the batch runs in blocks (vectorised, and on x86-64 the
 * AVX-512 or AVX2 clone where the machine has it), single points in scalar
 * code. */
#include <criterion/criterion.h>
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

Test(predict, narrow_model_matches_its_terms, .init = need_target) { check_against_terms(4); }
/* more factors than predict keeps on its stack (64) */
Test(predict, wide_model_matches_its_terms, .init = need_target) { check_against_terms(100); }
