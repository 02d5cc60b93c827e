/*
 * perfmodel/fit.h — fitting eq. 4.4 (thesis; by parallel deterministic
 * differential evolution or variable projection): the validation schemes'
 * folds, the fit's options, pm_fit and pm_fit_seeds, and the record of how
 * a fit ended (pm_fit_info). Included by perfmodel.h; the conventions there
 * hold.
 */
#ifndef PERFMODEL_FIT_H
#define PERFMODEL_FIT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "perfmodel/predict.h"
#include "perfmodel/dataset.h"
#include "perfmodel/spec.h"
#include "perfmodel/evaluate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- validation schemes: which rows a fit is measured on (--validate) -------
 * The scheme, its text and pm_validation_text are predict.h's (a model file
 * names its scheme). */
/* Which rows each fold holds out. */
typedef struct pm_folds {
	size_t nrows;
	/* nrows: row r is held out in fold fold[r]; a row whose fold[r] >=
	 * nfolds is never held out (it trains every fold) */
	unsigned *fold;
	unsigned nfolds;	/* folds measured: >= 2 for kfold and loo, 1 to extrapolate */
	size_t kept;		/* rows never held out */
	/* what was done, in words, for a table's caption: "5-fold cross-
	 * validation, stratified by device", "leave-one-out (4 rows are fewer
	 * than 5 folds)", "extrapolation along threads: fitted to values <= 4
	 * (3 of 6 values, 12 rows), measured on 8 to 32 (12 rows)"; with kept
	 * rows, why */
	char what[512];
} pm_folds;

/* The folds of v over the rows of d, for the roles of s (resolved on a
 * copy, as pm_fit does; s may be NULL: no categorical inputs). kfold deals
 * each stratum (rows of one combination of the categorical inputs' levels)
 * round-robin over the folds after a seeded shuffle, so that every level in
 * two or more rows is in every fold's training rows; a level whose rows
 * would all sit in one fold keeps one of them out of every fold (kept).
 * Without categorical inputs the folds are pm_kfold_assign's. extrapolate
 * trains on the rows whose value of v->column is among the smallest
 * round(fraction * distinct values) (at least 1, all but one at most).
 * On success out->fold is malloc'd (pm_folds_free). Errors: PM_EINVAL (no d
 * or v, scheme none, K < 2, a fraction outside (0, 1), a column with one
 * distinct value, every row kept: nothing left to hold out, a level only
 * among the rows extrapolated to, named), PM_ESCHEMA (no such column, a
 * column that is not numeric), those of pm_spec_resolve, PM_ENOMEM. */
PM_API pm_status pm_validation_folds(const pm_dataset *d, const pm_spec *s,
				     const pm_validation *v, pm_folds *out, pm_error *err);
PM_API void pm_folds_free(pm_folds *f);	/* the array; NULL is a no-op */
/* ---- fitting -------------------------------------------------------------- */
typedef enum pm_scale {
	PM_SCALE_AUTO = 0,	/* numeric columns / geometric mean, target / median */
	PM_SCALE_NONE		/* the thesis exactly: raw units */
} pm_scale;

typedef enum pm_reg { PM_REG_NONE = 0, PM_REG_L1, PM_REG_L2 } pm_reg;

/* How a fit searches (docs/maths.md, "Search"). */
typedef enum pm_engine {
	/* Variable projection, the default: differential evolution over the
	 * powers alone (p, q, log multipliers), the coefficients (a, b, C)
	 * solved for each trial by reweighted least squares within their
	 * bounds, then the local polish of every parameter together. Reaches
	 * the same optimum from every seed on the bundled data, in far fewer
	 * evaluations. */
	PM_ENGINE_VARPRO = 0,
	/* The thesis's: differential evolution over every parameter, with
	 * scipy's defaults (pm_fit_options_engine(PM_ENGINE_DE)), then the
	 * polish. */
	PM_ENGINE_DE
} pm_engine;


/* Where a fit is, at a generation boundary of differential evolution: for
 * pm_fit_options.progress, to show progress while a long fit runs. */
