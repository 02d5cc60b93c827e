/* perfmodel discover (issue 21): find the terms of a performance model
 * rather than fit given ones. Hypotheses t = C + sum_k c_k * term_k, terms
 * built from the numeric inputs (perfmodel.h, "discovering the model's
 * terms"; docs/discover.md), each solved by non-negative weighted least
 * squares on every fold of a validation scheme, ranked by held-out MAPE and
 * grown a term at a time; the winner is written in the formula language so
 * that pm_fit refines it and every command can use the model. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "fit/nnls.h"
#include "fit/spec_impl.h"

enum { MAX_TERMS = 6, PRODUCT_SEEDS = 4, ALS_ROUNDS = 12 };
/* a hypothesis's prediction may change at most this much between an
 * input's largest value and twice it: more is an explosion (or a collapse)
 * no performance model shows over one doubling */
#define GROWTH 16.0

/* The exponents i of x^i: the fractions of Extra-P's normal form that a
 * decimal writes exactly, and their negatives for strong scaling. */
static const double expo[] = { -2, -1.5, -1, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75,
			       1,  1.25, 1.5, 2,     2.5,  3 };
#define NEXPO (sizeof(expo) / sizeof(expo[0]))

enum { F_POWER, F_INDICATOR };

struct factor {
	unsigned input;	/* into search.in */
	int kind;
	double e;	/* F_POWER: x^e (0: the log alone) */
	unsigned j;	/* F_POWER: times log2(x)^j */
	double thr;	/* F_INDICATOR: [x > thr] */
};

struct term {
	unsigned nf;
	struct factor f[2];
	double *col;	/* the term on every row */
};

struct input {
	const char *name;
	double *x;	/* every row */
	double max;
	size_t argmax;	/* a row at the largest value */
	int power_ok;	/* every value > 0: powers allowed */
	int log_ok;	/* every value >= 1, some > 1: log2 allowed */
};

struct hyp {
	unsigned nt;
	unsigned t[MAX_TERMS];	/* pool indices, ascending */
	int offsets;		/* the categorical with per-level offsets; -1: C */
	int factor;		/* the categorical whose levels scale every term; -1: none */
	double score, se;
};

struct search {
	const pm_dataset *d;
	size_t n;
	double *y, *w;		/* the target; weights 1/t^2 */
	struct input *in;
	size_t nin;
	size_t *cat;		/* categorical columns */
	size_t ncat;
	uint32_t *codes;	/* ncat * n */
	size_t *nlev;
	struct term *pool;
	size_t npool, cap;
	const pm_folds *folds;
	size_t *fold_start, *fold_rows;	/* the rows of each fold, CSR */
	double *mult;		/* the factor's multipliers, per level (scratch) */
	/* the Grams and vectors of every row and of a fold's training rows,
	 * per level with a factor (scratch) */
	double *gram_all, *vec_all, *gram, *vec;
	struct hyp *seen;	/* every hypothesis accepted */
	size_t nseen, capseen, evaluated, rejected;
};

pm_discover_options pm_discover_options_default(void)
{
	return (pm_discover_options){ .max_terms = 3, .beam = 16, .top = 10,
				      .validate = { .scheme = PM_SCHEME_KFOLD, .folds = 5,
						    .seed = 1, .fraction = 0.5 } };
}

void pm_discovery_free(pm_discovery *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		free(x->cand[i].formula);
	free(x->cand);
	free(x);
}

static double factor_at(const struct factor *f, double x)
{
	double v;

	if (f->kind == F_INDICATOR)
		return x > f->thr;
	v = f->e != 0 ? pow(x, f->e) : 1.0;
	for (unsigned k = 0; k < f->j; k++)
		v *= log2(x);
	return v;
}

/* Term t at row r, with input `over` taking the value `x` instead (over
 * past the inputs: none). */
static double term_at(const struct search *s, const struct term *t, size_t r, size_t over,
		      double x)
{
	double v = 1.0;

	for (unsigned k = 0; k < t->nf; k++) {
		const struct factor *f = &t->f[k];

		v *= factor_at(f, f->input == over ? x : s->in[f->input].x[r]);
	}
	return v;
}

