/* perfmodel discover's search state, shared by its files: discover.c (the
 * search's steps), discover_beam.c (a step's hypotheses evaluated, the
 * beam), discover_moves.c (the hypotheses one move away), discover_pool.c
 * (the pool of terms), discover_inputs.c (the inputs), discover_solve.c
 * (one hypothesis solved and scored), discover_choice.c (the choice among
 * the finalists), discover_text.c (a hypothesis as a formula). Private. */
#ifndef PM_DISCOVER_IMPL_H
#define PM_DISCOVER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"
#include "discover/nnls.h"
#include "perfmodel/perfmodel.h"

enum {
	MAX_TERMS = 6,		/* terms besides the constant, a term split per level
				 * counting as one */
	MAX_SLOTS = 24,		/* pool terms of a hypothesis: a split one is a term per level */
	MAX_SPLIT_LEVELS = 8,	/* levels of a categorical a term may be split by */
	MAX_FACTORS = 8,	/* factors of one term */
	MAX_STRATA = 64,	/* level combinations of the categoricals scaling the terms */
	MAX_FACTOR_CATS = 16,	/* categoricals that may scale the terms */
	FOLD_SCRATCH = 1 << 17	/* doubles: each fold's Grams of a hypothesis (solve_all) */
};

enum { F_POWER, F_INDICATOR, F_BELOW };

/* x^e * log2(x)^j (F_POWER; e = 0: the log alone), [x > thr] (F_INDICATOR)
 * or [x <= thr] (F_BELOW). A term has at most one power and one switch of
 * an input, in that order. */
struct factor {
	unsigned input;	/* into search.in */
	int kind;
	double e;
	unsigned j;
	double thr;
};

/* With sel > 0, the term is on at level `lev` of categorical sel - 1 only
 * (a curve of its own per level: [device == "gpu"] * n^3). */
struct term {
	unsigned nf;
	struct factor f[MAX_FACTORS];	/* in input order */
	unsigned sel, lev;
	double *col;	/* the term on every row */
	/* on, or off, at fewer than MIN_SUPPORT configurations (rows of equal
	 * inputs; discover_pool.c): fitted, it follows those few runs' noise, so
	 * no hypothesis has it */
	int thin;
};

struct input {
	const char *name;
	double *x;	/* every row */
	double max;
	size_t argmax;	/* a row at the largest value */
	int power_ok;	/* every value > 0: powers allowed */
	/* every value >= 1, some > 1, 3 distinct values or more: log2 allowed */
	int log_ok;
	/* 2 distinct values: a power only as a factor of a product (alone it
	 * is the switch [x > smallest]; discover_inputs.c) */
	int two_values;
	double *value;	/* its distinct values, ascending (switches' thresholds) */
	size_t nvalues;
};

/* t = sum_k c_k * M(r) * term_k(r) + (C or the offset of r's level), where
 * M(r) is the product over the categoricals in mask of their multiplier at
 * r's level. */
struct hyp {
	unsigned nt;
	unsigned t[MAX_SLOTS];	/* pool indices, ascending */
	int offsets;		/* the categorical with per-level offsets; -1: C */
	unsigned mask;		/* categoricals whose levels scale every term */
	double score, se;	/* held-out MAPE (%) over the folds, its standard error */
	unsigned complexity;	/* for the report's parsimony (discover_choice.c) */
	/* its terms' inputs, for the beam's PER_SKELETON: set where a step's
	 * hypotheses are evaluated, side by side (pm__disc_run_batch) */
	uint64_t skeleton;
	int adequate;		/* its lack of fit is within the noise (discover_choice.c) */
	/* its place before a sort by score (discover_choice.c; in what was
	 * padding: discover's memory estimate counts sizeof(struct hyp)) */
	unsigned order;
};

