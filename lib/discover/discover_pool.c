/* perfmodel discover's pool of terms (discover_impl.h): every term tried,
 * once, by a hash set; the one-input terms of Extra-P's exponents, logs and
 * switches; a term's column and its support in configurations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/sort.h"
#include "discover/discover_impl.h"

/* configurations a term must be on at, and off at where it is off
 * anywhere: fitted to one or two, a switch or a product of switches
 * follows their runs' noise, and a search over thousands of them finds a
 * pair whose noise agrees (on 20 rows of a constant with 2 % noise,
 * [n <= 10] * [p <= 2] on 2 configurations held out 1.32 %, C 1.50 %) */
enum { MIN_SUPPORT = 3 };

/* The exponents i of x^i: Extra-P's default set (its 0 is the log alone,
 * below), and for strong scaling the negatives of those up to 2, ascending
 * (moves step to a neighbour). Thirds are written as fractions (x^(1/3)). */
const double pm__disc_expo[DISC_NEXPO] = {
	-2,	-1.5, -4.0 / 3, -1, -0.75, -2.0 / 3, -0.5, -1.0 / 3, -0.25,
	0.25,	1.0 / 3, 0.5, 2.0 / 3, 0.75, 0.8, 1, 1.25, 4.0 / 3, 1.5, 5.0 / 3, 1.75,
	2,	2.25, 7.0 / 3, 2.5, 8.0 / 3, 2.75, 3
};

/* The factors that seed products are quarters: the finer exponents of one
 * input's terms, multiplied across inputs, gave as many more products to
 * choose from, and on the bundled MLP and LeNet-5 sets the choice among
 * them held out worse (data/ddp_mlp.csv, a split of bench/select_vs_rf.sh:
 * 42.9 % rather than 20.5 %). A product's climbs take every exponent
 * (discover_moves.c), screened. */
int pm__disc_quarter(double e)
{
	return e * 4 == nearbyint(e * 4);
}

int pm__disc_same_factor(const struct factor *a, const struct factor *b)
{
	return a->input == b->input && a->kind == b->kind && a->e == b->e && a->j == b->j &&
	       a->thr == b->thr;
}

static int same_term(const struct term *a, const struct term *b)
{
	if (a->nf != b->nf || a->sel != b->sel || a->lev != b->lev)
		return 0;
	for (unsigned k = 0; k < a->nf; k++)
		if (!pm__disc_same_factor(&a->f[k], &b->f[k]))
			return 0;
	return 1;
}

