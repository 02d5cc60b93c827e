/*
 * perfmodel/predict.h — load a fitted model and predict from it.
 *
 * This is the whole API of libperfmodel-predict, the small library a scheduler
 * links: it depends on cJSON only (no GSL, no threads). A pm_model is
 * immutable once loaded: any number of threads may call the const functions
 * below on one model at once. Nothing here prints, exits or aborts, nothing
 * keeps global state, and pm_model_predict() does not allocate.
 *
 * Ownership: a function that returns a pm_model ** gives the caller a new
 * model, to be released with pm_model_free(). Strings returned by accessors
 * belong to the model and live as long as it does.
 *
 * Errors: every fallible function returns a pm_status and, when err is not
 * NULL, fills it with the same code and a one-line message.
 */
#ifndef PERFMODEL_PREDICT_H
#define PERFMODEL_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PM_BUILDING) && defined(__GNUC__)
#define PM_API __attribute__((visibility("default")))
#else
#define PM_API
#endif

typedef enum pm_status {
	PM_OK = 0,
	PM_EINVAL,	/* bad argument: a caller bug or a bad option */
	PM_ENOMEM,	/* an allocation failed */
	PM_EIO,		/* a file could not be read or written */
	PM_EPARSE,	/* bad CSV/JSON text; err->line/column say where */
	PM_ESCHEMA,	/* valid JSON or CSV of the wrong shape, format or version */
	PM_EDOMAIN,	/* a value the model cannot take (x <= 0 under a power) */
	PM_EFIT		/* the fit could not produce a finite model */
} pm_status;

typedef struct pm_error {
	pm_status code;
	unsigned line, column;	/* 1-based where the error has a place, else 0 */
	char file[256];		/* the file the place is in, or "" */
	char msg[512];
} pm_error;

/* A static English name for a status ("out of memory"); never NULL. */
PM_API const char *pm_status_string(pm_status s);

/* The library's version, "MAJOR.MINOR.PATCH". */
PM_API const char *pm_version(void);

typedef struct pm_model pm_model;

/* The role a model input plays in eq. 4.4. */
typedef enum pm_role {
	PM_ROLE_INTRINSIC = 0,	/* numeric I_i, term a_i * I_i^p_i */
	PM_ROLE_CATEGORICAL,	/* text, one coefficient b per level */
	PM_ROLE_EXTRINSIC	/* numeric E_j, factor E_j^q_j */
} pm_role;

/* Load a model.json (any format this version writes). On success *out owns
 * a new model; on failure *out is NULL and err says why (PM_EIO, PM_EPARSE
 * with line/column, PM_ESCHEMA for another format or version). */
PM_API pm_status pm_model_load_file(const char *path, pm_model **out, pm_error *err);
/* The same from a NUL-terminated JSON text; `name` labels errors (may be NULL). */
PM_API pm_status pm_model_load_string(const char *json, const char *name,
				      pm_model **out, pm_error *err);
/* NULL is a no-op. */
PM_API void pm_model_free(pm_model *m);

/* The inputs a prediction needs, in the model's order. */
PM_API size_t pm_model_ninputs(const pm_model *m);
PM_API const char *pm_model_input_name(const pm_model *m, size_t i);
PM_API pm_role pm_model_input_role(const pm_model *m, size_t i);
/* The levels of a categorical input (0 for a numeric one), in level order. */
PM_API size_t pm_model_nlevels(const pm_model *m, size_t i);
PM_API const char *pm_model_level_name(const pm_model *m, size_t i, size_t level);
/* The index of input `name`, or PM_EINVAL if the model has no such input. */
PM_API pm_status pm_model_input_index(const pm_model *m, const char *name,
				      size_t *index, pm_error *err);
/* The index of level `name` of categorical input i; PM_EDOMAIN if unknown. */
PM_API pm_status pm_model_level_index(const pm_model *m, size_t i, const char *name,
				      size_t *level, pm_error *err);