struct search {
	const pm_dataset *d;
	size_t n;
	double *y, *w;		/* the target; weights 1/t^2 */
	struct input *in;
	size_t nin;
	unsigned *indicator;	/* per input: the pool index of [x > smallest] */
	size_t *cat;		/* categorical columns */
	size_t ncat;
	uint32_t *codes;	/* ncat * n: each row's level */
	size_t *nlev;
	struct term *pool;	/* every term tried; the one-factor ones first */
	size_t npool, cap, nsingle;
	/* pool terms [0, settled) have their columns and thin flags; while
	 * `defer` is set (the moves), new terms wait for pm__disc_settle,
	 * which makes theirs all at once on the threads (a hypothesis's climbs
	 * make dozens of terms, a column over every row each, between the
	 * parallel batches) */
	size_t settled;
	int defer;
	uint64_t *pool_set;	/* pool indices + 1 by term hash (0: empty slot) */
	size_t pool_slots;
	double **slab;		/* the terms' columns (discover_pool.c) */
	size_t nslab, slab_free;	/* columns left in the last slab */
	pm_pool *threads;	/* the search's threads, once it has them: a slab's
				 * first writes are spread over them */
	size_t *config, nconfigs;	/* each row's configuration (configs.h) */
	unsigned char *mark;		/* nconfigs: a term's support (discover_pool.c) */
	const pm_folds *folds;
	size_t *fold_start, *fold_rows;	/* the rows of each fold, CSR; nfolds: kept */
	/* each fold's runs of one configuration as one group (their columns
	 * are the same): a row of it, their weights' sum and their weighted
	 * targets' sum; the groups of fold f are grp_start[f] .. [f + 1]. The
	 * Grams sum over groups, not rows: 4 runs a configuration, a quarter
	 * of the work */
	size_t *grp_row, *grp_start, *grp_of;	/* grp_of: scratch, nconfigs */
	double *grp_w, *grp_wy;
	/* scratch of the thread evaluating (discover.c gives each its own):
	 * the multipliers, MAX_FACTOR_CATS * MAX_STRATA; the Grams and vectors
	 * of every row and of a fold's training rows, per level combination */
	double *mult, *gram_all, *vec_all, *gram, *vec;
	unsigned char *strat;	/* each row's level combination of the hypothesis's mask */
	unsigned char *lv;	/* each combination's levels, MAX_STRATA * MAX_FACTOR_CATS */
	double *fold;		/* FOLD_SCRATCH: each fold's Grams and vectors */
	int folded;		/* fold holds the hypothesis's */
	size_t evaluated, rejected;
	/* a hypothesis whose MAPE on the rows it was fitted to exceeds this
	 * is not scored on the folds (pm__disc_evaluate; INFINITY: each is) */
	double cutoff;
	int interrupted;	/* a stop request ended the search */
	struct hyp *seen;	/* every hypothesis scored (discover_beam.c) */
	size_t nseen, capseen;
	uint64_t *tried;	/* hashes of every hypothesis evaluated: a set */
	size_t ntried, captried;
	/* pm__disc_part_shape's answers so far (discover_segments.c) */
	struct part_shape *shapes;
	size_t nshapes, capshapes;
};

/* A step's hypotheses to evaluate, side by side. */
struct batch {
	struct hyp *h;
	unsigned char *ok;
	size_t n, cap;
	struct search *s;
	struct scratch *w;	/* one per thread */
	/* the fit to every row of the hypothesis whose moves are made: each
	 * row's residual e and multiplier m, and its coefficients (made for
	 * the whole beam at once, on the threads: search_terms) */
	const double *e, *m, *coef;
	/* MAX_SLOTS * rows: each of its terms' partial residual (products,
	 * climbs) */
	double *resid;
	/* the climbs of the hypothesis whose moves are made: term at[i] of
	 * it replaced by pool term by[i] */
	unsigned *at, *by;
	size_t nclimb, capclimb;
	/* the add moves' screen: each pool term's numerator and denominator
	 * (discover_moves.c), 2 * capscreen; the climbs' too */
	double *screen;
	size_t capscreen;
	volatile sig_atomic_t *stop;
};

/* Each thread's solver scratch (struct search), and its term support's
 * (nconfigs: pm__disc_settle). */
struct scratch {
	double *mult, *gram_all, *vec_all, *gram, *vec;
	unsigned char *strat, *lv;
	double *fold;
	unsigned char *mark;
};