static pm_status add_term(struct search *s, const struct term *t, pm_error *err)
{
	struct term *nt;

	if (s->npool == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct term *p = realloc(s->pool, cap * sizeof(*p));

		if (!p)
			return pm__fail(err, PM_ENOMEM, "out of memory");
		s->pool = p;
		s->cap = cap;
	}
	nt = &s->pool[s->npool];
	*nt = *t;
	if (!(nt->col = malloc(s->n * sizeof(*nt->col) + 1)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t r = 0; r < s->n; r++)
		nt->col[r] = term_at(s, nt, r, s->nin, 0.0);
	s->npool++;
	return PM_OK;
}

/* Every one-factor term of every input: x^e * log2(x)^j, log2(x)^j, and
 * [x > its smallest value] (an effect that switches on). */
static pm_status single_terms(struct search *s, pm_error *err)
{
	pm_status st = PM_OK;

	for (unsigned i = 0; i < s->nin && !st; i++) {
		const struct input *in = &s->in[i];
		double lo = in->x[0];

		for (size_t r = 1; r < s->n; r++)
			lo = fmin(lo, in->x[r]);
		for (size_t e = 0; in->power_ok && e < NEXPO && !st; e++)
			for (unsigned j = 0; j <= (in->log_ok ? 2u : 0u) && !st; j++)
				st = add_term(s, &(struct term){ .nf = 1, .f = { { i, F_POWER, expo[e], j, 0 } } },
					      err);
		for (unsigned j = 1; in->log_ok && j <= 2 && !st; j++)
			st = add_term(s, &(struct term){ .nf = 1, .f = { { i, F_POWER, 0, j, 0 } } }, err);
		if (!st)
			st = add_term(s, &(struct term){ .nf = 1, .f = { { i, F_INDICATOR, 0, 0, lo } } }, err);
	}
	return st;
}

/* Row r's level of categorical c. */
static uint32_t level(const struct search *s, int c, size_t r)
{
	return s->codes[(size_t)c * s->n + r];
}

/* The multiplier of row r's terms: its level's, with a factor. */
static double multiplier(const struct search *s, const struct hyp *h, size_t r)
{
	return h->factor < 0 ? 1.0 : s->mult[level(s, h->factor, r)];
}

/* The model's prediction at row r from coefficients c (terms first, then
 * C or the offsets), input `over` at x. */
static double predict(const struct search *s, const struct hyp *h, const double *c, size_t r,
		      size_t over, double x)
{
	double v = h->offsets < 0 ? c[h->nt] : c[h->nt + level(s, h->offsets, r)], sum = 0.0;

	for (unsigned k = 0; k < h->nt; k++)
		sum += c[k] * term_at(s, &s->pool[h->t[k]], r, over, x);
	return v + multiplier(s, h, r) * sum;
}

static size_t ncoef(const struct search *s, const struct hyp *h)
{
	return h->nt + (h->offsets < 0 ? 1 : s->nlev[h->offsets]);
}

/* Row r's column values of h into phi (without the factor's multiplier). */
static void row(const struct search *s, const struct hyp *h, size_t r, double *phi)
{
	size_t p = ncoef(s, h);

	for (unsigned k = 0; k < h->nt; k++)
		phi[k] = s->pool[h->t[k]].col[r];
	for (size_t k = h->nt; k < p; k++)
		phi[k] = 0.0;
	phi[h->offsets < 0 ? h->nt : h->nt + level(s, h->offsets, r)] = 1.0;
}

/* G += sign * w phi phi', b += sign * w y phi over the rows listed; with a
 * factor, into the p x p block and p-vector of the row's level. */
static void accumulate(const struct search *s, const struct hyp *h, const size_t *rows,
		       size_t nrows, double sign, double *G0, double *b0)
{
	double phi[PM_NNLS_MAX];
	size_t p = ncoef(s, h);

	for (size_t i = 0; i < nrows; i++) {
		size_t r = rows[i], blk = h->factor < 0 ? 0 : level(s, h->factor, r);
		double w = sign * s->w[r], *G = G0 + blk * p * p, *b = b0 + blk * p;

		row(s, h, r, phi);
		for (size_t k = 0; k < p; k++) {
			if (phi[k] == 0)
				continue;
			b[k] += w * s->y[r] * phi[k];
			for (size_t l = 0; l < p; l++)
				G[k * p + l] += w * phi[k] * phi[l];
		}
	}
}

/* Every term of the fit to all rows adds something, and the model neither
 * collapses nor explodes at twice any input's largest value. */
static int sound(const struct search *s, const struct hyp *h, const double *c)
{
	for (unsigned k = 0; k < h->nt; k++)
		if (!(c[k] > 0))
			return 0;
	for (unsigned k = 0; k < h->nt; k++)
		for (unsigned f = 0; f < s->pool[h->t[k]].nf; f++) {
			const struct factor *fa = &s->pool[h->t[k]].f[f];
			const struct input *in = &s->in[fa->input];
			double at, past;

			if (fa->kind != F_POWER)	/* a switch stays as it is */
				continue;
			at = predict(s, h, c, in->argmax, s->nin, 0.0);
			past = predict(s, h, c, in->argmax, fa->input, 2 * in->max);
			if (!(at > 0) || !(past > 0) || !isfinite(past) || past > GROWTH * at ||
			    past * GROWTH < at)
				return 0;
		}
	return 1;
}

/* The rows of fold f (f = nfolds: none). */
static const size_t *fold_rows(const struct search *s, unsigned f, size_t *n)
{
	*n = s->fold_start[f + 1] - s->fold_start[f];
	return s->fold_rows + s->fold_start[f];
}

/* Coefficients c of h, with a factor, from the per-level Grams A and
 * vectors a of its training rows: alternately c given the multipliers (one
 * non-negative solve of the Gram the multipliers scale) and each level's
 * multiplier given c (the least-squares scale of the terms' sum against
 * what C or the offsets leave, the largest made 1), ending with c. */
static void solve_factor(struct search *s, const struct hyp *h, const double *A, const double *a,
			 double *c)
{
	size_t p = ncoef(s, h), nl = s->nlev[h->factor], nt = h->nt;
	double G[PM_NNLS_MAX * PM_NNLS_MAX], b[PM_NNLS_MAX];
	double *m = s->mult;

	for (size_t l = 0; l < nl; l++)
		m[l] = 1.0;
	for (int round = 0;; round++) {
		double top = 0.0;

		memset(G, 0, p * p * sizeof(*G));
		memset(b, 0, p * sizeof(*b));
		for (size_t l = 0; l < nl; l++)
			for (size_t i = 0; i < p; i++) {
				double di = i < nt ? m[l] : 1.0;

				b[i] += di * a[l * p + i];
				for (size_t j = 0; j < p; j++)
					G[i * p + j] += di * (j < nt ? m[l] : 1.0) * A[(l * p + i) * p + j];
			}
		pm__nnls(G, b, p, c);
		if (round == ALS_ROUNDS)
			return;
		for (size_t l = 0; l < nl; l++) {
			const double *Al = A + l * p * p, *al = a + l * p;
			double num = 0.0, den = 0.0;

			for (size_t i = 0; i < nt; i++) {
				double left = al[i];

				for (size_t j = nt; j < p; j++)
					left -= Al[i * p + j] * c[j];
				num += c[i] * left;
				for (size_t j = 0; j < nt; j++)
					den += c[i] * c[j] * Al[i * p + j];
			}
			if (den > 0)
				m[l] = fmax(num / den, 1e-9);
			top = fmax(top, m[l]);
		}
		for (size_t l = 0; top > 0 && l < nl; l++)
			m[l] /= top;
	}
}

/* Coefficients c of h on the rows outside fold `skip` (nfolds: every row),
 * from the Gram G and vector b of every row (per level, with a factor). */
static void solve(struct search *s, const struct hyp *h, unsigned skip, const double *G,
		  const double *b, double *c)
{
	size_t blocks = h->factor < 0 ? 1 : s->nlev[h->factor], p = ncoef(s, h), nr;
	const size_t *rows = fold_rows(s, skip, &nr);

	memcpy(s->gram, G, blocks * p * p * sizeof(*G));
	memcpy(s->vec, b, blocks * p * sizeof(*b));
	if (skip < s->folds->nfolds)
		accumulate(s, h, rows, nr, -1.0, s->gram, s->vec);
	if (h->factor < 0)
		pm__nnls(s->gram, s->vec, p, c);
	else
		solve_factor(s, h, s->gram, s->vec, c);
}

/* Fit h on every fold's training rows and score it on the fold: h->score,
 * h->se. Returns 1 if h is sound and scored, 0 if rejected. */
static int evaluate(struct search *s, struct hyp *h)
{
	size_t blocks = h->factor < 0 ? 1 : s->nlev[h->factor], p = ncoef(s, h), nr;
	double *G = s->gram_all, *b = s->vec_all, c[PM_NNLS_MAX];
	double sum = 0.0, sumsq = 0.0;
	unsigned nf = s->folds->nfolds;
	const size_t *rows;

	s->evaluated++;
	memset(G, 0, blocks * p * p * sizeof(*G));
	memset(b, 0, blocks * p * sizeof(*b));
	accumulate(s, h, s->fold_rows, s->n, 1.0, G, b);
	solve(s, h, nf, G, b, c);
	if (!sound(s, h, c)) {
		s->rejected++;
		return 0;
	}
	for (unsigned f = 0; f < nf; f++) {
		double ape = 0.0;

		solve(s, h, f, G, b, c);
		rows = fold_rows(s, f, &nr);
		for (size_t i = 0; i < nr; i++)
			ape += fabs(predict(s, h, c, rows[i], s->nin, 0.0) - s->y[rows[i]]) /
			       s->y[rows[i]];
		ape = 100.0 * ape / (double)nr;
		sum += ape;
		sumsq += ape * ape;
	}
	h->score = sum / nf;
	h->se = nf > 1 ? sqrt(fmax(0.0, (sumsq - sum * h->score) / (nf - 1)) / nf) : 0.0;
	return isfinite(h->score);
}

static int same(const struct hyp *a, const struct hyp *b)
{
	return a->nt == b->nt && a->offsets == b->offsets && a->factor == b->factor &&
	       memcmp(a->t, b->t, a->nt * sizeof(a->t[0])) == 0;
}

static pm_status remember(struct search *s, const struct hyp *h, pm_error *err)
{
	if (s->nseen == s->capseen) {
		size_t cap = s->capseen ? 2 * s->capseen : 256;
		struct hyp *p = realloc(s->seen, cap * sizeof(*p));

		if (!p)
			return pm__fail(err, PM_ENOMEM, "out of memory");
		s->seen = p;
		s->capseen = cap;
	}
	s->seen[s->nseen++] = *h;
	return PM_OK;
}

static int better(const struct hyp *a, const struct hyp *b)
{
	return a->score < b->score;
}

/* Keep h among the `width` best of beam[0..*n) (ascending score). */
static void keep(struct hyp *beam, size_t *n, size_t width, const struct hyp *h)
{
	size_t i = *n;

	for (size_t k = 0; k < *n; k++)
		if (same(&beam[k], h))
			return;
	if (*n == width && !better(h, &beam[*n - 1]))
		return;
	if (*n < width)
		(*n)++;
	else
		i = *n - 1;
	while (i > 0 && better(h, &beam[i - 1])) {
		beam[i] = beam[i - 1];
		i--;
	}
	beam[i] = *h;
}

/* h with pool term t added in order; 0 if h has it or is full. */
static int grow(const struct hyp *h, unsigned t, struct hyp *out)
{
	unsigned k = 0;

	if (h->nt == MAX_TERMS)
		return 0;
	for (unsigned i = 0; i < h->nt; i++)
		if (h->t[i] == t)
			return 0;
	*out = *h;
	while (k < h->nt && h->t[k] < t)
		k++;
	memmove(out->t + k + 1, out->t + k, (h->nt - k) * sizeof(out->t[0]));
	out->t[k] = t;
	out->nt++;
	return 1;
}

/* Try every pool term from first on with every hypothesis of from[0..nfrom)
 * into the beam to[0..*nto). */
static pm_status extend(struct search *s, const struct hyp *from, size_t nfrom, size_t first,
			struct hyp *to, size_t *nto, size_t width, pm_error *err)
{
	pm_status st = PM_OK;

	for (size_t i = 0; i < nfrom && !st; i++)
		for (size_t t = first; t < s->npool && !st; t++) {
			struct hyp h;

			if (!grow(&from[i], (unsigned)t, &h) ||
			    ncoef(s, &h) > PM_NNLS_MAX || !evaluate(s, &h))
				continue;
			keep(to, nto, width, &h);
			st = remember(s, &h, err);
		}
	return st;
}

/* Products of two inputs' terms: the best PRODUCT_SEEDS one-term models of
 * each input, paired across inputs (batch x hidden x layers). */
static pm_status products(struct search *s, size_t nsingle, pm_error *err)
{
	unsigned *best = malloc((s->nin * PRODUCT_SEEDS + 1) * sizeof(*best));
	double *score = malloc((s->nin * PRODUCT_SEEDS + 1) * sizeof(*score));
	size_t *nbest = calloc(s->nin + 1, sizeof(*nbest));
	pm_status st = PM_OK;

	if (!best || !score || !nbest) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < s->nseen; k++) {
		const struct hyp *h = &s->seen[k];
		unsigned in, *b;
		double *sc;
		size_t *n, i;

		if (h->nt != 1 || h->t[0] >= nsingle)
			continue;
		in = s->pool[h->t[0]].f[0].input;
		b = best + in * PRODUCT_SEEDS;
		sc = score + in * PRODUCT_SEEDS;
		n = &nbest[in];
		for (i = 0; i < *n && b[i] != h->t[0]; i++)
			;
		if (i < *n) {	/* the same term with other offsets */
			sc[i] = fmin(sc[i], h->score);
			continue;
		}
		if (*n < PRODUCT_SEEDS)
			i = (*n)++;
		else {
			i = 0;
			for (size_t j = 1; j < PRODUCT_SEEDS; j++)
				if (sc[j] > sc[i])
					i = j;
			if (!(h->score < sc[i]))
				continue;
		}
		b[i] = h->t[0];
		sc[i] = h->score;
	}
	for (size_t a = 0; a < s->nin && !st; a++)
		for (size_t c = a + 1; c < s->nin && !st; c++)
			for (size_t i = 0; i < nbest[a] && !st; i++)
				for (size_t j = 0; j < nbest[c] && !st; j++) {
					struct term t = { .nf = 2, .f = { s->pool[best[a * PRODUCT_SEEDS + i]].f[0],
							       s->pool[best[c * PRODUCT_SEEDS + j]].f[0] } };

					st = add_term(s, &t, err);
				}
out:
	free(best);
	free(score);
	free(nbest);
	return st;
}

