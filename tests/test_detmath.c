/* The deterministic log and exp (lib/core/detmath.h): error in ulps against
 * glibc's long double logl/expl (64-bit significands: their own error is
 * ~2^-11 of a double ulp) over random arguments spread across the whole
 * range, the special cases, and the vectorised loop against the scalar
 * call. PM_DETMATH_SAMPLES (default 1000000 per range) sets the count:
 * docs/maths.md reports a run with 50000000. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/detmath.h"

static size_t samples(void)
{
	const char *s = getenv("PM_DETMATH_SAMPLES");

	return s ? strtoul(s, NULL, 10) : 1000000;
}

/* splitmix64: reproducible arguments */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* |got - want| in ulps of the double nearest want (subnormal ulps below
 * DBL_MIN) */
static double ulp_error(double got, long double want)
{
	int e;

	if (want == 0)
		return got == 0 ? 0.0 : INFINITY;
	frexpl(want, &e);
	if (e - 53 < -1074)
		e = -1074 + 53;
	return (double)(fabsl((long double)got - want) / ldexpl(1.0L, e - 53));
}

/* Random doubles with representations uniform in [lo, hi] (bits): every
 * binade equally often, subnormals included when lo is below DBL_MIN. */
static double max_log_error(uint64_t lo, uint64_t hi, uint64_t seed, double *worst)
{
	double max = 0.0;

	for (size_t k = 0; k < samples(); k++) {
		double x = pm__dfrom(lo + next(&seed) % (hi - lo + 1));
		double e = ulp_error(pm__log(x), logl((long double)x));

		if (e > max) {
			max = e;
			*worst = x;
		}
	}
	return max;
}

Test(detmath, log_below_0_52_ulp_over_the_whole_range)
{
	/* all positive finite doubles; near 1 (the bucket without a table
	 * value, and its neighbours); the subnormals */
	static const uint64_t range[][2] = {
		{ 1, UINT64_C(0x7fefffffffffffff) },
		{ UINT64_C(0x3fe0000000000000), UINT64_C(0x4000000000000000) },
		{ UINT64_C(0x3fefc00000000000), UINT64_C(0x3ff0400000000000) },
		{ 1, UINT64_C(0x000fffffffffffff) },
	};

	for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
		double worst = 0.0, e = max_log_error(range[i][0], range[i][1], 42 + i, &worst);

		cr_log_info("log range %zu: max %.4f ulp at %a", i, e, worst);
		cr_expect_lt(e, 0.52, "log: %.4f ulp at %a", e, worst);
	}
}

Test(detmath, exp_below_0_52_ulp_and_1_ulp_when_subnormal)
{
	/* arguments uniform over the whole finite range of results, then
	 * over the small ones (|y| < 2^-10) and the subnormal results */
	static const double range[][2] = { { -708.3, 709.78 }, { -0x1p-10, 0x1p-10 },
					   { -745.13, -708.4 } };
	static const double bound[] = { 0.52, 0.52, 1.0 };

	for (size_t i = 0; i < 3; i++) {
		uint64_t seed = 7 + i;
		double max = 0.0, worst = 0.0;

		for (size_t k = 0; k < samples(); k++) {
			double u = (double)(next(&seed) >> 11) * 0x1p-53;
			double y = range[i][0] + u * (range[i][1] - range[i][0]);
			double e = ulp_error(pm__exp(y), expl((long double)y));

			if (e > max) {
				max = e;
				worst = y;
			}
		}
		cr_log_info("exp range %zu: max %.4f ulp at %a", i, max, worst);
		cr_expect_lt(max, bound[i], "exp: %.4f ulp at %a", max, worst);
	}
}

