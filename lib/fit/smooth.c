#include "fit/smooth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stop.h"

#define LEVELS 4		/* eps0, eps0/10, eps0/100, eps0/1000 */
#define HISTORY 10		/* non-monotone line search memory (SPG's M) */
#define SUFFICIENT 1e-4		/* Armijo constant */
#define ALPHA_MIN 1e-30
#define ALPHA_MAX 1e30

struct spg {
	size_t dim;
	const double *lo, *hi;
	pm_smooth_fn fg;
	void *ctx, *scratch;
	size_t used, maxfev;
	double *g, *xt, *gt, *d;	/* dim each */
	volatile sig_atomic_t *stop;
};

/* The level's budget is used up, or a stop request came: either way, no
 * more evaluations (one costs milliseconds on many rows, so a stop request
 * is seen within one). */
static int spent(const struct spg *s)
{
	return s->used >= s->maxfev || pm__stop_requested(s->stop);
}

static double project(const struct spg *s, size_t k, double v)
{
	return v < s->lo[k] ? s->lo[k] : v > s->hi[k] ? s->hi[k] : v;
}

/* One smoothing level: SPG from x (in/out). */
static void spg_level(struct spg *s, double *x, double eps)
{
	size_t dim = s->dim;
	double fhist[HISTORY], f, alpha, dmax = 0.0;
	size_t it;

	if (spent(s))
		return;
	f = s->fg(x, eps, s->g, s->ctx, s->scratch);
	s->used++;
	if (!isfinite(f))
		return;
	for (size_t k = 0; k < dim; k++)
		dmax = fmax(dmax, fabs(project(s, k, x[k] - s->g[k]) - x[k]));
	alpha = dmax > 0 ? 1.0 / dmax : 1.0;
	for (it = 0; it < HISTORY; it++)
		fhist[it] = f;
	for (it = 0; !spent(s); it++) {
		double gd = 0.0, fmaxh = fhist[0], lambda = 1.0, ft, sy = 0.0, ss = 0.0;
		double step = 0.0, xmax = 0.0;

		for (size_t k = 0; k < dim; k++) {
			s->d[k] = project(s, k, x[k] - alpha * s->g[k]) - x[k];
			gd += s->g[k] * s->d[k];
			step = fmax(step, fabs(s->d[k]));
			xmax = fmax(xmax, fabs(x[k]));
		}
		if (step <= 1e-14 * (1.0 + xmax) || !(gd < 0))
			return;	/* projected-gradient stationary point */
		for (int h = 1; h < HISTORY; h++)
			fmaxh = fmax(fmaxh, fhist[h]);
		for (;;) {
			/* x + lambda d stays in the box: both ends are in it */
			for (size_t k = 0; k < dim; k++)
				s->xt[k] = project(s, k, x[k] + lambda * s->d[k]);
			ft = s->fg(s->xt, eps, s->gt, s->ctx, s->scratch);
			s->used++;
			if (ft <= fmaxh + SUFFICIENT * lambda * gd)
				break;
			lambda *= 0.5;
			if (lambda < 1e-12 || spent(s))
				return;
		}
		for (size_t k = 0; k < dim; k++) {
			double sk = s->xt[k] - x[k], yk = s->gt[k] - s->g[k];

			sy += sk * yk;
			ss += sk * sk;
		}
		alpha = sy > 0 ? fmin(ALPHA_MAX, fmax(ALPHA_MIN, ss / sy)) : ALPHA_MAX;
		memcpy(x, s->xt, dim * sizeof(*x));
		memcpy(s->g, s->gt, dim * sizeof(*s->g));
		fhist[it % HISTORY] = ft;
	}
}

pm_status pm__polish_smooth(size_t dim, const double *lo, const double *hi, pm_smooth_fn fg,
			    pm_cost_fn f, void *ctx, void *scratch, double eps0, size_t maxfev,
			    volatile sig_atomic_t *stop, double *x, double *cost, uint64_t *nfev,
			    pm_error *err)
{
	struct spg s = { dim, lo, hi, fg, ctx, scratch, 0, maxfev, NULL, NULL, NULL, NULL, stop };
	double *mem = malloc(6 * dim * sizeof(*mem) + 1);
	double *xc, *xbest, fbest = *cost, eps = eps0;

	if (!mem)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	s.g = mem;
	s.xt = mem + dim;
	s.gt = mem + 2 * dim;
	s.d = mem + 3 * dim;
	xc = mem + 4 * dim;
	xbest = mem + 5 * dim;
	for (size_t k = 0; k < dim; k++)
		xbest[k] = xc[k] = project(&s, k, x[k]);
	for (int level = 0; level < LEVELS && s.used < maxfev && !pm__stop_requested(stop) && eps > 0;
	     level++, eps *= 0.1) {
		double fc;

		/* each level its share, so that a slow first level cannot starve
		 * the sharper ones */
		s.maxfev = maxfev / LEVELS * (size_t)(level + 1);
		spg_level(&s, xc, eps);
		/* also after a stop request: what the level found is kept if its
		 * true cost is lower, which takes this one evaluation */
		fc = f(xc, ctx, scratch);
		s.used++;
		if (fc < fbest) {
			fbest = fc;
			memcpy(xbest, xc, dim * sizeof(*xc));
		} else {
			/* the next, sharper level starts from the best true point */
			memcpy(xc, xbest, dim * sizeof(*xc));
		}
	}
	if (fbest < *cost) {
		memcpy(x, xbest, dim * sizeof(*x));
		*cost = fbest;
	}
	*nfev += s.used;
	free(mem);
	return PM_OK;
}
