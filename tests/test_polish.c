#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "leak_check.h"
#include "fit/polish.h"

PM_LEAK_CHECKED_SUITE(polish);

struct box {
	size_t dim;
	const double *lo, *hi;
	int outside;		/* f saw a point outside the box */
	double shift;
};

static double sphere(const double *x, void *ctx, void *scratch)
{
	struct box *b = ctx;
	double s = 0.0;

	(void)scratch;
	for (size_t k = 0; k < b->dim; k++) {
		double d = x[k] - b->shift;

		if (x[k] < b->lo[k] || x[k] > b->hi[k])
			b->outside = 1;
		s += d * d;
	}
	return s;
}

static double rosen(const double *x, void *ctx, void *scratch)
{
	struct box *b = ctx;
	double s = 0.0;

	(void)scratch;
	for (size_t k = 0; k < b->dim; k++)
		if (x[k] < b->lo[k] || x[k] > b->hi[k])
			b->outside = 1;
	for (size_t k = 0; k + 1 < b->dim; k++)
		s += 100.0 * pow(x[k + 1] - x[k] * x[k], 2) + pow(1.0 - x[k], 2);
	return s;
}

Test(polish, improves_a_rough_point)
{
	double lo[3] = { -5, -5, -5 }, hi[3] = { 5, 5, 5 };
	double x[3] = { 1.0, 0.5, 1.5 };
	struct box b = { 3, lo, hi, 0, 0.7 };
	double c = sphere(x, &b, NULL), c0 = c;
	uint64_t nfev = 5;

	cr_assert_eq(pm__polish(3, lo, hi, sphere, &b, NULL, 600, NULL, x, &c, &nfev, NULL), PM_OK);
	cr_assert_lt(c, c0);
	cr_assert_lt(c, 1e-10, "cost %g", c);
	for (int k = 0; k < 3; k++)
		cr_assert(fabs(x[k] - 0.7) < 1e-5, "x[%d] = %g", k, x[k]);
	cr_assert_eq(c, sphere(x, &b, NULL), "the cost is that of the returned point");
	cr_assert(nfev > 5 && nfev <= 605, "nfev %llu", (unsigned long long)nfev);
	cr_assert_eq(b.outside, 0);
}

Test(polish, rosenbrock_from_near)
{
	double lo[2] = { -2, -2 }, hi[2] = { 2, 2 };
	double x[2] = { 0.9, 0.85 };
	struct box b = { 2, lo, hi, 0, 0 };
	double c = rosen(x, &b, NULL);
	uint64_t nfev = 0;

	cr_assert_eq(pm__polish(2, lo, hi, rosen, &b, NULL, 400, NULL, x, &c, &nfev, NULL), PM_OK);
	cr_assert(fabs(x[0] - 1) < 1e-3 && fabs(x[1] - 1) < 1e-3, "x = %g %g", x[0], x[1]);
	cr_assert_leq(nfev, 400);
}

/* The minimum lies outside the box: the answer is on the bound, and no
 * point outside must ever be evaluated or returned. */
Test(polish, stays_inside_the_bounds)
{
	double lo[2] = { 0, -1 }, hi[2] = { 1, 1 };
	double x[2] = { 0.5, 0.5 };
	struct box b = { 2, lo, hi, 0, 3.0 };
	double c = sphere(x, &b, NULL), c0 = c;
	uint64_t nfev = 0;

	cr_assert_eq(pm__polish(2, lo, hi, sphere, &b, NULL, 400, NULL, x, &c, &nfev, NULL), PM_OK);
	cr_assert_lt(c, c0);
	cr_assert_eq(b.outside, 0);
	for (int k = 0; k < 2; k++)
		cr_assert(x[k] >= lo[k] && x[k] <= hi[k]);
	cr_assert(fabs(x[0] - 1) < 1e-6 && fabs(x[1] - 1) < 1e-6, "x = %g %g", x[0], x[1]);
}

/* At the minimum already: nothing better exists, so nothing changes. */
Test(polish, never_returns_a_worse_point)
{
	double lo[2] = { -1, -1 }, hi[2] = { 1, 1 };
	double x[2] = { 0.25, 0.25 }, x0[2];
	struct box b = { 2, lo, hi, 0, 0.25 };
	double c = 0.0;
	uint64_t nfev = 0;

	memcpy(x0, x, sizeof(x));
	cr_assert_eq(pm__polish(2, lo, hi, sphere, &b, NULL, 100, NULL, x, &c, &nfev, NULL), PM_OK);
	cr_assert_eq(memcmp(x, x0, sizeof(x)), 0);
	cr_assert_eq(c, 0.0);
	cr_assert_leq(nfev, 100);
}

