/* One point's prediction laid out in advance (model_impl.h, pm_point_plan):
 * what pm__predict_at would otherwise look up per point and per term (each
 * factor's kind, exponent and log scale, each term's coefficient, length
 * and level) taken once per model. On LeNet-5's eq. 4.4 model the look-ups
 * and branches were three quarters of a point's instructions, the logs and
 * exps the rest (docs/benchmarks.md). */
#include <float.h>
#include <stdlib.h>

#include "model/model_impl.h"

/* The padded width (model_impl.h) of t's terms: the longest term's
 * length, or 0 where padding would more than double the products. */
static uint32_t padded_width(const pm_terms *t)
{
	size_t total = 0;
	uint32_t longest = 0;

	for (size_t k = 0; k < t->nterms; k++) {
		total += t->term[k].nfactors;
		if (t->term[k].nfactors > longest)
			longest = t->term[k].nfactors;
	}
	return t->nterms * longest <= 2 * total ? longest : 0;
}

int pm__point_plan_new(pm_model *m)
{
	const pm_terms *t = &m->terms;
	pm_point_plan *pp = &m->point;
	size_t nf = t->nfactors + 1, nslots = 1;	/* + 1: no calloc(0) */

	pp->width = padded_width(t);
	for (size_t k = 0; k < t->nterms; k++)
		nslots += pp->width ? pp->width : t->term[k].nfactors;
	pp->power_input = calloc(nf, sizeof(*pp->power_input));
	pp->power_ls = calloc(nf, sizeof(*pp->power_ls));
	pp->power_e = calloc(nf, sizeof(*pp->power_e));
	pp->other = calloc(nf, sizeof(*pp->other));
	pp->slot = calloc(nf, sizeof(*pp->slot));
	pp->term = calloc(t->nterms + 1, sizeof(*pp->term));
	pp->slots = calloc(nslots, sizeof(*pp->slots));
	pp->seg = calloc(t->nterms + 1, sizeof(*pp->seg));
	pp->in_lo = calloc(m->ninputs + 1, sizeof(*pp->in_lo));
	pp->in_hi = calloc(m->ninputs + 1, sizeof(*pp->in_hi));
	pp->in_whole = calloc(m->ninputs + 1, sizeof(*pp->in_whole));
	return pp->power_input && pp->power_ls && pp->power_e && pp->other && pp->slot &&
			       pp->term && pp->slots && pp->seg && pp->in_lo && pp->in_hi &&
			       pp->in_whole
		       ? 0 : -1;
}

void pm__point_plan_free(pm_point_plan *pp)
{
	free(pp->power_input);
	free(pp->power_ls);
	free(pp->power_e);
	free(pp->other);
	free(pp->slot);
	free(pp->term);
	free(pp->slots);
	free(pp->seg);
	free(pp->in_lo);
	free(pp->in_hi);
	free(pp->in_whole);
}

/* The bounds of the values each input takes (pm_point_plan). */
static void input_bounds(const pm_model *m, pm_point_plan *pp)
{
	for (size_t i = 0; i < m->ninputs; i++) {
		const pm_input *in = &m->inputs[i];
		int level = in->role == PM_ROLE_CATEGORICAL;

		pp->in_lo[i] = level ? 0.0 : in->powered ? DBL_TRUE_MIN : -DBL_MAX;
		pp->in_hi[i] = level ? (double)in->nlevels - 1.0 : DBL_MAX;
		pp->in_whole[i] = level ? 1.0 : 0.0;
	}
	for (size_t f = 0; f < m->terms.nfactors; f++)
		if (m->terms.factor[f].kind == PM_FACTOR_LOG2)
			pp->in_lo[m->terms.factor[f].input] = 1.0;
}

/* Whether terms k.. are categorical input i's of levels 0..nlevels-1 in
 * order (eq. 4.4's b terms). */
static int levels_run(const pm_model *m, size_t k, uint32_t i)
{
	const pm_terms *t = &m->terms;
	size_t nl = m->inputs[i].nlevels;

	if (!nl || k + nl > t->nterms)
		return 0;
	for (size_t l = 0; l < nl; l++)
		if (t->term[k + l].level_input != i || t->term[k + l].level != l)
			return 0;
	return 1;
}

/* The terms' runs in order (pm_point_plan). */
static void runs(const pm_model *m, pm_point_plan *pp)
{
	const pm_terms *t = &m->terms;

	pp->nseg = 0;
	for (size_t k = 0; k < t->nterms;) {
		pm_point_seg *sg = &pp->seg[pp->nseg++];
		uint32_t i = t->term[k].level_input;

		sg->first = (uint32_t)k;
		sg->at = i;
		if (i == PM_NONE) {
			sg->kind = PM_RUN_EVERY;
			while (k < t->nterms && t->term[k].level_input == PM_NONE)
				k++;
		} else if (levels_run(m, k, i)) {
			sg->kind = PM_RUN_LEVELS;
			k += m->inputs[i].nlevels;
		} else {
			sg->kind = PM_RUN_ONE;
			k++;
		}
		sg->n = (uint32_t)(k - sg->first);
	}
}

void pm__point_plan_fill(pm_model *m)
{
	const pm_terms *t = &m->terms;
	pm_point_plan *pp = &m->point;
	uint32_t first = 0;

	input_bounds(m, pp);
	pp->ok = m->ninputs < PM_POINT_INPUTS && t->nfactors < PM_POINT_FACTORS;
	if (!pp->ok)
		return;
	pp->npower = pp->nother = 0;
	for (uint32_t f = 0; f < t->nfactors; f++) {
		const pm_factor *fa = &t->factor[f];

		if (fa->kind != PM_FACTOR_POWER)
			continue;
		pp->slot[f] = (uint32_t)pp->npower;
		pp->power_input[pp->npower] = fa->input;
		pp->power_ls[pp->npower] = m->inputs[fa->input].log_scale;
		pp->power_e[pp->npower++] = pm__factor_exponent(fa, m->value);
	}
	for (uint32_t f = 0; f < t->nfactors; f++)
		if (t->factor[f].kind != PM_FACTOR_POWER) {
			pp->slot[f] = (uint32_t)(pp->npower + pp->nother);
			pp->other[pp->nother++] = f;
		}
	for (size_t k = 0; k < t->nterms; k++) {
		const pm_term *tm = &t->term[k];
		pm_point_term *pt = &pp->term[k];

		pt->coef = m->value[tm->coef];
		pt->at = tm->level_input;	/* PM_NONE: read by no run */
		pt->level = (double)tm->level;
		pt->first = first;
		pt->n = pp->width ? pp->width : tm->nfactors;
		for (uint32_t r = 0; r < pt->n; r++)
			pp->slots[first + r] = r < tm->nfactors ? pp->slot[t->ref[tm->first + r]]
								: (uint32_t)t->nfactors;
		first += pt->n;
	}
	runs(m, pp);
}
