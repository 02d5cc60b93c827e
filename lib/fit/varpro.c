/* Variable projection: the coefficients solved for fixed nonlinear
 * parameters (varpro.h). */
#include "fit/varpro.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* IRLS passes for the absolute-error losses: the first is least squares,
 * each further one reweights by the residuals of the one before. Least
 * squares alone picks powers whose absolute error is 11-37 % worse on real
 * data (issue 19). 2, 3, 4, 6 and 8 passes all found the same optimum on
 * the bundled LeNet-5 data; 3 was the cheapest whose worst seed stayed
 * within 0.02 % of it (docs/benchmarks.md, "Engines"). */
#define IRLS_PASSES 3
/* Coordinate descent: sweeps at most, and the stop (a sweep whose largest
 * objective decrease per coordinate, ½·a·Δ², is below this, the target
 * being about 1 in the scaled space) */
#define CD_SWEEPS 200
#define CD_TOL 1e-15
/* A residual's floor in an IRLS weight, relative to the mean absolute
 * residual of the pass before: a row fitted exactly would otherwise weigh
 * infinitely. */
#define IRLS_FLOOR 1e-3

#define ALIGN 64
/* Rows of the design formed at a time: a few KiB per column */
#define CHUNK 64
/* Design entries kept across IRLS passes at most (4 MiB a thread) */
#define KEEP_DESIGN (1u << 19)

static size_t round_up(size_t n)
{
	return (n + ALIGN - 1) / ALIGN * ALIGN;
}

/* Terms times factors: both are few, and nothing is allocated, so that
 * the answer never depends on memory. */
int pm__varpro_applies(const pm_model *m)
{
	const pm_terms *t = &m->terms;

	if (t->nterms == 0)
		return 0;
	for (size_t k = 0; k < t->nterms; k++)
		for (size_t f = 0; f < t->nfactors; f++)
			if (pm__model_factor_has_param(m, &t->factor[f], t->term[k].coef))
				return 0;
	return 1;
}

size_t pm__varpro_searched(const pm_model *m)
{
	size_t n = 0;

	for (size_t k = 0; k < m->nparams; k++) {
		size_t i = 0;

		while (i < m->terms.nterms && m->terms.term[i].coef != k)
			i++;
		n += i == m->terms.nterms;
	}
	return n;
}

void pm__varpro_free(pm_varpro *v)
{
	if (!v)
		return;
	free(v->lin);
	free(v->non);
	free(v->col);
	free(v->lo);
	free(v->hi);
	free(v->l1);
	free(v->l2);
	memset(v, 0, sizeof(*v));
}

/* The cost's penalty weight of parameter k (cost_kernels.c, penalty()). */
static double penalty_weight(const pm_param *pa, const pm_fit_options *o, pm_reg reg)
{
	if (o->reg != reg || pa->desc.kind == PM_PARAM_CONST)
		return 0.0;
	return pa->desc.kind == PM_PARAM_COEF || pa->desc.kind == PM_PARAM_LEVEL
		       ? o->lambda_coef
		       : o->lambda_power;
}

