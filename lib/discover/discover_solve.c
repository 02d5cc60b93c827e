/* One hypothesis of perfmodel discover solved and scored (and what it is
 * made of: its terms, the folds it is scored on): non-negative
 * weighted least squares (weights 1/t^2: relative error) on the training
 * rows of every fold, from Gram matrices summed once over all rows and
 * less each fold's own; with categoricals scaling the terms, the Grams are
 * kept per level combination and the multipliers found by alternating
 * solves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detmath.h"
#include "core/error.h"
#include "discover/discover_impl.h"
#include "discover/nnls.h"

enum { ALS_ROUNDS = 12 };
/* the multipliers settled: none moves by more than this share of itself
 * (the scores rank hypotheses, whose MAPEs differ by more) */
#define ALS_TOL 1e-3
/* a hypothesis's prediction may change at most this much between an
 * input's largest value and twice it: more is an explosion (or a collapse)
 * no performance model shows over one doubling */
#define GROWTH 16.0

/* x^e log2(x)^j, by detmath.h's log and exp as a model's factors are
 * (terms.h): the C library's pow and log2 differ in their last bits
 * between CPUs, and a search decides by its scores. x > 0 (x >= 1 where
 * j > 0: struct input's power_ok and log_ok). */
static double factor_at(const struct factor *f, double x)
{
	double l, v;

	if (f->kind != F_POWER)
		return f->kind == F_INDICATOR ? x > f->thr : x <= f->thr;
	l = pm__log(x);
	v = f->e != 0 ? pm__exp(f->e * l) : 1.0;
	for (unsigned k = 0; k < f->j; k++)
		v *= l * PM__INV_LN2;
	return v;
}

double pm__disc_term_at(const struct search *s, const struct term *t, size_t r, size_t over,
			double x)
{
	double v = 1.0;

	if (t->sel && pm__disc_level(s, t->sel - 1, r) != t->lev)
		return 0.0;
	for (unsigned k = 0; k < t->nf; k++) {
		const struct factor *f = &t->f[k];

		v *= factor_at(f, f->input == over ? x : s->in[f->input].x[r]);
	}
	return v;
}

size_t pm__disc_strata(const struct search *s, unsigned mask)
{
	size_t n = 1;

	for (size_t c = 0; c < s->ncat && c < MAX_FACTOR_CATS; c++)
		if (mask >> c & 1)
			n *= s->nlev[c];
	return n;
}

/* Row r's level combination of the categoricals in mask (mixed radix, the
 * first categorical most significant). */
static size_t stratum(const struct search *s, unsigned mask, size_t r)
{
	size_t k = 0;

	for (size_t c = 0; c < s->ncat && c < MAX_FACTOR_CATS; c++)
		if (mask >> c & 1)
			k = k * s->nlev[c] + pm__disc_level(s, c, r);
	return k;
}

/* Categorical c's level in combination k of mask. */
static size_t level_of(const struct search *s, unsigned mask, size_t k, size_t c)
{
	for (size_t d = s->ncat < MAX_FACTOR_CATS ? s->ncat : MAX_FACTOR_CATS; d-- > c + 1;)
		if (mask >> d & 1)
			k /= s->nlev[d];
	return k % s->nlev[c];
}

static double *mult(const struct search *s, size_t c)
{
	return s->mult + c * MAX_STRATA;
}

/* The product of the multipliers of combination k of the mask that
 * prepare() was given, categorical `but` left out (past the categoricals:
 * none). */
static double scale(const struct search *s, unsigned mask, size_t k, size_t but)
{
	const unsigned char *lv = s->lv + k * MAX_FACTOR_CATS;
	double m = 1.0;

	for (size_t c = 0; c < s->ncat && c < MAX_FACTOR_CATS; c++)
		if ((mask >> c & 1) && c != but)
			m *= mult(s, c)[lv[c]];
	return m;
}

