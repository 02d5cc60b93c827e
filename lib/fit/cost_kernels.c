/* The cost's kernels (cost.h): per trial, the plan that cost_plan.c built
 * is filled (x^p per distinct value, leaf, merged and key tables) and run
 * over the rows (gathers, the loss, and for the smoothed cost the scatters
 * of the gradient), every sum in one fixed order. */
#include "fit/cost_impl.h"

#include <math.h>
#include <string.h>

/* Per trial: x^p once per distinct value of each factor's column
 * (DESIGN.md §8), then the node tables (children first) and the key
 * products. */
static void fill_tables(const pm_cost *c, const double *x, double *s)
{
	const pm_terms *t = &c->m->terms;

	for (size_t f = 0; f < t->nfactors; f++) {
		const pm_factor *fa = &t->factor[f];
		size_t nd = c->p->col[fa->input].ndistinct;
		const double *restrict b = c->base + c->factor_at[f];
		double *restrict tab = s + c->factor_at[f];

		/* the common case without the per-value switch */
		if (fa->kind == PM_FACTOR_POWER) {
			double e = pm__factor_exponent(fa, x);

			for (size_t d = 0; d < nd; d++)
				tab[d] = pm__factor_value(e, b[d]);
		} else {
			for (size_t d = 0; d < nd; d++)
				tab[d] = pm__factor_eval(fa, x, b[d]);
		}
	}
	for (size_t k = 0; k < c->nnodes; k++) {
		const pm_cost_node *nd = &c->node[k];
		double *restrict tab = s + nd->tab_at;

		if (nd->child[0] != PM_NONE) {
			const double *ta = s + c->node[nd->child[0]].tab_at;
			const double *tb = s + c->node[nd->child[1]].tab_at;
			const uint32_t *cc = nd->child_code;

			for (size_t d = 0; d < nd->nd; d++)
				tab[d] = ta[cc[2 * d]] + tb[cc[2 * d + 1]];
			continue;
		}
		for (size_t d = 0; d < nd->nd; d++)
			tab[d] = 0.0;
		for (size_t i = nd->first; i < nd->first + nd->nparts; i++) {
			const pm_cost_part *pa = &c->part[i];
			double coef = x[pa->coef];

			if (pa->factor == PM_NONE) {
				tab[pa->level] += coef;
			} else {
				const double *ft = s + c->factor_at[pa->factor];

				for (size_t d = 0; d < nd->nd; d++)
					tab[d] += coef * ft[d];
			}
		}
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		const pm_cost_group *gr = &c->group[g];
		double *jt = s + gr->j_at;

		for (size_t i = 0; i < gr->ncombos; i++) {
			const uint32_t *cc = gr->combo_code + i * gr->nkeys;
			double v = s[c->factor_at[c->key[gr->first_key]] + cc[0]];

			for (size_t j = 1; j < gr->nkeys; j++)
				v *= s[c->factor_at[c->key[gr->first_key + j]] + cc[j]];
			jt[i] = v;
		}
	}
}

/* a0 (group gr's scalars) plus its first k top nodes (k >= 1), per row,
 * into acc. */
static void group_sum(const pm_cost *c, const pm_cost_group *gr, double a0, const double *s,
		      size_t k, double *restrict acc)
{
	size_t n = c->p->nrows, q = gr->first_top, qend = q + k;

	/* the first top sets acc: one pass fewer over the rows */
	{
		const pm_cost_node *nd = &c->node[c->top[q++]];
		const uint32_t *restrict code = nd->code;
		const double *restrict tab = s + nd->tab_at;

		if (gr->nscalars)
			for (size_t r = 0; r < n; r++)
				acc[r] = a0 + tab[code[r]];
		else
			for (size_t r = 0; r < n; r++)
				acc[r] = tab[code[r]];
	}
	/* two gathers a pass halve the loads and stores of acc */
	for (; q + 1 < qend; q += 2) {
		const pm_cost_node *n1 = &c->node[c->top[q]], *n2 = &c->node[c->top[q + 1]];
		const uint32_t *restrict c1 = n1->code, *restrict c2 = n2->code;
		const double *restrict t1 = s + n1->tab_at, *restrict t2 = s + n2->tab_at;

		for (size_t r = 0; r < n; r++)
			acc[r] += t1[c1[r]] + t2[c2[r]];
	}
	if (q < qend) {
		const pm_cost_node *nd = &c->node[c->top[q]];
		const uint32_t *restrict code = nd->code;
		const double *restrict tab = s + nd->tab_at;

		for (size_t r = 0; r < n; r++)
			acc[r] += tab[code[r]];
	}
}

