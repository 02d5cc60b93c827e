/* The greedy design (plan_impl.h, docs/plan.md). The members' covariance
 * over the points is a S a^T, a the centred log predictions (points x
 * members) and S, members x members, the identity at first: measuring
 * candidate c with noise variance s2 (its own: noise2[c]) conditions it to
 *   Σ - Σ[:,c] Σ[c,:] / (Σ[c,c] + s2) = a (S - u u^T / (a_c^T u + s2)) a^T,  u = S a_c,
 * a change of S alone. A pick costs members^2 per candidate and per
 * target, whatever the number of points; nothing of size points^2. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detmath.h"
#include "core/error.h"
#include "plan/plan_impl.h"

/* The targets' rms spread (log scale) below which the refits agree: a
 * tenth of the noise floor (plan.c), 0.01 %, is the refits' own optimiser
 * tolerance and rounding, no uncertainty a run could reduce (a constant
 * law fitted exactly leaves about 1e-5). */
#define NO_SPREAD 1e-4

struct design {
	const pm_plan_ensemble *e;
	size_t ncand, ntargets;
	unsigned nb;
	double *s, *u;		/* S (nb x nb), and S a_c */
};

/* u = S a_j; returns a_j^T S a_j, point j's variance now. */
static double apply(const struct design *d, size_t j, double *u)
{
	const double *aj = &d->e->a[j * d->nb];
	double v = 0;

	for (unsigned i = 0; i < d->nb; i++) {
		double sum = 0;

		for (unsigned k = 0; k < d->nb; k++)
			sum += d->s[(size_t)i * d->nb + k] * aj[k];
		u[i] = sum;
		v += aj[i] * sum;
	}
	return v;
}

/* The targets' summed variance now. */
static double target_variance(const struct design *d)
{
	double v = 0;

	for (size_t t = 0; t < d->ntargets; t++)
		v += apply(d, d->ncand + t, d->u);
	return v;
}

/* How much measuring candidate c would reduce the targets' summed
 * variance: sum_t Cov(t, c)^2 / (Var(c) + s2); d->u is left S a_c. */
static double reduction(const struct design *d, size_t c, double noise2, double *var)
{
	double red = 0;

	*var = apply(d, c, d->u);
	for (size_t t = 0; t < d->ntargets; t++) {
		const double *at = &d->e->a[(d->ncand + t) * d->nb];
		double cov = 0;

		for (unsigned k = 0; k < d->nb; k++)
			cov += at[k] * d->u[k];
		red += cov * cov;
	}
	return red / (*var + noise2);
}

static void condition(struct design *d, size_t c, double noise2)
{
	double var = apply(d, c, d->u), w = 1 / (var + noise2);

	for (unsigned i = 0; i < d->nb; i++)
		for (unsigned k = 0; k < d->nb; k++)
			d->s[(size_t)i * d->nb + k] -= d->u[i] * d->u[k] * w;
}

pm_status pm__plan_design(const pm_plan_ensemble *e, size_t ncand, const double *cost,
			  const int *excluded, const double *noise2, const pm_plan_options *po,
			  pm_plan *p, pm_error *err)
{
	struct design d = { .e = e, .ncand = ncand, .ntargets = e->npoints - ncand,
			    .nb = e->nmembers };
	size_t limit = po->count ? po->count : ncand;
	int *taken = calloc(ncand + 1, sizeof(*taken));
	double budget = po->budget > 0 ? po->budget : INFINITY, before;
	pm_status st = PM_OK;

	d.s = calloc((size_t)d.nb * d.nb, sizeof(*d.s));
	d.u = malloc(d.nb * sizeof(*d.u));
	p->picks = calloc(limit < ncand ? limit + 1 : ncand + 1, sizeof(*p->picks));
	if (!taken || !d.s || !d.u || !p->picks) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < d.nb; i++)
		d.s[(size_t)i * d.nb + i] = 1;
	before = target_variance(&d);
	p->spread_before = d.ntargets ? sqrt(before / d.ntargets) : 0;
	if (!(p->spread_before > NO_SPREAD)) {
		st = pm__fail(err, PM_EFIT, "the %u refits on resampled configurations predict "
			      "the targets alike (spread %.3g on log scale, under 0.01 %%): no run "
			      "can be expected to make them more certain; nothing was planned", d.nb,
			      p->spread_before);
		goto out;
	}
	while (p->npicks < limit) {
		size_t best = ncand;
		double best_score = -INFINITY, var, after;
		pm_plan_pick *pk;

		for (size_t c = 0; c < ncand; c++) {
			double score;

			if (excluded[c] || taken[c] ||
			    !pm__plan_affordable(p->total_cost, cost[c], budget))
				continue;
			/* gain per cost as logarithms: a cost near the smallest double
			 * must not make every score infinite (and the ranking a tie) */
			score = pm__log(reduction(&d, c, noise2[c], &var)) - pm__log(cost[c]);
			/* strictly better: ties keep the earlier row, whatever the order of sums */
			if (best == ncand || score > best_score) {
				best_score = score;
				best = c;
			}
		}
		if (best == ncand)
			break;
		pk = &p->picks[p->npicks++];

		pk->row = best;
		pk->cost = cost[best];
		pk->spread = 0;
		for (unsigned k = 0; k < d.nb; k++)	/* S was the identity then */
			pk->spread += e->a[best * d.nb + k] * e->a[best * d.nb + k];
		pk->spread = sqrt(pk->spread);
		pk->noise = sqrt(noise2[best]);
		condition(&d, best, noise2[best]);
		after = target_variance(&d);
		/* rounding must not make a variance grow: the gain stays in [0, 1] */
		pk->gain = before > 0 ? fmax(0, 1 - sqrt(fmax(after, 0) / before)) : 0;
		before = after;
		taken[best] = 1;
		p->total_cost += cost[best];
	}
	p->spread_after = d.ntargets ? sqrt(fmax(before, 0) / d.ntargets) : 0;
out:
	free(taken);
	free(d.s);
	free(d.u);
	return st;
}
