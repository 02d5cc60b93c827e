/*
 * perfmodel/predict.h — load a fitted model and predict from it.
 *
 * This is the whole API of libperfmodel-predict, the small library a scheduler
 * links: it depends on cJSON only (no GSL, no threads). A pm_model is
 * immutable once loaded: any number of threads may call the const functions
 * below on one model at once. Nothing here prints, exits or aborts, nothing
 * keeps global state, and pm_model_predict() does not allocate.
 *
 * Ownership, stated once for this header and perfmodel.h: a function that
 * fills a `T **out` gives the caller a new object, to be released with T's
 * _free() (pm_model_free() for a pm_model), or with free() for text
 * (`char **out`); on failure *out is NULL. A pointer an accessor returns
 * (`const char *`, `const T *`) belongs to the object it came from: valid
 * until that object is changed or freed, never to be freed by the caller.
 * A function that departs from this says so where it is declared.
 *
 * Errors: every fallible function returns a pm_status and, when err is not
 * NULL, fills it with the same code and a one-line message.
 *
 * NULL, stated once for this header (docs/embedding.md, "NULL arguments"):
 * no function here reads through a NULL pointer. A NULL where a function
 * needs an object is PM_EINVAL, its message beginning with the function's
 * name ("pm_model_predict: a NULL argument"), and nothing is written; err
 * may always be NULL. A pointer a declaration calls optional ("may be
 * NULL") is skipped or taken as said there. The accessors give a neutral
 * value for a NULL model (NULL, NaN, 0, (size_t)-1, the _INVALID kind), a
 * _free() or pm_point_clear() of NULL does nothing, and a function that
 * returns text or a count says what NULL gives. tests/test_predict_null.c
 * calls each function with NULL in each position.
 */
#ifndef PERFMODEL_PREDICT_H
#define PERFMODEL_PREDICT_H

#include <stdarg.h>
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
	PM_EFIT,	/* the fit could not produce a finite model */
	PM_ERANGE	/* a prediction is not a finite number: the model overflows there */
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
	PM_ROLE_INVALID = -1,	/* what pm_model_input_role gives for no such input */
	PM_ROLE_INTRINSIC = 0,	/* numeric I_i, term a_i * I_i^p_i */
	PM_ROLE_CATEGORICAL,	/* text, one coefficient b per level */
	PM_ROLE_EXTRINSIC	/* numeric E_j, factor E_j^q_j */
} pm_role;

/* Load a model.json (any format this version writes). On success *out owns
 * a new model; on failure *out is NULL and err says why (PM_EIO, PM_EPARSE
 * with line/column, PM_ESCHEMA for another format or version).
 * Every function that reads a path, here and in perfmodel.h, takes a
 * regular file or a pipe with a writer, and "-" for standard input; a
 * device, socket, folder or a FIFO with no writer is PM_EIO at once, and
 * text that is not UTF-8 PM_EPARSE where it stands. path and out are needed
 * (PM_EINVAL; *out is NULL then if out is not). */
PM_API pm_status pm_model_load_file(const char *path, pm_model **out, pm_error *err);
/* The same from a NUL-terminated JSON text; `name` labels errors (may be
 * NULL: "<input>"); json and out are needed. */
PM_API pm_status pm_model_load_string(const char *json, const char *name,
				      pm_model **out, pm_error *err);
/* NULL is a no-op. */
PM_API void pm_model_free(pm_model *m);

/* Every accessor below checks its model and indices: an index out of range
 * (or a NULL model) gives NULL for a string, NaN for a number, 0 for a count
 * or a seed, (size_t)-1 for an index, or the _INVALID kind, never a read
 * outside the model. Strings returned are the model's: valid until
 * pm_model_free, not to be freed.
 *
 * The inputs a prediction needs, in the model's order. */
PM_API size_t pm_model_ninputs(const pm_model *m);
PM_API const char *pm_model_input_name(const pm_model *m, size_t i);
/* The smallest and largest value numeric input i took in the rows the
 * model was fitted to, into *lo and *hi: kept with the prediction
 * intervals. PM_EINVAL: a NULL argument, i out of range or categorical, a
 * model without intervals (why it has none). */
PM_API pm_status pm_model_input_range(const pm_model *m, size_t i, double *lo, double *hi,
				      pm_error *err);
