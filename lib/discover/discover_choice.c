/* perfmodel discover's choice among the hypotheses its search scored
 * (discover_impl.h): the finalists scored again on more dealings of the
 * folds, then the fewest terms within one standard error of the best, or of
 * the noise floor of repeated configurations where that is higher. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detmath.h"
#include "core/erfc.h"
#include "core/error.h"
#include "discover/discover_impl.h"
#include "discover/nnls.h"
#include "select/yardstick.h"

/* The finalists: the FINAL_TOP best of the search and the FINAL_PER_SIZE
 * best of each complexity (the parsimony rule compares sizes). They are
 * scored on DEALINGS dealings of the folds in all: of thousands of
 * hypotheses scored on one dealing, the best is the luckiest as much as the
 * best (on 20 rows of a constant with 2 % noise, 3 switch terms that fitted
 * the noise held out 0.96 %, the constant 1.6 %); a term that fits the
 * noise gains on one dealing and loses on the others, a real one gains on
 * every one. */
enum { FINAL_TOP = 16, FINAL_PER_SIZE = 4, DEALINGS = 5 };

/* How many parameters' worth of structure: terms, each split of a term
 * per level, the offsets and each categorical scaling the terms. */
static unsigned complexity(const struct search *s, const struct hyp *h)
{
	unsigned c = pm__disc_terms(s, h) + (h->offsets >= 0);

	for (size_t k = 0; k < s->ncat; k++)
		c += pm__disc_split_terms(s, h, k) > 0;
	for (unsigned m = h->mask; m; m &= m - 1)
		c++;
	return c;
}

/* How unusual the terms' shapes are: each factor past a term's first, each
 * log, each fractional exponent; of two hypotheses equally good, a reader's
 * first guess (n^2 rather than n^2 * log2(n)) is the one to write. */
static unsigned shape(const struct search *s, const struct hyp *h)
{
	unsigned u = 0;

	for (unsigned k = 0; k < h->nt; k++)
		for (unsigned f = 0; f < s->pool[h->t[k]].nf; f++) {
			const struct factor *fa = &s->pool[h->t[k]].f[f];

			u += (f > 0) + fa->j + (fa->kind == F_POWER && fa->e != floor(fa->e));
		}
	return u;
}

/* By score, then the fewer coefficients, then the place before the sort:
 * hypotheses of one score and size are common (terms that fit every row
 * alike), and qsort leaves their order to the C library (glibc 2.36's
 * merge sort kept it; other libraries' sorts do not), while the finalists,
 * the alike groups' representatives and the table take the first. */