/* The beam search: sizes 0..max_terms; products join the pool after the
 * one-term hypotheses. */
static pm_status search_terms(struct search *s, const pm_discover_options *o, pm_error *err)
{
	size_t width = o->beam, nprev = 0, ncur, nsingle;
	struct hyp *prev = malloc((width + (s->ncat + 1) * (s->ncat + 1)) * sizeof(*prev));
	struct hyp *cur = malloc((width + 1) * sizeof(*cur));
	pm_status st = PM_OK;

	if (!prev || !cur) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	/* size 0: C or one categorical's offsets, and the terms to come
	 * scaled by another's levels or not (a structure, no model yet: a
	 * factor of no term is not kept) */
	for (int c = -1; c < (int)s->ncat && !st; c++)
		for (int f = -1; f < (int)s->ncat && !st; f++) {
			struct hyp h = { .offsets = c, .factor = f };

			if ((c >= 0 && (c == f || s->nlev[c] > PM_NNLS_MAX - MAX_TERMS)) ||
			    (f >= 0 && s->nlev[f] > PM_NNLS_MAX) || !evaluate(s, &h))
				continue;
			prev[nprev++] = h;
			if (f < 0)
				st = remember(s, &h, err);
		}
	nsingle = s->npool;
	for (unsigned size = 1; size <= o->max_terms && !st && nprev; size++) {
		ncur = 0;
		st = extend(s, prev, nprev, 0, cur, &ncur, width, err);
		if (!st && size == 1 && !(st = products(s, nsingle, err)))
			st = extend(s, prev, nprev, nsingle, cur, &ncur, width, err);
		memcpy(prev, cur, ncur * sizeof(*cur));
		nprev = ncur;
	}
out:
	free(prev);
	free(cur);
	return st;
}