PM_API pm_role pm_model_input_role(const pm_model *m, size_t i);
/* The levels of a categorical input (0 for a numeric one), in level order. */
PM_API size_t pm_model_nlevels(const pm_model *m, size_t i);
PM_API const char *pm_model_level_name(const pm_model *m, size_t i, size_t level);
/* The index of input `name`, or PM_EINVAL if the model has no such input
 * (m, name and index are needed; *index is written on success only).
 * Both look-ups are hashed when the model is made: constant expected time
 * however many inputs or levels, no allocation, safe from any number of
 * threads at once. */
PM_API pm_status pm_model_input_index(const pm_model *m, const char *name,
				      size_t *index, pm_error *err);
/* The index of level `name` of categorical input i; PM_EDOMAIN if unknown
 * (m, name and level are needed; *level is written on success only). */
PM_API pm_status pm_model_level_index(const pm_model *m, size_t i, const char *name,
				      size_t *level, pm_error *err);
/* The name of the measured quantity the model predicts ("time_per_iter_s"). */
PM_API const char *pm_model_target(const pm_model *m);

/* The parameter kinds of eq. 4.4, in the order a model lists them: for each
 * input in order, intrinsic: a_i then p_i; categorical: b for each level;
 * extrinsic: q_j; last C. With extrinsic inputs alone, the base coefficient
 * a0 (COEF of no input) comes first: t = a0 * prod E_j^q_j + C. A formula model (docs/maths.md) lists its
 * parameters in order of first use in the formula: coefficients (COEF; the
 * coefficient of a term with no factor is CONST), fitted powers (POWER, or
 * SCALING on an extrinsic input) and, for each level(c) but the first
 * level, LOGMULT. */
typedef enum pm_param_kind {
	PM_PARAM_INVALID = -1,	/* what pm_model_param_kind gives for no such parameter */
	PM_PARAM_COEF = 0,	/* a_i */
	PM_PARAM_POWER,		/* p_i */
	PM_PARAM_LEVEL,		/* b_{c,v} */
	PM_PARAM_SCALING,	/* q_j */
	PM_PARAM_CONST,		/* C */
	PM_PARAM_LOGMULT	/* formula models: log of a level's multiplier (level(c)) */
} pm_param_kind;

/* The fitted parameters, k in [0, pm_model_nparams). Names are
 * "a_kernel_size", "p_kernel_size", "b_activation=relu", "q_threads", "C",
 * "a0".
 * value: the raw eq. 4.4 parameter, in the data's units (the one to read);
 * scaled: the same in the scaled space the fit worked in (docs/maths.md);
 * std: its standard deviation over repeated fits, NaN if not repeated;
 * input: the input it belongs to, or (size_t)-1 for C, a0 and a formula's
 * coefficients; level: for a level (b or log multiplier). */
PM_API size_t pm_model_nparams(const pm_model *m);
PM_API const char *pm_model_param_name(const pm_model *m, size_t k);
PM_API pm_param_kind pm_model_param_kind(const pm_model *m, size_t k);
PM_API size_t pm_model_param_input(const pm_model *m, size_t k);
PM_API size_t pm_model_param_level(const pm_model *m, size_t k);
PM_API double pm_model_param_value(const pm_model *m, size_t k);
PM_API double pm_model_param_scaled(const pm_model *m, size_t k);
PM_API double pm_model_param_std(const pm_model *m, size_t k);
/* 1 if the fit could not determine parameter k from its rows, and any
 * value would have fitted them as well: a power whose terms all have a
 * zero coefficient (the term is absent, so its power means nothing), a
 * coefficient of a term that is zero on every fitted row (a level or an
 * indicator that never occurs there). Its value is kept, so that
 * predictions are the fit's, but is no finding. 0 otherwise, and for no
 * such parameter. */
PM_API int pm_model_param_undetermined(const pm_model *m, size_t k);
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
/* One convention for exponents (docs/maths.md, "Reading q and C"): the
 * power of parameter k (POWER or SCALING) is the exponent as it acts on t,
 * t ∝ x^power in the term it is in, whatever way the formula is written:
 * the parameter's value for "x^q", its negative for "/ x^q" (negative: more
 * x, less time). pm_model_param_value stays the formula's own parameter.
 * NaN for another parameter or one used only in log2(); a parameter used
 * in more than one power factor gives its first use's. */
