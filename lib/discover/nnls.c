/* Non-negative least squares (Lawson and Hanson, "Solving Least Squares
 * Problems", 1974, ch. 23) on the normal equations: discover's inner solve,
 * where every term of a performance model adds time, so no coefficient may
 * be negative, and a negative one would make the model fall below zero
 * beyond the data. Small systems only (a hypothesis has a few terms), so
 * the passive set is refactored from scratch at each step. */
#include "discover/nnls.h"

#include <math.h>
#include <string.h>

/* Pivots below this share of their column's scale make a column dependent. */
#define DEPENDENT 1e-10

/* Solve the scaled system on the passive set P (in[k] = 1) by Cholesky:
 * z[k] for k in P, 0 elsewhere. A pivot that vanishes marks its variable
 * dependent (dep[k] = 1, dropped from P); returns 1 then, so that the
 * caller solves again, else 0. */
static int solve_passive(const double *G, const double *b, size_t p, unsigned char *in,
			 unsigned char *dep, double *z)
{
	double L[PM_NNLS_MAX * PM_NNLS_MAX], y[PM_NNLS_MAX];
	size_t idx[PM_NNLS_MAX], m = 0;

	for (size_t k = 0; k < p; k++) {
		z[k] = 0.0;
		if (in[k])
			idx[m++] = k;
	}
	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j <= i; j++) {
			double s = G[idx[i] * p + idx[j]];

			for (size_t k = 0; k < j; k++)
				s -= L[i * m + k] * L[j * m + k];
			if (i == j) {
				if (s <= DEPENDENT) {	/* the scaled diagonal is 1 */
					in[idx[i]] = 0;
					dep[idx[i]] = 1;
					return 1;
				}
				L[i * m + i] = sqrt(s);
			} else {
				L[i * m + j] = s / L[j * m + j];
			}
		}
	}
	for (size_t i = 0; i < m; i++) {
		double s = b[idx[i]];

		for (size_t k = 0; k < i; k++)
			s -= L[i * m + k] * y[k];
		y[i] = s / L[i * m + i];
	}
	for (size_t i = m; i-- > 0;) {
		double s = y[i];

		for (size_t k = i + 1; k < m; k++)
			s -= L[k * m + i] * z[idx[k]];
		z[idx[i]] = s / L[i * m + i];
	}
	return 0;
}

/* pm__nnls, from the passive set of x's positive entries (warm) or the
 * empty one. */
static int nnls(const double *G0, const double *b0, size_t p, double *x, int warm)
{
	double G[PM_NNLS_MAX * PM_NNLS_MAX], b[PM_NNLS_MAX], d[PM_NNLS_MAX], z[PM_NNLS_MAX];
	double w[PM_NNLS_MAX], bmax = 0.0;
	unsigned char in[PM_NNLS_MAX] = { 0 }, dep[PM_NNLS_MAX] = { 0 };
	int feasible = 1;

	if (p > PM_NNLS_MAX)
		return -1;
	/* unit diagonal: the tolerances below are then relative */
	for (size_t k = 0; k < p; k++) {
		d[k] = G0[k * p + k] > 0 ? sqrt(G0[k * p + k]) : 0.0;
		dep[k] = !(d[k] > 0) || !isfinite(d[k]);
		in[k] = warm && x[k] > 0 && !dep[k];
		x[k] = 0.0;
	}
	for (size_t i = 0; i < p; i++) {
		b[i] = dep[i] ? 0.0 : b0[i] / d[i];
		bmax = fmax(bmax, fabs(b[i]));
		for (size_t j = 0; j < p; j++)
			G[i * p + j] = dep[i] || dep[j] ? 0.0 : G0[i * p + j] / (d[i] * d[j]);
	}
	/* the warm set's solution, if every variable of it is > 0 there (the
	 * active-set steps below need a feasible start); else from nothing */
	if (warm) {
		while (solve_passive(G, b, p, in, dep, z))
			;
		for (size_t k = 0; k < p; k++)
			feasible &= !in[k] || z[k] > 0;
		for (size_t k = 0; k < p; k++) {
			x[k] = feasible && in[k] ? z[k] : 0.0;
			in[k] &= feasible;
		}
	}
	for (size_t iter = 0; iter < 3 * p + 3; iter++) {
		size_t t = p;

		for (size_t i = 0; i < p; i++) {
			w[i] = b[i];
			for (size_t j = 0; j < p; j++)
				w[i] -= G[i * p + j] * x[j];
		}
		for (size_t i = 0; i < p; i++)
			if (!in[i] && !dep[i] && w[i] > 1e-12 * (bmax + 1e-300) &&
			    (t == p || w[i] > w[t]))
				t = i;
		if (t == p)
			break;
		in[t] = 1;
		for (;;) {
			double alpha = 1.0;
			size_t leave = p;

			while (solve_passive(G, b, p, in, dep, z))
				;
			/* step from x towards z as far as x stays >= 0; the variable
			 * that reaches 0 first leaves the passive set */
			for (size_t k = 0; k < p; k++)
				if (in[k] && z[k] <= 0) {
					double a = x[k] - z[k] > 0 ? x[k] / (x[k] - z[k]) : 0.0;

					if (leave == p || a < alpha)
						alpha = a, leave = k;
				}
			if (leave == p) {
				memcpy(x, z, p * sizeof(*x));
				break;
			}
			for (size_t k = 0; k < p; k++) {
				x[k] += alpha * (z[k] - x[k]);
				if (in[k] && (k == leave || x[k] <= 1e-15)) {
					in[k] = 0;
					x[k] = 0.0;
				}
			}
		}
	}
	for (size_t k = 0; k < p; k++)
		x[k] = in[k] && !dep[k] ? x[k] / d[k] : 0.0;
	return 0;
}

int pm__nnls(const double *G, const double *b, size_t p, double *x)
{
	return nnls(G, b, p, x, 0);
}

int pm__nnls_from(const double *G, const double *b, size_t p, double *x)
{
	return nnls(G, b, p, x, 1);
}