/* A column name as the formula language reads it: bare, or in backquotes. */
static size_t quoted(char *out, size_t size, const char *name)
{
	int bare = (name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
		    (name[0] >= 'a' && name[0] <= 'z')) &&
		   strcmp(name, "log2") != 0 && strcmp(name, "level") != 0;

	for (const char *c = name; *c && bare; c++)
		bare = *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
		       (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z');
	return (size_t)snprintf(out, size, bare ? "%s" : "`%s`", name);
}

struct text {
	char *buf;
	size_t len, cap;
	int failed;
};

static void put(struct text *t, const char *fmt, ...) PM_PRINTF(2, 3);

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = pm_vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = 1;
			return;
		}
		if ((size_t)n < t->cap - t->len)
			break;
		char *b = realloc(t->buf, 2 * t->cap + (size_t)n + 1);

		if (!b) {
			t->failed = 1;
			return;
		}
		t->buf = b;
		t->cap = 2 * t->cap + (size_t)n + 1;
	}
	t->len += (size_t)n;
}

static void put_name(struct text *t, const char *name)
{
	char q[600];

	if (quoted(q, sizeof(q), name) >= sizeof(q))
		t->failed = 1;
	else
		put(t, "%s", q);
}

static void put_factor(struct text *t, const struct search *s, const struct factor *f)
{
	const char *name = s->in[f->input].name;
	char num[PM_NUM_MAX];

	if (f->kind == F_INDICATOR) {
		pm__num_format(num, f->thr);
		put(t, " * [");
		put_name(t, name);
		put(t, " > %s]", num);
		return;
	}
	if (f->e != 0) {
		put(t, " * ");
		put_name(t, name);
		pm__num_format(num, f->e);
		/* ^1 too: a bare column would read as a second coefficient */
		put(t, f->e > 0 && f->e == floor(f->e) ? "^%s" : "^(%s)", num);
	}
	if (f->j) {
		put(t, " * log2(");
		put_name(t, name);
		put(t, f->j > 1 ? ")^%u" : ")", f->j);
	}
}