PM_API double pm_model_param_power(const pm_model *m, size_t k);
/* What doubling the input of power parameter k does to the term it is in:
 * 2^power; NaN where the power is. */
PM_API double pm_model_param_doubling(const pm_model *m, size_t k);
/* What a reader must know before trusting the model: its fit's findings
 * (a fit that predicts the same value for every training row, ...), one line
 * of English each, naming what it concerns, in the order found. model.json
 * keeps them ("warnings", docs/formats.md); perfmodel prints them on stderr
 * as "perfmodel: warning: ...". Control characters of the data's names
 * appear escaped (\x1b), as in error messages. i in [0, pm_model_nwarnings). */
PM_API size_t pm_model_nwarnings(const pm_model *m);
PM_API const char *pm_model_warning(const pm_model *m, size_t i);
/* ---- how the model was fitted ----------------------------------------------
 * A model.json records its fit's loss and row weights; these name them.
 * (The whole fit record, pm_model_fit_info, is the fitting library's:
 * perfmodel.h.) */
/* What the fit minimises: the mean over the rows of a loss of the measured t
 * and the predicted t̂, in the scaled space (docs/maths.md says when to
 * prefer which; MAPE and log are scale-invariant, so their cost is the same
 * in raw units). The penalty (reg) adds to any of them. */
typedef enum pm_loss {
	PM_LOSS_MAE = 0,	/* |t − t̂|: the thesis (eq. 4.9) */
	PM_LOSS_MSE,		/* (t − t̂)² */
	PM_LOSS_MAPE,		/* |t − t̂| / t */
	PM_LOSS_LOG		/* |log t̂ − log t|; a point with t̂ <= 0 costs +inf */
} pm_loss;

/* "mae", "mse", "mape", "log"; NULL for a value that is not a pm_loss. */
PM_API const char *pm_loss_name(pm_loss loss);
/* The loss called `name` (as pm_loss_name() spells it). PM_EINVAL "unknown
 * loss 'x': expected mae, mse, mape or log"; name and out are needed. */
PM_API pm_status pm_loss_from_name(const char *name, pm_loss *out, pm_error *err);

/* How a fit weighs the rows (docs/formats.md "Weights"): equally, by the
 * inverse variance of each configuration's runs (set when repetitions are
 * aggregated, pm_read_options.weights), or by the caller's numbers. */
typedef enum pm_weights {
	PM_WEIGHTS_NONE = 0,
	PM_WEIGHTS_INVERSE_VARIANCE,
	PM_WEIGHTS_GIVEN
} pm_weights;

/* "none", "inverse-variance", "given"; NULL for a value that is not one. */
PM_API const char *pm_weights_name(pm_weights w);

/* The fitted rows' repetitions and weights, kept in model.json when the
 * data were aggregated runs or weighted: returns the number of rows (0:
 * none kept) and points *reps, *cv (NaN: one run) and *weight (the weights
 * fitted with, mean 1) at them, each NULL when not known; any of the
 * pointers may be NULL (a NULL model: 0, each array NULL). */
PM_API size_t pm_model_repetitions(const pm_model *m, const unsigned **reps, const double **cv,
				   const double **weight);

/* ---- numbers as text, the same under every locale --------------------------
 * snprintf, vsnprintf and strtod with '.' as the decimal point whatever the
 * process's locale: a host that calls setlocale(LC_ALL, "") under a decimal
 * comma gets the same bytes as under "C". The libraries read and write every
 * number through these (the C library's conversions in the "C" locale, for
 * the calling thread only: reentrant, nothing allocated).
 * NULL: out NULL writes nothing and returns the length needed, whatever
 * size says (as snprintf(NULL, 0, ...)); fmt NULL returns -1 (out, when
 * size > 0, the empty text). pm_strtod of NULL is 0 with *end = NULL (no
 * number read, as strtod sets *end = s); end may be NULL. */
PM_API int pm_snprintf(char *out, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
PM_API int pm_vsnprintf(char *out, size_t size, const char *fmt, va_list ap)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 0)))
#endif
	;
PM_API double pm_strtod(const char *s, char **end);

