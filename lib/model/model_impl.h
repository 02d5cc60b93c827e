/* The inside of a pm_model, shared by the loader (predict library), the
 * fitter and the writer. Parameter values are kept as fitted, in the scaled
 * space (DESIGN.md §3): prediction is
 *     t = target_scale * terms(param, u),  u_i = log(x_i) - log_scale_i
 * and the raw eq. 4.4 parameters are derived for reading (pm__model_raw). */
#ifndef PM_MODEL_IMPL_H
#define PM_MODEL_IMPL_H

#include "perfmodel/perfmodel.h"
#include "core/error.h"
#include "core/strindex.h"
#include "model/terms.h"

#define PM_MODEL_FORMAT "perfmodel-model"
/* 2: a target kind other than time (model_save.c writes 1 for the rest) */
#define PM_MODEL_VERSION 2

typedef struct pm_input {
	char *name;
	pm_role role;
	size_t nlevels;
	char **levels;		/* categorical: level names, sorted */
	pm__strindex by_level;	/* levels by name, of two equal ones the first */
	double log_scale;	/* numeric: log of the training geometric mean (0: none) */
	/* numeric: under a power or log2 in the terms, so its values must be
	 * > 0; an input only in indicators may take any finite value */
	int powered;
} pm_input;

typedef struct pm_param {
	char *name;		/* "a_kernel_size", "b_activation=relu", "q_threads", "C" */
	pm_param_desc desc;
	double lo, hi;		/* bounds, scaled space */
	double std;		/* over seeds; NaN when not repeated */
	/* 1: the fitted rows did not determine it (a power whose terms are
	 * all zero, a coefficient of a term no row has): any value fits them
	 * as well. pm__fit_undetermined */
	int undetermined;
} pm_param;

/* What the predictor needs for intervals (docs/maths.md, "Prediction
 * intervals"): out-of-sample residuals r = log(t / t̂) on the time scale,
 * as their quantiles q[j] at probabilities p[j] (np of them, increasing),
 * and each numeric input's range over the fitted rows (lo[i] <= hi[i];
 * categorical inputs' entries unused), which tells extrapolation, and
 * how fast the spread grows beyond each range (widen[i] >= 0: the spread is
 * multiplied by sqrt(1 + (widen[i] d_i)^2) at d_i range widths out). */
typedef struct pm_intervals {
	size_t nres;		/* residuals calibrated on; 0: the model has none */
	unsigned folds;		/* the cross-validation that made them */
	size_t np;
	double *p, *q;
	double *lo, *hi;	/* ninputs each */
	double *widen;		/* ninputs */
} pm_intervals;

/* One point's prediction laid out once the model's values are settled
 * (pm__model_raw; model/point_plan.c), in the order pm__predict_at reads
 * it: the power factors' inputs, log scales and exponents side by side
 * (one vector loop, predict.c's point_powers) in slots 0..npower, the
 * other factors in the slots after them, slot nfactors 1.0; each term its
 * coefficient's value, the slots of its factors (slots[first..first+n))
 * and, for a term of one level, its input `at` and `level`. Where it at
 * most doubles the products (eq. 4.4: 17 terms of 0 to 3 factors on
 * LeNet-5), every term is padded to the longest, `width`, with the slot
 * of 1.0 (x * 1.0 is x: the same bits as the term's own product, without
 * a branch on its length); else (width 0) each term has its own length.
 * The terms are summed in runs (segments): terms of every point; a
 * categorical's terms of levels 0..L-1 in order (eq. 4.4's), of which the
 * point's level picks the one that is on; else a term on where its level
 * is the point's. Skipping the others is adding their +0 (a sum from +0
 * is never -0): the same bits. ok 0: no plan (more inputs or factors than
 * a point's stack arrays hold): such a point goes through
 * pm__terms_combine. Every model: the values input i takes,
 * in_lo[i] <= v <= in_hi[i], an integer where in_whole[i] is 1 (a level
 * index; 0 for a number): check_point's tests as bounds (> 0: >= the
 * least subnormal; finite: <= DBL_MAX; under log2: >= 1). */