/* The product of the multipliers of every combination of mask into sk:
 * scale(s, mask, k, SIZE_MAX) for each k, in one pass. The loops over rows
 * and over combinations read it rather than decode a combination's levels
 * each time (they took a quarter of a search on LeNet-5). */
static void scales(const struct search *s, unsigned mask, double *sk)
{
	size_t ns = pm__disc_strata(s, mask);

	for (size_t k = 0; k < ns; k++)
		sk[k] = scale(s, mask, k, SIZE_MAX);
}

/* Every row's level combination of mask into s->strat (all 0 without),
 * and each combination's levels into s->lv, for the solves of one
 * hypothesis. */
static void prepare(struct search *s, unsigned mask)
{
	size_t ns = pm__disc_strata(s, mask);

	for (size_t r = 0; r < s->n; r++)
		s->strat[r] = mask ? (unsigned char)stratum(s, mask, r) : 0;
	for (size_t k = 0; k < ns; k++)
		for (size_t c = 0; c < s->ncat && c < MAX_FACTOR_CATS; c++)
			if (mask >> c & 1)
				s->lv[k * MAX_FACTOR_CATS + c] = (unsigned char)level_of(s, mask, k, c);
}

size_t pm__disc_ncoef(const struct search *s, const struct hyp *h)
{
	return h->nt + (h->offsets < 0 ? 1 : s->nlev[h->offsets]);
}

/* The prediction at row r from coefficients c, input `over` at x. */
static double predict(const struct search *s, const struct hyp *h, const double *c, size_t r,
		      size_t over, double x)
{
	double v = h->offsets < 0 ? c[h->nt] : c[h->nt + pm__disc_level(s, (size_t)h->offsets, r)];
	double sum = 0.0;

	for (unsigned k = 0; k < h->nt; k++) {
		const struct term *t = &s->pool[h->t[k]];
		int moved = 0;

		/* a term without input `over` is its column (computed so) */
		for (unsigned f = 0; over < s->nin && f < t->nf; f++)
			moved |= t->f[f].input == over;
		sum += c[k] * (moved ? pm__disc_term_at(s, t, r, over, x) : t->col[r]);
	}
	return v + scale(s, h->mask, s->strat[r], SIZE_MAX) * sum;
}

/* The prediction at row r from coefficients c and the combinations'
 * multipliers sk (scales()), s->strat filled for h: predict() without the
 * decoding, for the loops over rows. */
static double fitted(const struct search *s, const struct hyp *h, const double *c,
		     const double *sk, size_t r)
{
	double v = h->offsets < 0 ? c[h->nt] : c[h->nt + pm__disc_level(s, (size_t)h->offsets, r)];
	double sum = 0.0;

	for (unsigned k = 0; k < h->nt; k++)
		sum += c[k] * s->pool[h->t[k]].col[r];
	return v + sk[s->strat[r]] * sum;
}

/* G += sign * w phi phi', b += sign * w y phi over fold f's groups (f >
 * nfolds: every group), phi the unscaled columns, w and w y the group's
 * sums, into the p x p block and p-vector of the group's level combination
 * (s->strat): the upper triangle of each block only (the inner loop of a
 * search; symmetric() completes it). */
static void accumulate(const struct search *s, const struct hyp *h, size_t f, double sign,
		       double *G0, double *b0)
{
	double phi[PM_NNLS_MAX];
	size_t p = pm__disc_ncoef(s, h), on[PM_NNLS_MAX], nz, nf = s->folds->nfolds;
	size_t g0 = s->grp_start[f > nf ? 0 : f], g1 = s->grp_start[f > nf ? nf + 1 : f + 1];

	for (size_t g = g0; g < g1; g++) {
		size_t r = s->grp_row[g], blk = s->strat[r];
		double w = sign * s->grp_w[g], wy = sign * s->grp_wy[g];
		double *G = G0 + blk * p * p, *b = b0 + blk * p;

		for (unsigned k = 0; k < h->nt; k++)
			phi[k] = s->pool[h->t[k]].col[r];
		for (size_t k = h->nt; k < p; k++)
			phi[k] = 0.0;
		phi[h->offsets < 0 ? h->nt : h->nt + pm__disc_level(s, (size_t)h->offsets, r)] = 1.0;
		/* the group's nonzero columns only: a term of one level, an
		 * indicator or an offset is 0 on most rows */
		nz = 0;
		for (size_t k = 0; k < p; k++)
			if (phi[k] != 0)
				on[nz++] = k;
		for (size_t i = 0; i < nz; i++) {
			size_t k = on[i];

			b[k] += wy * phi[k];
			for (size_t j = i; j < nz; j++)
				G[k * p + on[j]] += w * phi[k] * phi[on[j]];
		}
	}
}

