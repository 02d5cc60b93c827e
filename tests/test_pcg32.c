#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "leak_check.h"
#include "core/pcg32.h"

PM_LEAK_CHECKED_SUITE(pcg32);

Test(pcg32, reference_vectors_seed42_stream54)
{
	/* the first outputs of pcg32-demo in O'Neill's pcg-c-basic */
	static const uint32_t want[] = { 0xa15c02b7, 0x7b47f409, 0xba1d3330,
					 0x83d2f293, 0xbfa4784b, 0xcbed606e };
	pm_pcg32 r;

	pm__pcg32_seed(&r, 42, 54);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t got = pm__pcg32_next(&r);

		cr_assert_eq(got, want[i], "output %zu: 0x%08x, want 0x%08x", i, got, want[i]);
	}
}

Test(pcg32, streams_and_seeds_differ)
{
	pm_pcg32 a, b, c, a2;
	int same_ab = 1, same_ac = 1;

	pm__pcg32_seed(&a, 7, 0);
	pm__pcg32_seed(&a2, 7, 0);
	pm__pcg32_seed(&b, 7, 1);
	pm__pcg32_seed(&c, 8, 0);
	for (int i = 0; i < 16; i++) {
		uint32_t x = pm__pcg32_next(&a);

		cr_assert_eq(x, pm__pcg32_next(&a2));
		same_ab &= x == pm__pcg32_next(&b);
		same_ac &= x == pm__pcg32_next(&c);
	}
	cr_assert(!same_ab);
	cr_assert(!same_ac);
}

Test(pcg32, uniform_in_unit_interval)
{
	pm_pcg32 r;
	double sum = 0.0, lo = 1.0, hi = 0.0;
	const int n = 200000;
	size_t bins[10] = { 0 };

	pm__pcg32_seed(&r, 1, 2);
	for (int i = 0; i < n; i++) {
		double u = pm__pcg32_uniform(&r);

		cr_assert(u >= 0.0 && u < 1.0, "u = %.17g", u);
		/* a multiple of 2^-53: 53 random bits, nothing more */
		cr_assert_eq(ldexp(u, 53), floor(ldexp(u, 53)));
		sum += u;
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
		bins[(size_t)(u * 10.0)]++;
	}
	cr_assert(fabs(sum / n - 0.5) < 0.005, "mean %g", sum / n);
	cr_assert(lo < 1e-3 && hi > 1.0 - 1e-3);
	for (int b = 0; b < 10; b++)
		cr_assert(fabs((double)bins[b] / n - 0.1) < 0.005, "bin %d: %zu", b, bins[b]);
}

Test(pcg32, below_stays_in_range)
{
	pm_pcg32 r;
	static const uint32_t bounds[] = { 1, 2, 3, 5, 7, 1000, 0x80000001u, 0xffffffffu };

	pm__pcg32_seed(&r, 3, 4);
	for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++)
		for (int i = 0; i < 10000; i++) {
			uint32_t v = pm__pcg32_below(&r, bounds[b]);

			cr_assert_lt(v, bounds[b]);
		}
	cr_assert_eq(pm__pcg32_below(&r, 1), 0u);
}

/* Chi-square against uniform: a modulo-biased generator fails this for a
 * bound just above 2^31, where half of the results would be twice as
 * likely; and small bounds must be flat too. */
Test(pcg32, below_is_unbiased)
{
	pm_pcg32 r;
	const int n = 300000;

	pm__pcg32_seed(&r, 5, 6);
	{
		const uint32_t bound = 7;
		size_t cnt[7] = { 0 };
		double chi = 0.0, e = (double)n / bound;

		for (int i = 0; i < n; i++)
			cnt[pm__pcg32_below(&r, bound)]++;
		for (uint32_t k = 0; k < bound; k++)
			chi += (cnt[k] - e) * (cnt[k] - e) / e;
		cr_assert_lt(chi, 22.5, "chi2 = %g with 6 dof", chi);	/* p ~ 0.001 */
	}
	{
		/* With bound = 3 * 2^30, modulo would make [0, 2^30) twice as
		 * likely as the rest: 1/2 instead of 1/3 of the draws. */
		const uint32_t bound = 3u << 30;
		size_t low = 0;

		for (int i = 0; i < n; i++)
			low += pm__pcg32_below(&r, bound) < (1u << 30);
		cr_assert(fabs((double)low / n - 1.0 / 3.0) < 0.005, "share %g", (double)low / n);
	}
}