#define PM_POINT_INPUTS 256
#define PM_POINT_FACTORS 64
typedef struct pm_point_term {
	double coef, level;
	uint32_t at, first, n;
} pm_point_term;
typedef enum pm_point_run { PM_RUN_EVERY, PM_RUN_LEVELS, PM_RUN_ONE } pm_point_run;
typedef struct pm_point_seg {
	pm_point_run kind;
	uint32_t first, n, at;	/* terms first..first+n; LEVELS: of input at */
} pm_point_seg;
typedef struct pm_point_plan {
	int ok;
	uint32_t width;
	size_t npower, nother;
	uint32_t *power_input;	/* npower each */
	double *power_ls, *power_e;
	uint32_t *other;	/* nother factor indices */
	uint32_t *slot;		/* nfactors: each factor's slot */
	pm_point_term *term;	/* nterms */
	uint32_t *slots;	/* the terms' factors' slots */
	size_t nseg;
	pm_point_seg *seg;	/* nseg <= nterms, in term order */
	double *in_lo, *in_hi, *in_whole;	/* ninputs each */
} pm_point_plan;

/* How the terms were made: eq. 4.4 from the inputs' roles, the
 * multiplicative preset (a formula made from the roles), or a formula. */
typedef enum pm_form { PM_FORM_ADDITIVE = 0, PM_FORM_MULTIPLICATIVE, PM_FORM_FORMULA } pm_form;

struct pm_model {
	char *target;
	/* The worker time columns the target was derived from (target
	 * PM_LIF_COLUMN, pm_spec_derive_lif), so that the model can derive it
	 * again from new data (pm_model_derive_lif); 0: a measured target. */
	size_t nworkers;
	char **workers;
	/* What the target measures (pm_target_kind): the terms predict the
	 * time scale t = w / target (model/target.c); resource and per are
	 * the inputs w reads, by position, SIZE_MAX for none. */
	pm_target_kind kind;
	size_t resource, per;
	pm_form form;
	char *formula;		/* the formula text; NULL for the additive form */
	pm_scale scale;
	double target_scale;	/* median of the training target (1: none) */
	size_t ninputs;
	pm_input *inputs;
	/* inputs by name (of two equal ones, the first): made with them in
	 * pm__model_new, read only after, so that look-ups cost no time per
	 * input and predict stays reentrant and allocation-free */
	pm__strindex by_name;
	size_t nparams;
	pm_param *params;
	/* nparams fitted values, scaled space: set by the fit or the loader,
	 * then pm__model_raw, whose exp_value and point plan prediction
	 * reads (a value changed without it is not predicted with) */
	double *value;
	double *raw;		/* nparams raw values (pm__model_raw) */
	/* exp(value[k]) (pm__model_raw): a level() multiplier's factor, taken
	 * once per model rather than once per point predicted */
	double *exp_value;
	pm_point_plan point;
	pm_terms terms;
	int has_fit_info;
	pm_fit_info info;
	/* After pm_fit_seeds: every seed's fit (0 seeds: not repeated). */
	size_t nseeds;
	uint64_t *seed;		/* nseeds seed numbers */
	double *seed_cost;	/* nseeds final costs */
	double *seed_value;	/* nseeds * nparams raw values, seed-major */
	/* The fitted rows' runs (pm_model_repetitions): nrep rows, 0: none;
	 * each array NULL when not known */
	size_t nrep;
	unsigned *rep_runs;
	double *rep_cv;
	double *rep_weight;	/* the weights fitted with (mean 1) */
	/* What a reader must know before trusting the fit (pm_model_warning):
	 * one line each, in the order found; 0: none */
	size_t nwarnings;
	char **warnings;
	/* Prediction intervals (model/interval.c); nres 0: none */
	pm_intervals iv;
};

/* pm__model_new's form for eq. 4.4 without the base coefficient a0
 * (pm__terms_additive): the parameter list of models saved before a0
 * existed, which model_load.c still reads. Known by its address, so that no
 * text from a file or a user can be taken for it. */
extern const char pm__form_additive_no_base[];

/* Allocate a model for the given inputs (names and levels copied) with the
 * terms of `form` and its parameters named; values zero, std NaN, default
 * bounds. form: NULL or "additive" (eq. 4.4), pm__form_additive_no_base,
 * "multiplicative" (a formula made from the roles,
 * pm__formula_multiplicative) or a formula text, whose errors are placed in
 * it (formula.h). */
pm_status pm__model_new(const char *target, size_t ninputs, const char **names,
			const pm_role *role, const size_t *nlevels,
			const char *const *const *levels, const char *form, pm_model **out,
			pm_error *err);