/* A coefficient name no column has: base, else base with _ appended. */
static void coefficient(struct text *t, const struct search *s, const char *base, unsigned k)
{
	char name[64];
	size_t col;

	snprintf(name, sizeof(name), k ? "%s%u" : "%s", base, k);
	while (pm_dataset_col_index(s->d, name, &col, NULL) == PM_OK &&
	       strlen(name) + 1 < sizeof(name))
		strcat(name, "_");
	put(t, "%s", name);
}

/* h in the formula language: c1 * term1 + ... + C (or b * level(cat)). */
static char *formula(const struct search *s, const struct hyp *h)
{
	struct text t = { malloc(128), 0, 128, 0 };

	if (!t.buf)
		return NULL;
	t.buf[0] = '\0';
	for (unsigned k = 0; k < h->nt; k++) {
		const struct term *term = &s->pool[h->t[k]];

		if (k)
			put(&t, " + ");
		coefficient(&t, s, "c", k + 1);
		if (h->factor >= 0) {
			put(&t, " * level(");
			put_name(&t, pm_dataset_col_name(s->d, s->cat[h->factor]));
			put(&t, ")");
		}
		for (unsigned f = 0; f < term->nf; f++)
			put_factor(&t, s, &term->f[f]);
	}
	if (h->nt)
		put(&t, " + ");
	if (h->offsets < 0) {
		coefficient(&t, s, "C", 0);
	} else {
		coefficient(&t, s, "b", 0);
		put(&t, " * level(");
		put_name(&t, pm_dataset_col_name(s->d, s->cat[h->offsets]));
		put(&t, ")");
	}
	if (t.failed) {
		free(t.buf);
		return NULL;
	}
	return t.buf;
}

