/* The model as a list of terms (DESIGN.md §2): each term is a coefficient
 * times a product of factors, optionally times a level indicator
 * [categorical input == level]. A factor is one of (pm_factor_kind)
 * x^e, log2(x)^e, a per-level multiplier or an indicator [x op v]; a power
 * e is a parameter (or its negative: "/ x^q" is x^-q) or a fixed number, and
 * parameters may be shared between terms (eq. 4.4 shares every q_j).
 * Prediction evaluates the list directly with pm__terms_combine(); the fit
 * compiles it into a faster plan (cost.h) that gives the same numbers up to
 * rounding. Both compute a factor as pm__factor_eval() of
 * pm__factor_base(). */
#ifndef PM_TERMS_H
#define PM_TERMS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "core/detmath.h"
#include "perfmodel/predict.h"

#define PM_NONE UINT32_MAX

typedef enum pm_factor_kind {
	PM_FACTOR_POWER = 0,	/* x^e, e = ±param[power] or fixed */
	PM_FACTOR_LOG2,		/* log2(x)^e, likewise; 0 where x = 1 */
	PM_FACTOR_LEVEL,	/* exp(param[power + v - 1]) at level v > 0, 1 at level 0 */
	PM_FACTOR_INDICATOR	/* 1 where x op threshold holds, else 0 */
} pm_factor_kind;

typedef enum pm_cmp { PM_CMP_GT = 0, PM_CMP_GE, PM_CMP_LT, PM_CMP_LE, PM_CMP_EQ, PM_CMP_NE } pm_cmp;

typedef struct pm_factor {
	uint32_t input;		/* the input it is a function of */
	uint32_t power;		/* parameter index of its power (of the first level's
				 * log multiplier), or PM_NONE: fixed */
	pm_factor_kind kind;
	int negate;		/* power: e = -param[power] ("/ x^q") */
	double fixed;		/* power: e when power is PM_NONE */
	pm_cmp op;		/* indicator: [x op threshold] */
	double threshold;
} pm_factor;

typedef struct pm_term {
	uint32_t coef;		/* parameter index of the coefficient */
	uint32_t level_input;	/* categorical input, or PM_NONE */
	uint32_t level;		/* the level the term is on for */
	uint32_t first, nfactors;	/* factor indices: ref[first .. first+nfactors) */
} pm_term;

typedef struct pm_terms {
	size_t nfactors;	/* distinct (input, power) pairs */
	pm_factor *factor;
	size_t nterms;
	pm_term *term;
	uint32_t *ref;		/* factor indices used by the terms */
} pm_terms;

typedef struct pm_param_desc {
	pm_param_kind kind;
	uint32_t input;	/* the input it belongs to, PM_NONE for C */
	uint32_t level;	/* for PM_PARAM_LEVEL */
} pm_param_desc;

/* Build eq. 4.4 for inputs of the given roles (nlevels[i] for categorical
 * ones). Parameters are numbered in the model.json order: the base a0 if
 * any (below), then for each input in order, intrinsic: a_i then p_i;
 * categorical: b for each level; extrinsic: q_j; last C. *desc (malloc'd,
 * nparams entries) describes each.
 * With extrinsic inputs alone, eq. 4.4's sum is empty and t would be the
 * constant C whatever the data: with `base` set, a base coefficient a0
 * (PM_PARAM_COEF of no input) takes the sum's place, t = a0 * prod_j
 * E_j^q_j + C (docs/maths.md). base 0 leaves it out: the list of models
 * saved before it existed, which model_load.c still reads. */
pm_status pm__terms_additive(size_t ninputs, const pm_role *role, const size_t *nlevels,
			     int base, pm_terms *t, pm_param_desc **desc, size_t *nparams,
			     pm_error *err);
/* Whether eq. 4.4 of these roles has the base a0: some input, every one
 * extrinsic. */
int pm__terms_additive_has_base(size_t ninputs, const pm_role *role);
void pm__terms_free(pm_terms *t);	/* frees the arrays, keeps t */