static int by_score(const void *a, const void *b)
{
	const struct hyp *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	if (x->complexity != y->complexity)
		return x->complexity < y->complexity ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static void sort_by_score(struct hyp *h, size_t n)
{
	for (size_t k = 0; k < n; k++)
		h[k].order = (unsigned)k;	/* n < 2^32: the memory limit */
	qsort(h, n, sizeof(*h), by_score);
}

/* s->seen sorted by score, its finalists moved to the front in that order:
 * their number. */
static size_t finalists(struct search *s)
{
	unsigned per[MAX_SLOTS + MAX_FACTOR_CATS + 2] = { 0 };
	size_t n = 0;

	for (size_t k = 0; k < s->nseen; k++) {
		s->seen[k].complexity = complexity(s, &s->seen[k]);
		s->seen[k].adequate = 0;
	}
	sort_by_score(s->seen, s->nseen);
	for (size_t k = 0; k < s->nseen; k++) {
		unsigned c = s->seen[k].complexity < sizeof(per) / sizeof(per[0])
				     ? s->seen[k].complexity
				     : sizeof(per) / sizeof(per[0]) - 1;

		if (n < FINAL_TOP || per[c] < FINAL_PER_SIZE) {
			struct hyp h = s->seen[k];

			memmove(&s->seen[n + 1], &s->seen[n], (k - n) * sizeof(h));
			s->seen[n++] = h;
		}
		per[c]++;
	}
	return n;
}

static int same_dealing(const pm_folds *a, const pm_folds *b)
{
	return a->nfolds == b->nfolds &&
	       memcmp(a->fold, b->fold, a->nrows * sizeof(*a->fold)) == 0;
}

/* A finalist scored on another dealing: one index of a pm__pool_for, the
 * finalists on the search's threads (each on its own copy of the
 * hypothesis and its thread's scratch w), summed in order after. */
struct rescoring {
	const struct search *s;
	const struct scratch *w;
	struct hyp *h;
};

static void rescore_one(void *ctx, size_t i, unsigned worker)
{
	const struct rescoring *r = ctx;
	struct search local = pm__disc_with_scratch(r->s, &r->w[worker]);

	/* sound on every row as before: only the folds moved */
	pm__disc_evaluate(&local, &r->h[i]);
}

/* The finalists' scores and standard errors: their means over the dealings
 * of kfold's seeds seed, seed + 1, ... (one for another scheme, or where
 * the deal cannot differ: a fold per configuration). s->folds is the
 * first's again on return. Sets *dealings. */
static pm_status rescore(struct search *s, const struct scratch *w, const pm_spec *rs,
			 const pm_validation *v, size_t nfinal, unsigned *dealings, pm_error *err)
{
	const pm_folds *first = s->folds;
	pm_validation again = *v;
	struct rescoring r = { s, w, malloc((nfinal + 1) * sizeof(*r.h)) };
	pm_status st = PM_OK;

	*dealings = 1;
	if (!r.h)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	s->cutoff = INFINITY;
	for (unsigned k = 1; k < DEALINGS && v->scheme == PM_SCHEME_KFOLD && !st; k++) {
		pm_folds f = { 0 };

		again.seed = v->seed + k;
		if ((st = pm_validation_folds(s->d, rs, &again, &f, err)))
			break;
		if (same_dealing(&f, first) || f.nfolds != first->nfolds) {
			pm_folds_free(&f);
			break;
		}
		if (!(st = pm__disc_deal(s, &f, err))) {
			memcpy(r.h, s->seen, nfinal * sizeof(*r.h));
			pm__pool_for(s->threads, nfinal, rescore_one, &r);
			for (size_t i = 0; i < nfinal; i++) {
				s->seen[i].score += r.h[i].score;
				s->seen[i].se += r.h[i].se;
			}
			++*dealings;
		}
		pm_folds_free(&f);
	}
	free(r.h);
	for (size_t i = 0; i < nfinal; i++) {
		s->seen[i].score /= *dealings;
		s->seen[i].se /= *dealings;
	}
	return st ? st : pm__disc_deal(s, first, err);
}

/* The repeated configurations' pure error (issue 33, "a term must earn its
 * place by more than the noise"): each run's relative distance from its
 * configuration's mean, squared and summed (ss) over df = rows - configs
 * degrees of freedom; each configuration's mean and runs. */
struct purity {
	double ss;
	size_t df;
	double *mean, *runs;
};

static pm_status purity(const struct search *s, struct purity *p, pm_error *err)
{
	p->mean = calloc(s->nconfigs + 1, sizeof(*p->mean));
	p->runs = calloc(s->nconfigs + 1, sizeof(*p->runs));
	if (!p->mean || !p->runs)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t r = 0; r < s->n; r++) {
		p->mean[s->config[r]] += s->y[r];
		p->runs[s->config[r]]++;
	}
	for (size_t c = 0; c < s->nconfigs; c++)
		p->mean[c] /= p->runs[c];
	p->ss = 0.0;
	for (size_t r = 0; r < s->n; r++) {
		double e = (s->y[r] - p->mean[s->config[r]]) / p->mean[s->config[r]];

		p->ss += e * e;
	}
	p->df = s->n - s->nconfigs;
	return PM_OK;
}