/* The last pass of a group: pred[r] (+)= (base + up to FUSED_TOPS gathers)
 * × key, base being acc[r] or, without acc, the scalars' sum a0. One pass
 * instead of several: the branches are the same for every row. */
#define FUSED_TOPS 3

struct fused {
	double *acc;		/* the base per row (NULL: a0), and with keep the
				 * pre-key sum back */
	double a0;
	size_t k;
	const uint32_t *code[FUSED_TOPS];
	const double *tab[FUSED_TOPS];
	const uint32_t *key;	/* per-row key combination, or NULL */
	const double *jt;
	int add, keep;
};

static inline void fused_rows(size_t n, const struct fused *fu, double *restrict pred,
			      size_t k, int has_key)
{
	double *restrict acc = fu->acc;
	const double *restrict jt = fu->jt;
	const double *restrict t0 = fu->tab[0], *restrict t1 = fu->tab[1], *restrict t2 = fu->tab[2];
	const uint32_t *restrict c0 = fu->code[0], *restrict c1 = fu->code[1];
	const uint32_t *restrict c2 = fu->code[2], *restrict key = fu->key;
	double a0 = fu->a0;

	for (size_t r = 0; r < n; r++) {
		double v = acc ? acc[r] : a0;

		if (k > 0)
			v += t0[c0[r]];
		if (k > 1)
			v += t1[c1[r]];
		if (k > 2)
			v += t2[c2[r]];
		if (fu->keep)
			acc[r] = v;
		if (has_key)
			v *= jt[key[r]];
		pred[r] = fu->add ? pred[r] + v : v;
	}
}

/* constant k and has_key: the compiler drops the unused branches */
static void fused_pass(size_t n, const struct fused *fu, double *restrict pred)
{
	switch (fu->k * 2 + (fu->key != NULL)) {
	case 0: fused_rows(n, fu, pred, 0, 0); break;
	case 1: fused_rows(n, fu, pred, 0, 1); break;
	case 2: fused_rows(n, fu, pred, 1, 0); break;
	case 3: fused_rows(n, fu, pred, 1, 1); break;
	case 4: fused_rows(n, fu, pred, 2, 0); break;
	case 5: fused_rows(n, fu, pred, 2, 1); break;
	case 6: fused_rows(n, fu, pred, 3, 0); break;
	default: fused_rows(n, fu, pred, 3, 1); break;
	}
}

/* Every row's prediction less the biases, into s[pred_at]. With keep, each
 * group's pre-key sum stays in its own row array (the gradient needs it),
 * formed the same way, so the smoothed cost sees the same predictions. */
static void predict_rows(const pm_cost *c, const double *x, double *s, int keep)
{
	size_t n = c->p->nrows;
	double *restrict pred = s + c->pred_at;

	if (c->ngroups == 0)
		for (size_t r = 0; r < n; r++)
			pred[r] = 0.0;
	for (size_t g = 0; g < c->ngroups; g++) {
		const pm_cost_group *gr = &c->group[g];
		double *restrict acc = s + c->acc_at + (keep ? g * n : 0);
		struct fused fu = { .key = gr->nkeys ? gr->combo : NULL, .jt = s + gr->j_at,
				    .add = g > 0, .keep = keep };
		size_t pre = gr->ntops > FUSED_TOPS ? gr->ntops - FUSED_TOPS : 0;

		for (size_t i = gr->first_scalar; i < gr->first_scalar + gr->nscalars; i++)
			fu.a0 += x[c->scalar[i]];
		if (pre > 0) {
			group_sum(c, gr, fu.a0, s, pre, acc);
			fu.acc = acc;
		} else if (keep) {
			for (size_t r = 0; r < n; r++)
				acc[r] = fu.a0;
			fu.acc = acc;
		}
		for (size_t q = pre; q < gr->ntops; q++) {
			const pm_cost_node *nd = &c->node[c->top[gr->first_top + q]];

			fu.code[fu.k] = nd->code;
			fu.tab[fu.k++] = s + nd->tab_at;
		}
		fused_pass(n, &fu, pred);
	}
}