/* The value of the terms at one point: terms in order, each coef * factors
 * in order. factor(ctx, f) gives the value of factor f there, level(ctx, i)
 * the level index of categorical input i. Static inline with constant
 * callbacks: the compiler inlines them. Also the reference the fit's plan is
 * tested against (tests/test_cost.c). */
typedef double (*pm_factor_fn)(const void *ctx, uint32_t factor);
typedef uint32_t (*pm_level_fn)(const void *ctx, uint32_t input);

static inline double pm__terms_combine(const pm_terms *t, const double *param,
				       pm_factor_fn factor, pm_level_fn level,
				       const void *ctx)
{
	double sum = 0.0;

	for (size_t k = 0; k < t->nterms; k++) {
		const pm_term *tm = &t->term[k];
		double v;

		if (tm->level_input != PM_NONE && level(ctx, tm->level_input) != tm->level)
			continue;
		v = param[tm->coef];
		for (uint32_t f = 0; f < tm->nfactors; f++)
			v *= factor(ctx, t->ref[tm->first + f]);
		sum += v;
	}
	return sum;
}

/* A factor's value: x^p computed as exp(p * u) with u = log(x) - log_scale,
 * the same expression in prediction and fitting, with the deterministic
 * exp and log of detmath.h: the same bits on every machine. */
static inline double pm__factor_value(double power, double u)
{
	return pm__exp(power * u);
}

/* The base of a power factor: u = log(x) - log_scale. Prediction's
 * vectorised loop, on inputs checked > 0 and finite, calls it with
 * pm__log_finite, which gives pm__log's bits there. */
static inline double pm__power_base(double x, double log_scale)
{
	return pm__log(x) - log_scale;
}

static inline double pm__power_base_finite(double x, double log_scale)
{
	return pm__log_finite(x) - log_scale;
}

/* The same for a normal x (>= 2^-1022): pm__log_normal. */
static inline double pm__power_base_normal(double x, double log_scale)
{
	return pm__log_normal(x) - log_scale;
}

/* What a factor's value is computed from, per value x of its input (the
 * level index for a level factor): tabulated once per distinct value by
 * the fit, computed per point by prediction. Power: u = log(x) -
 * log_scale; log2: log(log2(x)), -inf at x = 1 (x < 1 is refused before);
 * indicator: 1 or 0. */
static inline double pm__factor_base(const pm_factor *f, double x, double log_scale)
{
	switch (f->kind) {
	case PM_FACTOR_POWER: return pm__power_base(x, log_scale);
	case PM_FACTOR_LOG2: return pm__log(pm__log(x) * PM__INV_LN2);
	case PM_FACTOR_LEVEL: return x;
	default: break;
	}
	switch (f->op) {
	case PM_CMP_GT: return x > f->threshold;
	case PM_CMP_GE: return x >= f->threshold;
	case PM_CMP_LT: return x < f->threshold;
	case PM_CMP_LE: return x <= f->threshold;
	case PM_CMP_EQ: return x == f->threshold;
	default: return x != f->threshold;
	}
}

/* The exponent of a power or log2 factor. */
static inline double pm__factor_exponent(const pm_factor *f, const double *param)
{
	if (f->power == PM_NONE)
		return f->fixed;
	return f->negate ? -param[f->power] : param[f->power];
}

/* A factor's value from its base. log2(1)^e is taken as 0 for every e: a
 * log2 term is absent where its input is 1 (one worker: nothing to reduce). */
static inline double pm__factor_eval(const pm_factor *f, const double *param, double base)
{
	switch (f->kind) {
	case PM_FACTOR_POWER: return pm__factor_value(pm__factor_exponent(f, param), base);
	case PM_FACTOR_LOG2:
		return base == -INFINITY ? 0.0
					 : pm__factor_value(pm__factor_exponent(f, param), base);
	case PM_FACTOR_LEVEL:
		return base > 0 && f->power != PM_NONE ? pm__exp(param[f->power + (size_t)base - 1])
						       : 1.0;
	default: return base;
	}
}

#endif
