/* perfmodel discover (issue 21): find the terms of a performance model
 * rather than fit given ones (perfmodel.h, "discovering the model's terms";
 * docs/discover.md). A beam search over hypotheses, each move adding a term,
 * multiplying a term by another input's factor, scaling the terms by a
 * categorical's levels, or putting a categorical's offsets in place of C;
 * every hypothesis solved and scored on the folds of a validation scheme
 * (discover_solve.c); the winner written in the formula language
 * (discover_text.c) so that pm_fit refines it and every command can use it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/pool.h"
#include "core/stop.h"
#include "discover/discover_impl.h"
#include "discover/nnls.h"
#include "fit/problem.h"
#include "spec/configs.h"
#include "spec/spec_impl.h"

/* factors of each input that seed products: its best one-term models' */
enum { SEEDS = 4, MAX_STEPS = 24 };
/* hypotheses of one skeleton the beam keeps at most; the best of the beam
 * whose products' exponents are climbed (each a move per power factor and
 * direction: on LeNet-5's 8-factor products, from every hypothesis of the
 * beam, the search took 4x the hypotheses) */
enum { PER_SKELETON = 4, CLIMBERS = 4 };
/* terms of the pool an add move tries from a hypothesis (add_terms); the
 * products a multiply move tries (products) */
enum { ADD_SCREEN = 128, MUL_SCREEN = 16 };
/* the moved switches and climbed exponents a hypothesis tries (climbs) */
enum { CLIMB_SCREEN = 16 };
/* inputs whose seed factors are paired into the pool: of every pair of
 * every input's, the pool grew with the square of the columns (a 1 000-
 * column table took 5.5 GB) */
enum { PAIR_INPUTS = 16 };
/* What a search may take (memory_check), and the terms its moves add to
 * the pool per beam hypothesis and term of the budget, at most as measured
 * (LeNet-5: 8 818 terms in all, 360 of them one-factor ones; the 1 000-
 * column table of bench/wide_csv.py 9 312 beyond its one-factor ones) */
#define MEMORY_BUDGET (1024.0 * 1024 * 1024)
enum { GROWTH_TERMS = 256 };

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
	free(x->refined);
	free(x);
}

static uint64_t key(const struct hyp *h)
{
	uint64_t k = UINT64_C(0xcbf29ce484222325);

	k = pm__disc_mix(k, h->nt);
	for (unsigned i = 0; i < h->nt; i++)
		k = pm__disc_mix(k, h->t[i]);
	k = pm__disc_mix(pm__disc_mix(k, (uint64_t)(h->offsets + 1)), h->mask);
	return k ? k : 1;
}

/* 1 if a hypothesis of key k was evaluated already. */
static int was_tried(const struct search *s, uint64_t k)
{
	for (size_t i = k & (s->captried - 1); s->captried && s->tried[i];
	     i = (i + 1) & (s->captried - 1))
		if (s->tried[i] == k)
			return 1;
	return 0;
}

/* 1 if h was evaluated already; else marks it so. (A set of 64-bit hashes:
 * a collision would skip one hypothesis, the same on every machine.) */
static int tried(struct search *s, const struct hyp *h, pm_error *err, pm_status *st)
{
	uint64_t k = key(h);
	size_t i;

	if (2 * (s->ntried + 1) > s->captried) {
		size_t cap = s->captried ? 2 * s->captried : 4096;
		uint64_t *t = calloc(cap, sizeof(*t));

		if (!t) {
			*st = pm__fail(err, PM_ENOMEM, "out of memory");
			return 1;
		}
		for (size_t j = 0; j < s->captried; j++)
			if (s->tried[j])
				for (i = s->tried[j] & (cap - 1); !(t[i] == 0 && (t[i] = s->tried[j]));
				     i = (i + 1) & (cap - 1))
					;
		free(s->tried);
		s->tried = t;
		s->captried = cap;
	}
	for (i = k & (s->captried - 1); s->tried[i]; i = (i + 1) & (s->captried - 1))
		if (s->tried[i] == k)
			return 1;
	s->tried[i] = k;
	s->ntried++;
	return 0;
}

/* Append h to the growing array *a of *n (room for *cap). */
static pm_status push(struct hyp **a, size_t *n, size_t *cap, const struct hyp *h, pm_error *err)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		struct hyp *p = realloc(*a, c * sizeof(*p));

		if (!p)
			return pm__fail(err, PM_ENOMEM, "out of memory");
		*a = p;
		*cap = c;
	}
	(*a)[(*n)++] = *h;
	return PM_OK;
}

/* The skeleton of h: which inputs each term has (powers and indicators
 * apart), the offsets and the scaling, exponents and logs left out; sorted
 * so that the order of terms does not matter. */
static uint64_t skeleton(const struct search *s, const struct hyp *h)
{
	uint64_t term[MAX_SLOTS], k = UINT64_C(0xcbf29ce484222325);

	for (unsigned i = 0; i < h->nt; i++) {
		const struct term *t = &s->pool[h->t[i]];

		term[i] = pm__disc_mix(pm__disc_mix(UINT64_C(0xcbf29ce484222325), t->sel), t->lev);
		for (unsigned f = 0; f < t->nf; f++)
			term[i] = pm__disc_mix(term[i], 2 * (uint64_t)t->f[f].input + (t->f[f].kind != F_POWER));
		for (unsigned j = i; j > 0 && term[j] < term[j - 1]; j--) {
			uint64_t x = term[j];

			term[j] = term[j - 1];
			term[j - 1] = x;
		}
	}
	for (unsigned i = 0; i < h->nt; i++)
		k = pm__disc_mix(k, term[i]);
	return pm__disc_mix(pm__disc_mix(k, (uint64_t)(h->offsets + 1)), h->mask);
}

