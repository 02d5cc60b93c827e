/* perfmodel discover's shapes fitted to a part of the rows: each level's
 * own curve (a term split by a categorical, discover_moves.c) and each
 * side of a breakpoint of a numeric input (a segmented model: the segment
 * move). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "discover/discover_impl.h"
#include "discover/nnls.h"

/* breakpoints of an input a term is segmented at: evenly spaced by rank
 * among those with SIDE_VALUES values on either side */
enum { SEGMENT_BREAKS = 16, SIDE_VALUES = 3 };

static int in_part(const struct search *s, const struct part *p, size_t r)
{
	if (p->by_level)
		return pm__disc_level(s, p->cat, r) == p->level;
	return (s->in[p->input].x[r] > p->thr) == p->above;
}

static size_t best_shape(const struct search *s, unsigned i, const struct part *p)
{
	size_t best = s->nsingle, distinct = 0;
	double best_sse = INFINITY, seen[SIDE_VALUES];

	for (size_t r = 0; r < s->n && distinct < SIDE_VALUES; r++) {
		size_t k = 0;

		if (!in_part(s, p, r))
			continue;
		while (k < distinct && seen[k] != s->in[i].x[r])
			k++;
		if (k == distinct)
			seen[distinct++] = s->in[i].x[r];
	}
	for (size_t t = 0; t < s->nsingle && distinct == SIDE_VALUES; t++) {
		double G[4] = { 0 }, v[2] = { 0 }, a[2], sse = 0.0;

		if (s->pool[t].f[0].input != i || s->pool[t].f[0].kind != F_POWER)
			continue;
		for (size_t r = 0; r < s->n; r++)
			if (in_part(s, p, r)) {
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
			if (in_part(s, p, r)) {
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

/* A part's best shape, remembered (struct search): each is two passes
 * over every row for each shape of the input, and a step asks again for
 * the parts of the hypotheses it keeps (a tenth of discover's serial time
 * on LeNet-5). */
struct part_shape {
	unsigned input;
	struct part part;
	size_t best;
};

static int same_part(const struct part *a, const struct part *b)
{
	return a->by_level == b->by_level && a->input == b->input &&
	       (a->by_level ? a->cat == b->cat && a->level == b->level
			    : a->thr == b->thr && a->above == b->above);
}

size_t pm__disc_part_shape(struct search *s, unsigned i, const struct part *p)
{
	struct part_shape *more;
	size_t best;

	for (size_t k = 0; k < s->nshapes; k++)
		if (s->shapes[k].input == i && same_part(&s->shapes[k].part, p))
			return s->shapes[k].best;
	best = best_shape(s, i, p);
	/* out of memory: not remembered, the same answer */
	if (s->nshapes == s->capshapes) {
		size_t cap = s->capshapes ? 2 * s->capshapes : 64;

		if (!(more = realloc(s->shapes, cap * sizeof(*more))))
			return best;
		s->shapes = more;
		s->capshapes = cap;
	}
	s->shapes[s->nshapes++] = (struct part_shape){ i, *p, best };
	return best;
}

/* Term t with the switch of `above` thr of its factor f's input after
 * that factor; 0 if t has a switch of that input or no room. */
static int with_switch(const struct term *t, unsigned f, double thr, int above, struct term *out)
{
	unsigned input = t->f[f].input;

	for (unsigned i = 0; i < t->nf; i++)
		if (t->f[i].input == input && t->f[i].kind != F_POWER)
			return 0;
	if (t->nf == MAX_FACTORS)
		return 0;
	*out = *t;
	memmove(&out->f[f + 2], &out->f[f + 1], (t->nf - f - 1) * sizeof(out->f[0]));
	out->f[f + 1] = (struct factor){ input, above ? F_INDICATOR : F_BELOW, 0, 0, thr };
	out->nf++;
	return 1;
}

/* One side of breakpoint thr of factor f's input: term t with its switch
 * into g (shape: of a one-factor t, the side's own best one, nsingle for
 * none; else t's). */
static pm_status side(struct search *s, const struct term *t, unsigned f, size_t shape,
		      double thr, int above, struct hyp *g, pm_error *err)
{
	struct term u = *t, sw;
	unsigned idx;
	pm_status st;

	if (t->nf == 1) {
		if (shape == s->nsingle)
			return PM_OK;
		u.f[0] = s->pool[shape].f[0];
	}
	if (!with_switch(&u, f, thr, above, &sw))
		return PM_OK;
	if (!(st = pm__disc_term_index(s, &sw, &idx, err)))
		g->t[g->nt++] = idx;
	return st;
}

/* Term k of h segmented at the breakpoints of its factor f's input. */
static pm_status segment(struct search *s, const struct hyp *h, unsigned k, unsigned f,
			 unsigned budget, struct batch *b, pm_error *err)
{
	const struct term t = s->pool[h->t[k]];
	unsigned i = t.f[f].input;
	const struct input *in = &s->in[i];
	size_t first = SIDE_VALUES - 1, last, span;
	pm_status st = PM_OK;

	if (t.f[f].kind != F_POWER || in->nvalues < 2 * SIDE_VALUES)
		return PM_OK;
	last = in->nvalues - SIDE_VALUES - 1;
	span = last - first + 1;
	for (size_t n = 0; n < SEGMENT_BREAKS && n < span && !st; n++) {
		size_t at = first + (span <= SEGMENT_BREAKS ? n : n * (span - 1) / (SEGMENT_BREAKS - 1));
		double thr = in->value[at];
		size_t left = s->nsingle, right = s->nsingle;

		if (t.nf == 1) {
			left = pm__disc_part_shape(s, i, &(struct part){ .input = i, .thr = thr });
			right = pm__disc_part_shape(s, i, &(struct part){ .input = i, .thr = thr,
									   .above = 1 });
		}
		for (unsigned offset = 0; offset < 2 && offset + 2 <= budget && !st; offset++) {
			struct hyp g = *h;
			unsigned idx;

			g.t[k] = g.t[--g.nt];
			if (g.nt + 3 > MAX_SLOTS)
				break;
			if ((st = side(s, &t, f, left, thr, 0, &g, err)) ||
			    (st = side(s, &t, f, right, thr, 1, &g, err)))
				break;
			if (offset) {
				st = pm__disc_term_index(s, &(struct term){ .nf = 1, .f = { { i,
					F_INDICATOR, 0, 0, thr } } }, &idx, err);
				g.t[g.nt++] = idx;
			}
			if (!st && g.nt > h->nt - 1 + offset && pm__disc_normal(&g))
				st = pm__disc_consider(s, &g, b, err);
		}
	}
	return st;
}

pm_status pm__disc_segments(struct search *s, const struct hyp *h, unsigned k,
			    unsigned max_terms, struct batch *b, pm_error *err)
{
	unsigned budget = max_terms - (pm__disc_terms(s, h) - 1);
	pm_status st = PM_OK;

	if (s->pool[h->t[k]].sel || budget < 2)
		return PM_OK;
	for (unsigned f = 0; f < s->pool[h->t[k]].nf && !st; f++)
		st = segment(s, h, k, f, budget, b, err);
	return st;
}