/* The lower triangle of each of the p x p blocks of G from its upper. */
static void symmetric(double *G, size_t blocks, size_t p)
{
	for (size_t k = 0; k < blocks; k++, G += p * p)
		for (size_t i = 1; i < p; i++)
			for (size_t j = 0; j < i; j++)
				G[i * p + j] = G[j * p + i];
}

/* A row where input i is largest among the rows term t is on at. */
static size_t argmax(const struct search *s, const struct term *t, unsigned i)
{
	const struct input *in = &s->in[i];
	size_t best = SIZE_MAX;

	if (!t->sel)
		return in->argmax;
	for (size_t r = 0; r < s->n; r++)
		if (pm__disc_level(s, t->sel - 1, r) == t->lev &&
		    (best == SIZE_MAX || in->x[r] > in->x[best]))
			best = r;
	return best;
}

/* Every term of the fit to all rows adds something, and the model neither
 * collapses nor explodes at twice any input's largest value (of the rows
 * of the term's level, for a term of one level). */
static int sound(const struct search *s, const struct hyp *h, const double *c)
{
	for (unsigned k = 0; k < h->nt; k++)
		if (!(c[k] > 0))
			return 0;
	for (unsigned k = 0; k < h->nt; k++)
		for (unsigned f = 0; f < s->pool[h->t[k]].nf; f++) {
			const struct factor *fa = &s->pool[h->t[k]].f[f];
			size_t r = argmax(s, &s->pool[h->t[k]], fa->input);
			double at, past;

			if (fa->kind != F_POWER || r == SIZE_MAX)	/* a switch stays as it is */
				continue;
			at = predict(s, h, c, r, s->nin, 0.0);
			past = predict(s, h, c, r, fa->input, 2 * s->in[fa->input].x[r]);
			if (!(at > 0) || !(past > 0) || !isfinite(past) || past > GROWTH * at ||
			    past * GROWTH < at)
				return 0;
		}
	return 1;
}

/* The rows of fold f (f = nfolds: the rows no fold holds out). */
static const size_t *fold_rows(const struct search *s, unsigned f, size_t *n)
{
	*n = s->fold_start[f + 1] - s->fold_start[f];
	return s->fold_rows + s->fold_start[f];
}

/* Per level combination k, given the coefficients c: q[k] = c_t'(a_t -
 * A_to c_o), the terms' sum against what C or the offsets leave, and d[k] =
 * c_t' A_tt c_t, the sum's square (t: the terms, o: C or the offsets).
 * The same for every categorical's update of a round. */
static void products_of_terms(const struct search *s, const struct hyp *h, const double *A,
			      const double *a, const double *c, double *q, double *d)
{
	size_t p = pm__disc_ncoef(s, h), nt = h->nt, ns = pm__disc_strata(s, h->mask);

	for (size_t k = 0; k < ns; k++) {
		const double *Ak = A + k * p * p, *ak = a + k * p;

		q[k] = d[k] = 0.0;
		for (size_t i = 0; i < nt; i++) {
			double left = ak[i];

			for (size_t j = nt; j < p; j++)
				left -= Ak[i * p + j] * c[j];
			q[k] += c[i] * left;
			for (size_t j = 0; j < nt; j++)
				d[k] += c[i] * c[j] * Ak[i * p + j];
		}
	}
}