static uint64_t bits(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

static uint64_t term_hash(const struct term *t)
{
	uint64_t k = pm__disc_mix(pm__disc_mix(pm__disc_mix(UINT64_C(0xcbf29ce484222325), t->nf), t->sel), t->lev);

	for (unsigned i = 0; i < t->nf; i++) {
		const struct factor *f = &t->f[i];

		k = pm__disc_mix(pm__disc_mix(pm__disc_mix(pm__disc_mix(pm__disc_mix(k, f->input), (uint64_t)f->kind), bits(f->e)), f->j),
			bits(f->thr));
	}
	return k;
}

/* The slot of term t, of hash k, in the pool's hash set: its entry, or an
 * empty slot (0) where it goes. An entry is the term's pool index + 1 in
 * its low 32 bits and the high 32 bits of its hash above them: a probe
 * reads a term only where those agree (the pool is megabytes, and a term
 * read was a cache miss a probe: most of the moves' look-ups). */
static size_t slot_of(const struct search *s, const struct term *t, uint64_t k)
{
	size_t mask = s->pool_slots - 1, i = k & mask;

	for (; s->pool_set[i]; i = (i + 1) & mask)
		if (s->pool_set[i] >> 32 == k >> 32 &&
		    same_term(&s->pool[(uint32_t)s->pool_set[i] - 1], t))
			break;
	return i;
}

unsigned pm__disc_pool_find(const struct search *s, const struct term *t)
{
	return (uint32_t)s->pool_set[slot_of(s, t, term_hash(t))];
}

/* term t's entry in the pool's hash set: its index + 1 under its hash's
 * high bits (slot_of) */
static uint64_t entry(size_t index, uint64_t k)
{
	return (k >> 32 << 32) | (index + 1);
}

/* Room in the pool's hash set for one more term (at most half full). */
static pm_status pool_room(struct search *s, pm_error *err)
{
	size_t slots = s->pool_slots ? 2 * s->pool_slots : 1024;
	uint64_t *old = s->pool_set;

	if (2 * (s->npool + 1) <= s->pool_slots)
		return PM_OK;
	if (!(s->pool_set = calloc(slots, sizeof(*s->pool_set)))) {
		s->pool_set = old;
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	s->pool_slots = slots;
	for (size_t i = 0; i < s->npool; i++) {
		uint64_t k = term_hash(&s->pool[i]);

		s->pool_set[slot_of(s, &s->pool[i], k)] = entry(i, k);
	}
	free(old);
	return PM_OK;
}

/* Term t on every row into col: the product of its factors' one-factor
 * terms' columns where the pool has them settled (the same products in
 * the same order as pm__disc_term_at, without a pow per row and factor:
 * the products and climbs the search builds are mostly of those; a
 * one-factor term's column is 1.0 times its factor, the factor's own
 * bits), each other factor computed. */
static void term_column(const struct search *s, const struct term *t, double *col)
{
	for (size_t r = 0; r < s->n; r++)
		col[r] = 1.0;
	for (unsigned k = 0; k < t->nf; k++) {
		struct term one = { .nf = 1, .f = { t->f[k] } };
		unsigned at = pm__disc_pool_find(s, &one);
		const double *x = at && at <= s->settled ? s->pool[at - 1].col : NULL;

		for (size_t r = 0; r < s->n; r++)
			col[r] *= x ? x[r] : pm__disc_term_at(s, &one, r, s->nin, 0.0);
	}
	for (size_t r = 0; t->sel && r < s->n; r++)	/* a term of one level */
		if (pm__disc_level(s, t->sel - 1, r) != t->lev)
			col[r] = 0.0;
}

/* Whether a term of column col is thin (struct term); mark: nconfigs of
 * scratch. */
static int thin(const struct search *s, unsigned char *mark, const double *col)
{
	size_t on = 0, off = 0;

	memset(mark, 0, s->nconfigs);
	for (size_t r = 0; r < s->n; r++) {
		unsigned char bit = col[r] != 0.0 ? 1 : 2;

		if (!(mark[s->config[r]] & bit)) {
			mark[s->config[r]] |= bit;
			on += bit == 1;
			off += bit == 2;
		}
	}
	return on < MIN_SUPPORT || (off && off < MIN_SUPPORT);
}

/* The pool index of term t (its factors in input order), added if new. */
/* Room for a term's column of s->n values, from slabs of about
 * COLUMN_SLAB bytes: a search makes thousands of terms (12 000 on
 * LeNet-5), and a column allocated on its own cost a malloc and page
 * faults one at a time. A new slab's first writes (the kernel's faults,
 * and on a VM the host's: a 64 MB buffer took 190 ms to write first, 3 ms
 * then, on this project's 2-core VM) are spread over the search's threads
 * in TOUCH_BYTES pieces: between the parallel batches the search runs on
 * one thread, and its new terms' columns were most of that (perf, issue
 * 38). NULL: no memory. */
#define COLUMN_SLAB ((size_t)4 << 20)
#define TOUCH_BYTES ((size_t)64 << 10)

struct touch {
	unsigned char *p;
	size_t n;
};

static void touch_piece(void *ctx, size_t i, unsigned worker)
{
	const struct touch *t = ctx;
	size_t at = i * TOUCH_BYTES;

	(void)worker;
	memset(t->p + at, 0, t->n - at < TOUCH_BYTES ? t->n - at : TOUCH_BYTES);
}

static double *new_column(struct search *s)
{
	size_t per = COLUMN_SLAB / (s->n * sizeof(double) + 1);
	double **more, *slab;
	struct touch t;

	per = per ? per : 1;
	if (!s->slab_free) {
		if (!(more = realloc(s->slab, (s->nslab + 1) * sizeof(*more))))
			return NULL;
		s->slab = more;
		if (!(slab = malloc(per * s->n * sizeof(double) + 1)))
			return NULL;
		t = (struct touch){ (unsigned char *)slab, per * s->n * sizeof(double) };
		pm__pool_for(s->threads, (t.n + TOUCH_BYTES - 1) / TOUCH_BYTES, touch_piece, &t);
		s->slab[s->nslab++] = slab;
		s->slab_free = per;
	}
	return s->slab[s->nslab - 1] + (per - s->slab_free--) * s->n;
}

pm_status pm__disc_term_index(struct search *s, const struct term *t, unsigned *index,
			    pm_error *err)
{
	struct term *nt;
	uint64_t k = term_hash(t);
	size_t slot;
	pm_status st;

	if ((st = pool_room(s, err)))
		return st;
	slot = slot_of(s, t, k);
	if (s->pool_set[slot]) {
		*index = (uint32_t)s->pool_set[slot] - 1;
		return PM_OK;
	}
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
	if (!(nt->col = new_column(s)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if (!s->defer) {
		term_column(s, nt, nt->col);
		nt->thin = thin(s, s->mark, nt->col);
		s->settled = s->npool + 1;
	}
	s->pool_set[slot] = entry(s->npool, k);
	*index = (unsigned)s->npool++;
	return PM_OK;
}

/* pm__disc_settle's terms: pool term `from` + i on worker's scratch. Only
 * settled terms' columns are read (term_column), and each term writes
 * its own. */
struct settle {
	struct search *s;
	const struct scratch *w;
	size_t from;
};

static void settle_one(void *ctx, size_t i, unsigned worker)
{
	const struct settle *c = ctx;
	struct term *t = &c->s->pool[c->from + i];

	term_column(c->s, t, t->col);
	t->thin = thin(c->s, c->w[worker].mark, t->col);
}

void pm__disc_settle(struct search *s, const struct scratch *w)
{
	struct settle c = { s, w, s->settled };

	pm__pool_for(s->threads, s->npool - c.from, settle_one, &c);
	s->settled = s->npool;
}

static pm_status single(struct search *s, struct factor f, pm_error *err)
{
	unsigned i;

	return pm__disc_term_index(s, &(struct term){ .nf = 1, .f = { f } }, &i, err);
}

/* The switches of input i: [x > v] and [x <= v] at up to BREAKS of its
 * distinct values but the largest, evenly spaced by rank, the smallest
 * always ([x > smallest]: an effect that switches on, the first of them;
 * [x <= v]: one that stops, such as the slow first iterations of a run).
 * The search moves a switch between neighbouring values (moves()). */
static pm_status switches(struct search *s, unsigned i, pm_error *err)
{
	struct input *in = &s->in[i];
	double *v = malloc(s->n * sizeof(*v) + 1);
	size_t m = 0;
	pm_status st = PM_OK;

	if (!(in->value = v))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	memcpy(v, in->x, s->n * sizeof(*v));
	qsort(v, s->n, sizeof(*v), pm__cmp_double);
	for (size_t r = 0; r < s->n; r++)
		if (!m || v[r] != v[m - 1])
			v[m++] = v[r];
	in->nvalues = m;
	for (int kind = F_INDICATOR; kind <= F_BELOW && !st; kind++)
		for (size_t k = 0; k < BREAKS && k < m - 1 && !st; k++) {
			/* rank k of BREAKS over 0 .. m-2; none twice */
			size_t at = m - 1 <= BREAKS ? k : k * (m - 2) / (BREAKS - 1);

			st = single(s, (struct factor){ i, kind, 0, 0, v[at] }, err);
			if (kind == F_INDICATOR && k == 0)
				s->indicator[i] = (unsigned)s->npool - 1;
		}
	return st;
}

/* Every one-factor term of every input: x^e * log2(x)^j, log2(x)^j, and
 * its switches, their columns made on the search's threads (a pow a row
 * for most: made one by one, a tenth of a search's serial time). */
pm_status pm__disc_single_terms(struct search *s, const struct scratch *w, pm_error *err)
{
	pm_status st = PM_OK;

	s->defer = 1;
	for (unsigned i = 0; i < s->nin && !st; i++) {
		const struct input *in = &s->in[i];

		for (size_t e = 0; in->power_ok && !in->two_values && e < DISC_NEXPO && !st; e++)
			for (unsigned j = 0; j <= (in->log_ok ? 2u : 0u) && !st; j++)
				st = single(s, (struct factor){ i, F_POWER, pm__disc_expo[e], j, 0 }, err);
		for (unsigned j = 1; in->log_ok && j <= 2 && !st; j++)
			st = single(s, (struct factor){ i, F_POWER, 0, j, 0 }, err);
		if (!st)
			st = switches(s, i, err);
	}
	s->defer = 0;
	if (!st)
		pm__disc_settle(s, w);
	s->nsingle = s->npool;
	return st;
}
