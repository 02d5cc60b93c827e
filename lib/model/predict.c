#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "model/model_impl.h"
#include "model/predict_impl.h"

/* Prediction runs on blocks of points, column by column: the block's
 * inputs are read once (an input under powers alone logged as it is read,
 * once for all of its factors; the others transposed), a factor's values
 * over the block are one loop of pm__log/pm__exp (branch-free,
 * detmath.h), which GCC vectorises, and the terms are summed over the
 * block the same way. A block gives the same bits as pm__terms_combine
 * point by point (the same IEEE operations in the same order, no
 * contraction), and so does a single point, whose power factors are one
 * such loop across the factors, so pm_model_predict, the batch, speedups
 * and by-name prediction agree. Nothing is allocated: a block's inputs and
 * factor values live in a stack array of AREA doubles (32 KiB, L1 on the
 * development EPYC; 16 KiB and blocks of 128 took 450 instructions a
 * LeNet-5 point against 435, and measured slower), so a
 * block has AREA / (ninputs + 1 + nfactors) points, at most BLOCK, whole
 * vectors where it can; a batch of a model too large for 2 points goes
 * point by point. */
#define AREA 4096
#define BLOCK 256
#define VECTOR 8	/* doubles in the widest clone's vector */

/* One point: input i is x[i], or vv where i is vi (SIZE_MAX: none): a
 * speedup varies one input of a caller's const point without copying it
 * (pm__predict_at). */
struct point {
	const pm_model *m;
	const double *x;
	size_t vi;
	double vv;
};

static inline double value_of(const struct point *p, size_t i)
{
	return i == p->vi ? p->vv : p->x[i];
}

/* Clones of predict_block and point_powers for AVX-512, AVX2 and the
 * baseline, chosen at load time (x86-64, GCC): 8, 4 or 2 points (or a
 * point's factors) a vector (AVX-512 also masks the selects). The table
 * lookups stay scalar loads: GCC's gathers (-mtune-ctrl=use_gather) made
 * bench/predict_bench slower on an AMD EPYC (19.5 against 22.8 M points/s)
 * and later no faster (docs/benchmarks.md). Without FMA (neither target
 * enables it, and -ffp-contract=off) every clone runs the same IEEE
 * operations: the same bits (tests/test_predict.c checks the batch and
 * single points against the terms evaluated in scalar code). The helpers are
 * always inlined, so that each clone has its own of them. The tests build
 * each clone alone too, whatever the machine's best (tests/meson.build):
 * PM_VECTOR_TARGET forces one target, PM_NO_VECTOR_CLONES the baseline. */
#if defined(PM_VECTOR_TARGET)
#define VECTOR_CLONES __attribute__((target(PM_VECTOR_TARGET)))
#define PM_INLINE __attribute__((always_inline))
#elif defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__ELF__) && \
	!defined(PM_NO_VECTOR_CLONES)
#define VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define PM_INLINE __attribute__((always_inline))
#else
#define VECTOR_CLONES
#define PM_INLINE
#endif

/* The test of one value of input i, for a point and a block alike: 1 if
 * the value can be taken, by the input's bounds in the model's point plan
 * (check_point's tests: model_impl.h). Values and & rather than branches,
 * so that the loops vectorise and a point's levels cost no mispredicted
 * branch. w = v * whole is an integer where whole is 1: x + 2^52 - 2^52
 * == x holds for 0 <= x < 2^52 exactly when x is an integer (floor,
 * without a call). in_bounds alone: an input under powers alone (whole
 * 0). */
static inline PM_INLINE int in_bounds(double v, double lo, double hi)
{
	return (v >= lo) & (v <= hi);
}

static inline PM_INLINE int value_ok(double v, double lo, double hi, double whole)
{
	double w = v * whole;

	return in_bounds(v, lo, hi) & (w + 0x1p52 - 0x1p52 == w);
}

/* Why the point cannot be predicted, in the order of the inputs; PM_OK if
 * it can. */
