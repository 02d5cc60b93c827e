/* core/erfc.h: pm__erfc against glibc's long double erfcl (64-bit
 * significands) over the arguments a p-value reads and past them, the
 * two methods' meeting point, and the special values. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "core/erfc.h"

static double relative_error(double x)
{
	long double want = erfcl((long double)x);

	return (double)(fabsl((long double)pm__erfc(x) - want) / want);
}

Test(erfc, below_1e_12_relative_where_normal)
{
	double max = 0.0, worst = 0.0;

	/* [-6, 26.5] in steps of about 2^-13, with the last bits varied: every
	 * part of the series' and the fraction's ranges (erfc(26.5) ~ 1e-307,
	 * still normal) */
	for (double x = -6.0; x <= 26.5; x += 0x1.0000001p-13) {
		double e = relative_error(x);

		if (e > max) {
			max = e;
			worst = x;
		}
	}
	cr_log_info("erfc: max relative error %.3g at %a", max, worst);
	cr_expect_lt(max, 1e-12, "erfc: %.3g at %a", max, worst);
	/* either side of the switch from the series to the fraction */
	cr_expect_lt(relative_error(nextafter(1.5, 0.0)), 1e-12);
	cr_expect_lt(relative_error(1.5), 1e-12);
	cr_expect_lt(relative_error(-1.5), 1e-12);
}

Test(erfc, special_values)
{
	cr_expect_eq(pm__erfc(0.0), 1.0);
	cr_expect_eq(pm__erfc(-0.0), 1.0);
	cr_expect_eq(pm__erfc(INFINITY), 0.0);
	cr_expect_eq(pm__erfc(-INFINITY), 2.0);
	cr_expect_eq(pm__erfc(27.3), 0.0);
	cr_expect_eq(pm__erfc(1e300), 0.0);
	cr_expect_eq(pm__erfc(-30.0), 2.0);
	cr_expect(isnan(pm__erfc(NAN)));
	/* the normal tail at 1.96: the 5 % two-sided a test reads */
	cr_expect_lt(fabs(pm__erfc(1.959963984540054 / sqrt(2.0)) - 0.05), 1e-15);
}