/* Keep h among the `width` best of beam[0..*n) (ascending score), at most
 * PER_SKELETON of one skeleton: variants of one shape (n^2, n^2 * log2(n),
 * n^2.5, ...) would fill the beam and leave no room for another shape. */
static void keep(const struct search *s, struct hyp *beam, size_t *n, size_t width,
		 const struct hyp *h)
{
	uint64_t sk = skeleton(s, h);
	size_t i, same_shape = 0, worst = 0;

	for (size_t k = 0; k < *n; k++)
		if (skeleton(s, &beam[k]) == sk) {
			same_shape++;
			worst = k;	/* the beam is sorted: the last is the worst */
		}
	if (same_shape == PER_SKELETON) {
		if (!(h->score < beam[worst].score))
			return;
		memmove(beam + worst, beam + worst + 1, (*n - worst - 1) * sizeof(*beam));
		--*n;
	}
	if (*n == width && !(h->score < beam[*n - 1].score))
		return;
	i = *n < width ? (*n)++ : *n - 1;
	while (i > 0 && h->score < beam[i - 1].score) {
		beam[i] = beam[i - 1];
		i--;
	}
	beam[i] = *h;
}

/* A step's hypotheses to evaluate, side by side. */
struct batch {
	struct hyp *h;
	unsigned char *ok;
	size_t n, cap;
	struct search *s;
	struct scratch *w;	/* one per thread */
	/* 3 * rows: the residuals and multipliers of the hypothesis whose
	 * moves are made, and a term's partial residual (products); its
	 * coefficients */
	double *resid, coef[PM_NNLS_MAX];
	/* the climbs of the hypothesis whose moves are made: term at[i] of
	 * it replaced by pool term by[i] */
	unsigned *at, *by;
	size_t nclimb, capclimb;
	volatile sig_atomic_t *stop;
};

/* Each thread's solver scratch (discover_impl.h, struct search). */
struct scratch {
	double *mult, *gram_all, *vec_all, *gram, *vec;
	unsigned char *strat, *lv;
	double *fold;
};

/* h to be evaluated this step, unless tried or too large. */
static pm_status consider(struct search *s, const struct hyp *h, struct batch *b, pm_error *err)
{
	pm_status st = PM_OK;

	for (unsigned k = 0; k < h->nt; k++)
		if (s->pool[h->t[k]].thin)
			return PM_OK;
	if (pm__disc_ncoef(s, h) > PM_NNLS_MAX || pm__disc_strata(s, h->mask) > MAX_STRATA ||
	    tried(s, h, err, &st))
		return st;
	return push(&b->h, &b->n, &b->cap, h, err);
}

/* s with scratch w: its shared parts only read, w written. */
static struct search with_scratch(const struct search *s, const struct scratch *w)
{
	struct search local = *s;

	local.mult = w->mult;
	local.gram_all = w->gram_all;
	local.vec_all = w->vec_all;
	local.gram = w->gram;
	local.vec = w->vec;
	local.strat = w->strat;
	local.lv = w->lv;
	local.fold = w->fold;
	return local;
}

static void evaluate_one(void *ctx, size_t i, unsigned worker)
{
	struct batch *b = ctx;
	struct search local = with_scratch(b->s, &b->w[worker]);

	/* a step on many rows takes seconds: a stop request skips the rest */
	if (pm__stop_requested(b->stop)) {
		b->ok[i] = 0;
		return;
	}
	b->ok[i] = (unsigned char)pm__disc_evaluate(&local, &b->h[i]);
}

/* Evaluate the step's hypotheses on the pool's threads, then take them in
 * their order (so the result does not depend on the threads): a sound one
 * joins the beam. */
