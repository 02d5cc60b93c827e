/* Bounded Nelder–Mead for DE's polish step.
 *
 * The simplex lives in the unit cube of the free parameters (lo < hi), so
 * that the initial steps and the size test mean the same for every
 * parameter whatever its range; fixed parameters (lo == hi) are left out.
 * Every trial point is projected onto [0, 1] before it is mapped to real
 * units, so f is never called outside the bounds. Standard coefficients
 * (reflection 1, expansion 2, contraction 1/2, shrink 1/2).
 *
 * When a run has converged but budget is left, the simplex is rebuilt
 * around the best point: projection can flatten a simplex against a face
 * of the box, and a fresh one lets the search leave that face again.
 *
 * The best point is remembered in real units exactly as it was evaluated,
 * so the point handed back is one f has actually seen with that cost. */
#include "fit/polish.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stop.h"

/* Initial simplex steps, as scipy's Nelder–Mead takes them: 5 % of each
 * coordinate (0.025 % of its range where it is 0). Bounds such as
 * [0, 1000] are far wider than the neighbourhood of an optimum, and a
 * simplex as wide as the range steps over it; and this stage starts where
 * gradient descent stopped (fit.c), near a minimum already. */
#define NM_STEP_REL 0.05
#define NM_STEP_ZERO 0.00025
#define NM_XTOL 1e-9		/* simplex size in the unit cube ... */
#define NM_FTOL_REL 1e-12	/* ... and relative cost spread that end a run */
#define NM_FTOL_ABS 1e-14
#define NM_XTINY 1e-13		/* below this size nothing more can be learnt */
#define NM_MAX_RUNS 8

struct nm {
	size_t dim, n;		/* all parameters; free ones */
	const double *lo, *hi;
	pm_cost_fn f;
	void *ctx, *scratch;
	size_t *idx;		/* free parameter j is x[idx[j]] */
	double *xreal;		/* dim: the point being evaluated */
	double *xbest;		/* dim: the best point seen, as evaluated */
	double fbest;
	size_t used, maxfev;
	volatile sig_atomic_t *stop;
	int exhausted;
};

static double clamp01(double u)
{
	return u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
}

/* Cost of unit-cube point u (already inside [0, 1]). Past the budget, or
 * once a stop request came, it returns +inf without calling f and marks the
 * run as exhausted, so that the caller can finish the current step and
 * stop: a stop request is seen within one evaluation. */
static double eval(struct nm *s, const double *u)
{
	double c;

	if (s->used >= s->maxfev || pm__stop_requested(s->stop)) {
		s->exhausted = 1;
		return HUGE_VAL;
	}
	for (size_t j = 0; j < s->n; j++) {
		size_t k = s->idx[j];
		double v = s->lo[k] + u[j] * (s->hi[k] - s->lo[k]);

		/* rounding in the map must not step outside the box */
		s->xreal[k] = v < s->lo[k] ? s->lo[k] : v > s->hi[k] ? s->hi[k] : v;
	}
	c = s->f(s->xreal, s->ctx, s->scratch);
	s->used++;
	if (isnan(c))
		c = HUGE_VAL;
	if (c < s->fbest) {
		s->fbest = c;
		memcpy(s->xbest, s->xreal, s->dim * sizeof(*s->xbest));
	}
	return c;
}

/* Insertion sort of the vertex order by cost: stable, so that ties are
 * broken the same way on every run. */
static void order_vertices(size_t *ord, const double *fv, size_t m)
{
	for (size_t a = 1; a < m; a++) {
		size_t t = ord[a], b = a;

		while (b > 0 && fv[ord[b - 1]] > fv[t]) {
			ord[b] = ord[b - 1];
			b--;
		}
		ord[b] = t;
	}
}

