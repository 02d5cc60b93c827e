/* Eq. 3.9, t = b0 + b1·N_g + b2·LIF, by ordinary least squares.
 *
 * GSL only through views of memory of ours and routines that take their
 * workspace from the caller (gsl_linalg_SV_decomp): nothing in GSL
 * allocates here, so its error handler, which prints and aborts by default
 * in an embedder's process too, could only be reached by a dimension
 * mistake, which the checks below rule out (rows >= 4 > 3 columns). The
 * test suite installs a handler that fails any test that reaches it. */
#include "perfmodel/perfmodel.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_linalg.h>

#include "core/error.h"

/* 1 when every x[k] equals x[0]. */
static int constant(const double *x, size_t n)
{
	for (size_t k = 1; k < n; k++)
		if (x[k] != x[0])
			return 0;
	return 1;
}

/* Singular values below this fraction of the largest mean collinear
 * columns: far above the rounding of exactly collinear data (~1e-16),
 * far below any real spread of N_g and LIF. */
#define RANK_TOL 1e-10

/* The least squares of X = [1, n, lif] by the SVD of X with each column
 * divided by its largest magnitude (so that the rank test compares like
 * with like, and no sum of squares can overflow):
 * X D^-1 = U S V', beta = D^-1 V S^-1 U' t, and cov(beta) = s^2 D^-1 V S^-2
 * V' D^-1 with s^2 = SS_res / (rows - 3). */
static pm_status least_squares(const double *n, const double *lif, const double *t, size_t rows,
			       pm_lif_regression *out, pm_error *err)
{
	double *a = malloc(rows * 3 * sizeof(*a)), v[9], sv[3], work[3], d[3] = { 0 }, x[3];
	const double *col[3] = { NULL, n, lif };
	gsl_matrix_view A, V;
	gsl_vector_view S, W;
	double mean = 0, s2;

	if (!a)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t k = 0; k < rows; k++)
		for (int j = 0; j < 3; j++) {
			double xkj = j ? col[j][k] : 1.0;

			d[j] = fmax(d[j], fabs(xkj));
			a[k * 3 + (size_t)j] = xkj;
		}
	/* a column of zeros (N_g or LIF 0 everywhere) is caught as constant
	 * before; this guards the division */
	for (int j = 0; j < 3; j++)
		if (!(d[j] > 0)) {
			free(a);
			return pm__fail(err, PM_EDOMAIN, "eq. 3.9: a column of zeros");
		}
	for (size_t k = 0; k < rows; k++)
		for (int j = 0; j < 3; j++)
			a[k * 3 + (size_t)j] /= d[j];
	A = gsl_matrix_view_array(a, rows, 3);
	V = gsl_matrix_view_array(v, 3, 3);
	S = gsl_vector_view_array(sv, 3);
	W = gsl_vector_view_array(work, 3);
	if (gsl_linalg_SV_decomp(&A.matrix, &V.matrix, &S.vector, &W.vector) != GSL_SUCCESS) {
		free(a);
		return pm__fail(err, PM_EDOMAIN, "eq. 3.9: the least-squares solver failed");
	}
	if (!(sv[2] > RANK_TOL * sv[0])) {
		free(a);
		return pm__fail(err, PM_EDOMAIN,
				"eq. 3.9: N_g and LIF are collinear in these rows (LIF is a "
				"linear function of N_g), so b1 and b2 cannot be told apart");
	}
	for (int j = 0; j < 3; j++) {	/* x = S^-1 U' t */
		double sum = 0;

		for (size_t k = 0; k < rows; k++)
			sum += a[k * 3 + (size_t)j] * t[k];
		x[j] = sum / sv[j];
	}
	free(a);
	for (int i = 0; i < 3; i++)
		out->beta[i] = (v[i * 3] * x[0] + v[i * 3 + 1] * x[1] + v[i * 3 + 2] * x[2]) / d[i];
	out->rows = rows;
	for (size_t k = 0; k < rows; k++)
		mean += t[k];
	mean /= (double)rows;
	out->ss_res = out->ss_tot = 0;
	for (size_t k = 0; k < rows; k++) {
		double e = t[k] - (out->beta[0] + out->beta[1] * n[k] + out->beta[2] * lif[k]);

		out->ss_res += e * e;
		out->ss_tot += (t[k] - mean) * (t[k] - mean);
	}
	s2 = out->ss_res / (double)(rows - 3);
	for (int i = 0; i < 3; i++) {
		double c = 0;

		for (int j = 0; j < 3; j++)
			c += (v[i * 3 + j] / sv[j]) * (v[i * 3 + j] / sv[j]);
		out->se[i] = sqrt(s2 * c) / d[i];
	}
	out->r2 = 1.0 - out->ss_res / out->ss_tot;
	out->adj_r2 = 1.0 - (1.0 - out->r2) * (double)(rows - 1) / (double)(rows - 3);
	return PM_OK;
}

pm_status pm_lif_regress(const double *n, const double *lif, const double *t, size_t rows,
			 pm_lif_regression *out, pm_error *err)
{
	if (!out || (rows && (!n || !lif || !t)))
		return pm__fail(err, PM_EINVAL, "pm_lif_regress: NULL argument");
	if (rows < 4)
		return pm__fail(err, PM_EINVAL,
				"eq. 3.9 needs at least 4 rows for its 3 coefficients and their "
				"standard errors, not %zu", rows);
	for (size_t k = 0; k < rows; k++)
		if (!isfinite(n[k]) || !isfinite(lif[k]) || !isfinite(t[k]))
			return pm__fail(err, PM_EINVAL, "eq. 3.9: row %zu holds a value that is "
					"not finite", k + 1);
	if (constant(n, rows))
		return pm__fail(err, PM_EDOMAIN,
				"eq. 3.9: b1 (N_g) is not identifiable: every row has N_g = %g; "
				"it needs rows with different numbers of workers", n[0]);
	if (constant(lif, rows))
		return pm__fail(err, PM_EDOMAIN,
				"eq. 3.9: b2 (LIF) is not identifiable: every row has LIF = %.17g",
				lif[0]);
	if (constant(t, rows))
		return pm__fail(err, PM_EDOMAIN,
				"eq. 3.9: t is %.17g in every row, so R^2 is undefined", t[0]);
	return least_squares(n, lif, t, rows, out, err);
}