static pm_status run_batch(struct search *s, pm_pool *pool, struct batch *b, struct hyp *beam,
			   size_t *nbeam, size_t width, pm_error *err)
{
	pm_status st = PM_OK;

	if (!b->n)
		return PM_OK;
	if (!(b->ok = malloc(b->n)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	b->s = s;
	/* a hypothesis the beam would not keep and that is no candidate for
	 * the choice (two standard errors from the best) needs no folds */
	s->cutoff = *nbeam < width ? INFINITY
				   : fmax(beam[width - 1].score, beam[0].score + 2 * beam[0].se);
	pm__pool_for(pool, b->n, evaluate_one, b);
	if (pm__stop_requested(b->stop)) {	/* the step is incomplete: not used */
		s->interrupted = 1;
		free(b->ok);
		b->ok = NULL;
		b->n = 0;
		return PM_OK;
	}
	s->evaluated += b->n;
	for (size_t i = 0; i < b->n && !st; i++) {
		if (b->ok[i] != 1) {
			s->rejected += !b->ok[i];
			continue;
		}
		keep(s, beam, nbeam, width, &b->h[i]);
		/* C alone starts the search and is a candidate: a metric no input
		 * moves beyond the noise is a constant */
		st = push(&s->seen, &s->nseen, &s->capseen, &b->h[i], err);
	}
	free(b->ok);
	b->ok = NULL;
	b->n = 0;
	return st;
}

/* h with its terms sorted, none twice; 0 if two are the same. */
static int normal(struct hyp *h)
{
	for (unsigned i = 1; i < h->nt; i++)
		for (unsigned j = i; j > 0 && h->t[j] < h->t[j - 1]; j--) {
			unsigned t = h->t[j];

			h->t[j] = h->t[j - 1];
			h->t[j - 1] = t;
		}
	for (unsigned i = 1; i < h->nt; i++)
		if (h->t[i] == h->t[i - 1])
			return 0;
	return 1;
}

/* Term k of h times factor f (of an input the term lacks, or a switch of
 * one it has a power of, or the reverse), in input order. */
static int times(const struct search *s, const struct hyp *h, unsigned k, const struct factor *f,
		 struct term *out)
{
	const struct term *t = &s->pool[h->t[k]];
	unsigned at = 0;

	if (t->nf == MAX_FACTORS)
		return 0;
	for (unsigned i = 0; i < t->nf; i++)
		if (t->f[i].input == f->input && (t->f[i].kind == F_POWER) == (f->kind == F_POWER))
			return 0;
	*out = (struct term){ .nf = t->nf + 1, .sel = t->sel, .lev = t->lev };
	while (at < t->nf && (t->f[at].input < f->input ||
			      (t->f[at].input == f->input && f->kind != F_POWER)))
		at++;
	memcpy(out->f, t->f, at * sizeof(*t->f));
	out->f[at] = *f;
	memcpy(out->f + at + 1, t->f + at, (t->nf - at) * sizeof(*t->f));
	return 1;
}

/* The single term of input i that best fits the rows of level l of
 * categorical c alone (y ~ a * term + b, weights 1/t^2); nsingle: none, the
 * level's rows having fewer than 3 values of the input. */
static size_t level_shape(const struct search *s, unsigned i, size_t c, uint32_t l)
{
	size_t best = s->nsingle, distinct = 0;
	double best_sse = INFINITY, seen[3];

	for (size_t r = 0; r < s->n && distinct < 3; r++) {
		size_t k = 0;

		if (pm__disc_level(s, c, r) != l)
			continue;
		while (k < distinct && seen[k] != s->in[i].x[r])
			k++;
		if (k == distinct)
			seen[distinct++] = s->in[i].x[r];
	}
	for (size_t t = 0; t < s->nsingle && distinct == 3; t++) {
		double G[4] = { 0 }, v[2] = { 0 }, a[2], sse = 0.0;

		if (s->pool[t].f[0].input != i || s->pool[t].f[0].kind != F_POWER)
			continue;
		for (size_t r = 0; r < s->n; r++)
			if (pm__disc_level(s, c, r) == l) {
				double f = s->pool[t].col[r], w = s->w[r];

				G[0] += w * f * f;
				G[1] += w * f;
				G[3] += w;
				v[0] += w * f * s->y[r];
				v[1] += w * s->y[r];
			}
		G[2] = G[1];
		pm__nnls(G, v, 2, a);
		for (size_t r = 0; r < s->n; r++)
			if (pm__disc_level(s, c, r) == l) {
				double e = s->y[r] - a[0] * s->pool[t].col[r] - a[1];

				sse += s->w[r] * e * e;
			}
		if (a[0] > 0 && sse < best_sse) {
			best_sse = sse;
			best = t;
		}
	}
	return best;
}

/* Term k of h split by categorical c: a term per level, with k's shape
 * or (best, for a one-factor term) each level's own best shape. */
static pm_status split(struct search *s, const struct hyp *h, unsigned k, size_t c, int best,
		       struct batch *b, pm_error *err)
{
	const struct term *t = &s->pool[h->t[k]];
	struct hyp g = *h;
	pm_status st = PM_OK;

	if (t->sel || s->nlev[c] > MAX_SPLIT_LEVELS || h->nt - 1 + s->nlev[c] > MAX_SLOTS ||
	    (c < MAX_FACTOR_CATS && (h->mask >> c & 1)) ||
	    (best && (t->nf != 1 || t->f[0].kind != F_POWER)))
		return PM_OK;
	g.t[k] = g.t[--g.nt];
	for (uint32_t l = 0; l < s->nlev[c] && !st; l++) {
		struct term u = s->pool[h->t[k]];
		unsigned idx;

		if (best) {
			size_t shape = level_shape(s, t->f[0].input, c, l);

			if (shape == s->nsingle)
				return PM_OK;
			u = s->pool[shape];
		}
		u.sel = (unsigned)c + 1;
		u.lev = l;
		st = pm__disc_term_index(s, &u, &idx, err);
		t = &s->pool[h->t[k]];	/* the pool may have moved */
		g.t[g.nt++] = idx;
	}
	if (!st && normal(&g))
		st = consider(s, &g, b, err);
	return st;
}

/* The terms an add move tries from h: of the pool's terms of every level
 * (terms of one level come by splits), the ADD_SCREEN that best explain
 * what h's fit to every row leaves: by (sum w e M phi)^2 / sum w (M phi)^2,
 * the weighted squared correlation of the term (times h's multipliers M)
 * with the residual e, among those that would enter with a coefficient
 * > 0. Screening keeps a step's cost from growing with the pool (on
 * LeNet-5 the pool grows to 12 000 terms: adding each to each hypothesis
 * of the beam took 80 000 hypotheses in one step); the others are
 * evaluated as before. */
static pm_status add_terms(struct search *s, const struct hyp *h, struct batch *b,
			   pm_error *err)
{
	const double *e = b->resid, *m = e + s->n;
	double score[ADD_SCREEN];
	unsigned pick[ADD_SCREEN];
	size_t n = 0;
	pm_status st = PM_OK;

	for (size_t t = 0; t < s->npool; t++) {
		const double *phi = s->pool[t].col;
		double num = 0.0, den = 0.0, c;
		size_t i;

		if (s->pool[t].sel)
			continue;
		for (size_t r = 0; r < s->n; r++) {
			double v = m[r] * phi[r];

			num += s->w[r] * e[r] * v;
			den += s->w[r] * v * v;
		}
		if (!(num > 0 && den > 0))
			continue;
		c = num * num / den;
		if (n == ADD_SCREEN && !(c > score[n - 1]))
			continue;
		i = n < ADD_SCREEN ? n++ : n - 1;
		for (; i > 0 && c > score[i - 1]; i--) {
			score[i] = score[i - 1];
			pick[i] = pick[i - 1];
		}
		score[i] = c;
		pick[i] = (unsigned)t;
	}
	for (size_t i = 0; i < n && !st; i++) {
		struct hyp g = *h;

		g.t[g.nt++] = pick[i];
		if (normal(&g))
			st = consider(s, &g, b, err);
	}
	return st;
}

/* The multiply moves from h: term k times a seed factor (seed_term: its
 * one-factor term in the pool), for the MUL_SCREEN products not tried yet
 * that best explain what h's fit leaves with term k taken out: the
 * weighted squared error left, sum w e_k^2 - (sum w e_k v)^2 / sum w v^2,
 * where e_k = e + c_k M phi_k is the residual without term k and v = M
 * phi_k seed, among products that would enter with a coefficient > 0.
 * Each product evaluated cost a full solve on every fold; on LeNet-5 they
 * were 98 768 of the search's 120 498 hypotheses, and 0.7 % of them ever
 * entered the beam. */
static pm_status products(struct search *s, const struct hyp *h, const struct factor *seed,
			  const unsigned *seed_term, size_t nseed, struct batch *b, pm_error *err)
{
	const double *e = b->resid, *m = e + s->n;
	double *ek = b->resid + 2 * s->n, left[MUL_SCREEN];
	unsigned pick[MUL_SCREEN], at[MUL_SCREEN];
	size_t n = 0;
	pm_status st = PM_OK;

	for (unsigned k = 0; k < h->nt; k++) {
		const double *phi = s->pool[h->t[k]].col;
		double base = 0.0;

		for (size_t r = 0; r < s->n; r++) {
			ek[r] = e[r] + b->coef[k] * m[r] * phi[r];
			base += s->w[r] * ek[r] * ek[r];
		}
		for (size_t i = 0; i < nseed; i++) {
			const double *x = s->pool[seed_term[i]].col;
			double num = 0.0, den = 0.0, q;
			struct term prod;
			size_t j, slot;

			if (!times(s, h, k, &seed[i], &prod))
				continue;
			for (size_t r = 0; r < s->n; r++) {
				double v = m[r] * phi[r] * x[r];

				num += s->w[r] * ek[r] * v;
				den += s->w[r] * v * v;
			}
			if (!(num > 0 && den > 0))
				continue;
			q = base - num * num / den;
			if (n == MUL_SCREEN && !(q < left[n - 1]))
				continue;
			/* a product tried before (from this hypothesis of an
			 * earlier step, or another of the beam) takes no place */
			slot = pm__disc_pool_slot(s, &prod);
			if (s->pool_set[slot]) {
				struct hyp g = *h;

				g.t[k] = s->pool_set[slot] - 1;
				if (!normal(&g) || was_tried(s, key(&g)))
					continue;
			}
			j = n < MUL_SCREEN ? n++ : n - 1;
			for (; j > 0 && q < left[j - 1]; j--) {
				left[j] = left[j - 1];
				pick[j] = pick[j - 1];
				at[j] = at[j - 1];
			}
			left[j] = q;
			pick[j] = (unsigned)i;
			at[j] = k;
		}
	}
	for (size_t j = 0; j < n && !st; j++) {
		struct term prod;
		unsigned idx;
		struct hyp g = *h;

		times(s, h, at[j], &seed[pick[j]], &prod);
		if ((st = pm__disc_term_index(s, &prod, &idx, err)))
			break;
		g.t[at[j]] = idx;
		if (normal(&g))
			st = consider(s, &g, b, err);
	}
	return st;
}

/* Term k replaced by pool term idx: a climb for climbs() to screen. */
static pm_status climb(struct batch *b, unsigned k, unsigned idx, pm_error *err)
{
	if (b->nclimb == b->capclimb) {
		size_t cap = b->capclimb ? 2 * b->capclimb : 256;
		unsigned *at = realloc(b->at, cap * sizeof(*at)), *by;

		if (at)
			b->at = at;
		if (!at || !(by = realloc(b->by, cap * sizeof(*by))))
			return pm__fail(err, PM_ENOMEM, "out of memory");
		b->by = by;
		b->capclimb = cap;
	}
	b->at[b->nclimb] = k;
	b->by[b->nclimb++] = idx;
	return PM_OK;
}

/* The climbs of h collected (a switch moved, a product's exponent or log
 * nudged) that are not tried yet, the CLIMB_SCREEN that best explain what
 * h's fit leaves with the term replaced taken out (as products() ranks
 * them). Every climb from the best four of the beam was evaluated: a third
 * of LeNet-5's hypotheses, of which 5 % entered the beam. */
static pm_status climbs(struct search *s, const struct hyp *h, struct batch *b, pm_error *err)
{
	const double *e = b->resid, *m = e + s->n;
	double *ek = b->resid + 2 * s->n, left[CLIMB_SCREEN], base = 0.0;
	unsigned pick[CLIMB_SCREEN], was = UINT32_MAX;
	size_t n = 0;
	pm_status st = PM_OK;

	for (size_t i = 0; i < b->nclimb; i++) {
		unsigned k = b->at[i];
		const double *phi = s->pool[h->t[k]].col, *x = s->pool[b->by[i]].col;
		double num = 0.0, den = 0.0, q;
		struct hyp g = *h;
		size_t j;

		if (k != was) {	/* climbs come term by term */
			base = 0.0;
			for (size_t r = 0; r < s->n; r++) {
				ek[r] = e[r] + b->coef[k] * m[r] * phi[r];
				base += s->w[r] * ek[r] * ek[r];
			}
			was = k;
		}
		for (size_t r = 0; r < s->n; r++) {
			double v = m[r] * x[r];

			num += s->w[r] * ek[r] * v;
			den += s->w[r] * v * v;
		}
		if (!(num > 0 && den > 0))
			continue;
		q = base - num * num / den;
		g.t[k] = b->by[i];
		if ((n == CLIMB_SCREEN && !(q < left[n - 1])) || !normal(&g) ||
		    was_tried(s, key(&g)))
			continue;
		j = n < CLIMB_SCREEN ? n++ : n - 1;
		for (; j > 0 && q < left[j - 1]; j--) {
			left[j] = left[j - 1];
			pick[j] = pick[j - 1];
		}
		left[j] = q;
		pick[j] = (unsigned)i;
	}
	for (size_t j = 0; j < n && !st; j++) {
		struct hyp g = *h;

		g.t[b->at[pick[j]]] = b->by[pick[j]];
		if (normal(&g))
			st = consider(s, &g, b, err);
	}
	b->nclimb = 0;
	return st;
}

/* Switch f of term k of h moved to the next distinct value of its input
 * (dir 1) or the one before (-1), the largest value excluded: the fitted
 * breakpoint of a two-segment model, climbed as the exponents are (a climb
 * for climbs() to screen). */
static pm_status shift(struct search *s, const struct hyp *h, unsigned k, unsigned f, int dir,
		       struct batch *b, pm_error *err)
{
	struct term t = s->pool[h->t[k]];
	const struct input *in = &s->in[t.f[f].input];
	size_t at = 0;
	unsigned idx;
	pm_status st;

	if (t.f[f].kind == F_POWER)
		return PM_OK;
	while (in->value[at] != t.f[f].thr)
		at++;
	if ((dir < 0 && at == 0) || (dir > 0 && at + 2 >= in->nvalues))
		return PM_OK;
	t.f[f].thr = in->value[dir < 0 ? at - 1 : at + 1];
	if ((st = pm__disc_term_index(s, &t, &idx, err)))
		return st;
	return climb(b, k, idx, err);
}

/* Power f of term k of h (a product: a one-factor term takes any other
 * shape) with the next exponent of pm__disc_expo[] up (dir 1) or down (-1), or
 * (log) one log2 more or less: the exponents of a product climbed (a
 * climb for climbs()). */
static pm_status nudge(struct search *s, const struct hyp *h, unsigned k, unsigned f, int dir,
		       int log, struct batch *b, pm_error *err)
{
	struct term t = s->pool[h->t[k]];
	struct factor *fa = &t.f[f];
	size_t e = 0;
	unsigned idx;
	pm_status st;

	if (t.nf < 2 || fa->kind != F_POWER)
		return PM_OK;
	if (log) {
		if (!s->in[fa->input].log_ok || (dir < 0 && fa->j == 0) || (dir > 0 && fa->j == 2) ||
		    (dir < 0 && fa->j == 1 && fa->e == 0))
			return PM_OK;
		fa->j = dir < 0 ? fa->j - 1 : fa->j + 1;
	} else {
		if (fa->e == 0)	/* log2(x)^j alone */
			return PM_OK;
		while (pm__disc_expo[e] != fa->e)
			e++;
		do
			e += (size_t)dir;	/* to the next quarter (wraps at the ends) */
		while (e < DISC_NEXPO && !pm__disc_quarter(pm__disc_expo[e]));
		if (e >= DISC_NEXPO)
			return PM_OK;
		fa->e = pm__disc_expo[e];
	}
	if ((st = pm__disc_term_index(s, &t, &idx, err)))
		return st;
	return climb(b, k, idx, err);
}

/* The moves from h: add a term of the pool; give a one-factor term
 * another shape of its input, a product's power the next exponent or log
 * (if `climber`), move a switch (those two screened, climbs()); split a
 * term per level of a categorical; multiply a term by a seed factor
 * (screened, products()); scale the terms by a categorical's levels;
 * offsets in place of C. */
static pm_status moves(struct search *s, const struct hyp *h, const struct factor *seed,
		       const unsigned *seed_term, size_t nseed, unsigned max_terms, int climber,
		       struct batch *b, pm_error *err)
{
	struct search local = with_scratch(s, &b->w[0]);	/* between batches: free */
	int add = pm__disc_terms(s, h) < max_terms && h->nt < MAX_SLOTS;
	pm_status st = PM_OK;
	struct hyp g;

	/* what h leaves: the add and multiply moves screen their terms by it */
	if (add || h->nt)
		pm__disc_residual(&local, h, b->resid, b->resid + s->n, b->coef);
	if (add)
		st = add_terms(s, h, b, err);
	/* another shape of a one-factor term's input: the exponents and logs
	 * of a skeleton are climbed here, as the beam keeps one of each */
	for (unsigned k = 0; k < h->nt && !st; k++)
		for (size_t t = 0; t < s->nsingle && s->pool[h->t[k]].nf == 1 && !st; t++) {
			const struct term *was = &s->pool[h->t[k]];
			struct term shape = s->pool[t];
			unsigned idx;

			if (shape.f[0].input != was->f[0].input)
				continue;
			shape.sel = was->sel;
			shape.lev = was->lev;
			if ((st = pm__disc_term_index(s, &shape, &idx, err)) || idx == h->t[k])
				continue;
			g = *h;
			g.t[k] = idx;
			if (normal(&g))
				st = consider(s, &g, b, err);
		}
	for (unsigned k = 0; k < h->nt && !st; k++)
		for (unsigned f = 0; f < s->pool[h->t[k]].nf && !st; f++)
			for (int dir = -1; dir <= 1 && !st; dir += 2) {
				st = shift(s, h, k, f, dir, b, err);
				for (int log = 0; climber && log < 2 && !st; log++)
					st = nudge(s, h, k, f, dir, log, b, err);
			}
	if (!st && h->nt)
		st = climbs(s, h, b, err);
	for (unsigned k = 0; k < h->nt && !st; k++)
		for (size_t c = 0; c < s->ncat && !st; c++)
			for (int best = 0; best < 2 && !st; best++)
				st = split(s, h, k, c, best, b, err);
	if (!st && nseed && h->nt)
		st = products(s, h, seed, seed_term, nseed, b, err);
	for (size_t c = 0; c < s->ncat && !st; c++) {
		if (h->nt && c < MAX_FACTOR_CATS && !(h->mask >> c & 1) && !pm__disc_split_terms(s, h, c)) {
			g = *h;
			g.mask |= 1u << c;
			st = consider(s, &g, b, err);
		}
		if (!st && h->offsets < 0) {
			g = *h;
			g.offsets = (int)c;
			st = consider(s, &g, b, err);
		}
	}
	return st;
}

/* The switch of input `in` and `kind` in the best one-term hypothesis; 0 if
 * none was scored. */
static int best_switch(const struct search *s, unsigned in, int kind, struct factor *out)
{
	double best = INFINITY;

	for (size_t k = 0; k < s->nseen; k++) {
		const struct hyp *h = &s->seen[k];
		const struct term *t = h->nt == 1 ? &s->pool[h->t[0]] : NULL;

		if (t && t->nf == 1 && !t->sel && t->f[0].input == in && t->f[0].kind == kind &&
		    h->score < best) {
			best = h->score;
			*out = t->f[0];
		}
	}
	return best < INFINITY;
}

/* The factors that seed products: of each input, those of its SEEDS best
 * one-term hypotheses (whatever their offsets or scaling), and x, 1/x and
 * its switches. out has room for nin * (SEEDS + 5). */
static size_t seeds(const struct search *s, struct factor *out)
{
	size_t n = 0;

	for (unsigned in = 0; in < s->nin; in++) {
		double score[SEEDS];
		size_t first = n;

		for (size_t k = 0; k < s->nseen; k++) {
			const struct hyp *h = &s->seen[k];
			const struct term *t = h->nt == 1 ? &s->pool[h->t[0]] : NULL;
			size_t i = first, worst = first;

			if (!t || t->nf != 1 || t->sel || t->f[0].input != in ||
			    (t->f[0].kind == F_POWER && !pm__disc_quarter(t->f[0].e)))
				continue;
			while (i < n && !pm__disc_same_factor(&out[i], &t->f[0]))
				i++;
			if (i < n) {
				score[i - first] = fmin(score[i - first], h->score);
				continue;
			}
			if (n - first < SEEDS) {
				score[n - first] = h->score;
				out[n++] = t->f[0];
				continue;
			}
			for (i = first + 1; i < n; i++)
				if (score[i - first] > score[worst - first])
					worst = i;
			if (h->score < score[worst - first]) {
				score[worst - first] = h->score;
				out[worst] = t->f[0];
			}
		}
		/* x, 1/x, [x > smallest] and the best switch of each kind too,
		 * whatever they scored alone: a U of two inputs (t ~ a/(xy) +
		 * b*xy) is no good with one of them, nor a cost that switches
		 * on (t ~ [w > 1] * h^2), nor a second segment (n^3 * [n > 512]) */
		for (int k = 0; k < 5; k++) {
			struct factor f = { in, F_POWER, k ? 1 : -1, 0, 0 };
			size_t i = first;

			if (k == 2)
				f = s->pool[s->indicator[in]].f[0];
			else if (k > 2 && !best_switch(s, in, k == 3 ? F_INDICATOR : F_BELOW, &f))
				continue;
			else if (k < 2 && !s->in[in].power_ok)
				continue;
			while (i < n && !pm__disc_same_factor(&out[i], &f))
				i++;
			if (i == n)
				out[n++] = f;
		}
	}
	return n;
}

/* Marks in keep[] the PAIR_INPUTS inputs whose best one-term hypothesis
 * scored best (an input with none scored, which the first step's screen
 * left out, after those, in column order). */
static void pair_inputs(const struct search *s, unsigned char *keep)
{
	double *best = malloc((s->nin + 1) * sizeof(*best));

	memset(keep, s->nin <= PAIR_INPUTS || !best, s->nin);
	if (s->nin <= PAIR_INPUTS || !best) {	/* out of memory: all, as before */
		free(best);
		return;
	}
	for (size_t i = 0; i < s->nin; i++)
		best[i] = INFINITY;
	for (size_t k = 0; k < s->nseen; k++) {
		const struct hyp *h = &s->seen[k];
		const struct term *t = h->nt == 1 ? &s->pool[h->t[0]] : NULL;

		if (t && !t->sel && t->nf == 1)
			best[t->f[0].input] = fmin(best[t->f[0].input], h->score);
	}
	for (size_t n = 0; n < PAIR_INPUTS; n++) {
		size_t at = SIZE_MAX;

		for (size_t i = 0; i < s->nin; i++)
			if (!keep[i] && (at == SIZE_MAX || best[i] < best[at] ||
					 (isnan(best[at]) && !isnan(best[i]))))
				at = i;
		keep[at] = 1;
	}
	free(best);
}

/* The beam search from C alone: each step makes every move from every
 * hypothesis of the beam, which keeps the `beam` best so far. Up to one
 * term at first, then two, ... up to max_terms: the budget grows by one
 * when a step adds nothing to the beam (or after MAX_STEPS), so the small
 * hypotheses are climbed to their best before larger ones, which fit the
 * noise better, crowd them out of the beam (the chosen one is the smallest
 * within one standard error: it must have been reached). The search ends
 * when a step at the full budget adds nothing, or at a stop request.
 * Products of two inputs' seed factors join the pool after the first step. */
static pm_status search_terms(struct search *s, const pm_discover_options *o, pm_pool *pool,
			      struct scratch *w, pm_error *err)
{
	size_t width = o->beam, n = 0, nseed = 0;
	unsigned budget = 1;
	struct hyp *beam = malloc((width + 1) * sizeof(*beam));
	struct hyp *from = malloc((width + 1) * sizeof(*from));
	struct factor *seed = malloc((s->nin * (SEEDS + 5) + 1) * sizeof(*seed));
	unsigned *seed_term = malloc((s->nin * (SEEDS + 5) + 1) * sizeof(*seed_term));
	unsigned char *pair = malloc(s->nin + 1);
	struct batch b = { .w = w, .stop = o->stop,
			   .resid = malloc((3 * s->n + 1) * sizeof(*b.resid)) };
	pm_status st = PM_OK;

	if (!beam || !from || !seed || !seed_term || !pair || !b.resid) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if (!(st = consider(s, &(struct hyp){ .offsets = -1 }, &b, err)))
		st = run_batch(s, pool, &b, beam, &n, width, err);
	for (int step = 0, first = 1; step < MAX_STEPS && !st && n; step++, first = 0) {
		size_t nfrom = n;
		int changed = 0;

		if (s->interrupted || pm__stop_requested(o->stop)) {
			s->interrupted = 1;
			break;
		}
		memcpy(from, beam, n * sizeof(*beam));
		for (size_t i = 0; i < nfrom && !st; i++)
			st = moves(s, &from[i], seed, seed_term, nseed, budget, i < CLIMBERS, &b,
				   err);
		if (!st)
			st = run_batch(s, pool, &b, beam, &n, width, err);
		for (size_t i = 0; i < n && !changed; i++)
			changed = i >= nfrom || !pm__disc_same(&beam[i], &from[i]);
		if (first && !st) {
			nseed = seeds(s, seed);
			pair_inputs(s, pair);
			for (size_t i = 0; i < nseed && !st; i++)
				st = pm__disc_term_index(s, &(struct term){ .nf = 1, .f = { seed[i] } },
						&seed_term[i], err);
			for (size_t i = 0; i < nseed && !st; i++)
				for (size_t j = i + 1; j < nseed && !st; j++) {
					struct term t = { .nf = 2, .f = { seed[i], seed[j] } };
					unsigned idx;

					if (seed[i].input != seed[j].input && pair[seed[i].input] &&
					    pair[seed[j].input])
						st = pm__disc_term_index(s, &t, &idx, err);
				}
		} else if (!changed || step + 1 == MAX_STEPS) {
			if (budget == o->max_terms)
				break;
			budget++;
			step = -1;
		}
	}
out:
	free(b.h);
	free(b.at);
	free(b.by);
	free(b.resid);
	free(beam);
	free(from);
	free(seed);
	free(seed_term);
	free(pair);
	return st;
}

/* Refuses a search whose estimate of what it would allocate exceeds
 * MEMORY_BUDGET, before it allocates it: each term of the pool holds a
 * column of every row, and the pool is every input's one-factor terms,
 * the pairs of PAIR_INPUTS inputs' seed factors and what the moves add;
 * then the hypotheses remembered and each thread's Grams. Linear in the
 * inputs, so a wide table is refused with what to name, not after
 * gigabytes (a 1 000-column one took 5.5 GB). */
static pm_status memory_check(const struct search *s, const pm_discover_options *o,
			      pm_error *err)
{
	double per_term = (double)sizeof(struct term) + 16.0 + 8.0 * (double)s->n;
	double singles = (double)s->nin * (DISC_NEXPO * 3 + 2 + 2 * BREAKS);
	double seeds = (double)(s->nin < PAIR_INPUTS ? s->nin : PAIR_INPUTS) * (SEEDS + 5);
	double growth = (double)GROWTH_TERMS * o->beam * o->max_terms;
	double hyps = (double)o->beam * (ADD_SCREEN + MUL_SCREEN) * MAX_STEPS * o->max_terms;
	double threads = o->threads ? o->threads : pm_cpu_count();
	double in = (double)s->nin * (double)s->n * 16.0;
	double scratch = threads * ((2.0 * MAX_STRATA * PM_NNLS_MAX * (PM_NNLS_MAX + 1) +
				     FOLD_SCRATCH) * 8.0 + (double)s->n);
	double terms = (singles + seeds * seeds / 2 + growth) * per_term;
	double total = terms + hyps * (sizeof(struct hyp) + 16.0) + in + scratch;

	if (total <= MEMORY_BUDGET)
		return PM_OK;
	return pm__fail(err, PM_EINVAL,
			"discover: the search would take about %.0f MiB, more than %.0f: %zu inputs "
			"x %zu rows (%.1f MiB a numeric input, %.0f MiB for --beam %u x "
			"--max-terms %u); name fewer inputs (--intrinsic, --extrinsic, --ignore), "
			"lower --beam or --max-terms, or sample the rows",
			total / 1048576, MEMORY_BUDGET / 1048576, s->nin, s->n,
			(DISC_NEXPO * 3 + 2 + 2 * BREAKS) * per_term / 1048576,
			(growth * per_term + hyps * (sizeof(struct hyp) + 16.0)) / 1048576, o->beam,
			o->max_terms);
}

static void scratch_free(struct scratch *w, const pm_pool *pool)
{
	for (unsigned i = 0; w && i < pm__pool_threads(pool); i++) {
		free(w[i].mult);
		free(w[i].gram_all);
		free(w[i].vec_all);
		free(w[i].gram);
		free(w[i].vec);
		free(w[i].strat);
		free(w[i].lv);
		free(w[i].fold);
	}
	free(w);
}

/* The pool of o's threads (0: the CPUs) and each one's solver scratch. */
static pm_status workers(const struct search *s, const pm_discover_options *o, pm_pool **pool,
			 struct scratch **w, pm_error *err)
{
	pm_status st = pm__pool_new(o->threads ? o->threads : pm_cpu_count(), pool, err);
	unsigned n;

	if (st)
		return st;
	n = pm__pool_threads(*pool);
	if (!(*w = calloc(n, sizeof(**w))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++) {
		struct scratch *k = &(*w)[i];

		k->mult = malloc(MAX_FACTOR_CATS * MAX_STRATA * sizeof(*k->mult));
		k->gram_all = malloc(MAX_STRATA * PM_NNLS_MAX * PM_NNLS_MAX * sizeof(*k->gram_all));
		k->gram = malloc(MAX_STRATA * PM_NNLS_MAX * PM_NNLS_MAX * sizeof(*k->gram));
		k->vec_all = malloc(MAX_STRATA * PM_NNLS_MAX * sizeof(*k->vec_all));
		k->vec = malloc(MAX_STRATA * PM_NNLS_MAX * sizeof(*k->vec));
		k->strat = malloc(s->n + 1);
		k->lv = malloc(MAX_STRATA * MAX_FACTOR_CATS);
		k->fold = malloc(FOLD_SCRATCH * sizeof(*k->fold));
		if (!k->mult || !k->gram_all || !k->gram || !k->vec_all || !k->vec || !k->strat ||
		    !k->lv || !k->fold)
			return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	return PM_OK;
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
	if (o->threads > 1024)
		return pm__fail(err, PM_EINVAL, "discover: %u threads: 1024 at most", o->threads);
	if (pm__spec_formula_text(s))
		return pm__fail(err, PM_EINVAL, "discover writes the formula: give roles, not one");
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
	pm_pool *pool = NULL;
	struct scratch *w = NULL;
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
	    (st = pm__disc_inputs(&sr, rs, err)) || (st = pm__disc_configurations(&sr, rs, err)) ||
	    (st = memory_check(&sr, &opt, err)) ||
	    (st = pm_validation_folds(d, rs, &opt.validate, &folds, err)) ||
	    (st = pm__disc_target_and_folds(&sr, rs, err)) ||
	    (st = pm__disc_single_terms(&sr, err)) || (st = workers(&sr, &opt, &pool, &w, err)) ||
	    (st = search_terms(&sr, &opt, pool, w, err)))
		goto out;
	if (!sr.nseen && !sr.interrupted) {
		st = pm__fail(err, PM_EFIT, "discover: every hypothesis was rejected (%zu tried)",
			      sr.evaluated);
		goto out;
	}
	if (!(x = calloc(1, sizeof(*x)))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	x->noise_floor = NAN;
	/* stopped before any hypothesis was scored: interrupted, no candidate */
	if (sr.nseen) {
		struct search local = with_scratch(&sr, &w[0]);

		if ((st = pm__disc_choose(&local, rs, &opt, x, err)))
			goto out;
	}
	x->hypotheses = sr.evaluated;
	x->interrupted = sr.interrupted;
	x->rejected = sr.rejected;
	x->folds = folds.nfolds;
	memcpy(x->what, folds.what, sizeof(x->what));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	x->wall_time_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	*out = x;
	x = NULL;
out:
	scratch_free(w, pool);
	pm__pool_free(pool);
	pm_discovery_free(x);
	pm_folds_free(&folds);
	pm_spec_free(rs);
	pm__disc_search_free(&sr);
	return st;
}