/* P(F > f) for F of (d1, d2) degrees of freedom, by Paulson's normal
 * approximation of the cube root of F (within a few thousandths of the
 * exact tail near the 5 % a test reads; no GSL routine that may reach its
 * error handler on many rows). The cube root and erfc are detmath.h's log
 * and exp and core/erfc.h's: the C library's differ between machines in
 * their last bits, and the test decides. f >= 0 (0: its cube root 0). */
static double f_tail(double f, double d1, double d2)
{
	double a = 2.0 / (9.0 * d1), b = 2.0 / (9.0 * d2), c = pm__exp(pm__log(f) / 3.0);
	double z = ((1 - b) * c - (1 - a)) / sqrt(b * c * c + a);

	return 0.5 * pm__erfc(z / sqrt(2.0));
}

/* Whether h's lack of fit is within the noise: the relative distance of
 * each configuration's mean from h's fit to every row, against the pure
 * error, by an F test at ADEQUATE (a model with as many coefficients as
 * configurations cannot be tested: not adequate). e and m: rows of
 * scratch. */
enum { ADEQUATE_PERCENT = 5 };

static int adequate(struct search *s, const struct hyp *h, const struct purity *p, double *e,
		    double *m, double *lof)
{
	double c[PM_NNLS_MAX], ss = 0.0;
	size_t k = pm__disc_ncoef(s, h);

	if (k >= s->nconfigs || !p->df || !(p->ss > 0))
		return 0;
	pm__disc_residual(s, h, e, m, c);
	memset(lof, 0, s->nconfigs * sizeof(*lof));
	for (size_t r = 0; r < s->n; r++)
		lof[s->config[r]] += e[r];
	for (size_t i = 0; i < s->nconfigs; i++) {
		double d = lof[i] / p->runs[i] / p->mean[i];

		ss += p->runs[i] * d * d;
	}
	return f_tail((ss / (double)(s->nconfigs - k)) / (p->ss / (double)p->df),
		      (double)(s->nconfigs - k), (double)p->df) >= ADEQUATE_PERCENT / 100.0;
}

/* Whether a and b fit every row alike: terms that are one on the data
 * (world_size in {1, 2} makes [w > 1] * w^e one column for every e). e: 3
 * rows of scratch. */
static int alike(struct search *s, const struct hyp *a, const struct hyp *b, double *e)
{
	double c[PM_NNLS_MAX];

	if (a->complexity != b->complexity ||
	    !(fabs(a->score - b->score) <= 1e-9 * fmax(1.0, fabs(a->score))))
		return 0;
	pm__disc_residual(s, a, e, e + s->n, c);
	pm__disc_residual(s, b, e + 2 * s->n, e + s->n, c);
	for (size_t r = 0; r < s->n; r++)
		if (!(fabs(e[r] - e[2 * s->n + r]) <= 1e-9 * s->y[r]))
			return 0;
	return 1;
}

/* The finalists s->seen[0..n) (by score), each group that fits every row
 * alike kept once, as its plainest shape: the table lists hypotheses, not
 * spellings of one. Their number. */
static size_t merge_alike(struct search *s, size_t n, double *e)
{
	size_t kept = 0;

	sort_by_score(s->seen, n);
	for (size_t k = 0; k < n; k++) {
		size_t j = 0;

		while (j < kept && !alike(s, &s->seen[j], &s->seen[k], e))
			j++;
		if (j == kept)
			s->seen[kept++] = s->seen[k];
		else if (shape(s, &s->seen[k]) < shape(s, &s->seen[j]))
			s->seen[j] = s->seen[k];
	}
	return kept;
}