Test(detmath, exact_and_special_values)
{
	cr_expect_eq(pm__log(1.0), 0.0);
	cr_expect(!signbit(pm__log(1.0)));
	cr_expect_eq(pm__exp(0.0), 1.0);
	cr_expect_eq(pm__exp(-0.0), 1.0);
	cr_expect_eq(pm__log(0.0), -INFINITY);
	cr_expect_eq(pm__log(-0.0), -INFINITY);
	cr_expect(isnan(pm__log(-1.0)));
	cr_expect(isnan(pm__log(-INFINITY)));
	cr_expect(isnan(pm__log(-0x1p-1074)));
	cr_expect(isnan(pm__log(NAN)));
	cr_expect_eq(pm__log(INFINITY), INFINITY);
	cr_expect_lt(ulp_error(pm__log(DBL_MAX), logl(DBL_MAX)), 0.52);
	cr_expect_eq(pm__exp(INFINITY), INFINITY);
	cr_expect_eq(pm__exp(-INFINITY), 0.0);
	cr_expect(isnan(pm__exp(NAN)));
	cr_expect_eq(pm__exp(710.0), INFINITY);
	cr_expect_eq(pm__exp(1e308), INFINITY);
	cr_expect_eq(pm__exp(-746.0), 0.0);
	cr_expect_eq(pm__exp(-1e308), 0.0);
	cr_expect_eq(pm__exp(-745.0), 0x1p-1074);	/* 4.94e-324, the least */
	/* powers of two: k ln2 correctly rounded */
	for (int k = -1074; k <= 1023; k++) {
		double want = (double)((long double)k * logl(2.0L));

		cr_expect_eq(pm__log(ldexp(1.0, k)), want, "log(2^%d)", k);
	}
}

/* A loop over an array as prediction runs it (vectorised at -O3) gives
 * the bits of one call at a time through a function pointer (not
 * vectorised): the same IEEE operations without contraction. */
static double (*volatile scalar_log)(double) = pm__log;
static double (*volatile scalar_exp)(double) = pm__exp;

Test(detmath, vector_loop_equals_scalar_calls)
{
	enum { N = 4099 };
	static double x[N], l[N], e[N];
	uint64_t seed = 3;

	for (size_t k = 0; k < N; k++)
		x[k] = pm__dfrom(next(&seed) >> 1);	/* any non-negative double, NaN too */
	for (size_t k = 0; k < N; k++)
		l[k] = pm__log(x[k]);
	for (size_t k = 0; k < N; k++)
		e[k] = pm__exp(l[k] * 0.37);
	for (size_t k = 0; k < N; k++) {
		double ls = scalar_log(x[k]), es = scalar_exp(ls * 0.37);

		cr_expect(pm__dbits(ls) == pm__dbits(l[k]) || (isnan(ls) && isnan(l[k])),
			  "log(%a)", x[k]);
		cr_expect(pm__dbits(es) == pm__dbits(e[k]) || (isnan(es) && isnan(e[k])),
			  "exp(%a)", l[k] * 0.37);
	}
}

/* 2^p: exact at every integer p whose power of two is a double (a
 * doubling factor of power 1 reads 2), below 1 ulp between them, and the
 * special values. */
Test(detmath, exp2_exact_at_integers_and_below_1_ulp)
{
	uint64_t seed = 11;
	double max = 0.0, worst = 0.0;

	for (int k = -1074; k <= 1023; k++)
		cr_expect_eq(pm__exp2((double)k), ldexp(1.0, k), "exp2(%d)", k);
	for (size_t k = 0; k < samples(); k++) {
		double p = -1022.0 + (double)(next(&seed) >> 11) * 0x1p-53 * 2045.0;
		double e = ulp_error(pm__exp2(p), exp2l((long double)p));

		if (e > max) {
			max = e;
			worst = p;
		}
	}
	cr_log_info("exp2: max %.4f ulp at %a", max, worst);
	cr_expect_lt(max, 1.0, "exp2: %.4f ulp at %a", max, worst);
	cr_expect_eq(pm__exp2(0.5), sqrt(2.0));
	cr_expect_eq(pm__exp2(1024.0), INFINITY);
	cr_expect_eq(pm__exp2(1e300), INFINITY);
	cr_expect_eq(pm__exp2(INFINITY), INFINITY);
	cr_expect_eq(pm__exp2(-1075.0), 0.0);	/* half the least subnormal: to even */
	cr_expect_eq(pm__exp2(-1e300), 0.0);
	cr_expect_eq(pm__exp2(-INFINITY), 0.0);
	cr_expect(isnan(pm__exp2(NAN)));
}