typedef struct pm_progress {
	uint64_t seed;		/* the fit's seed: fits of several seeds may run at once */
	unsigned generation;	/* 0: the initial population */
	unsigned maxiter;	/* the most generations there will be */
	uint64_t evaluations;	/* cost evaluations so far */
	double best_cost;	/* the population's lowest cost (scaled space, penalty included) */
	/* std(costs) / (atol + tol * |mean(costs)|): DE stops when it is <= 1;
	 * +inf while a cost is not finite or when atol and tol are both 0 */
	double convergence;
	/* Fits run as a batch (pm_fit_seeds, pm_sweep): how many there are and
	 * how many have finished; 0 and 0 for a fit on its own. */
	unsigned fits, fits_done;
} pm_progress;

/* Defaults are the engine's (pm_fit_options_engine): where varpro's differ
 * from scipy's, both are given. */
typedef struct pm_fit_options {
	pm_engine engine;	/* PM_ENGINE_VARPRO */
	uint64_t seed;		/* default 1 */
	unsigned threads;	/* 0: the number of online CPUs */
	unsigned maxiter;	/* 1000 (scipy) */
	/* population = popsize * searched parameters (varpro: the powers;
	 * de: every unknown): varpro 10, de 15 (scipy) */
	unsigned popsize;
	double tol, atol;	/* varpro 0.001, de 0.01 (scipy); 0 */
	double mutation_lo, mutation_hi;	/* 0.5, 1: F dithered per generation */
	double recombination;	/* 0.7 */
	int polish;		/* 1: finish with a bounded local search */
	pm_scale scale;		/* PM_SCALE_AUTO */
	pm_loss loss;		/* PM_LOSS_MAE */
	pm_reg reg;		/* PM_REG_NONE */
	double lambda_coef;	/* penalty weight on a and b */
	double lambda_power;	/* penalty weight on p and q */
	/* NULL, or polled before every cost evaluation (milliseconds apart
	 * on 300 000 rows) in differential evolution and in the polish, and
	 * between the fits of pm_fit_seeds, pm_sweep_run and pm_select: once
	 * nonzero (set with pm_request_stop(), from a signal handler or any
	 * thread: the fit's threads read it atomically, and a plain store from
	 * another thread would be a data race) the fit stops there and
	 * returns the best model so far with info.interrupted = 1. A DE
	 * generation cut short is dropped whole; a fit stopped before it
	 * begins still costs one member of its initial population, so that
	 * there is a point to return. The library only reads it. Not kept in
	 * the model. */
	volatile sig_atomic_t *stop;
	/* NULL, or called with progress_arg after the initial population and
	 * after every generation, on a thread of the fit's: fits that run side
	 * by side (pm_fit_seeds, pm_sweep_run, pm_select) call it from several
	 * threads at once, so it must be thread-safe, and quick (the fit waits).
	 * It cannot change the result. Not kept in the model. */
	void (*progress)(const pm_progress *p, void *arg);
	void *progress_arg;
	/* Held-out accuracy (thesis §4.2): with test_fraction F in (0, 1) the
	 * fit holds out round(F * rows) rows chosen by split_seed
	 * (pm_split_rows) and fits the rest; with `test` (rows of another
	 * file, same columns) it fits every row of the data. Either way the
	 * model's info.test holds the accuracy on the held-out rows. Not both.
	 * `test` is only read, and not kept in the model. */
	double test_fraction;	/* 0: none */
	uint64_t split_seed;	/* 1; the CLI makes it the fit's seed */
	const pm_dataset *test;	/* NULL: none */
	/* A validation scheme instead (pm_validation_folds, not with either
	 * of the above): extrapolate holds out the rows of the larger values
	 * and fits the rest, as a test fraction does; kfold and loo fit every
	 * row, then validate the fit by the folds (pm_cross_validate), and
	 * info.test holds the held-out metrics' means over the folds (n: the
	 * rows held out, all folds together), info.options.split_seed the
	 * folds' seed (validate.seed, kept so in model.json). PM_SCHEME_NONE:
	 * none. */
	pm_validation validate;
	/* Prediction intervals (predict.h, pm_model_predict_interval): K >= 2
	 * calibrates them after the fit by K more fits, each on the rows it
	 * was fitted to less one fold of a stratified K-fold split seeded by
	 * split_seed, whose held-out residuals the model keeps (docs/maths.md,
	 * "Prediction intervals"); 0 (the default): none. pm_fit, pm_fit_seeds
	 * (the best seed's model), pm_select (the chosen one) and the
	 * pipelines honour it; the fits inside cross-validation, seeds and
	 * sweeps never calibrate. The fit's own parameters do not depend on
	 * it. perfmodel fit sets 5 unless --no-intervals. */
	unsigned intervals;
	/* NULL, or an earlier model of the same inputs to start from (a warm
	 * start: a scheduler refitting as measurements arrive; docs/cli.md,
	 * "Warm start"). Differential evolution's initial population is drawn
	 * close around its parameters (member 0 is its optimum), with half
	 * the members popsize asks for (rounded up), stops once the costs
	 * agree to tol 0.01 at least, and the polish gets a quarter of its
	 * budget: on more rows of the same experiment the search refines
	 * rather than explores (model.json keeps the options as given). It
	 * must have the fit's target and target kind and the same inputs in
	 * the same roles; a spec with no form takes its form (additive,
	 * multiplicative or its formula), a spec with another form is
	 * refused. A categorical level the data has and it has not is searched
	 * over its whole bounds, as in a cold fit. Errors: PM_ESCHEMA naming the first difference ("the
	 * warm-start model has no input 'x' ..."). pm_select refuses a warm
	 * start (PM_EINVAL: its candidates are of other forms); pm_fit_seeds,
	 * pm_sweep_run and the validation schemes start every fit from it.
	 * Only read, during the call; the model records its data file,
	 * fingerprint and cost (pm_fit_info.warm_*), not the pointer.
	 * Deterministic as any fit: the same seed and warm model give the
	 * same bits for any thread count. */
	const pm_model *warm_start;
} pm_fit_options;

