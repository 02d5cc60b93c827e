/* Non-negative least squares on a Gram (discover/nnls.h): discover's inner
 * solve. The unconstrained solution when it is non-negative, the
 * Karush-Kuhn-Tucker conditions when it is not, dependent and zero columns
 * left at 0, the size limit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "discover/nnls.h"
#include "leak_check.h"

PM_LEAK_CHECKED_SUITE(nnls);

/* G = A'A and b = A'y of an m x p matrix A (row-major). */
static void gram(const double *A, const double *y, size_t m, size_t p, double *G, double *b)
{
	for (size_t i = 0; i < p; i++) {
		b[i] = 0.0;
		for (size_t r = 0; r < m; r++)
			b[i] += A[r * p + i] * y[r];
		for (size_t j = 0; j < p; j++) {
			G[i * p + j] = 0.0;
			for (size_t r = 0; r < m; r++)
				G[i * p + j] += A[r * p + i] * A[r * p + j];
		}
	}
}

/* The optimality of x for min x'Gx/2 - b'x, x >= 0: the gradient Gx - b is
 * >= 0 where x is 0 and 0 where x > 0 (relative to b's scale). */
static void expect_kkt(const double *G, const double *b, size_t p, const double *x)
{
	double scale = 0.0;

	for (size_t i = 0; i < p; i++)
		scale = fmax(scale, fabs(b[i]));
	for (size_t i = 0; i < p; i++) {
		double g = -b[i];

		for (size_t j = 0; j < p; j++)
			g += G[i * p + j] * x[j];
		cr_expect_geq(x[i], 0.0, "x[%zu] = %g", i, x[i]);
		if (x[i] > 0)
			cr_expect_leq(fabs(g), 1e-9 * scale, "x[%zu] = %g > 0, gradient %g", i,
				      x[i], g);
		else
			cr_expect_geq(g, -1e-9 * scale, "x[%zu] = 0, gradient %g", i, g);
	}
}

Test(nnls, a_non_negative_solution_is_the_unconstrained_one)
{
	/* y = 1 + 2 x + 0.5 x^2 exactly at x = 0..4 */
	double A[5 * 3], y[5], G[9], b[3], x[3];
	/* the normal equations solved directly (Cramer's rule on the 3 x 3) */
	double det, d[3];

	for (size_t r = 0; r < 5; r++) {
		double t = (double)r;

		A[r * 3] = 1.0;
		A[r * 3 + 1] = t;
		A[r * 3 + 2] = t * t;
		y[r] = 1.0 + 2.0 * t + 0.5 * t * t;
	}
	gram(A, y, 5, 3, G, b);
	det = G[0] * (G[4] * G[8] - G[5] * G[7]) - G[1] * (G[3] * G[8] - G[5] * G[6]) +
	      G[2] * (G[3] * G[7] - G[4] * G[6]);
	d[0] = b[0] * (G[4] * G[8] - G[5] * G[7]) - G[1] * (b[1] * G[8] - G[5] * b[2]) +
	       G[2] * (b[1] * G[7] - G[4] * b[2]);
	d[1] = G[0] * (b[1] * G[8] - G[5] * b[2]) - b[0] * (G[3] * G[8] - G[5] * G[6]) +
	       G[2] * (G[3] * b[2] - b[1] * G[6]);
	d[2] = G[0] * (G[4] * b[2] - b[1] * G[7]) - G[1] * (G[3] * b[2] - b[1] * G[6]) +
	       b[0] * (G[3] * G[7] - G[4] * G[6]);
	cr_assert_eq(pm__nnls(G, b, 3, x), 0);
	for (size_t i = 0; i < 3; i++)
		cr_expect_float_eq(x[i], d[i] / det, 1e-9, "x[%zu] = %.17g, direct %.17g", i, x[i],
				   d[i] / det);
	cr_expect_float_eq(x[0], 1.0, 1e-9);
	cr_expect_float_eq(x[1], 2.0, 1e-9);
	cr_expect_float_eq(x[2], 0.5, 1e-9);
	expect_kkt(G, b, 3, x);
}

/* G = [[1, 0.9], [0.9, 1]], b = (1, 0.1): least squares gives (4.79,
 * -4.21); with x >= 0, x2 = 0 and x1 = b1 / G11 = 1, where the gradient
 * (0, 0.8) pushes x2 up against its bound. */
Test(nnls, a_negative_component_is_held_at_zero)
{
	const double G[] = { 1, 0.9, 0.9, 1 }, b[] = { 1, 0.1 };
	double x[2];

	cr_assert_eq(pm__nnls(G, b, 2, x), 0);
	cr_expect_float_eq(x[0], 1.0, 1e-12);
	cr_expect_eq(x[1], 0.0);
	expect_kkt(G, b, 2, x);
}