static pm_status check_point(const struct point *p, pm_error *err)
{
	const pm_model *m = p->m;

	for (size_t i = 0; i < m->ninputs; i++) {
		const pm_input *in = &m->inputs[i];
		double v = value_of(p, i);

		if (isnan(v))
			return pm__fail(err, PM_EDOMAIN, "input '%s' has no value (NaN)", in->name);
		if (in->role == PM_ROLE_CATEGORICAL) {
			if (!(v >= 0 && v < (double)in->nlevels && v == floor(v)))
				return pm__fail(err, PM_EDOMAIN,
						"input '%s': level index %g is not one of 0..%zu",
						in->name, v, in->nlevels - 1);
		} else if (pm__input_check(in, v, err)) {
			return PM_EDOMAIN;
		}
	}
	for (size_t f = 0; f < m->terms.nfactors; f++) {
		const pm_factor *fa = &m->terms.factor[f];

		if (fa->kind == PM_FACTOR_LOG2 && !(value_of(p, fa->input) >= 1))
			return pm__fail(err, PM_EDOMAIN, "input '%s': %g is below 1, as log2() needs",
					m->inputs[fa->input].name, value_of(p, fa->input));
	}
	return PM_OK;
}

/* The point's inputs from..from+n (n <= PM_POINT_INPUTS) into xs, a
 * speedup's varied input at its value. */
static void point_inputs(const struct point *p, size_t from, size_t n, double *xs)
{
	for (size_t i = 0; i < n; i++)
		xs[i] = value_of(p, from + i);
}

/* Whether check_point would pass inputs from..from+n of the point, their
 * values xs, without saying why not: the common case as one loop of
 * value_ok, without branches or calls. */
VECTOR_CLONES
static int inputs_valid(const pm_point_plan *pp, size_t from, size_t n, const double *xs)
{
	const double *lo = pp->in_lo + from, *hi = pp->in_hi + from, *whole = pp->in_whole + from;
	uint64_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad |= value_ok(xs[i], lo[i], hi[i], whole[i]) ? 0 : 1;
	return !bad;
}

/* A level() factor's value at level index v (checked before): pm__factor_eval's,
 * its exp taken once per model (pm__model_raw). */
static inline PM_INLINE double level_value(const pm_model *m, const pm_factor *fa, double v)
{
	return v > 0 && fa->power != PM_NONE ? m->exp_value[fa->power + (size_t)v - 1] : 1.0;
}

/* One point: factor f's value there. */
static double point_factor(const void *ctx, uint32_t f)
{
	const struct point *p = ctx;
	const pm_model *m = p->m;
	const pm_factor *fa = &m->terms.factor[f];

	if (fa->kind == PM_FACTOR_LEVEL)
		return level_value(m, fa, value_of(p, fa->input));
	return pm__factor_eval(fa, m->value,
			       pm__factor_base(fa, value_of(p, fa->input),
					       m->inputs[fa->input].log_scale));
}

static uint32_t point_level(const void *ctx, uint32_t i)
{
	return (uint32_t)value_of(ctx, i);
}

/* A block of n points as columns: in[i * n + k] is input i of point k, or
 * where logged[i], its power base log(x) - log_scale (block_columns);
 * fv[f * n + k] factor f's value there; zero[0..n) zeros. */
struct block {
	const pm_model *m;
	size_t n;
	double *in, *zero, *fv;
	unsigned char *logged;
};


/* Whether every point of the block passes check_point: the same tests on
 * columns, or-ed in a 64-bit integer (a lane of a double's width:
 * vectorised), without saying which point failed or why. */
static inline PM_INLINE int block_valid(const struct block *b)
{
	const pm_point_plan *pp = &b->m->point;
	size_t n = b->n;
	uint64_t bad = 0;

	for (size_t i = 0; i < b->m->ninputs; i++) {
		const double *restrict col = b->in + i * n;
		double lo = pp->in_lo[i], hi = pp->in_hi[i], whole = pp->in_whole[i];

		if (b->logged[i])
			continue;	/* checked by block_columns */
		for (size_t k = 0; k < n; k++)
			bad |= value_ok(col[k], lo, hi, whole) ? 0 : 1;
	}
	return !bad;
}

/* A level factor of at most LEVEL_SELECTS levels: its values (exp(param),
 * once per model) picked per point by selects (a vector loop each); with
 * more levels, looked up per point. */
#define LEVEL_SELECTS 16

