/* perfmodel discover's moves: from a hypothesis of the beam, the
 * hypotheses one step away (pm__disc_moves), the add, multiply and climb
 * moves screened by what its fit leaves, so that a step's cost does not
 * grow with the pool. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "discover/discover_impl.h"
#include "discover/nnls.h"

/* the moved switches and climbed exponents a hypothesis tries (climbs) */
enum { CLIMB_SCREEN = 16 };

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
			size_t shape = pm__disc_part_shape(s, t->f[0].input,
							   &(struct part){ .by_level = 1, .cat = c, .level = l });

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
	if (!st && pm__disc_normal(&g))
		st = pm__disc_consider(s, &g, b, err);
	return st;
}

/* The terms an add move tries from h: of the pool's terms of every level
 * (terms of one level come by splits), the ADD_SCREEN that best explain
 * what h's fit to every row leaves: by (sum w e M phi)^2 / sum w (M phi)^2,
 * the weighted squared correlation of the term (times h's multipliers M)
 * with the residual e, among those that would enter with a coefficient
 * > 0. Screening keeps a step's cost from growing with the pool (on
 * LeNet-5 the pool grows to 12 000 terms: adding each to each hypothesis
 * of the beam took 80 000 hypotheses in one step). From C alone, every
 * one-factor term that would enter is tried: the inputs' seed factors are
 * their best one-term hypotheses', and an input whose effect is smaller
 * than the others' had none screened in (p^(1/3) * q^(1/2) * r^(2/3): p's
 * shapes were not among the 128 best of the three inputs' 258). */
