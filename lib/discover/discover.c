/* perfmodel discover (issue 21): find the terms of a performance model
 * rather than fit given ones (perfmodel.h, "discovering the model's terms";
 * docs/discover.md). A beam search over hypotheses, each move adding a term,
 * multiplying a term by another input's factor, scaling the terms by a
 * categorical's levels, or putting a categorical's offsets in place of C;
 * every hypothesis solved and scored on the folds of a validation scheme
 * (discover_solve.c); the winner written in the formula language
 * (discover_text.c) so that pm_fit refines it and every command can use it.
 * Here: the search's steps, the factors that seed products, and what a
 * search may take; the moves are discover_moves.c's, the beam
 * discover_beam.c's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/pool.h"
#include "core/stop.h"
#include "discover/discover_impl.h"
#include "discover/nnls.h"
#include "spec/spec_impl.h"

/* factors of each input that seed products: its best one-term models' */
enum { SEEDS = 4, MAX_STEPS = 24 };
/* the best of the beam whose products' exponents are climbed (each a move
 * per power factor and direction: on LeNet-5's 8-factor products, from
 * every hypothesis of the beam, the search took 4x the hypotheses) */
enum { CLIMBERS = 4 };
/* inputs whose seed factors are paired into the pool: of every pair of
 * every input's, the pool grew with the square of the columns (a 1 000-
 * column table took 5.5 GB) */
enum { PAIR_INPUTS = 16 };
/* What a search may take (memory_check), and the terms its moves add to
 * the pool per beam hypothesis and term of the budget, at most as measured
 * with a margin (the bundled MLP set: 17 807 terms in all, 564 of them
 * one-factor ones, since every one-factor term is tried from C alone and
 * products of more inputs' seed factors climb: 318 a beam hypothesis and
 * term; LeNet-5 12 063; the 1 000-column table of bench/wide_csv.py 9 312
 * beyond its one-factor ones before products climbed) */