/* The multipliers of categorical `cat` given the coefficients (q and d of
 * products_of_terms()): per level, the least-squares scale of the terms'
 * sum (times the other categoricals' multipliers) against what C or the
 * offsets leave; the largest made 1. Returns the largest relative change
 * of one. */
static double update_multipliers(struct search *s, const struct hyp *h, size_t cat,
			       const double *q, const double *d)
{
	size_t ns = pm__disc_strata(s, h->mask);
	double num[MAX_STRATA] = { 0 }, den[MAX_STRATA] = { 0 }, top = 0.0, *m = mult(s, cat);

	for (size_t k = 0; k < ns; k++) {
		double o = scale(s, h->mask, k, cat);
		size_t l = s->lv[k * MAX_FACTOR_CATS + cat];

		num[l] += o * q[k];
		den[l] += o * o * d[k];
	}
	double was[MAX_STRATA], change = 0.0;

	memcpy(was, m, s->nlev[cat] * sizeof(*m));
	for (size_t l = 0; l < s->nlev[cat]; l++) {
		if (den[l] > 0)
			m[l] = fmax(num[l] / den[l], 1e-9);
		top = fmax(top, m[l]);
	}
	for (size_t l = 0; top > 0 && l < s->nlev[cat]; l++) {
		m[l] /= top;
		change = fmax(change, fabs(m[l] - was[l]) / was[l]);
	}
	return change;
}

/* Coefficients c of h from the per-combination Grams A and vectors a of its
 * training rows: with no categorical scaling the terms, one solve; else
 * alternately c given the multipliers and each categorical's multipliers
 * given c and the others, ending with c, until no multiplier moves by
 * more than ALS_TOL of itself (or ALS_ROUNDS); from multipliers 1, or (a
 * fold's rows, nearly all the rows) from the last solve's, whose
 * coefficients c then start each NNLS from their passive set, as a round
 * does from the round before's. */
static void solve_blocks(struct search *s, const struct hyp *h, const double *A, const double *a,
			 int fresh, double *c)
{
	size_t p = pm__disc_ncoef(s, h), nt = h->nt, ns = pm__disc_strata(s, h->mask);
	double G[PM_NNLS_MAX * PM_NNLS_MAX], b[PM_NNLS_MAX], change = INFINITY;

	if (!h->mask) {
		(fresh ? pm__nnls : pm__nnls_from)(A, a, p, c);
		return;
	}
	for (size_t cat = 0; fresh && cat < s->ncat && cat < MAX_FACTOR_CATS; cat++)
		for (size_t l = 0; (h->mask >> cat & 1) && l < s->nlev[cat]; l++)
			mult(s, cat)[l] = 1.0;
	for (int round = 0;; round++) {
		double sk[MAX_STRATA], q[MAX_STRATA], d[MAX_STRATA];

		scales(s, h->mask, sk);
		memset(G, 0, p * p * sizeof(*G));
		memset(b, 0, p * sizeof(*b));
		/* the upper triangle; the lower is the same products */
		for (size_t k = 0; k < ns; k++) {
			double m = sk[k];

			for (size_t i = 0; i < p; i++) {
				double di = i < nt ? m : 1.0;

				b[i] += di * a[k * p + i];
				for (size_t j = i; j < p; j++)
					G[i * p + j] += di * (j < nt ? m : 1.0) * A[(k * p + i) * p + j];
			}
		}
		symmetric(G, 1, p);
		(fresh && !round ? pm__nnls : pm__nnls_from)(G, b, p, c);
		if (round == ALS_ROUNDS || change < ALS_TOL)
			return;
		change = 0.0;
		products_of_terms(s, h, A, a, c, q, d);
		for (size_t cat = 0; cat < s->ncat && cat < MAX_FACTOR_CATS; cat++)
			if (h->mask >> cat & 1)
				change = fmax(change, update_multipliers(s, h, cat, q, d));
	}
}