/* errno's text as under the "C" locale ("No such file or directory"),
 * whatever the process's, into out (at most size bytes with its NUL), which
 * it returns; thread-safe (strerror's buffer may be shared). The libraries'
 * messages and a batch's error lines name the system's errors through it,
 * so that they are the same bytes under every locale. out NULL or size 0:
 * "" (nothing written). */
PM_API const char *pm_strerror(int errnum, char *out, size_t size);

/* "auto" or "none": how the model was scaled for fitting. */
PM_API const char *pm_model_scale_name(const pm_model *m);

/* Predict one point. x[i] is the value of input i: a number for a numeric
 * input, the level index (0, 1, ...) for a categorical one. PM_EDOMAIN when a
 * numeric value is not finite and > 0 (NaN: "has no value"), a level is out
 * of range, or a log2() input is below 1; PM_ERANGE when the prediction is
 * not a finite number (the model overflows at that point: the message names
 * the inputs); PM_EINVAL for a NULL m or out, or x NULL for a model with
 * inputs (x may be NULL for a model of none). On error *out is not written.
 * Reentrant, allocation-free. */
PM_API pm_status pm_model_predict(const pm_model *m, const double *x, double *out,
				  pm_error *err);

/* Predict n points at once into the caller's out[0..n): point k's inputs
 * are x[k * ninputs .. (k + 1) * ninputs), as for pm_model_predict. Stops
 * at the first point the model cannot take or predicts no finite number for
 * (out[k..n) then unset or not finite) with its
 * error prefixed "point K: " (1-based). Reentrant, allocation-free (about
 * 42 KiB of stack); the same numbers, bit for bit, as pm_model_predict
 * point by point, and several times faster: blocks of points, vectorised.
 * m is needed; x and out too when n > 0 (x NULL for a model of no inputs). */
PM_API pm_status pm_model_predict_batch(const pm_model *m, const double *x, size_t n,
					double *out, pm_error *err);

/* ---- prediction intervals (docs/maths.md, "Prediction intervals") ---------
 * perfmodel fit calibrates them (unless --no-intervals): the residuals
 * r = log(t / t̂) of rows held out by K-fold cross-validation (each row
 * predicted by a fit that never saw it), kept in model.json as their
 * quantiles on a grid of probabilities, with each numeric input's range
 * over the fitted rows and its widening rate k_i (measured from the fold
 * fits' disagreement one range width beyond it, 0.5 to 4). The q-quantile
 * of the time at x is then
 *     t̂(x) * exp(Q(0.5) + (Q(q) - Q(0.5)) * sqrt(1 + D(x)^2))
 * with Q the residuals' quantile (linear between grid points) and D(x)
 * the largest k_i d_i(x), d_i input i's extrapolation distance (below):
 * inside the data's ranges D = 0 and the quantiles are the residuals' own;
 * beyond them the spread around the median grows, sqrt(1 + k^2) times at
 * one range's width beyond, about k d times far out. All
 * on pm_model_predict's scale (a target kind's time scale; the CLI turns
 * each bound into the kind's quantity). Reentrant, allocation-free.
 *
 * NULL: m is needed, x too for a model with inputs (PM_EINVAL "FUNCTION: a
 * NULL argument"), and every output but *extrapolated below.
 *
 * 1 if m holds calibrated intervals, else 0 (also for NULL). */
PM_API int pm_model_has_intervals(const pm_model *m);
/* The number of residuals they were calibrated on (0: none, or NULL). A quantile q
 * needs 1/(n+1) <= q <= n/(n+1): further out, n residuals say nothing. */
PM_API size_t pm_model_interval_residuals(const pm_model *m);
/* The residuals' own q-quantile Q(q) (log scale): inside the data's ranges
 * the q-quantile is t̂ · exp(Q(q)) at every point (0.9's interval is t̂ ·
 * exp(Q(0.05)) to t̂ · exp(Q(0.95))). Errors as pm_model_predict_quantile's
 * for m and q; *r is not written then. */
PM_API pm_status pm_model_residual_quantile(const pm_model *m, double q, double *r,
					    pm_error *err);