static pm_status add_candidate(const struct search *s, const struct hyp *h, pm_discovery *x,
				pm_error *err)
{
	pm_discovered *c = &x->cand[x->n];

	if (!(c->formula = pm__disc_formula(s, h, 0)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	c->terms = pm__disc_terms(s, h);
	c->mape = h->score;
	c->mape_se = h->se;
	x->n++;
	return PM_OK;
}

/* a held-out MAPE difference below this (%) is rounding, not a better fit */
#define EXACT_PERCENT 1e-6

/* The report: the `top` best finalists, and the one chosen by parsimony
 * (the least structure within one standard error of the best, or of the
 * noise floor, then the plainest shapes, then the best; then the plainest
 * shapes of that much structure within one standard error of it), which is
 * among them or added after. */
static pm_status report(struct search *s, size_t nfinal, const pm_discover_options *o,
			pm_discovery *x, pm_error *err)
{
	const struct hyp *best, *chosen;
	double bar;
	size_t any = 0;
	pm_status st = PM_OK;

	sort_by_score(s->seen, nfinal);
	best = chosen = &s->seen[0];
	/* no hypothesis is better than another run of the same configuration,
	 * nor than rounding: on exact data the true law and the same with two
	 * terms more held out 1e-13 % and 1e-14 % */
	bar = fmax(best->score, isnan(x->noise_floor) ? 0.0 : x->noise_floor) + best->se +
	      EXACT_PERCENT;
	for (size_t k = 0; k < nfinal; k++)
		any += s->seen[k].adequate;
	for (size_t k = 1; k < nfinal; k++) {
		const struct hyp *h = &s->seen[k];

		/* where repeats measure the noise, the least structure whose
		 * lack of fit is within it, the best held out of that much */
		if (any ? h->adequate && (!chosen->adequate || h->complexity < chosen->complexity)
			: h->score <= bar &&
				  (h->complexity < chosen->complexity ||
				   (h->complexity == chosen->complexity &&
				    shape(s, h) < shape(s, chosen))))
			chosen = h;
	}
	/* a log or a fraction is worth its reading when it gains more than a
	 * standard error of the one it would replace: on GEMM times fitted
	 * to small n, n^3 * log2(n) / threads scored 0.1 % better than n^3 /
	 * threads, and extrapolated to 23 % rather than 8 % */
	for (size_t k = 0, first = (size_t)(chosen - s->seen); k < nfinal; k++) {
		const struct hyp *h = &s->seen[k];

		if (h->complexity == chosen->complexity && shape(s, h) < shape(s, chosen) &&
		    h->score <= s->seen[first].score + s->seen[first].se + EXACT_PERCENT &&
		    (!any || h->adequate))
			chosen = h;
	}
	if (!(x->cand = calloc(o->top + 1, sizeof(*x->cand))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	x->chosen = o->top;	/* until seen */
	for (size_t k = 0; k < nfinal && x->n < o->top && !st; k++) {
		if (pm__disc_same(&s->seen[k], chosen))
			x->chosen = x->n;
		st = add_candidate(s, &s->seen[k], x, err);
	}
	if (!st && x->chosen == o->top) {
		x->chosen = x->n;
		st = add_candidate(s, chosen, x, err);
	}
	if (!st && !(x->refined = pm__disc_formula(s, chosen, 1)))
		st = pm__fail(err, PM_ENOMEM, "out of memory");
	return st;
}

pm_status pm__disc_choose(struct search *s, const struct scratch *w, const pm_spec *rs,
			  const pm_discover_options *o, pm_discovery *x, pm_error *err)
{
	size_t nfinal = finalists(s);
	struct purity p = { 0 };
	double *e = malloc(3 * s->n * sizeof(*e) + s->nconfigs * sizeof(*e) + 1);
	pm_status st;

	if (!e)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if (!(st = pm__noise_floor(s->d, rs, &x->noise_floor, err)) &&
	    !(st = rescore(s, w, rs, &o->validate, nfinal, &x->dealings, err)))
		nfinal = merge_alike(s, nfinal, e);
	if (!st && !isnan(x->noise_floor) && !(st = purity(s, &p, err)))
		for (size_t k = 0; k < nfinal; k++)
			x->adequate += s->seen[k].adequate =
				adequate(s, &s->seen[k], &p, e, e + s->n, e + 2 * s->n);
	free(e);
	free(p.mean);
	free(p.runs);
	return st ? st : report(s, nfinal, o, x, err);
}
