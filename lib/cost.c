#include "cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

pm_status pm__cost_init(pm_cost *c, const pm_problem *p, const pm_model *m,
			const pm_fit_options *o, pm_error *err)
{
	size_t len = 0;

	*c = (pm_cost){ p, m, NULL, 0, o->lambda_coef, o->lambda_power, o->reg };
	c->table_at = malloc((m->terms.nfactors + 1) * sizeof(*c->table_at));
	if (!c->table_at)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t k = 0; k < m->terms.nfactors; k++) {
		c->table_at[k] = len;
		len += p->col[m->terms.factor[k].input].ndistinct;
	}
	c->scratch_bytes = len * sizeof(double);
	return PM_OK;
}

void pm__cost_free(pm_cost *c)
{
	free(c->table_at);
	c->table_at = NULL;
}

/* One row's view for pm__terms_combine: factors from the x^p tables. */
struct row {
	const pm_cost *c;
	const double *table;
	size_t r;
};

static double row_factor(const void *ctx, uint32_t f)
{
	const struct row *w = ctx;
	const pm_factor *fa = &w->c->m->terms.factor[f];

	return w->table[w->c->table_at[f] + w->c->p->col[fa->input].code[w->r]];
}

static uint32_t row_level(const void *ctx, uint32_t i)
{
	const struct row *w = ctx;

	return w->c->p->col[i].code[w->r];
}

/* x^p once per distinct value of each factor's column (DESIGN.md §8). */
static void fill_tables(const pm_cost *c, const double *x, double *table)
{
	const pm_terms *t = &c->m->terms;

	for (size_t k = 0; k < t->nfactors; k++) {
		const pm_column *col = &c->p->col[t->factor[k].input];
		double *tab = table + c->table_at[k];
		double power = x[t->factor[k].power];

		for (size_t d = 0; d < col->ndistinct; d++)
			tab[d] = pm__factor_value(power, col->u[d]);
	}
}

/* λ_coef Σ_{a,b} φ + λ_pow Σ_{p,q} φ, C never penalised (thesis §4.1.2);
 * φ(x) = |x| (L1, smoothed when eps > 0) or x² (L2). With grad, adds the
 * penalty's gradient. */
static double penalty(const pm_cost *c, const double *x, double eps, double *grad)
{
	double f = 0.0;

	for (size_t k = 0; k < c->m->nparams; k++) {
		pm_param_kind kind = c->m->params[k].desc.kind;
		double lambda, phi, dphi;

		if (kind == PM_PARAM_CONST)
			continue;
		lambda = kind == PM_PARAM_COEF || kind == PM_PARAM_LEVEL ? c->lambda_coef
									 : c->lambda_power;
		if (c->reg == PM_REG_L2) {
			phi = x[k] * x[k];
			dphi = 2.0 * x[k];
		} else if (eps > 0) {
			double root = sqrt(x[k] * x[k] + eps * eps);

			phi = root - eps;
			dphi = x[k] / root;
		} else {
			phi = fabs(x[k]);
			dphi = 0.0;
		}
		f += lambda * phi;
		if (grad)
			grad[k] += lambda * dphi;
	}
	return f;
}

double pm__cost_value(const double *x, void *ctx, void *scratch)
{
	const pm_cost *c = ctx;
	const pm_problem *p = c->p;
	struct row w = { c, scratch, 0 };
	double sum = 0.0, f;

	fill_tables(c, x, scratch);
	for (w.r = 0; w.r < p->nrows; w.r++)
		sum += fabs(p->t[w.r] - pm__terms_combine(&c->m->terms, x, row_factor, row_level, &w));
	f = sum / (double)p->nrows;
	if (c->reg != PM_REG_NONE)
		f += penalty(c, x, 0.0, NULL);
	return isnan(f) ? INFINITY : f;
}

/* A term v = coef · Π_f exp(power_f · u_f) has dv/dcoef = Π_f exp(...)
 * and dv/dpower_f = v · u_f. */
double pm__cost_smooth(const double *x, double eps, double *grad, void *ctx, void *scratch)
{
	const pm_cost *c = ctx;
	const pm_problem *p = c->p;
	const pm_terms *t = &c->m->terms;
	double sum = 0.0, inv_n = 1.0 / (double)p->nrows, f;

	fill_tables(c, x, scratch);
	memset(grad, 0, c->m->nparams * sizeof(*grad));
	for (size_t r = 0; r < p->nrows; r++) {
		struct row w = { c, scratch, r };
		double res = p->t[r] - pm__terms_combine(t, x, row_factor, row_level, &w);
		double root = sqrt(res * res + eps * eps);
		double dpred = -(res / root) * inv_n;	/* d cost / d prediction */

		sum += root - eps;
		for (size_t k = 0; k < t->nterms; k++) {
			const pm_term *tm = &t->term[k];
			double prod = 1.0, v;

			if (tm->level_input != PM_NONE && row_level(&w, tm->level_input) != tm->level)
				continue;
			for (uint32_t j = 0; j < tm->nfactors; j++)
				prod *= row_factor(&w, t->ref[tm->first + j]);
			grad[tm->coef] += dpred * prod;
			v = x[tm->coef] * prod;
			for (uint32_t j = 0; j < tm->nfactors; j++) {
				const pm_factor *fa = &t->factor[t->ref[tm->first + j]];
				const pm_column *col = &p->col[fa->input];

				grad[fa->power] += dpred * v * col->u[col->code[r]];
			}
		}
	}
	f = sum * inv_n;
	if (c->reg != PM_REG_NONE)
		f += penalty(c, x, eps, grad);
	return isnan(f) ? INFINITY : f;
}