/* A claimed cost lower than the truth: polish cannot beat it and must
 * leave x alone. */
Test(polish, keeps_x_unless_strictly_better)
{
	double lo[2] = { -1, -1 }, hi[2] = { 1, 1 };
	double x[2] = { 0.5, -0.5 }, x0[2];
	struct box b = { 2, lo, hi, 0, 0.0 };
	double c = -1.0;
	uint64_t nfev = 0;

	memcpy(x0, x, sizeof(x));
	cr_assert_eq(pm__polish(2, lo, hi, sphere, &b, NULL, 200, NULL, x, &c, &nfev, NULL), PM_OK);
	cr_assert_eq(memcmp(x, x0, sizeof(x)), 0);
	cr_assert_eq(c, -1.0);
}

Test(polish, fixed_dimensions_and_budget)
{
	double lo[3] = { -1, 0.3, -1 }, hi[3] = { 1, 0.3, 1 };
	double x[3] = { 0.9, 0.3, -0.9 };
	struct box b = { 3, lo, hi, 0, 0.3 };
	double c = sphere(x, &b, NULL);
	uint64_t nfev = 0;

	cr_assert_eq(pm__polish(3, lo, hi, sphere, &b, NULL, 17, NULL, x, &c, &nfev, NULL), PM_OK);
	cr_assert_eq(nfev, 17, "the whole budget and no more: %llu", (unsigned long long)nfev);
	cr_assert_eq(x[1], 0.3);
	/* nothing free: nothing to do */
	{
		double l1[1] = { 2 }, h1[1] = { 2 }, x1[1] = { 2 }, c1 = 4.0;
		struct box b1 = { 1, l1, h1, 0, 0 };

		nfev = 0;
		cr_assert_eq(pm__polish(1, l1, h1, sphere, &b1, NULL, 50, NULL, x1, &c1, &nfev, NULL), PM_OK);
		cr_assert_eq(nfev, 0);
		cr_assert_eq(x1[0], 2.0);
	}
}

static double nan_left(const double *x, void *ctx, void *scratch)
{
	(void)ctx;
	(void)scratch;
	if (x[0] < 0.0)
		return NAN;
	return (x[0] - 0.5) * (x[0] - 0.5) + x[1] * x[1];
}

Test(polish, nan_costs_are_not_taken)
{
	double lo[2] = { -1, -1 }, hi[2] = { 1, 1 };
	double x[2] = { 0.02, 0.3 };
	double c = nan_left(x, NULL, NULL), c0 = c;
	uint64_t nfev = 0;

	cr_assert_eq(pm__polish(2, lo, hi, nan_left, NULL, NULL, 400, NULL, x, &c, &nfev, NULL), PM_OK);
	cr_assert(!isnan(c));
	cr_assert_lt(c, c0);
	cr_assert_geq(x[0], 0.0);
}

/* The stop request arrives during evaluation 9: no tenth evaluation, and
 * the best point of the nine is returned. Set before the start: no
 * evaluation, x and its cost unchanged. */
struct stopping {
	struct box b;
	size_t calls, stop_after;
	volatile sig_atomic_t *stop;
};

static double stopping_sphere(const double *x, void *ctx, void *scratch)
{
	struct stopping *s = ctx;

	if (++s->calls == s->stop_after)
		*s->stop = 1;
	return sphere(x, &s->b, scratch);
}

Test(polish, a_stop_request_ends_it_within_one_evaluation)
{
	double lo[2] = { -5, -5 }, hi[2] = { 5, 5 };
	volatile sig_atomic_t stop = 0;
	struct stopping s = { { 2, lo, hi, 0, 0.7 }, 0, 9, &stop };
	double x[2] = { 2, 2 }, c = sphere(x, &s.b, NULL), c0 = c;
	uint64_t nfev = 0;

	cr_assert_eq(pm__polish(2, lo, hi, stopping_sphere, &s, NULL, 400, &stop, x, &c, &nfev,
				NULL), PM_OK);
	cr_expect_eq(s.calls, 9);
	cr_expect_eq(nfev, 9);
	cr_expect_lt(c, c0);
	cr_expect_eq(c, sphere(x, &s.b, NULL));

	s.calls = 0;
	nfev = 0;
	x[0] = x[1] = 2;
	c = c0;
	cr_assert_eq(pm__polish(2, lo, hi, stopping_sphere, &s, NULL, 400, &stop, x, &c, &nfev,
				NULL), PM_OK);
	cr_expect_eq(s.calls, 0);
	cr_expect_eq(nfev, 0);
	cr_expect_eq(c, c0);
	cr_expect(x[0] == 2 && x[1] == 2);
}