/* The default engine's defaults (PM_ENGINE_VARPRO), seed 1, all CPUs. */
PM_API pm_fit_options pm_fit_options_default(void);
/* The defaults of an engine: for PM_ENGINE_DE,
 * scipy.optimize.differential_evolution's (the thesis's protocol). An
 * unknown engine gives the default's. */
PM_API pm_fit_options pm_fit_options_engine(pm_engine engine);
/* "varpro", "de"; NULL for an unknown engine. */
PM_API const char *pm_engine_name(pm_engine engine);
/* Set *stop (pm_fit_options.stop) to 1 with an atomic store; returns
 * whether it was set already (a second request: a CLI exits then). Lock-free
 * and async-signal-safe: call it from a signal handler or any thread, while
 * fits poll the flag. NULL: nothing, 0. */
PM_API int pm_request_stop(volatile sig_atomic_t *stop);
/* The CPUs online (at least 1): what threads = 0 uses. A fit runs any
 * number of threads asked for, with the same results; more than this only
 * take turns. */
PM_API unsigned pm_cpu_count(void);
/* One candidate of a choice of form (pm_select), as the model records it. */
#define PM_CHOICE_MAX 16
typedef struct pm_choice_candidate {
	char form[64];		/* its label: "additive", "multiplicative", "discover", "formula 2" */
	pm_loss loss;
	size_t nparams;
	/* held-out MAPE (%): mean over the folds and its standard error (the
	 * folds' sample std / sqrt(folds); 0 with one fold); NaN: left out */
	double mape, mape_se;
	char note[512];		/* why it was left out ("" when it was not) */
} pm_choice_candidate;

/* How pm_select chose the form (issue 33), kept in model.json's "fit":
 * {"choice": ...}; n == 0: no choice was made (the form was given). */
typedef struct pm_choice {
	size_t n;		/* candidates recorded (the first PM_CHOICE_MAX) */
	size_t chosen;		/* index of the model's form and loss */
	size_t lowest;		/* index of the lowest held-out MAPE */
	/* the repetitions' noise floor (MAPE %, pm__noise_floor): no candidate
	 * is ranked below it; NaN: no configuration was measured twice */
	double noise_floor;
	/* the held-out MAPE (%) of a log-linear fit of the same inputs on the
	 * same folds (pm_fit_info.yard_mape's model); NaN: not measured */
	double yardstick;
	char validation[512];	/* the folds in words (pm_folds.what) */
	char why[256];		/* the rule that chose, in words */
	pm_choice_candidate cand[PM_CHOICE_MAX];
} pm_choice;