/* How far x lies outside the data the model was fitted to: the largest,
 * over the numeric inputs, of the distance beyond the input's fitted
 * range in units of the range's own width, on the log scale for an input
 * under a power or log2 (log(x / max) / log(max / min): 1 = as far again
 * beyond the largest value as the data span), linearly for an input only
 * in indicators; a range of one value counts a factor of 2 (or 1) as its
 * width. 0 inside every range: *extrapolated (may be NULL) is then 0, else
 * 1. Categorical inputs do not count (every level was fitted). Errors:
 * PM_EINVAL (a NULL argument, no intervals: the model keeps no ranges
 * without them), PM_EDOMAIN for a numeric value pm_model_predict refuses. */
PM_API pm_status pm_model_extrapolation(const pm_model *m, const double *x, double *distance,
					int *extrapolated, pm_error *err);
/* The q-quantile of the time at x (0 < q < 1), as above. Errors:
 * PM_EINVAL: a NULL argument, a model without intervals ("fit it again
 * without --no-intervals"), q not in (0, 1), or beyond what the residuals
 * calibrate (the message gives the range); those of pm_model_predict;
 * PM_ERANGE when the prediction is not > 0 (no log) or the quantile is not
 * finite. On error *value is not written. */
PM_API pm_status pm_model_predict_quantile(const pm_model *m, const double *x, double q,
					   double *value, pm_error *err);
/* The central interval of probability `level` at x: the (1 - level)/2 and
 * (1 + level)/2 quantiles (0.9: the 5 % and 95 % ones), lower <= upper.
 * Errors as pm_model_predict_quantile, for a level not in (0, 1) too; on
 * error neither bound is written. */
PM_API pm_status pm_model_predict_interval(const pm_model *m, const double *x, double level,
					   double *lower, double *upper, pm_error *err);

/* ---- target kinds: what the target measures (docs/maths.md, "Target kinds")
 * A model is fitted on a time scale: its target as it is when that is a
 * time, else the relative time the quantity implies, t = w / y:
 *     speedup S:               t = 1 / S        (∝ the run time)
 *     parallel efficiency E:   t = 1 / (n · E)  (n: the resource, an input)
 *     throughput X:            t = 1 / X, or per / X with a per input
 * pm_model_predict and everything built on it (speedup, advise, effective
 * exponents) work on that scale; pm_model_predict_target gives the user's
 * own quantity, y = w / t̂. model.json keeps the kind ("target_kind"). */
typedef enum pm_target_kind {
	PM_TARGET_INVALID = -1,	/* what the look-ups give for no such kind */
	PM_TARGET_TIME = 0,	/* a run time: fitted as it is (w: none) */
	PM_TARGET_SPEEDUP,	/* S, over a resource: fitted as 1/S */
	PM_TARGET_EFFICIENCY,	/* E over a resource n: fitted as 1/(n·E) */
	PM_TARGET_THROUGHPUT	/* X: fitted as 1/X, or per/X */
} pm_target_kind;

/* "time", "speedup", "efficiency", "throughput"; NULL for no such kind. */
PM_API const char *pm_target_kind_name(pm_target_kind kind);
/* The kind called `name`. PM_EINVAL "unknown target kind 'x': expected
 * time, speedup, efficiency or throughput", or a NULL name; out may be NULL
 * (the name is only checked). */
PM_API pm_status pm_target_kind_from_name(const char *name, pm_target_kind *out,
					  pm_error *err);
/* The model's target kind (PM_TARGET_TIME for a model file without one;
 * PM_TARGET_INVALID for a NULL model). */
PM_API pm_target_kind pm_model_target_kind(const pm_model *m);
/* The input the speedup or efficiency is over (the resource n), and the
 * input a throughput is per (its per), by position; (size_t)-1 for none
 * (and for a NULL model). */
PM_API size_t pm_model_target_resource(const pm_model *m);
PM_API size_t pm_model_target_per(const pm_model *m);
/* The target in the model's own quantity from t, a prediction of
 * pm_model_predict at the point x: y = t for a time, else w / t with the
 * kind's w (1; 1 / x[resource] for efficiency; x[per] for throughput per
 * an input). PM_EDOMAIN when the resource or per value is not finite and
 * > 0; PM_ERANGE when t is not > 0 or y is not finite (no speedup,
 * efficiency or throughput there); PM_EINVAL for a NULL argument (x may be
 * NULL when the kind reads no input). Reentrant, allocation-free. */
