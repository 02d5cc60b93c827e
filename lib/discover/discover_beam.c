/* perfmodel discover's beam: the hypotheses a step evaluates, side by side
 * on the pool's threads, the set of those tried, and the beam that keeps
 * the best of each shape (discover_impl.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stop.h"
#include "discover/discover_impl.h"

/* hypotheses of one skeleton the beam keeps at most */
enum { PER_SKELETON = 4 };

static uint64_t key(const struct hyp *h)
{
	uint64_t k = UINT64_C(0xcbf29ce484222325);

	k = pm__disc_mix(k, h->nt);
	for (unsigned i = 0; i < h->nt; i++)
		k = pm__disc_mix(k, h->t[i]);
	k = pm__disc_mix(pm__disc_mix(k, (uint64_t)(h->offsets + 1)), h->mask);
	return k ? k : 1;
}

/* 1 if h was evaluated already (tried() below marks it too). */
int pm__disc_was_tried(const struct search *s, const struct hyp *h)
{
	uint64_t k = key(h);

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
static void keep(struct hyp *beam, size_t *n, size_t width, const struct hyp *h)
{
	size_t i, same_shape = 0, worst = 0;

	for (size_t k = 0; k < *n; k++)
		if (beam[k].skeleton == h->skeleton) {
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

int pm__disc_normal(struct hyp *h)
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

/* h to be evaluated this step, unless tried or too large. */
pm_status pm__disc_consider(struct search *s, const struct hyp *h, struct batch *b, pm_error *err)
{
	pm_status st = PM_OK;

	for (unsigned k = 0; k < h->nt; k++)
		if (h->t[k] >= s->settled) {
			pm__disc_settle(s, b->w);
			break;
		}
	for (unsigned k = 0; k < h->nt; k++)
		if (s->pool[h->t[k]].thin)
			return PM_OK;
	if (pm__disc_ncoef(s, h) > PM_NNLS_MAX || pm__disc_strata(s, h->mask) > MAX_STRATA ||
	    tried(s, h, err, &st))
		return st;
	return push(&b->h, &b->n, &b->cap, h, err);
}

/* s with scratch w: its shared parts only read, w written. */
struct search pm__disc_with_scratch(const struct search *s, const struct scratch *w)
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
	struct search local = pm__disc_with_scratch(b->s, &b->w[worker]);

	/* a step on many rows takes seconds: a stop request skips the rest */
	if (pm__stop_requested(b->stop)) {
		b->ok[i] = 0;
		return;
	}
	b->ok[i] = (unsigned char)pm__disc_evaluate(&local, &b->h[i]);
	b->h[i].skeleton = skeleton(b->s, &b->h[i]);
}

/* Evaluate the step's hypotheses on the pool's threads, then take them in
 * their order (so the result does not depend on the threads): a sound one
 * joins the beam. */
pm_status pm__disc_run_batch(struct search *s, pm_pool *pool, struct batch *b, struct hyp *beam,
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
		keep(beam, nbeam, width, &b->h[i]);
		/* C alone starts the search and is a candidate: a metric no input
		 * moves beyond the noise is a constant */
		st = push(&s->seen, &s->nseen, &s->capseen, &b->h[i], err);
	}
	free(b->ok);
	b->ok = NULL;
	b->n = 0;
	return st;
}