static inline PM_INLINE void block_factors(const struct block *b)
{
	const pm_model *m = b->m;
	size_t n = b->n;

	for (size_t f = 0; f < m->terms.nfactors; f++) {
		const pm_factor *fa = &m->terms.factor[f];
		const double *restrict col = b->in + fa->input * n;
		double ls = m->inputs[fa->input].log_scale, *restrict v = b->fv + f * n;
		size_t nl = m->inputs[fa->input].nlevels;

		if (fa->kind == PM_FACTOR_POWER && b->logged[fa->input]) {
			double e = pm__factor_exponent(fa, m->value);

			for (size_t k = 0; k < n; k++)
				v[k] = pm__factor_value(e, col[k]);
		} else if (fa->kind == PM_FACTOR_POWER) {
			double e = pm__factor_exponent(fa, m->value);

			for (size_t k = 0; k < n; k++)
				v[k] = pm__factor_value(e, pm__power_base_finite(col[k], ls));
		} else if (fa->kind == PM_FACTOR_LEVEL && fa->power != PM_NONE &&
			   nl <= LEVEL_SELECTS) {
			for (size_t k = 0; k < n; k++)
				v[k] = 1.0;
			for (size_t l = 1; l < nl; l++) {
				double c = m->exp_value[fa->power + l - 1], level = (double)l;

				for (size_t k = 0; k < n; k++)
					v[k] = col[k] == level ? c : v[k];
			}
		} else if (fa->kind == PM_FACTOR_LEVEL) {
			for (size_t k = 0; k < n; k++)
				v[k] = level_value(m, fa, col[k]);
		} else {
			for (size_t k = 0; k < n; k++)
				v[k] = pm__factor_eval(fa, m->value, pm__factor_base(fa, col[k], ls));
		}
	}
}

/* acc[k] += the term's value at point k where its level is on: its
 * coefficient times its factors in order, in one loop for up to 3
 * factors (eq. 4.4 has 1 + the extrinsic ones). A term without a level is
 * on where the zero column is 0: everywhere. An off term adds +0, which
 * leaves the sum as skipping it would (a sum from +0 is never -0), and is
 * a select of values, which vectorises. */
static inline PM_INLINE void add_term(const struct block *b, const pm_term *tm, double *restrict acc)
{
	const pm_terms *t = &b->m->terms;
	size_t n = b->n;
	int off = tm->level_input == PM_NONE;
	const double *restrict col = off ? b->zero : b->in + tm->level_input * n;
	double c = b->m->value[tm->coef], level = off ? 0.0 : (double)tm->level, v[BLOCK];
	const double *w[3] = { NULL };
	uint32_t nf = tm->nfactors;

	for (uint32_t r = 0; r < nf && r < 3; r++)
		w[r] = b->fv + (size_t)t->ref[tm->first + r] * n;
	switch (nf) {
	case 0:
		for (size_t k = 0; k < n; k++)
			acc[k] += col[k] == level ? c : 0.0;
		return;
	case 1:
		for (size_t k = 0; k < n; k++)
			acc[k] += col[k] == level ? c * w[0][k] : 0.0;
		return;
	case 2:
		for (size_t k = 0; k < n; k++)
			acc[k] += col[k] == level ? c * w[0][k] * w[1][k] : 0.0;
		return;
	case 3:
		for (size_t k = 0; k < n; k++)
			acc[k] += col[k] == level ? c * w[0][k] * w[1][k] * w[2][k] : 0.0;
		return;
	default:
		for (size_t k = 0; k < n; k++)
			v[k] = c * w[0][k] * w[1][k] * w[2][k];
		for (uint32_t r = 3; r < nf; r++) {
			const double *restrict wr = b->fv + (size_t)t->ref[tm->first + r] * n;

			for (size_t k = 0; k < n; k++)
				v[k] *= wr[k];
		}
		for (size_t k = 0; k < n; k++)
			acc[k] += col[k] == level ? v[k] : 0.0;
	}
}


/* The block's columns from its points x (one after the other): an input
 * only under powers is logged as it is read, once for all of its factors,
 * and checked there (> 0, finite), which spares its transposition; the
 * others are transposed. 0 if a logged input is out of range. */