/* One Nelder–Mead run from u0 (cost f0). v is (n+1)*n, fv n+1, work 4n. */
static void nm_run(struct nm *s, const double *u0, const double *step, double f0, double *v,
		   double *fv, size_t *ord, double *work)
{
	size_t n = s->n;
	double *cen = work, *xr = work + n, *xe = work + 2 * n, *xc = work + 3 * n;

	memcpy(v, u0, n * sizeof(*v));
	fv[0] = f0;
	ord[0] = 0;
	for (size_t j = 1; j <= n; j++) {
		double *vj = v + j * n;

		memcpy(vj, u0, n * sizeof(*vj));
		/* step inwards when a bound is close: the unit range always
		 * leaves room on one side */
		vj[j - 1] += u0[j - 1] + step[j - 1] <= 1.0 ? step[j - 1] : -step[j - 1];
		vj[j - 1] = clamp01(vj[j - 1]);
		fv[j] = eval(s, vj);
		ord[j] = j;
	}
	while (!s->exhausted) {
		const double *vb, *vw;
		double fb, fs, fw, fr, limit;
		int small = 1;

		order_vertices(ord, fv, n + 1);
		vb = v + ord[0] * n;
		vw = v + ord[n] * n;
		fb = fv[ord[0]];
		fs = fv[ord[n - 1]];
		fw = fv[ord[n]];
		if (!isfinite(fb))
			break;	/* nowhere finite to move towards */
		/* stop when the simplex's size (its largest distance from the
		 * best vertex in any coordinate) is below NM_XTINY, or below
		 * NM_XTOL with the costs flat; the scan stops at the first
		 * distance above the limit, which is the usual case */
		limit = fw - fb <= NM_FTOL_ABS + NM_FTOL_REL * fabs(fb) ? NM_XTOL : NM_XTINY;
		for (size_t j = 1; j <= n && small; j++)
			for (size_t k = 0; k < n && small; k++)
				small = fabs(v[ord[j] * n + k] - vb[k]) <= limit;
		if (small)
			break;

		/* the centroid of all but the worst: vertex by vertex (each
		 * coordinate still summed in vertex order), so that the inner
		 * loop runs along a vertex's contiguous coordinates */
		for (size_t k = 0; k < n; k++)
			cen[k] = 0.0;
		for (size_t j = 0; j < n; j++) {
			const double *vj = v + ord[j] * n;

			for (size_t k = 0; k < n; k++)
				cen[k] += vj[k];
		}
		for (size_t k = 0; k < n; k++)
			cen[k] /= (double)n;
		for (size_t k = 0; k < n; k++)
			xr[k] = clamp01(cen[k] + (cen[k] - vw[k]));
		fr = eval(s, xr);

		if (fr < fb) {
			double fe;

			for (size_t k = 0; k < n; k++)
				xe[k] = clamp01(cen[k] + 2.0 * (xr[k] - cen[k]));
			fe = eval(s, xe);
			if (fe < fr) {
				memcpy(v + ord[n] * n, xe, n * sizeof(*xe));
				fv[ord[n]] = fe;
			} else {
				memcpy(v + ord[n] * n, xr, n * sizeof(*xr));
				fv[ord[n]] = fr;
			}
			continue;
		}
		if (fr < fs) {
			memcpy(v + ord[n] * n, xr, n * sizeof(*xr));
			fv[ord[n]] = fr;
			continue;
		}
		{
			int outside = fr < fw;
			double fc;

			for (size_t k = 0; k < n; k++)
				xc[k] = clamp01(outside ? cen[k] + 0.5 * (xr[k] - cen[k])
							: cen[k] + 0.5 * (vw[k] - cen[k]));
			fc = eval(s, xc);
			if (outside ? fc <= fr : fc < fw) {
				memcpy(v + ord[n] * n, xc, n * sizeof(*xc));
				fv[ord[n]] = fc;
				continue;
			}
		}
		/* shrink towards the best vertex; points between two points of
		 * the cube stay in the cube */
		for (size_t j = 1; j <= n && !s->exhausted; j++) {
			double *vj = v + ord[j] * n;

			for (size_t k = 0; k < n; k++)
				vj[k] = vb[k] + 0.5 * (vj[k] - vb[k]);
			fv[ord[j]] = eval(s, vj);
		}
	}
}