/* Coefficients c of h on the rows outside fold `skip` (nfolds: every row),
 * from the Grams G and vectors b of every row. */
static void solve(struct search *s, const struct hyp *h, unsigned skip, const double *G,
		  const double *b, double *c)
{
	size_t blocks = pm__disc_strata(s, h->mask), p = pm__disc_ncoef(s, h);

	if (skip < s->folds->nfolds && s->folded) {	/* every row's less the fold's */
		const double *F = s->fold + skip * blocks * p * (p + 1), *f = F + blocks * p * p;

		for (size_t i = 0; i < blocks * p * p; i++)
			s->gram[i] = G[i] - F[i];
		for (size_t i = 0; i < blocks * p; i++)
			s->vec[i] = b[i] - f[i];
	} else {
		memcpy(s->gram, G, blocks * p * p * sizeof(*G));
		memcpy(s->vec, b, blocks * p * sizeof(*b));
		if (skip < s->folds->nfolds)
			accumulate(s, h, skip, -1.0, s->gram, s->vec);
	}
	if (skip < s->folds->nfolds)
		symmetric(s->gram, blocks, p);
	solve_blocks(s, h, s->gram, s->vec, skip == s->folds->nfolds, c);
}

/* h's Grams of every row into s->gram_all and s->vec_all, and its
 * coefficients c from them. Where they fit in s->fold (s->folded), each
 * fold's Grams are accumulated there and summed: one pass over the rows,
 * the folds' training Grams then the difference, rather than a second
 * pass over each fold's rows (a quarter of a search on LeNet-5); else
 * (loo, many combinations and terms) that second pass. */
static void solve_all(struct search *s, const struct hyp *h, double *c)
{
	size_t blocks = pm__disc_strata(s, h->mask), p = pm__disc_ncoef(s, h);
	size_t nf = s->folds->nfolds + 1, one = blocks * p * (p + 1);

	memset(s->gram_all, 0, blocks * p * p * sizeof(*s->gram_all));
	memset(s->vec_all, 0, blocks * p * sizeof(*s->vec_all));
	s->folded = nf * one <= FOLD_SCRATCH;
	if (!s->folded) {
		accumulate(s, h, SIZE_MAX, 1.0, s->gram_all, s->vec_all);
	} else {
		memset(s->fold, 0, nf * one * sizeof(*s->fold));
		for (unsigned f = 0; f < nf; f++) {
			double *F = s->fold + f * one, *v = F + blocks * p * p;

			accumulate(s, h, f, 1.0, F, v);
			for (size_t i = 0; i < blocks * p * p; i++)
				s->gram_all[i] += F[i];
			for (size_t i = 0; i < blocks * p; i++)
				s->vec_all[i] += v[i];
		}
	}
	symmetric(s->gram_all, blocks, p);
	solve(s, h, s->folds->nfolds, s->gram_all, s->vec_all, c);
}

int pm__disc_evaluate(struct search *s, struct hyp *h)
{
	double *G = s->gram_all, *b = s->vec_all, c[PM_NNLS_MAX], sk[MAX_STRATA];
	double sum = 0.0, sumsq = 0.0;
	unsigned nf = s->folds->nfolds;
	size_t nr;
	const size_t *rows;

	prepare(s, h->mask);
	solve_all(s, h, c);
	if (!sound(s, h, c))
		return 0;
	/* its error on the rows it was fitted to is (nearly always) below the
	 * held-out one: above the cutoff, the folds cannot bring it in */
	scales(s, h->mask, sk);
	for (size_t r = 0; r < s->n && s->cutoff < INFINITY; r++)
		sum += fabs(fitted(s, h, c, sk, r) - s->y[r]) / s->y[r];
	if (100.0 * sum / (double)s->n > s->cutoff)
		return 2;
	sum = 0.0;
	for (unsigned f = 0; f < nf; f++) {
		double ape = 0.0;

		solve(s, h, f, G, b, c);
		scales(s, h->mask, sk);
		rows = fold_rows(s, f, &nr);
		for (size_t i = 0; i < nr; i++)
			ape += fabs(fitted(s, h, c, sk, rows[i]) - s->y[rows[i]]) / s->y[rows[i]];
		ape = 100.0 * ape / (double)nr;
		sum += ape;
		sumsq += ape * ape;
	}
	h->score = sum / nf;
	h->se = nf > 1 ? sqrt(fmax(0.0, (sumsq - sum * h->score) / (nf - 1)) / nf) : 0.0;
	return isfinite(h->score);
}