static inline PM_INLINE int block_columns(const struct block *b, const double *restrict x)
{
	const pm_model *m = b->m;
	size_t n = b->n, ni = m->ninputs;
	uint64_t bad = 0;

	for (size_t i = 0; i < ni; i++) {
		double *restrict col = b->in + i * n, ls = m->inputs[i].log_scale;
		double lo = m->point.in_lo[i], hi = m->point.in_hi[i];

		if (b->logged[i]) {
			uint64_t small = 0;

			/* logged as normal numbers; again with subnormals' scaling
			 * where there is one (all but never) */
			for (size_t k = 0; k < n; k++) {
				bad |= in_bounds(x[k * ni + i], lo, hi) ? 0 : 1;
				small |= x[k * ni + i] < 0x1p-1022 ? 1 : 0;
				col[k] = pm__power_base_normal(x[k * ni + i], ls);
			}
			for (size_t k = 0; small && k < n; k++)
				col[k] = pm__power_base_finite(x[k * ni + i], ls);
		} else {
#pragma GCC unroll 8
			for (size_t k = 0; k < n; k++)
				col[k] = x[k * ni + i];
		}
	}
	return !bad;
}

/* Points x[0..n) into out, if all of them can be predicted; 0 if not
 * (nothing written). */
VECTOR_CLONES
static int predict_block(struct block *b, const double *restrict x, double *restrict out)
{
	size_t n = b->n;
	double acc[BLOCK];

	if (!block_columns(b, x) || !block_valid(b))
		return 0;
	block_factors(b);
	for (size_t k = 0; k < n; k++)
		b->zero[k] = acc[k] = 0.0;
	for (size_t j = 0; j < b->m->terms.nterms; j++)
		add_term(b, &b->m->terms.term[j], acc);
	for (size_t k = 0; k < n; k++)
		out[k] = b->m->target_scale * acc[k];
	return 1;
}

/* One point: a block's loops would cost more than they save. The point
 * goes through the model's point plan (model_impl.h, pm_point_plan): its
 * inputs copied once into a stack array (a speedup's varied input in
 * place), the factor values computed once each (eq. 4.4 repeats every
 * extrinsic factor in every term), then the terms; a model without a plan
 * computes the factors where pm__terms_combine's terms use them. */

/* "n=1e+200, activation=relu, threads=2": the point, for an error message
 * (cut short at size; no allocation). */