pm_status pm__polish(size_t dim, const double *lo, const double *hi, pm_cost_fn f, void *ctx,
		     void *scratch, size_t maxfev, volatile sig_atomic_t *stop, double *x,
		     double *cost, uint64_t *nfev, pm_error *err)
{
	struct nm s = { 0 };
	size_t n = 0, ndoubles;
	double *mem = NULL, *v, *fv, *work, *u0, *step;
	size_t *imem = NULL, *ord;
	double fin;

	for (size_t k = 0; k < dim; k++)
		if (hi[k] > lo[k])
			n++;
	if (n == 0 || maxfev == 0)
		return PM_OK;
	/* (n+1)n simplex + (n+1) costs + 4n work + n start + n steps + 2 dim points */
	if (n > SIZE_MAX / sizeof(double) / (n + 8) / 2 || dim > SIZE_MAX / sizeof(double) / 4)
		return pm__fail(err, PM_ENOMEM, "out of memory: polish of %zu parameters", n);
	ndoubles = (n + 1) * n + (n + 1) + 4 * n + 2 * n + 2 * dim;
	mem = malloc(ndoubles * sizeof(*mem));
	imem = malloc((2 * n + 1) * sizeof(*imem));
	if (!mem || !imem) {
		free(mem);
		free(imem);
		return pm__fail(err, PM_ENOMEM, "out of memory: polish of %zu parameters", n);
	}
	v = mem;
	fv = v + (n + 1) * n;
	work = fv + (n + 1);
	u0 = work + 4 * n;
	step = u0 + n;
	s.xreal = step + n;
	s.xbest = s.xreal + dim;
	s.idx = imem;
	ord = imem + n;

	s.dim = dim;
	s.n = n;
	s.lo = lo;
	s.hi = hi;
	s.f = f;
	s.ctx = ctx;
	s.scratch = scratch;
	s.maxfev = maxfev;
	s.stop = stop;
	fin = isnan(*cost) ? HUGE_VAL : *cost;
	s.fbest = fin;
	for (size_t k = 0, j = 0; k < dim; k++) {
		double c = x[k] < lo[k] ? lo[k] : x[k] > hi[k] ? hi[k] : x[k];

		s.xreal[k] = s.xbest[k] = c;
		if (hi[k] > lo[k])
			s.idx[j++] = k;
	}

	/* Runs restart around the best point while they improve it. A run that
	 * finds nothing is run once more before the polish ends: from the same
	 * start with the same steps, f being deterministic, it repeats the first
	 * evaluation for evaluation and buys nothing; but its evaluations count
	 * in those model.json reports, so dropping it changes the output and is
	 * left to a change of its own. */
	for (int run = 0, misses = 0; run < NM_MAX_RUNS && !s.exhausted; run++) {
		double before = s.fbest;

		for (size_t j = 0; j < n; j++) {
			size_t k = s.idx[j];

			double range = hi[k] - lo[k];
			double d = s.xbest[k] != 0.0 ? NM_STEP_REL * fabs(s.xbest[k])
						     : NM_STEP_ZERO * range;

			u0[j] = clamp01((s.xbest[k] - lo[k]) / range);
			step[j] = d / range > 0.5 ? 0.5 : d / range;
		}
		nm_run(&s, u0, step, s.fbest, v, fv, ord, work);
		if (!(s.fbest < before) && ++misses == 2)
			break;
	}

	if (s.fbest < fin) {
		memcpy(x, s.xbest, dim * sizeof(*x));
		*cost = s.fbest;
	}
	*nfev += s.used;
	free(mem);
	free(imem);
	return PM_OK;
}