/* The name of the measured quantity the model predicts ("time_per_iter_s"). */
PM_API const char *pm_model_target(const pm_model *m);

/* The parameter kinds of eq. 4.4, in the order a model lists them: for each
 * input in order, intrinsic: a_i then p_i; categorical: b for each level;
 * extrinsic: q_j; last C. A formula model (docs/maths.md) lists its
 * parameters in order of first use in the formula: coefficients (COEF; the
 * coefficient of a term with no factor is CONST), fitted powers (POWER, or
 * SCALING on an extrinsic input) and, for each level(c) but the first
 * level, LOGMULT. */
typedef enum pm_param_kind {
	PM_PARAM_COEF = 0,	/* a_i */
	PM_PARAM_POWER,		/* p_i */
	PM_PARAM_LEVEL,		/* b_{c,v} */
	PM_PARAM_SCALING,	/* q_j */
	PM_PARAM_CONST,		/* C */
	PM_PARAM_LOGMULT	/* formula models: log of a level's multiplier (level(c)) */
} pm_param_kind;

/* The fitted parameters, k in [0, pm_model_nparams). Names are
 * "a_kernel_size", "p_kernel_size", "b_activation=relu", "q_threads", "C".
 * value: the raw eq. 4.4 parameter, in the data's units (the one to read);
 * scaled: the same in the scaled space the fit worked in (docs/maths.md);
 * std: its standard deviation over repeated fits, NaN if not repeated;
 * input: the input it belongs to, or (size_t)-1 for C and a formula's
 * coefficients; level: for a level (b or log multiplier). */
PM_API size_t pm_model_nparams(const pm_model *m);
PM_API const char *pm_model_param_name(const pm_model *m, size_t k);
PM_API pm_param_kind pm_model_param_kind(const pm_model *m, size_t k);
PM_API size_t pm_model_param_input(const pm_model *m, size_t k);
PM_API size_t pm_model_param_level(const pm_model *m, size_t k);
PM_API double pm_model_param_value(const pm_model *m, size_t k);
PM_API double pm_model_param_scaled(const pm_model *m, size_t k);
PM_API double pm_model_param_std(const pm_model *m, size_t k);
/* Repeated fits (perfmodel fit --seeds K): the model is the fit with the
 * lowest cost, and these give every seed's fit, i in [0, pm_model_nseeds)
 * in seed order (0: not repeated). seed_value is the raw parameter k of
 * seed i's fit. param_mean: parameter k's mean over the seeds (its value
 * when not repeated); pm_model_param_std is the matching standard deviation
 * (population, divisor K). */
PM_API size_t pm_model_nseeds(const pm_model *m);
PM_API uint64_t pm_model_seed(const pm_model *m, size_t i);
PM_API double pm_model_seed_cost(const pm_model *m, size_t i);
PM_API double pm_model_seed_value(const pm_model *m, size_t i, size_t k);
PM_API double pm_model_param_mean(const pm_model *m, size_t k);
/* How the model's terms were made: "additive" (eq. 4.4), "multiplicative"
 * or "formula" (docs/maths.md); the formula's text, NULL for additive. */
PM_API const char *pm_model_form(const pm_model *m);
PM_API const char *pm_model_formula(const pm_model *m);
/* What doubling the input of power parameter k (POWER or SCALING) does to
 * the term it is in: the factor 2^e, e its exponent (−q after a '/');
 * NaN for another parameter or one used only in log2(). */
PM_API double pm_model_param_doubling(const pm_model *m, size_t k);
/* "auto" or "none": how the model was scaled for fitting. */
PM_API const char *pm_model_scale_name(const pm_model *m);

/* Predict one point. x[i] is the value of input i: a number for a numeric
 * input, the level index (0, 1, ...) for a categorical one. PM_EDOMAIN when a
 * numeric value is not finite and > 0 or a level is out of range. Reentrant,
 * allocation-free. */
PM_API pm_status pm_model_predict(const pm_model *m, const double *x, double *out,
				  pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