/* How many parameters' worth of structure: terms, and offsets and a
 * factor as one each. */
static unsigned complexity(const struct hyp *h)
{
	return h->nt + (h->offsets >= 0) + (h->factor >= 0);
}

/* How unusual the terms' shapes are: logs, fractional exponents and
 * products each count; of two hypotheses equally good, a reader's first
 * guess (n^2 rather than n^2 * log2(n)) is the one to write. */
static unsigned shape(const struct search *s, const struct hyp *h)
{
	unsigned u = 0;

	for (unsigned k = 0; k < h->nt; k++)
		for (unsigned f = 0; f < s->pool[h->t[k]].nf; f++) {
			const struct factor *fa = &s->pool[h->t[k]].f[f];

			u += f + fa->j + (fa->kind == F_POWER && fa->e != floor(fa->e));
		}
	return u;
}

static int by_score(const void *a, const void *b)
{
	const struct hyp *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	return complexity(x) < complexity(y) ? -1 : complexity(x) > complexity(y);
}

static pm_status add_candidate(const struct search *s, const struct hyp *h, pm_discovery *x,
				pm_error *err)
{
	pm_discovered *c = &x->cand[x->n];

	if (!(c->formula = formula(s, h)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	c->terms = h->nt;
	c->mape = h->score;
	c->mape_se = h->se;
	x->n++;
	return PM_OK;
}

/* The report: the `top` best distinct hypotheses, and the one chosen by
 * parsimony (the fewest terms within one standard error of the best),
 * which is among them or added after them. */
static pm_status report(struct search *s, const pm_discover_options *o, pm_discovery *x,
			pm_error *err)
{
	const struct hyp *best, *chosen;
	pm_status st = PM_OK;

	qsort(s->seen, s->nseen, sizeof(*s->seen), by_score);
	best = chosen = &s->seen[0];
	for (size_t k = 1; k < s->nseen; k++) {
		const struct hyp *h = &s->seen[k];

		if (h->score <= best->score + best->se &&
		    (complexity(h) < complexity(chosen) ||
		     (complexity(h) == complexity(chosen) && shape(s, h) < shape(s, chosen))))
			chosen = h;
	}
	if (!(x->cand = calloc(o->top + 1, sizeof(*x->cand))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	x->chosen = o->top;	/* until seen */
	for (size_t k = 0; k < s->nseen && x->n < o->top && !st; k++) {
		if (k > 0 && same(&s->seen[k], &s->seen[k - 1]))
			continue;
		if (same(&s->seen[k], chosen))
			x->chosen = x->n;
		st = add_candidate(s, &s->seen[k], x, err);
	}
	if (!st && x->chosen == o->top) {
		x->chosen = x->n;
		st = add_candidate(s, chosen, x, err);
	}
	return st;
}

/* The numeric and categorical inputs of s's resolved roles. */
static pm_status inputs(struct search *s, const pm_spec *rs, pm_error *err)
{
	const pm_names *lists[2] = { &rs->intrinsic, &rs->extrinsic };
	size_t col;
	pm_status st = PM_OK;

	s->in = calloc(rs->intrinsic.n + rs->extrinsic.n + 1, sizeof(*s->in));
	s->cat = calloc(rs->categorical.n + 1, sizeof(*s->cat));
	s->nlev = calloc(rs->categorical.n + 1, sizeof(*s->nlev));
	s->codes = malloc((rs->categorical.n * s->n + 1) * sizeof(*s->codes));
	if (!s->in || !s->cat || !s->nlev || !s->codes)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (int l = 0; l < 2 && !st; l++)
		for (size_t i = 0; i < lists[l]->n && !st; i++) {
			struct input *in = &s->in[s->nin];
			int distinct = 0;

			in->name = lists[l]->name[i];
			if (strchr(in->name, '`'))	/* the formula cannot name it */
				continue;
			if (!(in->x = malloc(s->n * sizeof(*in->x) + 1)))
				return pm__fail(err, PM_ENOMEM, "out of memory");
			s->nin++;
			if ((st = pm_dataset_col_index(s->d, in->name, &col, err)) ||
			    (st = pm_dataset_col_numbers(s->d, col, in->x, err)))
				break;
			in->power_ok = in->log_ok = 1;
			for (size_t r = 0; r < s->n; r++) {
				if (in->x[r] > in->x[in->argmax])
					in->argmax = r;
				distinct |= in->x[r] != in->x[0];
				in->power_ok &= in->x[r] > 0;
				in->log_ok &= in->x[r] >= 1;
			}
			in->max = in->x[in->argmax];
			in->log_ok &= in->max > 1;
			if (!distinct) {	/* a constant says nothing */
				free(in->x);
				s->nin--;
			}
		}
	s->mult = malloc((PM_NNLS_MAX + 1) * sizeof(*s->mult));
	s->gram_all = malloc(PM_NNLS_MAX * PM_NNLS_MAX * PM_NNLS_MAX * sizeof(*s->gram_all));
	s->gram = malloc(PM_NNLS_MAX * PM_NNLS_MAX * PM_NNLS_MAX * sizeof(*s->gram));
	s->vec_all = malloc(PM_NNLS_MAX * PM_NNLS_MAX * sizeof(*s->vec_all));
	s->vec = malloc(PM_NNLS_MAX * PM_NNLS_MAX * sizeof(*s->vec));
	if (!s->mult || !s->gram_all || !s->gram || !s->vec_all || !s->vec)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t i = 0; i < rs->categorical.n && !st; i++) {
		if ((st = pm_dataset_col_index(s->d, rs->categorical.name[i], &col, err)))
			break;
		s->cat[s->ncat] = col;
		s->nlev[s->ncat] = pm_dataset_col_nlevels(s->d, col);
		pm_dataset_col_codes(s->d, col, s->codes + s->ncat * s->n);
		s->ncat += s->nlev[s->ncat] > 1;
	}
	if (!st && !s->nin && !s->ncat)
		st = pm__fail(err, PM_EINVAL, "discover: no input varies: nothing to search");
	return st;
}

/* The target and its weights 1/t^2; the folds' rows in order. */
static pm_status target_and_folds(struct search *s, const pm_spec *rs, pm_error *err)
{
	const pm_folds *f = s->folds;
	size_t col, nf = f->nfolds + 1;
	pm_status st;

	s->y = malloc(s->n * sizeof(*s->y) + 1);
	s->w = malloc(s->n * sizeof(*s->w) + 1);
	s->fold_start = calloc(nf + 1, sizeof(*s->fold_start));
	s->fold_rows = malloc(s->n * sizeof(*s->fold_rows) + 1);
	if (!s->y || !s->w || !s->fold_start || !s->fold_rows)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if ((st = pm_dataset_col_index(s->d, rs->target, &col, err)) ||
	    (st = pm_dataset_col_numbers(s->d, col, s->y, err)))
		return st;
	for (size_t r = 0; r < s->n; r++) {
		if (!(s->y[r] > 0))
			return pm__fail(err, PM_EINVAL, "discover: the target must be > 0 (row %zu: "
					"%g): errors are relative", r + 1, s->y[r]);
		s->w[r] = 1.0 / (s->y[r] * s->y[r]);
	}
	/* kept rows (fold >= nfolds) go last, in the extra slot */
	for (size_t r = 0; r < s->n; r++)
		s->fold_start[(f->fold[r] < f->nfolds ? f->fold[r] : f->nfolds) + 1]++;
	for (size_t k = 0; k < nf; k++)
		s->fold_start[k + 1] += s->fold_start[k];
	{
		size_t *at = malloc((nf + 1) * sizeof(*at));

		if (!at)
			return pm__fail(err, PM_ENOMEM, "out of memory");
		memcpy(at, s->fold_start, nf * sizeof(*at));
		for (size_t r = 0; r < s->n; r++)
			s->fold_rows[at[f->fold[r] < f->nfolds ? f->fold[r] : f->nfolds]++] = r;
		free(at);
	}
	return PM_OK;
}

static void search_free(struct search *s)
{
	for (size_t i = 0; i < s->nin; i++)
		free(s->in[i].x);
	for (size_t i = 0; i < s->npool; i++)
		free(s->pool[i].col);
	free(s->in);
	free(s->cat);
	free(s->nlev);
	free(s->codes);
	free(s->pool);
	free(s->y);
	free(s->w);
	free(s->fold_start);
	free(s->fold_rows);
	free(s->seen);
	free(s->mult);
	free(s->gram_all);
	free(s->vec_all);
	free(s->gram);
	free(s->vec);
}

static pm_status check(const pm_dataset *d, const pm_spec *s, const pm_discover_options *o,
		       pm_error *err)
{
	if (!d || !s)
		return pm__fail(err, PM_EINVAL, "discover needs data and a spec");
	if (o->max_terms < 1 || o->max_terms > MAX_TERMS)
		return pm__fail(err, PM_EINVAL, "discover: max terms must be 1 to %d", MAX_TERMS);
	if (o->beam < 1 || o->beam > 64 || o->top < 1 || o->top > 100)
		return pm__fail(err, PM_EINVAL, "discover: beam 1 to 64, top 1 to 100");
	if (pm__spec_formula_text(s))
		return pm__fail(err, PM_EINVAL, "discover writes the formula: give roles, not one");
	if (pm_spec_target_kind(s) != PM_TARGET_TIME)
		return pm__fail(err, PM_EINVAL, "discover searches models of time: a %s target is "
				"not supported yet (fit it with --form or --formula)",
				pm_target_kind_name(pm_spec_target_kind(s)));
	return PM_OK;
}

pm_status pm_discover(const pm_dataset *d, const pm_spec *s, const pm_discover_options *o,
		      pm_discovery **out, pm_error *err)
{
	pm_discover_options opt = o ? *o : pm_discover_options_default();
	struct search sr = { .d = d };
	pm_folds folds = { 0 };
	pm_discovery *x = NULL;
	pm_spec *rs = NULL;
	struct timespec t0, t1;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the discovery");
	*out = NULL;
	if ((st = check(d, s, &opt, err)))
		return st;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sr.n = pm_dataset_nrows(d);
	sr.folds = &folds;
	if ((st = pm__spec_copy(s, &rs, err)) || (st = pm_spec_resolve(rs, d, err)) ||
	    (st = pm_validation_folds(d, rs, &opt.validate, &folds, err)) ||
	    (st = inputs(&sr, rs, err)) || (st = target_and_folds(&sr, rs, err)) ||
	    (st = single_terms(&sr, err)) || (st = search_terms(&sr, &opt, err)))
		goto out;
	if (!sr.nseen) {
		st = pm__fail(err, PM_EFIT, "discover: every hypothesis was rejected (%zu tried)",
			      sr.evaluated);
		goto out;
	}
	if (!(x = calloc(1, sizeof(*x)))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = report(&sr, &opt, x, err)))
		goto out;
	x->hypotheses = sr.evaluated;
	x->rejected = sr.rejected;
	x->folds = folds.nfolds;
	memcpy(x->what, folds.what, sizeof(x->what));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	x->wall_time_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	*out = x;
	x = NULL;
out:
	pm_discovery_free(x);
	pm_folds_free(&folds);
	pm_spec_free(rs);
	search_free(&sr);
	return st;
}