/* b->screen for n terms' numerators and denominators. */
static pm_status screen_room(struct batch *b, size_t n, pm_error *err)
{
	double *more;

	if (n <= b->capscreen)
		return PM_OK;
	if (!(more = realloc(b->screen, 2 * n * sizeof(*more))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	b->screen = more;
	b->capscreen = n;
	return PM_OK;
}

/* Pool term t's numerator and denominator of the add screen into
 * b->screen: one index of a pm__pool_for, the terms on every thread (the
 * screen is a pass over every row of every term of the pool, the larger
 * part of making the moves, which run between the parallel batches). */
static void screen_one(void *ctx, size_t t, unsigned worker)
{
	const struct batch *b = ctx;
	const struct search *s = b->s;
	const double *e = b->e, *m = b->m, *phi = s->pool[t].col;
	double num = 0.0, den = 0.0;

	(void)worker;
	for (size_t r = 0; !s->pool[t].sel && r < s->n; r++) {
		double v = m[r] * phi[r];

		num += s->w[r] * e[r] * v;
		den += s->w[r] * v * v;
	}
	b->screen[2 * t] = num;
	b->screen[2 * t + 1] = den;
}

static pm_status add_terms(struct search *s, const struct hyp *h, struct batch *b,
			   pm_error *err)
{
	double score[ADD_SCREEN];
	unsigned pick[ADD_SCREEN];
	size_t n = 0, npool = s->npool;
	pm_status st = PM_OK;

	if ((st = screen_room(b, npool, err)))
		return st;
	pm__pool_for(s->threads, npool, screen_one, b);
	for (size_t t = 0; t < npool; t++) {
		double num = b->screen[2 * t], den = b->screen[2 * t + 1], c;
		struct hyp g;
		size_t i;

		if (s->pool[t].sel)
			continue;
		if (!(num > 0 && den > 0))
			continue;
		if (!h->nt) {	/* from C alone: every one-factor term (below) */
			g = *h;
			g.t[g.nt++] = (unsigned)t;
			if ((st = pm__disc_consider(s, &g, b, err)))
				return st;
			continue;
		}
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
		if (pm__disc_normal(&g))
			st = pm__disc_consider(s, &g, b, err);
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
/* What products() screens seed i by, for the term of column phi: one
 * index of a pm__pool_for, the seeds on every thread. */
struct product_screen {
	struct batch *b;
	const double *phi;
	const unsigned *seed_term;
};

static void product_one(void *ctx, size_t i, unsigned worker)
{
	const struct product_screen *p = ctx;
	const struct search *s = p->b->s;
	const double *m = p->b->m, *ek = p->b->resid, *x = s->pool[p->seed_term[i]].col;
	double num = 0.0, den = 0.0;

	(void)worker;
	for (size_t r = 0; r < s->n; r++) {
		double v = m[r] * p->phi[r] * x[r];

		num += s->w[r] * ek[r] * v;
		den += s->w[r] * v * v;
	}
	p->b->screen[2 * i] = num;
	p->b->screen[2 * i + 1] = den;
}

static pm_status products(struct search *s, const struct hyp *h, const struct factor *seed,
			  const unsigned *seed_term, size_t nseed, struct batch *b, pm_error *err)
{
	const double *e = b->e, *m = b->m;
	double *ek = b->resid, left[MUL_SCREEN];
	unsigned pick[MUL_SCREEN], at[MUL_SCREEN], made[MUL_SCREEN];
	size_t n = 0;
	pm_status st = screen_room(b, nseed, err);

	for (unsigned k = 0; k < h->nt && !st; k++) {
		struct product_screen ps = { b, s->pool[h->t[k]].col, seed_term };
		double base = 0.0;

		for (size_t r = 0; r < s->n; r++) {
			ek[r] = e[r] + b->coef[k] * m[r] * ps.phi[r];
			base += s->w[r] * ek[r] * ek[r];
		}
		pm__pool_for(s->threads, nseed, product_one, &ps);
		for (size_t i = 0; i < nseed; i++) {
			double num = b->screen[2 * i], den = b->screen[2 * i + 1], q;
			struct term prod;
			unsigned was;
			size_t j;

			/* the screen's tests before the product is made (a copy of
			 * the term each) */
			if (!(num > 0 && den > 0))
				continue;
			q = base - num * num / den;
			if ((n == MUL_SCREEN && !(q < left[n - 1])) || !times(s, h, k, &seed[i], &prod))
				continue;
			/* a product tried before (from this hypothesis of an
			 * earlier step, or another of the beam) takes no place */
			if ((was = pm__disc_pool_find(s, &prod))) {
				struct hyp g = *h;

				g.t[k] = was - 1;
				if (!pm__disc_normal(&g) || pm__disc_was_tried(s, &g))
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
	/* the products' terms first, so that their columns are made together */
	for (size_t j = 0; j < n && !st; j++) {
		struct term prod;

		times(s, h, at[j], &seed[pick[j]], &prod);
		st = pm__disc_term_index(s, &prod, &made[j], err);
	}
	for (size_t j = 0; j < n && !st; j++) {
		struct hyp g = *h;

		g.t[at[j]] = made[j];
		if (pm__disc_normal(&g))
			st = pm__disc_consider(s, &g, b, err);
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

/* What climbs() screens climb i by: its numerator and denominator into
 * b->screen, from the partial residual of the term it replaces (b->resid:
 * a column of rows per term of h). One index of a pm__pool_for, the
 * climbs on every thread. */
static void climb_one(void *ctx, size_t i, unsigned worker)
{
	struct batch *b = ctx;
	const struct search *s = b->s;
	const double *m = b->m, *ek = b->resid + b->at[i] * s->n, *x = s->pool[b->by[i]].col;
	double num = 0.0, den = 0.0;

	(void)worker;
	for (size_t r = 0; r < s->n; r++) {
		double v = m[r] * x[r];

		num += s->w[r] * ek[r] * v;
		den += s->w[r] * v * v;
	}
	b->screen[2 * i] = num;
	b->screen[2 * i + 1] = den;
}

/* The climbs of h collected (a switch moved, a product's exponent or log
 * nudged) that are not tried yet, the CLIMB_SCREEN that best explain what
 * h's fit leaves with the term replaced taken out (as products() ranks
 * them). Every climb from the best four of the beam was evaluated: a third
 * of LeNet-5's hypotheses, of which 5 % entered the beam. The climbed
 * terms' columns are settled first (pm__disc_settle). */
static pm_status climbs(struct search *s, const struct hyp *h, struct batch *b, pm_error *err)
{
	const double *e = b->e, *m = b->m;
	double *ek = b->resid, left[CLIMB_SCREEN], base[MAX_SLOTS];
	unsigned pick[CLIMB_SCREEN];
	unsigned char has[MAX_SLOTS] = { 0 };
	size_t n = 0;
	pm_status st = screen_room(b, b->nclimb, err);

	pm__disc_settle(s, b->w);	/* the climbed terms' columns */
	/* each climbed term's partial residual, and what is left with it out */
	for (size_t i = 0; i < b->nclimb; i++)
		has[b->at[i]] = 1;
	for (unsigned k = 0; k < h->nt; k++) {
		const double *phi = s->pool[h->t[k]].col;
		double *ekk = ek + k * s->n;

		base[k] = 0.0;
		for (size_t r = 0; has[k] && r < s->n; r++) {
			ekk[r] = e[r] + b->coef[k] * m[r] * phi[r];
			base[k] += s->w[r] * ekk[r] * ekk[r];
		}
	}
	if (!st)
		pm__pool_for(s->threads, b->nclimb, climb_one, b);
	for (size_t i = 0; i < b->nclimb && !st; i++) {
		unsigned k = b->at[i];
		double num = b->screen[2 * i], den = b->screen[2 * i + 1], q;
		struct hyp g = *h;
		size_t j;

		if (!(num > 0 && den > 0))
			continue;
		q = base[k] - num * num / den;
		g.t[k] = b->by[i];
		if ((n == CLIMB_SCREEN && !(q < left[n - 1])) || !pm__disc_normal(&g) ||
		    pm__disc_was_tried(s, &g))
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
		if (pm__disc_normal(&g))
			st = pm__disc_consider(s, &g, b, err);
	}
	b->nclimb = 0;
	return st;
}

/* Switch f of term k of h moved to the next distinct value of its input
 * (dir 1) or the one before (-1), the largest value excluded: the fitted
 * breakpoint of a two-segment model, climbed as the exponents are (a climb
 * for climbs() to screen). Moved past its end it is on at every row: the
 * product without it (a one-factor switch has no such step). */
static pm_status shift(struct search *s, const struct hyp *h, unsigned k, unsigned f, int dir,
		       struct batch *b, pm_error *err)
{
	struct term t = s->pool[h->t[k]];
	const struct input *in = &s->in[t.f[f].input];
	size_t at = 0;
	unsigned idx;
	int above = t.f[f].kind == F_INDICATOR;
	pm_status st;

	if (t.f[f].kind == F_POWER)
		return PM_OK;
	while (in->value[at] != t.f[f].thr)
		at++;
	if ((dir < 0 && at == 0) || (dir > 0 && at + 2 >= in->nvalues)) {
		/* [x > smallest] down, [x <= second largest] up: always on */
		if (t.nf < 2 || (dir < 0) != above)
			return PM_OK;
		memmove(&t.f[f], &t.f[f + 1], (t.nf - f - 1) * sizeof(t.f[0]));
		t.nf--;
		if ((st = pm__disc_term_index(s, &t, &idx, err)))
			return st;
		return climb(b, k, idx, err);
	}
	t.f[f].thr = in->value[dir < 0 ? at - 1 : at + 1];
	if ((st = pm__disc_term_index(s, &t, &idx, err)))
		return st;
	return climb(b, k, idx, err);
}

/* Power f of term k of h (a product: a one-factor term takes any other
 * shape) given exponent `to`, within a half of its own, and dj log2s more
 * or less: the exponents of a product climbed (a climb for climbs()). The
 * exponent and the log move at once: a log traded for a power (x^1.5 *
 * log2(x) and x^2 fit 5 points alike, and every single step from the one
 * to the other fits worse), and the log alone (to = 0) for a small power
 * (log2(p) * q^(1/2) from p^(1/2) * q^(1/2)). */
static pm_status nudge(struct search *s, const struct hyp *h, unsigned k, unsigned f, double to,
		       int dj, struct batch *b, pm_error *err)
{
	const struct term *was = &s->pool[h->t[k]];
	const struct factor *fa = &was->f[f];
	int j = (int)fa->j + dj;
	struct term t;
	unsigned idx;
	pm_status st;

	/* tested on the pool's term: most nudges are refused, and a copy of
	 * the term for each was a third of the moves' own samples (perf) */
	if (was->nf < 2 || fa->kind != F_POWER || j < 0 || j > 2 ||
	    ((dj || to == 0) && !s->in[fa->input].log_ok) || (to == fa->e && !dj) ||
	    (to == 0 && !j) || !(fabs(to - fa->e) <= 0.5 + 1e-9))
		return PM_OK;
	t = *was;
	t.f[f].e = to;
	t.f[f].j = (unsigned)j;
	if ((st = pm__disc_term_index(s, &t, &idx, err)))
		return st;
	return climb(b, k, idx, err);
}

/* The moves from h: add a term of the pool; give a one-factor term
 * another shape of its input, a product's power the next exponent or log
 * (if `climber`), move a switch (those two screened, climbs()); split a
 * term per level of a categorical; multiply a term by a seed factor
 * (screened, products()); scale the terms by a categorical's levels;
 * offsets in place of C; segment a one-factor term at a breakpoint of its
 * input (discover_segments.c). */
pm_status pm__disc_moves(struct search *s, const struct hyp *h, const struct factor *seed,
		       const unsigned *seed_term, size_t nseed, unsigned max_terms, int climber,
		       struct batch *b, pm_error *err)
{
	int add = pm__disc_terms(s, h) < max_terms && h->nt < MAX_SLOTS;
	pm_status st = PM_OK;
	struct hyp g;

	/* what h leaves (b->e): the add and multiply moves screen their terms
	 * by it */
	if (add)
		st = add_terms(s, h, b, err);
	/* the new terms' columns are made at once, on the threads: those of
	 * the climbs before they are screened, the others' before a
	 * hypothesis of them is considered */
	s->defer = 1;
	/* another shape of a one-factor term's input: the exponents and logs
	 * of a skeleton are climbed here, as the beam keeps one of each */
	for (unsigned k = 0; k < h->nt && !st; k++)
		for (size_t t = 0; t < s->nsingle && s->pool[h->t[k]].nf == 1 && !st; t++) {
			const struct term *was = &s->pool[h->t[k]];
			unsigned idx = (unsigned)t;

			if (s->pool[t].f[0].input != was->f[0].input)
				continue;
			/* a term of every level is the one-factor term t itself:
			 * looked up only for a term of one level (a look-up each,
			 * likely a cache miss, was most of the moves' look-ups) */
			if (was->sel) {
				struct term shape = s->pool[t];

				shape.sel = was->sel;
				shape.lev = was->lev;
				st = pm__disc_term_index(s, &shape, &idx, err);
			}
			if (st || idx == h->t[k])
				continue;
			g = *h;
			g.t[k] = idx;
			if (pm__disc_normal(&g))
				st = pm__disc_consider(s, &g, b, err);
		}
	for (unsigned k = 0; k < h->nt && !st; k++)
		for (unsigned f = 0; f < s->pool[h->t[k]].nf && !st; f++) {
			for (int dir = -1; dir <= 1 && !st; dir += 2)
				st = shift(s, h, k, f, dir, b, err);
			for (size_t e = 0; climber && e <= DISC_NEXPO && !st; e++)
				for (int dj = -1; dj <= 1 && !st; dj++)
					st = nudge(s, h, k, f, e < DISC_NEXPO ? pm__disc_expo[e] : 0.0,
						   dj, b, err);
		}
	if (!st && h->nt)
		st = climbs(s, h, b, err);
	/* a term left out: a step back, to the fewer terms the search reached
	 * only through more (two true terms found beside a third of 1e-11) */
	for (unsigned k = 0; h->nt > 1 && k < h->nt && !st; k++) {
		g = *h;
		g.t[k] = g.t[--g.nt];
		if (pm__disc_normal(&g) && !pm__disc_was_tried(s, &g))
			st = pm__disc_consider(s, &g, b, err);
	}
	for (unsigned k = 0; k < h->nt && !st; k++)
		for (size_t c = 0; c < s->ncat && !st; c++)
			for (int best = 0; best < 2 && !st; best++)
				st = split(s, h, k, c, best, b, err);
	for (unsigned k = 0; k < h->nt && !st; k++)
		st = pm__disc_segments(s, h, k, max_terms, b, err);
	if (!st && nseed && h->nt)
		st = products(s, h, seed, seed_term, nseed, b, err);
	for (size_t c = 0; c < s->ncat && !st; c++) {
		if (h->nt && c < MAX_FACTOR_CATS && !(h->mask >> c & 1) && !pm__disc_split_terms(s, h, c)) {
			g = *h;
			g.mask |= 1u << c;
			st = pm__disc_consider(s, &g, b, err);
		}
		if (!st && h->offsets < 0) {
			g = *h;
			g.offsets = (int)c;
			st = pm__disc_consider(s, &g, b, err);
		}
	}
	pm__disc_settle(s, b->w);
	s->defer = 0;
	b->nclimb = 0;	/* none left for the next hypothesis, on an error too */
	return st;
}