pm_status pm__varpro_init(pm_varpro *v, const pm_cost *c, const pm_fit_options *o,
			  pm_error *err)
{
	const pm_model *m = c->m;
	const pm_terms *t = &m->terms;
	size_t np = m->nparams, at;

	memset(v, 0, sizeof(*v));
	v->cost = c;
	if (!pm__varpro_applies(m))
		return pm__fail(err, PM_EINVAL, "the model's coefficients are not all linear");
	v->col = malloc((np + 1) * sizeof(*v->col));
	v->lin = malloc((np + 1) * sizeof(*v->lin));
	v->non = malloc((np + 1) * sizeof(*v->non));
	if (!v->col || !v->lin || !v->non)
		goto oom;
	for (size_t k = 0; k < np; k++)
		v->col[k] = PM_NONE;
	/* columns in parameter order, whichever term names a coefficient first */
	for (size_t k = 0; k < t->nterms; k++)
		v->col[t->term[k].coef] = 0;
	for (size_t k = 0; k < np; k++) {
		if (v->col[k] == PM_NONE) {
			v->non[v->nnon++] = (uint32_t)k;
		} else {
			v->col[k] = (uint32_t)v->nlin;
			v->lin[v->nlin++] = (uint32_t)k;
		}
	}
	v->lo = malloc((v->nlin + 1) * sizeof(double));
	v->hi = malloc((v->nlin + 1) * sizeof(double));
	v->l1 = malloc((v->nlin + 1) * sizeof(double));
	v->l2 = malloc((v->nlin + 1) * sizeof(double));
	if (!v->lo || !v->hi || !v->l1 || !v->l2)
		goto oom;
	for (size_t j = 0; j < v->nlin; j++) {
		const pm_param *pa = &m->params[v->lin[j]];

		v->lo[j] = pa->lo;
		v->hi[j] = pa->hi;
		v->l1[j] = penalty_weight(pa, o, PM_REG_L1);
		v->l2[j] = penalty_weight(pa, o, PM_REG_L2);
	}
	for (size_t f = 0; f < t->nfactors; f++)
		v->ntab += c->p->col[t->factor[f].input].ndistinct;
	/* scratch: the cost's own first (DE hands it 64-byte aligned), then
	 * the full point, the factor tables, the normal equations (matrix and
	 * right side), the coefficients and the gradient, a dense row, the
	 * columns a row touches */
	at = round_up(c->scratch_bytes);
	v->full_at = at;
	at += round_up(np * sizeof(double));
	v->tab_at = at;
	at += round_up(v->ntab * sizeof(double));
	v->gram_at = at;
	at += round_up((v->nlin * v->nlin + v->nlin) * sizeof(double));
	v->coef_at = at;
	at += round_up(2 * v->nlin * sizeof(double));
	/* the design is formed once per trial and kept for every pass when
	 * it is small, else formed again chunk by chunk in each pass */
	v->nchunks = (c->p->nrows + CHUNK - 1) / CHUNK;
	v->keep = v->nchunks * v->nlin * CHUNK <= KEEP_DESIGN;
	v->x_at = at;
	at += round_up((v->keep ? v->nchunks : 1) * v->nlin * CHUNK * sizeof(double));
	v->used_at = at;
	at += round_up((v->keep ? v->nchunks : 1) * v->nlin);
	v->scratch_bytes = at;
	return PM_OK;
oom:
	pm__varpro_free(v);
	return pm__fail(err, PM_ENOMEM, "out of memory");
}

/* The factors' values per distinct value of their inputs, at full. */
static void fill_tables(const pm_varpro *v, const double *full, double *tab)
{
	const pm_cost *c = v->cost;
	const pm_terms *t = &c->m->terms;

	for (size_t f = 0; f < t->nfactors; f++) {
		const pm_factor *fa = &t->factor[f];
		size_t nd = c->p->col[fa->input].ndistinct, at = c->factor_at[f];

		for (size_t d = 0; d < nd; d++)
			tab[at + d] = pm__factor_eval(fa, full, c->base[at + d]);
	}
}

/* Rows r0 .. r0+nb (nb <= CHUNK) of the design: X[j * CHUNK + i] is row
 * r0 + i's terms of coefficient column j without the coefficient, summed
 * over the terms that share it. used[j]: whether any of these rows has a
 * term in column j (a level column is empty in chunks without its level). */
