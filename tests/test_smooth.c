#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "leak_check.h"
#include "fit/smooth.h"

PM_LEAK_CHECKED_SUITE(smooth);

/* f(x) = Σ w_k |x_k − c_k|, smoothed as Σ w_k (sqrt(r² + eps²) − eps). */
static const double centre[] = { 0.3, -1.2, 2.5, 0.0 };
static const double weight[] = { 1.0, 10.0, 0.1, 3.0 };

struct counter {
	size_t calls;
	/* set *stop at call stop_after (a stop request during a call) */
	volatile sig_atomic_t *stop;
	size_t stop_after;
};

static void count(struct counter *n)
{
	if (++n->calls == n->stop_after && n->stop)
		*n->stop = 1;
}

static double true_cost(const double *x, void *ctx, void *scratch)
{
	double f = 0.0;

	(void)scratch;
	count(ctx);
	for (size_t k = 0; k < 4; k++)
		f += weight[k] * fabs(x[k] - centre[k]);
	return f;
}

static double smooth_cost(const double *x, double eps, double *grad, void *ctx, void *scratch)
{
	double f = 0.0;

	(void)scratch;
	count(ctx);
	for (size_t k = 0; k < 4; k++) {
		double r = x[k] - centre[k], root = sqrt(r * r + eps * eps);

		f += weight[k] * (root - eps);
		grad[k] = weight[k] * r / root;
	}
	return f;
}

static const double wide_lo[] = { -5, -5, -5, -5 }, wide_hi[] = { 5, 5, 5, 5 };

/* Polish x in place from its own true cost, within budget; returns the cost
 * it ends at. n counts the polish's calls alone, *nfev what it reports. */
static double polish(const double *lo, const double *hi, double *x, uint64_t budget,
		     struct counter *n, uint64_t *nfev)
{
	double cost = true_cost(x, n, NULL);

	n->calls = 0;
	*nfev = 0;
	cr_assert_eq(pm__polish_smooth(4, lo, hi, smooth_cost, true_cost, n, NULL, 1.0, budget,
				       n->stop, x, &cost, nfev, NULL), PM_OK);
	return cost;
}

Test(smooth, finds_a_kinked_minimum_inside_the_bounds)
{
	double x[] = { 4, 4, -4, 1 };
	struct counter n = { 0 };
	uint64_t nfev;
	double cost = polish(wide_lo, wide_hi, x, 4000, &n, &nfev);

	for (size_t k = 0; k < 4; k++)
		cr_expect(fabs(x[k] - centre[k]) < 1e-3, "x[%zu] = %g, want %g", k, x[k], centre[k]);
	cr_expect_lt(cost, 1e-2);
	cr_expect_eq(nfev, n.calls, "every call counted");
	cr_expect_leq(nfev, 4000);
}

Test(smooth, stays_inside_the_bounds)
{
	/* the minimum of dimension 2 (2.5) lies outside [-1, 1] */
	const double lo[] = { -1, -1, -1, -1 }, hi[] = { 1, 1, 1, 1 };
	double x[] = { 0, 0, 0, 0.5 };
	struct counter n = { 0 };
	uint64_t nfev;

	polish(lo, hi, x, 4000, &n, &nfev);
	for (size_t k = 0; k < 4; k++)
		cr_expect(x[k] >= lo[k] && x[k] <= hi[k], "x[%zu] = %g", k, x[k]);
	cr_expect(fabs(x[2] - 1.0) < 1e-9, "pinned to the bound: %g", x[2]);
	cr_expect(fabs(x[1] + 1.0) < 1e-9, "pinned to the bound: %g", x[1]);
}

Test(smooth, never_returns_a_worse_point)
{
	double x[4];
	struct counter n = { 0 };
	uint64_t nfev;
	double cost0 = true_cost(centre, &n, NULL);	/* already the optimum */

	memcpy(x, centre, sizeof(x));
	cr_expect_eq(polish(wide_lo, wide_hi, x, 4000, &n, &nfev), cost0);
	cr_expect_eq(memcmp(x, centre, sizeof(x)), 0);
}

Test(smooth, respects_the_budget)
{
	double x[] = { 4, 4, -4, 1 };
	struct counter n = { 0 };
	uint64_t nfev;

	polish(wide_lo, wide_hi, x, 12, &n, &nfev);
	cr_expect_leq(n.calls, 12 + 4, "at most one true-cost check per level beyond the budget");
	cr_expect_eq(nfev, n.calls);
}

/* A stop request during call k: no smoothed-cost call follows, only the
 * true cost of where the level got to (kept if lower); set before the
 * start, nothing is called at all and x stays. */
Test(smooth, a_stop_request_ends_it_within_one_call)
{
	static const double start[] = { 4, 4, -4, 1 };
	volatile sig_atomic_t stop = 0;
	double x[4], cost0;
	struct counter n = { .stop = &stop, .stop_after = 5 };
	uint64_t nfev;

	memcpy(x, start, sizeof(x));
	cost0 = true_cost(x, &n, NULL);
	cr_expect_lt(polish(wide_lo, wide_hi, x, 4000, &n, &nfev), cost0);
	cr_expect_eq(n.calls, 6, "the fifth call, then the level's true cost");
	cr_expect_eq(nfev, n.calls);

	memcpy(x, start, sizeof(x));
	n.stop_after = 0;
	cr_expect_eq(polish(wide_lo, wide_hi, x, 4000, &n, &nfev), cost0);
	cr_expect_eq(n.calls, 0);
	cr_expect_eq(nfev, 0);
	cr_expect_eq(memcmp(x, start, sizeof(x)), 0);
}