/* Keep n rows' runs, cv and weights in m, copied (each may be NULL: none;
 * all NULL: nrep 0); replaces what m had. PM_ENOMEM. */
pm_status pm__model_set_repetitions(pm_model *m, size_t n, const unsigned *runs,
				    const double *cv, const double *weight, pm_error *err);
/* Add a warning to m (pm_model_warning): the formatted text, numbers as
 * under "C" and control characters escaped as in error messages, cut at
 * PM_WARNING_MAX - 1 bytes. PM_ENOMEM (m unchanged). The fit adds its
 * findings here; model.json keeps them ("warnings"). */
#define PM_WARNING_MAX 512
pm_status pm__model_add_warning(pm_model *m, pm_error *err, const char *fmt, ...)
	PM_PRINTF(3, 4);
/* Keep n worker column names in m, copied; replaces what m had. PM_ENOMEM. */
pm_status pm__model_set_workers(pm_model *m, size_t n, const char *const *names,
				pm_error *err);
/* The names of pm_target_kind, in its order, NULL-terminated (model.json's
 * "target_kind"). */
extern const char *const pm__target_kind_names[];
/* Make m's target kind `kind`, over the input named resource (speedup,
 * efficiency; NULL: none) and per the input named per (throughput; NULL:
 * none). PM_ESCHEMA when one is not a numeric input of m, is given to a
 * kind that takes none, or when efficiency has no resource; m unchanged. */
pm_status pm__model_set_target_kind(pm_model *m, pm_target_kind kind, const char *resource,
				    const char *per, pm_error *err);
/* The w of t = w / y for a kind (pm_target_kind): 1 / resource for
 * efficiency, per for throughput (1 without one), else 1. The fit and the
 * predictor both convert with it and pm__target_swap, so that the two
 * agree on every kind. */
static inline double pm__target_w(pm_target_kind kind, double resource, double per)
{
	return kind == PM_TARGET_EFFICIENCY ? 1.0 / resource
	       : kind == PM_TARGET_THROUGHPUT ? per : 1.0;
}
/* Time scale from the kind's value, or the kind's value from the time
 * scale: the same map both ways (v for a time, else w / v). */
static inline double pm__target_swap(pm_target_kind kind, double v, double w)
{
	return kind == PM_TARGET_TIME ? v : w / v;
}
/* Whether v can be numeric input in's value: finite, and > 0 if the input
 * is powered; else PM_EDOMAIN naming the input. The one check of a value
 * for prediction (a point, a batch, a file, a config). */
pm_status pm__input_check(const pm_input *in, double v, pm_error *err);
/* Whether parameter k is factor f's exponent, or one of its log
 * multipliers (a level factor has one per level beyond the first). */
int pm__model_factor_has_param(const pm_model *m, const pm_factor *f, size_t k);
/* Keep intervals in m: np probabilities p (in (0, 1), increasing) and
 * quantiles q (finite, not decreasing) of nres residuals from `folds`-fold
 * cross-validation, the inputs' ranges lo, hi (ninputs each; finite,
 * lo <= hi for a numeric input) and widening rates (ninputs, finite and
 * >= 0 for a numeric input; NULL: PM_WIDEN_DEFAULT each); all copied,
 * replacing what m had. PM_EINVAL naming what is wrong, PM_ENOMEM; m
 * unchanged on failure. */
pm_status pm__model_set_intervals(pm_model *m, size_t nres, unsigned folds, size_t np,
				  const double *p, const double *q, const double *lo,
				  const double *hi, const double *widen, pm_error *err);
/* Recompute m->raw from m->value and the scales, m->exp_value and m->point
 * (pm__point_plan_fill): after the values are set, before the model
 * predicts. */
void pm__model_raw(pm_model *m);
/* m->point's arrays for m's terms (pm__model_new): 0, or -1 out of memory;
 * filled by pm__point_plan_fill, freed by pm__point_plan_free. */
int pm__point_plan_new(pm_model *m);
void pm__point_plan_fill(pm_model *m);
void pm__point_plan_free(pm_point_plan *pp);
/* The thesis's bounds: what pm_bounds_default() of the fitting library
 * returns, and what a model made in the predictor library starts with. */
static inline pm_bounds pm__bounds_thesis(void)
{
	return (pm_bounds){ 0, 1000, -5, 5, 0, 1000 };
}

#endif