static void design_chunk(const pm_varpro *v, const double *tab, size_t r0, size_t nb,
			 double *restrict X, unsigned char *used)
{
	const pm_cost *c = v->cost;
	const pm_terms *t = &c->m->terms;
	const pm_column *col = c->p->col;

	memset(X, 0, v->nlin * CHUNK * sizeof(double));
	memset(used, 0, v->nlin);
	for (size_t k = 0; k < t->nterms; k++) {
		const pm_term *tm = &t->term[k];
		double *restrict x = X + (size_t)v->col[tm->coef] * CHUNK;
		double prod[CHUNK];

		for (size_t i = 0; i < nb; i++)
			prod[i] = 1.0;
		for (uint32_t q = 0; q < tm->nfactors; q++) {
			uint32_t f = t->ref[tm->first + q];
			const double *restrict ft = tab + c->factor_at[f];
			const uint32_t *restrict code = col[t->factor[f].input].code + r0;

			for (size_t i = 0; i < nb; i++)
				prod[i] *= ft[code[i]];
		}
		if (tm->level_input != PM_NONE) {
			const uint32_t *restrict code = col[tm->level_input].code + r0;
			int any = 0;

			for (size_t i = 0; i < nb; i++) {
				int on = code[i] == tm->level;

				x[i] += on ? prod[i] : 0.0;
				any |= on;
			}
			used[v->col[tm->coef]] |= (unsigned char)any;
		} else {
			for (size_t i = 0; i < nb; i++)
				x[i] += prod[i];
			used[v->col[tm->coef]] = 1;
		}
	}
}

/* Σ a[i]·b[i] over n, in four interleaved running sums added in a fixed
 * order: the same bits whatever the compiler vectorises. */
static double dot(const double *restrict a, const double *restrict b, size_t n)
{
	double s[4] = { 0, 0, 0, 0 };
	size_t i = 0;

	for (; i + 4 <= n; i += 4)
		for (size_t l = 0; l < 4; l++)
			s[l] += a[i + l] * b[i + l];
	for (size_t l = 0; i < n; i++, l++)
		s[l] += a[i] * b[i];
	return (s[0] + s[1]) + (s[2] + s[3]);
}

/* Minimise ½cᵀGc − hᵀc + Σ l1|c| + Σ l2·c² over the box by cyclic
 * coordinate descent from c; g holds Gc − h throughout. G is symmetric and
 * positive semidefinite: each step is the exact minimum along its
 * coordinate, so the objective never rises, and a column that is all zero
 * (a level no row has) leaves its coefficient at the box's point nearest
 * 0. */
static void coordinate_descent(const pm_varpro *v, const double *G, const double *h, double *c,
			       double *g)
{
	size_t n = v->nlin;

	for (size_t j = 0; j < n; j++) {
		double s = -h[j];

		for (size_t i = 0; i < n; i++)
			s += G[j * n + i] * c[i];
		g[j] = s;
	}
	for (unsigned sweep = 0; sweep < CD_SWEEPS; sweep++) {
		double most = 0.0;

		for (size_t j = 0; j < n; j++) {
			double a = G[j * n + j] + 2.0 * v->l2[j];
			double r = g[j] - G[j * n + j] * c[j];
			double z, d;

			if (a > 0) {
				double m = fabs(r) - v->l1[j];

				z = m > 0 ? -copysign(m, r) / a : 0.0;
			} else {
				z = 0.0;
			}
			z = z < v->lo[j] ? v->lo[j] : z > v->hi[j] ? v->hi[j] : z;
			d = z - c[j];
			if (d == 0.0)
				continue;
			c[j] = z;
			for (size_t i = 0; i < n; i++)
				g[i] += d * G[i * n + j];
			if (0.5 * a * d * d > most)
				most = 0.5 * a * d * d;
		}
		if (most < CD_TOL)
			break;
	}
}