static void describe_point(const struct point *p, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->m->ninputs && used < size; i++) {
		const pm_input *in = &p->m->inputs[i];
		double v = value_of(p, i);
		char num[PM_NUM_MAX];
		int n;

		if (in->role == PM_ROLE_CATEGORICAL)
			n = snprintf(buf + used, size - used, "%s%s=%s", i ? ", " : "", in->name,
				     in->levels[(size_t)v]);
		else
			n = (pm__num_format(num, v),
			     snprintf(buf + used, size - used, "%s%s=%s", i ? ", " : "", in->name, num));
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* One point's power factors, out[f] = x[f]^e[f] scaled by ls[f], as one
 * loop across the factors: it vectorises as a block's loop over points
 * does, with the same operations (so the same bits), instead of a scalar
 * log and exp per factor. x[f] > 0 and finite (checked before). x not
 * const: GCC takes a const array argument as read in full and warns that
 * the caller's entries past n are unset. */
VECTOR_CLONES
static void point_powers(size_t n, double *restrict x, const double *restrict ls,
			 const double *restrict e, double *restrict out)
{
	for (size_t f = 0; f < n; f++)
		out[f] = pm__factor_value(e[f], pm__power_base_finite(x[f], ls[f]));
}

/* A model of fewer power factors fills no AVX2 vector: its factors one by
 * one cost less than gathering them for point_powers, whose vector loads
 * of the values just stored one by one wait for the stores (gemm's 2
 * factors: 27 against 15 million points/s). */
#define POINT_VECTOR 4

/* The point's factor values fv by slot (pm_point_plan), from its inputs
 * xs; fv[nfactors] = 1. */
static void plan_factors(const struct point *p, const double *xs, double *fv)
{
	const pm_point_plan *pp = &p->m->point;
	size_t np = pp->npower;

	if (np < POINT_VECTOR) {
		for (size_t j = 0; j < np; j++)
			fv[j] = pm__factor_value(pp->power_e[j],
						 pm__power_base_finite(xs[pp->power_input[j]],
								       pp->power_ls[j]));
	} else {
		double x[PM_POINT_FACTORS];

		for (size_t j = 0; j < np; j++)
			x[j] = xs[pp->power_input[j]];
		point_powers(np, x, pp->power_ls, pp->power_e, fv);
	}
	for (size_t j = 0; j < pp->nother; j++) {
		const pm_factor *fa = &p->m->terms.factor[pp->other[j]];

		/* a level() multiplier (the multiplicative form has one per
		 * categorical) without point_factor's call */
		fv[np + j] = fa->kind == PM_FACTOR_LEVEL ? level_value(p->m, fa, xs[fa->input])
							 : point_factor(p, pp->other[j]);
	}
	fv[p->m->terms.nfactors] = 1.0;
}

/* Term k's value at a point of factor values fv: its coefficient times
 * its factors in order (pm__terms_combine's operations); `width` a
 * constant in each call of plan_terms, the product unrolled; 0: the
 * term's own length. */
static inline PM_INLINE double term_value(const pm_point_plan *pp, size_t k, uint32_t width,
					  const double *fv)
{
	const pm_point_term *pt = &pp->term[k];
	const uint32_t *slot = pp->slots + pt->first;
	uint32_t n = width ? width : pt->n;
	double v = pt->coef;

#pragma GCC unroll 4
	for (uint32_t r = 0; r < n; r++)
		v *= fv[slot[r]];
	return v;
}

/* The terms at one point from its inputs xs and factor values fv, run by
 * run (pm_point_plan): pm__terms_combine's sum. A term on where its level
 * is the point's adds +0 where it is off (a sum from +0 is never -0: the
 * same sum), v's bits and-ed with a mask of 0s or 1s, rather than being
 * skipped by a branch, which the levels of random points mispredict (GCC
 * makes a select of the point's doubles a branch). */
static inline PM_INLINE double terms_of_width(const pm_point_plan *pp, uint32_t width,
					      const double *xs, const double *fv)
{
	double sum = 0.0;

	for (size_t s = 0; s < pp->nseg; s++) {
		const pm_point_seg *sg = &pp->seg[s];

		switch (sg->kind) {
		case PM_RUN_EVERY:
			for (size_t k = sg->first; k < sg->first + sg->n; k++)
				sum += term_value(pp, k, width, fv);
			break;
		case PM_RUN_LEVELS:
			sum += term_value(pp, sg->first + (size_t)xs[sg->at], width, fv);
			break;
		case PM_RUN_ONE: {
			const pm_point_term *pt = &pp->term[sg->first];
			double v = term_value(pp, sg->first, width, fv);
			int on = xs[pt->at] == pt->level;

			sum += pm__dfrom(pm__dbits(v) & (UINT64_C(0) - (uint64_t)on));
		}
		}
	}
	return sum;
}

static double plan_terms(const pm_model *m, const double *xs, const double *fv)
{
	const pm_point_plan *pp = &m->point;

	switch (pp->width) {	/* eq. 4.4's: 1 + the extrinsic inputs */
	case 1: return terms_of_width(pp, 1, xs, fv);
	case 2: return terms_of_width(pp, 2, xs, fv);
	case 3: return terms_of_width(pp, 3, xs, fv);
	case 4: return terms_of_width(pp, 4, xs, fv);
	default: return terms_of_width(pp, 0, xs, fv);
	}
}

pm_status pm__predict_at(const pm_model *m, const double *x, size_t vi, double vv,
			 double *out, pm_error *err)
{
	double xs[PM_POINT_INPUTS], fv[PM_POINT_FACTORS + 1], v;
	struct point p = { m, x, vi, vv };
	pm_status st;
	int valid = 1;

	/* a plan's inputs in xs for its terms too; else PM_POINT_INPUTS at a
	 * time, for the tests alone */
	for (size_t i = 0, n; i < m->ninputs; i += n) {
		n = m->ninputs - i < PM_POINT_INPUTS ? m->ninputs - i : PM_POINT_INPUTS;
		point_inputs(&p, i, n, xs);
		valid &= inputs_valid(&m->point, i, n, xs);
	}
	if (!valid && (st = check_point(&p, err)))
		return st;
	if (m->point.ok) {
		plan_factors(&p, xs, fv);
		v = m->target_scale * plan_terms(m, xs, fv);
	} else {
		v = m->target_scale *
		    pm__terms_combine(&m->terms, m->value, point_factor, point_level, &p);
	}
	/* an overflow (or inf - inf) is no run time: say where, never hand it on */
	if (!isfinite(v)) {
		char where[200];

		describe_point(&p, where, sizeof(where));
		return pm__fail(err, PM_ERANGE, "the prediction at %s is not a finite number "
				"(the model overflows there)", where);
	}
	*out = v;
	return PM_OK;
}

pm_status pm_model_predict(const pm_model *m, const double *x, double *out, pm_error *err)
{
	/* x may be NULL for a model of no inputs */
	if (!m || (!x && m->ninputs) || !out)
		return pm__fail(err, PM_EINVAL, "pm_model_predict: a NULL argument");
	return pm__predict_at(m, x, SIZE_MAX, 0.0, out, err);
}

/* Points k0, k0 + 1, ... of n one by one (a block with a point the model
 * cannot take, or a model too large for blocks), the error's message
 * prefixed with the failing point's number. */
static pm_status one_by_one(const pm_model *m, const double *x, size_t k0, size_t n,
			    double *out, pm_error *err)
{
	for (size_t k = k0; k < k0 + n; k++) {
		pm_status st = pm__predict_at(m, x + k * m->ninputs, SIZE_MAX, 0.0, &out[k], err);

		if (st) {
			if (err) {
				char msg[sizeof(err->msg)];

				snprintf(msg, sizeof(msg), "%s", err->msg);
				snprintf(err->msg, sizeof(err->msg), "point %zu: %.480s", k + 1, msg);
			}
			return st;
		}
	}
	return PM_OK;
}

static int all_finite(const double *v, size_t n)
{
	int ok = 1;

	for (size_t i = 0; i < n; i++)	/* no early exit: it vectorises */
		ok &= isfinite(v[i]) != 0;
	return ok;
}

/* Which inputs a block logs as it reads them (block_columns): those under
 * power factors alone. */
static void logged_inputs(const pm_model *m, unsigned char *logged)
{
	for (size_t i = 0; i < m->ninputs; i++)
		logged[i] = 0;
	for (size_t f = 0; f < m->terms.nfactors; f++)
		if (m->terms.factor[f].kind == PM_FACTOR_POWER)
			logged[m->terms.factor[f].input] = 1;
	for (size_t f = 0; f < m->terms.nfactors; f++)
		if (m->terms.factor[f].kind != PM_FACTOR_POWER)
			logged[m->terms.factor[f].input] = 0;
}

pm_status pm_model_predict_batch(const pm_model *m, const double *x, size_t n, double *out,
				 pm_error *err)
{
	double area[AREA];
	unsigned char logged[AREA / 2];	/* ninputs < AREA / 2 where blocks run */
	size_t per;

	if (!m || (n && ((!x && m->ninputs) || !out)))
		return pm__fail(err, PM_EINVAL, "pm_model_predict_batch: a NULL argument");
	per = AREA / (m->ninputs + 1 + m->terms.nfactors);	/* + 1: the zero column */
	if (per > BLOCK)
		per = BLOCK;
	if (per > VECTOR)
		per -= per % VECTOR;	/* whole vectors: no scalar tail in every loop */
	if (per < 2)
		return one_by_one(m, x, 0, n, out, err);
	logged_inputs(m, logged);
	for (size_t k = 0; k < n; k += per) {
		struct block b = { m, n - k < per ? n - k : per, area, NULL, NULL, logged };

		b.zero = area + b.n * m->ninputs;
		b.fv = b.zero + b.n;
		/* a block with a point the model cannot take, or whose prediction
		 * is not finite, again one point at a time to say which */
		if (!predict_block(&b, x + k * m->ninputs, out + k) ||
		    !all_finite(out + k, b.n)) {
			pm_status st = one_by_one(m, x, k, b.n, out, err);

			if (st)
				return st;
		}
	}
	return PM_OK;
}