void pm__disc_residual(struct search *s, const struct hyp *h, double *e, double *m, double *c)
{
	double sk[MAX_STRATA];

	prepare(s, h->mask);
	solve_all(s, h, c);
	scales(s, h->mask, sk);
	for (size_t r = 0; r < s->n; r++) {
		e[r] = s->y[r] - fitted(s, h, c, sk, r);
		m[r] = sk[s->strat[r]];
	}
}

int pm__disc_same(const struct hyp *a, const struct hyp *b)
{
	return a->nt == b->nt && a->offsets == b->offsets && a->mask == b->mask &&
	       memcmp(a->t, b->t, a->nt * sizeof(a->t[0])) == 0;
}

/* Categorical c's terms in h (those on at one of its levels). */
unsigned pm__disc_split_terms(const struct search *s, const struct hyp *h, size_t c)
{
	unsigned n = 0;

	for (unsigned k = 0; k < h->nt; k++)
		n += s->pool[h->t[k]].sel == c + 1;
	return n;
}

/* h's terms as max_terms counts them: a term split per level is one. */
unsigned pm__disc_terms(const struct search *s, const struct hyp *h)
{
	unsigned n = h->nt;

	for (size_t c = 0; c < s->ncat; c++) {
		unsigned k = pm__disc_split_terms(s, h, c);

		n -= k - (k + (unsigned)s->nlev[c] - 1) / (unsigned)s->nlev[c];
	}
	return n;
}

/* Each of the nf folds' rows (the kept ones last) into groups of one
 * configuration, in the order of their first row. */
static void group(struct search *s, size_t nf)
{
	size_t n = 0;

	for (size_t c = 0; c < s->nconfigs; c++)
		s->grp_of[c] = SIZE_MAX;
	for (size_t f = 0; f < nf; f++) {
		size_t first = n;

		s->grp_start[f] = n;
		for (size_t i = s->fold_start[f]; i < s->fold_start[f + 1]; i++) {
			size_t r = s->fold_rows[i], *g = &s->grp_of[s->config[r]];

			if (*g == SIZE_MAX || *g < first) {	/* new in this fold */
				*g = n++;
				s->grp_row[*g] = r;
				s->grp_w[*g] = s->grp_wy[*g] = 0.0;
			}
			s->grp_w[*g] += s->w[r];
			s->grp_wy[*g] += s->w[r] * s->y[r];
		}
	}
	s->grp_start[nf] = n;
}

pm_status pm__disc_deal(struct search *s, const pm_folds *f, pm_error *err)
{
	size_t nf = f->nfolds + 1, *at = malloc((nf + 1) * sizeof(*at));

	if (!at)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	s->folds = f;
	memset(s->fold_start, 0, (nf + 1) * sizeof(*s->fold_start));
	/* kept rows (fold >= nfolds) go last, in the extra slot */
	for (size_t r = 0; r < s->n; r++)
		s->fold_start[(f->fold[r] < f->nfolds ? f->fold[r] : f->nfolds) + 1]++;
	for (size_t k = 0; k < nf; k++)
		s->fold_start[k + 1] += s->fold_start[k];
	memcpy(at, s->fold_start, nf * sizeof(*at));
	for (size_t r = 0; r < s->n; r++)
		s->fold_rows[at[f->fold[r] < f->nfolds ? f->fold[r] : f->nfolds]++] = r;
	free(at);
	group(s, nf);
	return PM_OK;
}