/* Three variables, worked by hand: y = (3, 1, -1) on A = [[1, 1, 0], [1,
 * 0, 1], [1, 0, 0]] is fitted exactly by (-1, 4, 2), whose first
 * component is negative. With x1 = 0 the others fit rows 1 and 2 alone:
 * x = (0, 3, 1), where the gradient of x1 is -(3 + 1 - 1) + (3 + 1) = 1 >=
 * 0: that is the answer. */
Test(nnls, three_variables_solved_by_hand)
{
	const double A[] = { 1, 1, 0, 1, 0, 1, 1, 0, 0 }, y[] = { 3, 1, -1 };
	double G[9], b[3], x[3];

	gram(A, y, 3, 3, G, b);
	cr_assert_eq(pm__nnls(G, b, 3, x), 0);
	cr_expect_eq(x[0], 0.0);
	cr_expect_float_eq(x[1], 3.0, 1e-12);
	cr_expect_float_eq(x[2], 1.0, 1e-12);
	expect_kkt(G, b, 3, x);
}

/* Every variable's gradient pushes it against its bound: x = 0. */
Test(nnls, all_negative_gives_zero)
{
	const double G[] = { 2, 1, 1, 2 }, b[] = { -1, -3 };
	double x[2] = { 7, 7 };

	cr_assert_eq(pm__nnls(G, b, 2, x), 0);
	cr_expect_eq(x[0], 0.0);
	cr_expect_eq(x[1], 0.0);
	expect_kkt(G, b, 2, x);
}

/* Column 3 repeats column 1: the Gram is singular; the duplicate is left
 * at 0 and the other two fit y exactly. */
Test(nnls, a_duplicate_column_is_left_at_zero)
{
	double A[6 * 3], y[6], G[9], b[3], x[3];

	for (size_t r = 0; r < 6; r++) {
		double t = (double)r + 1.0;

		A[r * 3] = t;
		A[r * 3 + 1] = 1.0;
		A[r * 3 + 2] = t;
		y[r] = 3.0 * t + 2.0;
	}
	gram(A, y, 6, 3, G, b);
	cr_assert_eq(pm__nnls(G, b, 3, x), 0);
	cr_expect(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]));
	/* one of the twins carries the slope, the other is 0 */
	cr_expect(x[0] == 0.0 || x[2] == 0.0, "x = (%g, %g, %g)", x[0], x[1], x[2]);
	cr_expect_float_eq(x[0] + x[2], 3.0, 1e-9);
	cr_expect_float_eq(x[1], 2.0, 1e-9);
	expect_kkt(G, b, 3, x);
}

/* A column of zeros (a term that vanishes on every row): 0, the rest
 * solved as without it. */
Test(nnls, a_zero_column_is_left_at_zero)
{
	double A[4 * 3], y[4], G[9], b[3], x[3];

	for (size_t r = 0; r < 4; r++) {
		A[r * 3] = 1.0;
		A[r * 3 + 1] = 0.0;
		A[r * 3 + 2] = (double)r;
		y[r] = 0.5 + 1.5 * (double)r;
	}
	gram(A, y, 4, 3, G, b);
	cr_assert_eq(pm__nnls(G, b, 3, x), 0);
	cr_expect_eq(x[1], 0.0);
	cr_expect_float_eq(x[0], 0.5, 1e-9);
	cr_expect_float_eq(x[2], 1.5, 1e-9);
}

Test(nnls, one_variable)
{
	double x;

	cr_assert_eq(pm__nnls((const double[]){ 4 }, (const double[]){ 2 }, 1, &x), 0);
	cr_expect_float_eq(x, 0.5, 1e-15);
	cr_assert_eq(pm__nnls((const double[]){ 4 }, (const double[]){ -2 }, 1, &x), 0);
	cr_expect_eq(x, 0.0);
	/* a zero Gram: nothing to fit */
	cr_assert_eq(pm__nnls((const double[]){ 0 }, (const double[]){ 1 }, 1, &x), 0);
	cr_expect_eq(x, 0.0);
}

/* The largest system it takes: PM_NNLS_MAX (a diagonal, solved exactly);
 * one more is refused. */
Test(nnls, size_limit)
{
	const size_t p = PM_NNLS_MAX + 1;
	double *G = calloc(p * p, sizeof(*G)), *b = calloc(p, sizeof(*b)), *x = calloc(p, sizeof(*x));

	cr_assert(G && b && x);
	for (size_t i = 0; i < PM_NNLS_MAX; i++) {
		G[i * PM_NNLS_MAX + i] = (double)(i + 1);
		b[i] = (i % 2 ? -1.0 : 1.0) * (double)(i + 1);
	}
	cr_assert_eq(pm__nnls(G, b, PM_NNLS_MAX, x), 0);
	for (size_t i = 0; i < PM_NNLS_MAX; i++)
		cr_expect_float_eq(x[i], i % 2 ? 0.0 : 1.0, 1e-12, "x[%zu] = %.17g", i, x[i]);
	cr_expect_eq(pm__nnls(G, b, p, x), -1);
	free(G);
	free(b);
	free(x);
}