static double bias(const pm_cost *c, const double *x)
{
	double b = 0.0;

	for (size_t i = 0; i < c->nbias; i++)
		b += x[c->bias[i]];
	return b;
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

/* Σ v[r] as four running sums over rows r ≡ 0, 1, 2, 3 (mod 4), added in a
 * fixed order: the same result every time, without one long chain of
 * dependent adds. */
static double sum4(const double *restrict v, size_t n)
{
	double l0 = 0.0, l1 = 0.0, l2 = 0.0, l3 = 0.0, tail = 0.0;
	size_t r = 0;

	for (; r + 4 <= n; r += 4) {
		l0 += v[r];
		l1 += v[r + 1];
		l2 += v[r + 2];
		l3 += v[r + 3];
	}
	for (; r < n; r++)
		tail += v[r];
	return tail + ((l0 + l1) + (l2 + l3));
}

/* One row's loss (pm_loss) for measured t and predicted tp. log: a tp <= 0
 * gives +inf or NaN, which the caller turns into +inf. */
static inline double row_loss(pm_loss loss, double t, double tp)
{
	switch (loss) {
	case PM_LOSS_MSE: return (t - tp) * (t - tp);
	case PM_LOSS_MAPE: return fabs(t - tp) / t;
	case PM_LOSS_LOG: return fabs(pm__log(tp / t));
	default: return fabs(t - tp);
	}
}

/* Row r's loss times its weight (w NULL: the loss itself, unrounded). */
#define ROW_LOSS(loss, w, t, pred, b, r) \
	((w) ? (w)[r] * row_loss(loss, (t)[r], (pred)[r] + (b)) \
	     : row_loss(loss, (t)[r], (pred)[r] + (b)))

/* Σ w[r]·loss(t[r], pred[r] + b) in sum4()'s order (w NULL: weights 1). */
static inline double loss_sum_k(const double *restrict t, const double *restrict pred,
				const double *restrict w, double b, size_t n, pm_loss loss)
{
	double l0 = 0.0, l1 = 0.0, l2 = 0.0, l3 = 0.0, tail = 0.0;
	size_t r = 0;

	for (; r + 4 <= n; r += 4) {
		l0 += ROW_LOSS(loss, w, t, pred, b, r);
		l1 += ROW_LOSS(loss, w, t, pred, b, r + 1);
		l2 += ROW_LOSS(loss, w, t, pred, b, r + 2);
		l3 += ROW_LOSS(loss, w, t, pred, b, r + 3);
	}
	for (; r < n; r++)
		tail += ROW_LOSS(loss, w, t, pred, b, r);
	return tail + ((l0 + l1) + (l2 + l3));
}

/* The weights' test outside the loop: a literal NULL lets the unweighted
 * loop stay as it was. */
static inline double loss_sum_w(const double *t, const double *pred, const double *w,
				double b, size_t n, pm_loss loss)
{
	return w ? loss_sum_k(t, pred, w, b, n, loss) : loss_sum_k(t, pred, NULL, b, n, loss);
}

/* constant loss: one branch-free loop per loss */
static double loss_sum(const double *t, const double *pred, const double *w, double b,
		       size_t n, pm_loss loss)
{
	switch (loss) {
	case PM_LOSS_MSE: return loss_sum_w(t, pred, w, b, n, PM_LOSS_MSE);
	case PM_LOSS_MAPE: return loss_sum_w(t, pred, w, b, n, PM_LOSS_MAPE);
	case PM_LOSS_LOG: return loss_sum_w(t, pred, w, b, n, PM_LOSS_LOG);
	default: return loss_sum_w(t, pred, w, b, n, PM_LOSS_MAE);
	}
}

double pm__cost_value(const double *x, void *ctx, void *scratch)
{
	const pm_cost *c = ctx;
	const pm_problem *p = c->p;
	double *s = scratch, f;

	fill_tables(c, x, s);
	predict_rows(c, x, s, 0);
	f = loss_sum(p->t, s + c->pred_at, p->w, bias(c, x), p->nrows, c->loss) /
	    (double)p->nrows;
	if (c->reg != PM_REG_NONE)
		f += penalty(c, x, 0.0, NULL);
	return isnan(f) ? INFINITY : f;
}

/* out[d] = Σ v[r] over the rows with code[r] == d, d < nd. Rows go to
 * SCATTER_LANES partial buckets in turn, so consecutive rows with the same
 * code do not wait on each other's store; the partials are added in a fixed
 * order. lanes has SCATTER_LANES·nd doubles. */
static void scatter(const uint32_t *restrict code, const double *restrict v, size_t n,
		    size_t nd, double *restrict lanes, double *restrict out)
{
	size_t r = 0;

	for (size_t d = 0; d < SCATTER_LANES * nd; d++)
		lanes[d] = 0.0;
	for (; r + SCATTER_LANES <= n; r += SCATTER_LANES)
		for (size_t l = 0; l < SCATTER_LANES; l++)
			lanes[(size_t)code[r + l] * SCATTER_LANES + l] += v[r + l];
	for (size_t l = 0; r < n; r++, l++)
		lanes[(size_t)code[r] * SCATTER_LANES + l] += v[r];
	for (size_t d = 0; d < nd; d++)
		out[d] = (lanes[SCATTER_LANES * d] + lanes[SCATTER_LANES * d + 1]) +
			 (lanes[SCATTER_LANES * d + 2] + lanes[SCATTER_LANES * d + 3]);
}

/* Per row: the smoothed loss into w, dcost/dprediction into dp (which holds
 * the prediction less b on entry). The absolute value in MAE, MAPE and log,
 * |e|, becomes sqrt(e² + eps²) − eps of the same e (the residual, the
 * relative residual, the log ratio): eps is in the cost's units for each.
 * MSE is smooth already: its w is row_loss()'s, bit for bit. Row weights
 * (rw, NULL: none) scale both afterwards, as in pm__cost_value. */
static void smooth_residuals(pm_loss loss, const double *restrict t, const double *restrict rw,
			     double b, double eps, double inv_n, size_t n, double *restrict dp,
			     double *restrict w)
{
	for (size_t r = 0; r < n; r++) {
		double tp = dp[r] + b, res = t[r] - tp, e, de, root;

		switch (loss) {
		case PM_LOSS_MSE:
			w[r] = res * res;
			dp[r] = -2.0 * res * inv_n;
			continue;
		case PM_LOSS_MAPE:
			e = res / t[r];
			de = -1.0 / t[r];
			break;
		case PM_LOSS_LOG:
			e = pm__log(tp / t[r]);
			de = 1.0 / tp;
			break;
		default:
			e = res;
			de = -1.0;
			break;
		}
		root = sqrt(e * e + eps * eps);
		w[r] = root - eps;
		dp[r] = (e / root) * de * inv_n;
	}
	for (size_t r = 0; rw && r < n; r++) {
		w[r] *= rw[r];
		dp[r] *= rw[r];
	}
}

/* Per row: w = dp · key product, and acc (the pre-key sum) times that. */
static void key_weights(const double *restrict dp, const double *restrict jt,
			const uint32_t *restrict combo, size_t n, double *restrict w,
			double *restrict acc)
{
	for (size_t r = 0; r < n; r++) {
		w[r] = dp[r] * jt[combo[r]];
		acc[r] *= w[r];
	}
}

/* Key factor j of group gr: V[i] sums w_r·acc_r (pre-key sum × dcost/dpred
 * × key product) over the rows of combination i, so the factor's
 * parameter gets Σ_i V[i]·d log(value)/dθ at the combination's code: the
 * base for a power (its sign for "/"), 1 for a level's own log multiplier;
 * fixed factors and indicators have none. */
static void key_gradient(const pm_cost *c, const pm_cost_group *gr, size_t j,
			 const double *v, double *grad)
{
	const pm_factor *fa = &c->m->terms.factor[c->key[gr->first_key + j]];
	const double *u = c->dlog + c->factor_at[c->key[gr->first_key + j]];
	double gp = 0.0;

	if (fa->power == PM_NONE || fa->kind == PM_FACTOR_INDICATOR)
		return;
	if (fa->kind == PM_FACTOR_LEVEL) {
		for (size_t i = 0; i < gr->ncombos; i++) {
			uint32_t d = gr->combo_code[i * gr->nkeys + j];

			if (d > 0)
				grad[fa->power + d - 1] += v[i];
		}
		return;
	}
	for (size_t i = 0; i < gr->ncombos; i++)
		gp += v[i] * u[gr->combo_code[i * gr->nkeys + j]];
	grad[fa->power] += fa->negate ? -gp : gp;
}

/* With w_r = dcost/dpred_r · key_r, a top node's bucket W[d] sums w_r over
 * the rows with code d; a merged node passes each combination's bucket to
 * its two children; a leaf part coef·F[d] then has dcost/dcoef =
 * Σ_d W[d]·F[d] and dcost/dpower = coef·Σ_d W[d]·F[d]·u[d]. Per row only
 * scatters; the rest is per table entry. A key factor's power likewise gets
 * Σ_combo V[combo]·u, V summing w_r·acc_r per combination. */
double pm__cost_smooth(const double *x, double eps, double *grad, void *ctx, void *scratch)
{
	const pm_cost *c = ctx;
	const pm_problem *p = c->p;
	const pm_terms *t = &c->m->terms;
	size_t n = p->nrows;
	double *s = scratch, *dp = s + c->pred_at, *w = s + c->w_at;
	double *lanes = s + c->lanes_at, *v = s + c->sums_at;
	double sum, inv_n = 1.0 / (double)n, sdp, f;

	fill_tables(c, x, s);
	predict_rows(c, x, s, 1);
	memset(grad, 0, c->m->nparams * sizeof(*grad));
	smooth_residuals(c->loss, p->t, p->w, bias(c, x), eps, inv_n, n, dp, w);
	sum = sum4(w, n);
	sdp = sum4(dp, n);
	for (size_t i = 0; i < c->nbias; i++)
		grad[c->bias[i]] += sdp;
	for (size_t g = 0; g < c->ngroups; g++) {
		const pm_cost_group *gr = &c->group[g];
		double *acc = s + c->acc_at + g * n;
		const double *wg = dp;	/* dcost / d(group's pre-key sum) per row */
		double sw;

		if (gr->nkeys) {
			key_weights(dp, s + gr->j_at, gr->combo, n, w, acc);
			wg = w;
			scatter(gr->combo, acc, n, gr->ncombos, lanes, v);
			for (size_t j = 0; j < gr->nkeys; j++)
				key_gradient(c, gr, j, v, grad);
		}
		if (gr->nscalars) {
			sw = sum4(wg, n);
			for (size_t i = gr->first_scalar; i < gr->first_scalar + gr->nscalars; i++)
				grad[c->scalar[i]] += sw;
		}
		for (size_t k = gr->first_node; k < gr->first_node + gr->nnodes; k++) {
			double *gb = s + c->node[k].grad_at;

			for (size_t d = 0; d < c->node[k].nd; d++)
				gb[d] = 0.0;
		}
		for (size_t q = gr->first_top; q < gr->first_top + gr->ntops; q++) {
			const pm_cost_node *nd = &c->node[c->top[q]];

			scatter(nd->code, wg, n, nd->nd, lanes, s + nd->grad_at);
		}
		/* parents come after their children */
		for (size_t k = gr->first_node + gr->nnodes; k-- > gr->first_node;) {
			const pm_cost_node *nd = &c->node[k];
			const double *gb = s + nd->grad_at;

			if (nd->child[0] != PM_NONE) {
				double *ga = s + c->node[nd->child[0]].grad_at;
				double *gbb = s + c->node[nd->child[1]].grad_at;

				for (size_t d = 0; d < nd->nd; d++) {
					ga[nd->child_code[2 * d]] += gb[d];
					gbb[nd->child_code[2 * d + 1]] += gb[d];
				}
				continue;
			}
			for (size_t i = nd->first; i < nd->first + nd->nparts; i++) {
				const pm_cost_part *pa = &c->part[i];
				const pm_factor *fa;
				const double *ft, *u;
				double gc = 0.0, gp = 0.0;

				if (pa->factor == PM_NONE) {
					grad[pa->coef] += gb[pa->level];
					continue;
				}
				fa = &t->factor[pa->factor];
				ft = s + c->factor_at[pa->factor];
				u = c->dlog + c->factor_at[pa->factor];
				for (size_t d = 0; d < nd->nd; d++) {
					gc += gb[d] * ft[d];
					gp += gb[d] * ft[d] * u[d];
				}
				grad[pa->coef] += gc;
				if (fa->power == PM_NONE || fa->kind == PM_FACTOR_INDICATOR)
					continue;
				/* a level's multiplier exp(θ_v) is its own derivative */
				if (fa->kind == PM_FACTOR_LEVEL)
					for (size_t d = 1; d < nd->nd; d++)
						grad[fa->power + d - 1] += x[pa->coef] * gb[d] * ft[d];
				else
					grad[fa->power] += fa->negate ? -(x[pa->coef] * gp)
								      : x[pa->coef] * gp;
			}
		}
	}
	f = sum * inv_n;
	if (c->reg != PM_REG_NONE)
		f += penalty(c, x, eps, grad);
	return isnan(f) ? INFINITY : f;
}