PM_API pm_status pm_model_target_value(const pm_model *m, const double *x, double t, double *y,
				       pm_error *err);
/* The name perfmodel predict gives its column of predictions (CSV and
 * JSON): "predicted" for a time model, else "predicted_" and the kind
 * ("predicted_speedup"), so that the output says what it holds. Static
 * text; "predicted" for a NULL model. */
PM_API const char *pm_model_prediction_label(const pm_model *m);
/* pm_model_predict then pm_model_target_value: the prediction in the
 * model's own quantity (for a time model, pm_model_predict). Errors of
 * both; the same pointers as pm_model_predict are needed. Reentrant,
 * allocation-free. */
PM_API pm_status pm_model_predict_target(const pm_model *m, const double *x, double *out,
					 pm_error *err);

/* ---- by name ---------------------------------------------------------------
 * A pm_point holds one value per input of the model it was made for, set by
 * name. It belongs to one thread at a time (it is written to); the model it
 * refers to must outlive it. pm_point_new allocates; setting values and
 * predicting do not. */
typedef struct pm_point pm_point;

/* A point for m with every input unset. *out owns it (pm_point_free). m and
 * out are needed (*out is NULL on failure when out is not). */
PM_API pm_status pm_point_new(const pm_model *m, pm_point **out, pm_error *err);
PM_API void pm_point_free(pm_point *p);	/* NULL: no-op */
/* Unset every input, to reuse the point for another job. NULL: no-op. */
PM_API void pm_point_clear(pm_point *p);
/* Set numeric input `name` to v. PM_EINVAL: a NULL p or name, no such
 * input, or it is categorical; PM_EDOMAIN: v is not a finite number, or not > 0 for an input
 * under a power or log2 (an input a formula uses only in indicators may be
 * 0 or negative).
 * On error the point is unchanged. */
PM_API pm_status pm_point_set_num(pm_point *p, const char *name, double v, pm_error *err);
/* Set categorical input `name` to its level `level`. PM_EINVAL: a NULL p,
 * name or level, no such input, or it is numeric; PM_EDOMAIN: the model has no such level (the
 * message lists the known ones). */
PM_API pm_status pm_point_set_cat(pm_point *p, const char *name, const char *level,
				  pm_error *err);
/* Set the inputs named in a JSON object of input values, {"hidden": 512,
 * "activation": "relu"}: a number for a numeric input, a level name for a
 * categorical one. Inputs not named keep their values. `name` labels errors
 * (may be NULL); p and json are needed. PM_EPARSE (line/column) for bad JSON, PM_ESCHEMA for
 * another shape, else the errors of the setters, naming the member. On error
 * the point may be partly set. */
PM_API pm_status pm_point_set_json(pm_point *p, const char *json, const char *name,
				   pm_error *err);
/* The same from a file; PM_EIO when it cannot be read; p and path are
 * needed. */
PM_API pm_status pm_point_set_json_file(pm_point *p, const char *path, pm_error *err);
/* The point's values by position, as pm_model_predict takes them (a level
 * index for a categorical input; NaN where unset). Owned by the point.
 * NULL for a NULL point. */
PM_API const double *pm_point_values(const pm_point *p);
/* Predict at p, which must have been made for m and have every input set:
 * PM_EINVAL "missing value for input 'x'" names the first unset one; m, p
 * and out are needed.
 * Reentrant on m, allocation-free. */
PM_API pm_status pm_model_predict_point(const pm_model *m, const pm_point *p, double *out,
					pm_error *err);

/* ---- scaling ---------------------------------------------------------------
 * The scaling exponent q of extrinsic input i (eq. 4.4: time grows as E^q in
 * every term; −1 is ideal strong scaling); for a formula model, the power
 * (pm_model_param_power: −q after a '/') of the fitted parameter named for
 * that input: the exponent of its own term, C and the other terms aside
 * (pm_model_effective_exponent has them). PM_EINVAL: a NULL m or q, i
 * out of range or not extrinsic; PM_EDOMAIN: the model has no fitted power
 * for the input (a formula that uses it only in indicators or log2()). */
PM_API pm_status pm_model_scaling_exponent(const pm_model *m, size_t i, double *q,
					   pm_error *err);