/* How a fit ended, kept in the model and in model.json. */
typedef struct pm_fit_info {
	pm_fit_options options;	/* the settings used (threads: as asked) */
	unsigned threads_used;
	unsigned generations;
	uint64_t evaluations;
	char stop[64];		/* "converged", "maxiter", "interrupted" */
	int polished;		/* 1 if the local search improved the DE best */
	double cost;		/* final cost (scaled space, penalty included) */
	double wall_time_s;
	pm_metrics training;	/* accuracy on the training rows, raw units */
	char data_name[256];	/* the file fitted to */
	char fingerprint[17];	/* of data_name's rows, all of them even when some were held out */
	int interrupted;	/* 1: options.stop ended the fit early (stop "interrupted") */
	pm_metrics test;	/* accuracy on held-out rows, raw units; test.n == 0: none */
	char test_name[256];	/* the file the held-out rows came from */
	char validation[512];	/* with options.validate: the folds in words (pm_folds.what) */
	pm_weights weights;	/* the fitted rows' weights (pm_dataset_set_weights) */
	/* pm_fit_seeds: the seeds asked for (K >= 2; 0 for one fit). The
	 * model's seeds (pm_model_nseeds) are those whose fits completed: all
	 * K unless a stop request cut some short or kept them from starting. */
	unsigned seeds_asked;
	/* 1: the fit predicts the same value for every training row (equal
	 * within a relative 1e-9), whatever its inputs: it describes none of
	 * their effect, and a warning says so (pm_model_warning) */
	int constant;
	/* 1: the fit started from options.warm_start's model, which was fitted
	 * to warm_data (its pm_fit_info.data_name; "" if it has no fit record)
	 * with that data's fingerprint and reached cost warm_cost (NaN: not
	 * known). model.json's "fit": {"warm_start": {...}}. */
	int warm_started;
	char warm_data[256];
	char warm_fingerprint[17];
	double warm_cost;
	/* how the form was chosen (pm_select); choice.n == 0: it was given */
	pm_choice choice;
	/* A yardstick (issue 33): the held-out MAPE (%) of a log-linear fit of
	 * the same inputs (log t = b0 + sum b_i log x_i + one level term per
	 * categorical level, closed form), yard_mape, next to this model's own
	 * held-out MAPE on the same rows, yard_model_mape, held out as
	 * yard_what says; NaN: not measured (no held-out rows, a target <= 0) */
	double yard_mape, yard_model_mape;
	char yard_what[512];
} pm_fit_info;

/* Fit eq. 4.4 to the rows of d with the roles of s (resolved by the call if
 * needed, on a private copy). On success *out owns a new model carrying its
 * pm_fit_info. Errors: PM_ESCHEMA (roles), PM_EDOMAIN (a value <= 0 under a
 * power, naming file, line, column and column name; a target < 0, or 0
 * under the losses mape and log or for a kind other than time, naming the
 * loss or kind; every target value 0), PM_EINVAL
 * (bad option, fewer rows than unknowns), PM_ESCHEMA (a categorical with
 * more levels than half the rows), PM_EFIT (no finite cost anywhere in the
 * bounds),
 * PM_ENOMEM. Deterministic: the same data, spec and options give
 * bit-identical results for any thread count. */
PM_API pm_status pm_fit(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			pm_model **out, pm_error *err);

/* The thesis's repeated fits (Tables 4.2/4.3): nseeds fits of pm_fit with
 * seeds o->seed, o->seed + 1, ..., each on the same rows (the held-out split,
 * if any, is o->split_seed's for all). Up to o->threads threads (0: all
 * CPUs) are shared out between fits running at once and each fit's own
 * population, so the result does not depend on the thread count. On success
 * *out owns the fit with the lowest cost (ties: the lower seed), carrying
 * every seed's raw values and cost (pm_model_nseeds...) and, as each
 * parameter's std, the standard deviation over the seeds; its info has that
 * fit's seed, the whole run's wall time and seeds_asked = nseeds.
 * Interrupted (o->stop): seeds not yet begun are not begun (the first
 * always is); the model is the lowest-cost fit of those that ran, cut
 * short or not, with info.interrupted set, and its seeds, mean and std are
 * those of the completed seeds only (pm_model_nseeds of them, maybe 0:
 * then each std is that of one fit). nseeds == 1 is pm_fit. Errors:
 * PM_EINVAL (nseeds 0, or seeds past UINT64_MAX), else the first failing
 * seed's error, in seed order, as pm_fit gives it. */
PM_API pm_status pm_fit_seeds(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			      unsigned nseeds, pm_model **out, pm_error *err);

PM_API const pm_fit_info *pm_model_fit_info(const pm_model *m);

#ifdef __cplusplus
}
#endif
#endif