/* ---- the pool of terms (discover_pool.c) ---- */
enum { BREAKS = 6 };		/* values of an input where a switch may be */
enum { DISC_NEXPO = 28 };	/* exponents of x^i: pm__disc_expo */
/* The exponents, ascending: Extra-P's default set and negatives to -2. */
extern const double pm__disc_expo[DISC_NEXPO];
/* e is a quarter (a product's seed factors are: discover_pool.c). */
int pm__disc_quarter(double e);
int pm__disc_same_factor(const struct factor *a, const struct factor *b);
/* FNV-1a's step: hashes of terms and hypotheses. */
static inline uint64_t pm__disc_mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * UINT64_C(0x100000001b3);
}
/* The pool index + 1 of term t; 0: not in the pool. */
unsigned pm__disc_pool_find(const struct search *s, const struct term *t);
/* The pool index of term t (its factors in input order), added if new
 * (its column computed, and whether it is thin; while s->defer is set, by
 * pm__disc_settle). */
pm_status pm__disc_term_index(struct search *s, const struct term *t, unsigned *index,
			      pm_error *err);
/* The columns and thin flags of the terms added while s->defer was set,
 * made on s's threads (w: each one's scratch), the same values as one at
 * a time. */
void pm__disc_settle(struct search *s, const struct scratch *w);
/* Every one-factor term of every input: x^e * log2(x)^j, log2(x)^j, and
 * its switches (s->nsingle of them), their columns made on s->threads (w:
 * each one's scratch). */
pm_status pm__disc_single_terms(struct search *s, const struct scratch *w, pm_error *err);

/* ---- the inputs (discover_inputs.c) ---- */
/* s's numeric and categorical inputs from the resolved roles rs (an input
 * of one value left out; PM_EINVAL when none varies). */
pm_status pm__disc_inputs(struct search *s, const pm_spec *rs, pm_error *err);
/* Each row's configuration (s->config, s->nconfigs) and the scratch of a
 * term's support. */
pm_status pm__disc_configurations(struct search *s, const pm_spec *rs, pm_error *err);
/* The target on its time scale, the weights 1/t^2 (a 0 refused, named),
 * and the rows of s->folds' folds. */
pm_status pm__disc_target_and_folds(struct search *s, const pm_spec *rs, pm_error *err);
void pm__disc_search_free(struct search *s);

/* The columns of h: terms, then C or the offsets. */
size_t pm__disc_ncoef(const struct search *s, const struct hyp *h);
/* The level combinations of the categoricals in mask (1 for none). */
size_t pm__disc_strata(const struct search *s, unsigned mask);
/* Row r's level of categorical c. */
static inline uint32_t pm__disc_level(const struct search *s, size_t c, size_t r)
{
	return s->codes[c * s->n + r];
}
/* Term t at row r, input `over` at x instead (over >= s->nin: none). */
double pm__disc_term_at(const struct search *s, const struct term *t, size_t r, size_t over,
			double x);
/* Solve h on every fold's training rows and score it on the fold (h->score,
 * h->se); 1 if h is sound and scored, 0 if rejected (a term that adds
 * nothing, a prediction that collapses or explodes at twice an input's
 * largest value, a score that is not a number), 2 if its fit to every row
 * is above s->cutoff (not scored). Writes only s's scratch
 * and h: threads evaluate side by side, each with its own scratch. */
int pm__disc_evaluate(struct search *s, struct hyp *h);
/* h's fit to every row: each row's residual t - prediction into e, the
 * product of its categoricals' multipliers (1 without) into m, and its
 * coefficients into c (PM_NNLS_MAX). Writes s's scratch. */
void pm__disc_residual(struct search *s, const struct hyp *h, double *e, double *m, double *c);
/* a and b: the same terms, offsets and scaling. */
int pm__disc_same(const struct hyp *a, const struct hyp *b);
/* h's terms as max_terms counts them (a term split per level is one), and
 * those of them on at one level of categorical c. */
unsigned pm__disc_terms(const struct search *s, const struct hyp *h);
unsigned pm__disc_split_terms(const struct search *s, const struct hyp *h, size_t c);
/* s's folds f: the rows of each (fold_start, fold_rows, sized for as many
 * folds as the first dealing's) and s->folds = f. */