/* The model's own scaling exponent in numeric input i at the point x:
 *     e = d log t̂ / d log x_i = Σ_terms x_i ∂term/∂x_i / t̂,
 * C and every term included, so that near x, t̂ ∝ x_i^e and doubling x_i
 * multiplies the prediction by about 2^e. With C = 0 and x_i in every term
 * with the same power q (eq. 4.4), e = q; a C or terms without x_i pull e
 * towards 0. Computed from the terms (no finite difference). PM_EINVAL: a
 * NULL argument, i out of range or categorical; PM_EDOMAIN: t̂ has no
 * derivative at x, because an indicator [x_i op v] with v = x[i] switches
 * there (in a term with a coefficient other than 0), or a factor
 * log2(x_i)^e with e < 1 is at x[i] = 1 (0 there, it jumps or rises
 * steeply), or t̂ is not above 0 there (no log); else the errors of
 * pm_model_predict. Reentrant,
 * allocation-free. */
PM_API pm_status pm_model_effective_exponent(const pm_model *m, const double *x, size_t i,
					     double *e, pm_error *err);
/* Speedup of extrinsic (or any numeric) input i going from value `from` to
 * value `to`, every other input held at x (x[i] is ignored):
 *     speedup = t(x_i = from) / t(x_i = to),
 * and parallel efficiency = speedup / (to / from) (1: ideal; from 1 to 8
 * GPUs at efficiency 0.75 runs 6x faster). PM_EINVAL: a NULL m, x or
 * output, i out of range or categorical; else the errors of pm_model_predict. Reentrant,
 * allocation-free. */
PM_API pm_status pm_model_speedup(const pm_model *m, const double *x, size_t i, double from,
				  double to, double *speedup, pm_error *err);
PM_API pm_status pm_model_efficiency(const pm_model *m, const double *x, size_t i,
				     double from, double to, double *efficiency, pm_error *err);

/* ---- validation schemes (--validate; docs/cli.md "Validation") -----------
 * Every scheme holds rows out of the fits it measures, so that the accuracy
 * is that of rows the model never saw. The folds are perfmodel.h's
 * (pm_validation_folds); a model file names its scheme, so the scheme and its
 * text are here. */
typedef enum pm_scheme {
	PM_SCHEME_NONE = 0,	/* nothing held out (zeroed options) */
	/* K folds, stratified: each fit trains on K-1 folds and is measured
	 * on the fold left out; fewer rows than K is leave-one-out */
	PM_SCHEME_KFOLD,
	PM_SCHEME_LOO,		/* leave-one-out: one fold per row */
	/* the rows with the smallest values of a column train, the others
	 * are measured: how well the model extrapolates to larger scale */
	PM_SCHEME_EXTRAPOLATE
} pm_scheme;

typedef struct pm_validation {
	pm_scheme scheme;
	unsigned folds;		/* kfold: K >= 2 (5) */
	uint64_t seed;		/* kfold: the seed that deals the rows (1) */
	char column[256];	/* extrapolate: the numeric column to extrapolate along */
	double fraction;	/* extrapolate: of its distinct values trained on (0.5) */
} pm_validation;

/* "kfold", "kfold:K", "loo", "extrapolate:COL" or "extrapolate:COL:F"
 * (0 < F < 1) into *v (seed 1). PM_EINVAL naming what is wrong, a column
 * name of 256 bytes or more included, or a NULL text or v; *v is then
 * unchanged. */
PM_API pm_status pm_validation_parse(const char *text, pm_validation *v, pm_error *err);
/* 1 if text names a scheme (begins with kfold, loo or extrapolate, as
 * pm_validation_parse reads it, well formed or not); a CLI takes other
 * texts as a file of held-out rows. 0 for NULL. */
PM_API int pm_validation_is_scheme(const char *text);
/* The scheme as pm_validation_parse reads it ("kfold:5", "loo",
 * "extrapolate:threads:0.5"; "none", also for a NULL v), truncated to size;
 * returns the length it needs, as snprintf (out NULL: the length alone). */
PM_API int pm_validation_text(const pm_validation *v, char *out, size_t size);

#ifdef __cplusplus
}
#endif

/* whole jobs, advice and Slurm's limits */
#include "perfmodel/advise.h"
#endif