void pm__varpro_solve(const pm_varpro *v, const double *theta, double *full, void *scratch)
{
	const pm_cost *c = v->cost;
	const pm_problem *p = c->p;
	unsigned char *s = scratch;
	double *tab = (double *)(void *)(s + v->tab_at);
	double *G = (double *)(void *)(s + v->gram_at), *h = G + v->nlin * v->nlin;
	double *coef = (double *)(void *)(s + v->coef_at), *grad = coef + v->nlin;
	double *X0 = (double *)(void *)(s + v->x_at);
	unsigned char *used0 = s + v->used_at;
	size_t n = v->nlin, N = p->nrows;
	int relative = c->loss == PM_LOSS_MAPE || c->loss == PM_LOSS_LOG;
	unsigned passes = c->loss == PM_LOSS_MSE ? 1 : IRLS_PASSES;
	/* the quadratic's scale: ½·ω·e² stands for the loss, so that the
	 * penalties keep their weight against it */
	double scale = (c->loss == PM_LOSS_MSE ? 2.0 : 1.0) / (double)N;
	double floor_abs = 0.0;

	for (size_t j = 0; j < v->nnon; j++)
		full[v->non[j]] = theta[j];
	fill_tables(v, full, tab);
	for (size_t j = 0; j < n; j++)
		coef[j] = v->lo[j] > 0 ? v->lo[j] : v->hi[j] < 0 ? v->hi[j] : 0.0;
	for (unsigned pass = 0; pass < passes; pass++) {
		double sum_abs = 0.0;

		memset(G, 0, (n * n + n) * sizeof(double));
		for (size_t r0 = 0; r0 < N; r0 += CHUNK) {
			size_t nb = N - r0 < CHUNK ? N - r0 : CHUNK;
			const double *restrict t = p->t + r0;
			double pred[CHUNK], w[CHUNK], wx[CHUNK];
			size_t at = v->keep ? r0 / CHUNK : 0;
			double *X = X0 + at * n * CHUNK;
			unsigned char *used = used0 + at * n;

			if (!v->keep || pass == 0)
				design_chunk(v, tab, r0, nb, X, used);
			for (size_t i = 0; i < nb; i++)
				pred[i] = 0.0;
			for (size_t j = 0; j < n; j++)
				if (used[j] && coef[j] != 0.0)
					for (size_t i = 0; i < nb; i++)
						pred[i] += X[j * CHUNK + i] * coef[j];
			for (size_t i = 0; i < nb; i++) {
				double e = t[i] - pred[i], ae = relative ? fabs(e) / t[i] : fabs(e);
				double wi = (p->w ? p->w[r0 + i] : 1.0) * scale;

				sum_abs += ae;
				if (pass == 0)
					/* coefficients start at (about) 0: the
					 * residual is the target */
					wi /= relative ? t[i] * t[i] : fabs(t[i]) > 0 ? fabs(t[i]) : 1.0;
				else if (c->loss != PM_LOSS_MSE)
					wi /= (relative ? t[i] * t[i] : 1.0) *
					      (ae > floor_abs ? ae : floor_abs);
				w[i] = wi;
			}
			for (size_t a = 0; a < n; a++) {
				if (!used[a])
					continue;
				for (size_t i = 0; i < nb; i++)
					wx[i] = w[i] * X[a * CHUNK + i];
				h[a] += dot(wx, t, nb);
				for (size_t b = a; b < n; b++)
					if (used[b])
						G[a * n + b] += dot(wx, X + b * CHUNK, nb);
			}
		}
		for (size_t a = 0; a < n; a++)
			for (size_t b = 0; b < a; b++)
				G[a * n + b] = G[b * n + a];
		floor_abs = IRLS_FLOOR * sum_abs / (double)N;
		if (!(floor_abs > 0))
			floor_abs = 1e-300;
		coordinate_descent(v, G, h, coef, grad);
	}
	for (size_t j = 0; j < n; j++)
		full[v->lin[j]] = coef[j];
}

double pm__varpro_value(const double *theta, void *ctx, void *scratch)
{
	const pm_varpro *v = ctx;
	double *full = (double *)(void *)((unsigned char *)scratch + v->full_at);

	pm__varpro_solve(v, theta, full, scratch);
	return pm__cost_value(full, (void *)v->cost, scratch);
}