#define MEMORY_BUDGET (1024.0 * 1024 * 1024)
enum { GROWTH_TERMS = 400 };

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
static pm_status pair_inputs(const struct search *s, unsigned char *keep, pm_error *err)
{
	double *best;

	memset(keep, s->nin <= PAIR_INPUTS, s->nin);
	if (s->nin <= PAIR_INPUTS)
		return PM_OK;
	if (!(best = malloc(s->nin * sizeof(*best))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
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
	return PM_OK;
}

/* Extra-P's combinations of each input's best one-factor term (its
 * multi-parameter modeler's: the sum, the product, and the product plus
 * one of them), of the COMBINE inputs whose best scored best, as
 * hypotheses of up to `budget` terms into b. A sum of one-input terms
 * (10 log2(p)^2 + 20 q^(1/2) log2(q)) is otherwise reached only from the
 * beam, which products of both inputs fill: the best one-term hypotheses
 * of each input alone are not in it. */
enum { COMBINE = 4 };

static pm_status combinations(struct search *s, unsigned budget, struct batch *b, pm_error *err)
{
	unsigned term[COMBINE], in[COMBINE];
	double score[COMBINE];
	size_t n = 0;
	pm_status st = PM_OK;

	for (size_t k = 0; k < s->nseen; k++) {
		const struct hyp *h = &s->seen[k];
		const struct term *t = h->nt == 1 ? &s->pool[h->t[0]] : NULL;
		size_t i = 0;

		if (!t || t->nf != 1 || t->sel || t->f[0].kind != F_POWER || h->mask ||
		    h->offsets >= 0)
			continue;
		while (i < n && in[i] != t->f[0].input)
			i++;
		if (i < n && !(h->score < score[i]))
			continue;
		if (i == n) {
			if (n == COMBINE && !(h->score < score[n - 1]))
				continue;
			i = n < COMBINE ? n++ : n - 1;
		}
		for (; i > 0 && h->score < score[i - 1]; i--) {	/* sorted by score */
			score[i] = score[i - 1];
			in[i] = in[i - 1];
			term[i] = term[i - 1];
		}
		score[i] = h->score;
		in[i] = t->f[0].input;
		term[i] = h->t[0];
	}
	/* every subset of 2 or more of them: the sum; of 2, the product and
	 * the product plus each */
	for (unsigned set = 0; set < 1u << n && !st; set++) {
		struct hyp g = { .offsets = -1 };
		struct term prod = { 0 };
		unsigned idx;

		for (unsigned i = 0; i < n; i++)
			if (set >> i & 1)
				g.t[g.nt++] = term[i];
		if (g.nt < 2)
			continue;
		if (g.nt <= budget && pm__disc_normal(&g))
			st = pm__disc_consider(s, &g, b, err);
		if (g.nt != 2 || st)
			continue;
		for (unsigned i = 0; i < 2; i++)	/* in input order */
			prod.f[prod.nf++] = s->pool[g.t[i]].f[0];
		if (prod.f[0].input > prod.f[1].input) {
			struct factor f = prod.f[0];

			prod.f[0] = prod.f[1];
			prod.f[1] = f;
		}
		if ((st = pm__disc_term_index(s, &prod, &idx, err)))
			break;
		for (unsigned i = 0; i < 3 && i <= budget - 1 && !st; i++) {
			struct hyp m = { .offsets = -1, .nt = 1, .t = { idx } };

			if (i)
				m.t[m.nt++] = g.t[i - 1];
			if (pm__disc_normal(&m))
				st = pm__disc_consider(s, &m, b, err);
		}
	}
	return st;
}

/* The fits to every row of the beam's hypotheses h[0..), whose moves are
 * made next (pm__disc_residual): h[i]'s residuals and multipliers into
 * e + 2 i rows, its coefficients into c + i PM_NNLS_MAX. One index of a
 * pm__pool_for, each on its thread's scratch w: made one by one in the
 * moves, these solves were a fifth of their serial time (perf, issue 38). */
struct beam_fits {
	const struct search *s;
	const struct scratch *w;
	const struct hyp *h;
	double *e, *c;
};

static void beam_fit(void *ctx, size_t i, unsigned worker)
{
	const struct beam_fits *f = ctx;
	struct search local = pm__disc_with_scratch(f->s, &f->w[worker]);
	double *e = f->e + 2 * i * f->s->n;

	pm__disc_residual(&local, &f->h[i], e, e + f->s->n, f->c + i * PM_NNLS_MAX);
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
	double *fits = malloc((2 * width * s->n + 1) * sizeof(*fits));
	double *coefs = malloc((width * PM_NNLS_MAX + 1) * sizeof(*coefs));
	struct batch b = { .s = s, .w = w, .stop = o->stop,
			   .resid = malloc((MAX_SLOTS * s->n + 1) * sizeof(*b.resid)) };
	pm_status st = PM_OK;

	if (!beam || !from || !seed || !seed_term || !pair || !fits || !coefs || !b.resid) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if (!(st = pm__disc_consider(s, &(struct hyp){ .offsets = -1 }, &b, err)))
		st = pm__disc_run_batch(s, pool, &b, beam, &n, width, err);
	for (int step = 0, first = 1; step < MAX_STEPS && !st && n; step++, first = 0) {
		size_t nfrom = n;
		int changed = 0;

		if (s->interrupted || pm__stop_requested(o->stop)) {
			s->interrupted = 1;
			break;
		}
		memcpy(from, beam, n * sizeof(*beam));
		pm__pool_for(pool, nfrom, beam_fit, &(struct beam_fits){ s, w, from, fits, coefs });
		for (size_t i = 0; i < nfrom && !st; i++) {
			b.e = fits + 2 * i * s->n;
			b.m = b.e + s->n;
			b.coef = coefs + i * PM_NNLS_MAX;
			st = pm__disc_moves(s, &from[i], seed, seed_term, nseed, budget, i < CLIMBERS, &b,
				   err);
		}
		if (!st)
			st = pm__disc_run_batch(s, pool, &b, beam, &n, width, err);
		for (size_t i = 0; i < n && !changed; i++)
			changed = i >= nfrom || !pm__disc_same(&beam[i], &from[i]);
		if (first && !st) {
			nseed = seeds(s, seed);
			st = pair_inputs(s, pair, err);
			s->defer = 1;	/* their columns made together, below */
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
			s->defer = 0;
			pm__disc_settle(s, w);
		} else if (!st && (!changed || step + 1 == MAX_STEPS)) {
			if (budget == o->max_terms)
				break;
			budget++;
			step = -1;
			if (!(st = combinations(s, budget, &b, err)))
				st = pm__disc_run_batch(s, pool, &b, beam, &n, width, err);
		}
	}
out:
	free(b.h);
	free(b.screen);
	free(b.at);
	free(b.by);
	free(b.resid);
	free(fits);
	free(coefs);
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
 * then the hypotheses remembered and each thread's scratch. Linear in the
 * inputs, so a wide table is refused with what to name, not after
 * gigabytes (a 1 000-column one took 5.5 GB). */
static pm_status memory_check(const struct search *s, const pm_discover_options *o,
			      pm_error *err)
{
	double per_term = (double)sizeof(struct term) + 32.0 + 8.0 * (double)s->n;
	double singles = (double)s->nin * (DISC_NEXPO * 3 + 2 + 2 * BREAKS);
	double seeds = (double)(s->nin < PAIR_INPUTS ? s->nin : PAIR_INPUTS) * (SEEDS + 5);
	double growth = (double)GROWTH_TERMS * o->beam * o->max_terms;
	double hyps = (double)o->beam * (ADD_SCREEN + MUL_SCREEN) * MAX_STEPS * o->max_terms;
	double threads = o->threads ? o->threads : pm_cpu_count();
	/* the inputs, the beam's fits and the moves' partial residuals */
	double in = ((double)s->nin * 16.0 + (2.0 * o->beam + MAX_SLOTS) * 8.0) * (double)s->n;
	double scratch = threads * ((2.0 * MAX_STRATA * PM_NNLS_MAX * (PM_NNLS_MAX + 1) +
				     FOLD_SCRATCH) * 8.0 + 2.0 * (double)s->n);
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
		free(w[i].mark);
	}
	free(w);
}

/* The pool of o's threads (0: the CPUs), the search's (s->threads), and
 * each one's solver scratch. */
static pm_status workers(struct search *s, const pm_discover_options *o, pm_pool **pool,
			 struct scratch **w, pm_error *err)
{
	pm_status st = pm__pool_new(o->threads ? o->threads : pm_cpu_count(), pool, err);
	unsigned n;

	if (st)
		return st;
	s->threads = *pool;
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
		k->mark = malloc(s->nconfigs + 1);
		if (!k->mult || !k->gram_all || !k->gram || !k->vec_all || !k->vec || !k->strat ||
		    !k->lv || !k->fold || !k->mark)
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
	    (st = workers(&sr, &opt, &pool, &w, err)) || (st = pm__disc_single_terms(&sr, w, err)) ||
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
		struct search local = pm__disc_with_scratch(&sr, &w[0]);

		if ((st = pm__disc_choose(&local, w, rs, &opt, x, err)))
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
