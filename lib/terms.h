/* The model as a list of terms (DESIGN.md §2): each term is a coefficient
 * times a product of factors input^power, optionally times a level indicator
 * [categorical input == level]. Power parameters may be shared between terms
 * (eq. 4.4 shares every q_j). Prediction evaluates the list directly with
 * pm__terms_combine(); the fit compiles it into a faster plan (cost.h) that
 * gives the same numbers up to rounding. Both compute x^p with
 * pm__factor_value(). */
#ifndef PM_TERMS_H
#define PM_TERMS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "perfmodel/predict.h"

#define PM_NONE UINT32_MAX

typedef struct pm_factor {
	uint32_t input;	/* a numeric input */
	uint32_t power;	/* parameter index of its power */
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
 * ones). Parameters are numbered in the model.json order: for each input in
 * order, intrinsic: a_i then p_i; categorical: b for each level; extrinsic:
 * q_j; last C. *desc (malloc'd, nparams entries) describes each. */
pm_status pm__terms_additive(size_t ninputs, const pm_role *role, const size_t *nlevels,
			     pm_terms *t, pm_param_desc **desc, size_t *nparams,
			     pm_error *err);
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
 * the same expression in prediction and fitting. */
static inline double pm__factor_value(double power, double u)
{
	return exp(power * u);
}

#endif