pm_status pm__disc_deal(struct search *s, const pm_folds *f, pm_error *err);
/* x's candidates and choice from s->seen (discover_choice.c): the
 * finalists scored on more dealings of o's folds, the fewest terms within
 * one standard error of the best or of the noise floor. Reorders s->seen;
 * s needs a thread's scratch, w each of s->threads' (the finalists are
 * scored again on them). */
pm_status pm__disc_choose(struct search *s, const struct scratch *w, const pm_spec *rs,
			  const pm_discover_options *o, pm_discovery *x, pm_error *err);
/* h in the formula language; malloc'd, NULL when out of memory. fitted:
 * every power a parameter (x^p1, ...) for the fit to refine, else the
 * search's fixed numbers. */
char *pm__disc_formula(const struct search *s, const struct hyp *h, int fitted);

/* ---- a step's hypotheses and the beam (discover_beam.c) ---- */
/* terms of the pool an add move tries from a hypothesis (add_terms); the
 * products a multiply move tries (products): discover_moves.c's screens,
 * which the memory a search may take counts (discover.c) */
enum { ADD_SCREEN = 128, MUL_SCREEN = 16 };
/* 1 if h was evaluated already. */
int pm__disc_was_tried(const struct search *s, const struct hyp *h);
/* h with its terms sorted, none twice; 0 if two are the same. */
int pm__disc_normal(struct hyp *h);
/* h into b, to be evaluated this step, unless tried, too large or of a
 * thin term (then PM_OK and nothing done); terms not settled yet are
 * settled first (pm__disc_settle). */
pm_status pm__disc_consider(struct search *s, const struct hyp *h, struct batch *b,
			    pm_error *err);
/* s with scratch w: its shared parts only read, w written. */
struct search pm__disc_with_scratch(const struct search *s, const struct scratch *w);
/* b's hypotheses evaluated on the pool's threads, then taken in their
 * order: a sound one joins beam[0..*nbeam) (the `width` best, ascending)
 * and s->seen. Empties b. */
pm_status pm__disc_run_batch(struct search *s, pm_pool *pool, struct batch *b, struct hyp *beam,
			     size_t *nbeam, size_t width, pm_error *err);

/* ---- the moves (discover_moves.c, discover_segments.c) ---- */
/* A part of the rows: those of level `level` of categorical `cat`
 * (by_level), or those where input `input` is above thr (above) or not. */
struct part {
	int by_level;
	size_t cat;
	uint32_t level;
	unsigned input;
	double thr;
	int above;
};
/* The one-factor power term of input i (x^e * log2(x)^j, log2(x)^j) that
 * best fits part p's rows alone as y ~ a * term + b, a > 0 (weights 1/t^2);
 * s->nsingle: none, the part having fewer than 3 values of the input.
 * Remembered in s->shapes: the beam's hypotheses ask for the same parts
 * step after step. */
size_t pm__disc_part_shape(struct search *s, unsigned i, const struct part *p);
/* The segment move: h's term k, for each power of an input x of it,
 * replaced by L * [x <= v] + R * [x > v], with and without an offset
 * [x > v] (a two-segment model), at up to 16 breakpoints v with 3 values of
 * x on either side, within max_terms; L and R are each side's own best
 * shape of a one-factor term, a product's own shape on both sides. */
pm_status pm__disc_segments(struct search *s, const struct hyp *h, unsigned k,
			    unsigned max_terms, struct batch *b, pm_error *err);
/* The hypotheses one move from h into b (pm__disc_consider), b->e, b->m
 * and b->coef h's fit (pm__disc_residual): seed[0..nseed) the factors
 * that seed products, seed_term their one-factor terms in the pool;
 * max_terms: the step's budget; climber: h's products' exponents are
 * climbed too. */
pm_status pm__disc_moves(struct search *s, const struct hyp *h, const struct factor *seed,
			 const unsigned *seed_term, size_t nseed, unsigned max_terms, int climber,
			 struct batch *b, pm_error *err);

#endif
