/*
 * perfmodel/perfmodel.h — the full library: measurements, model spec, fitting
 * (thesis eq. 4.4 by parallel deterministic differential evolution), metrics,
 * saving models. Includes predict.h, whose conventions hold here too: nothing
 * prints, exits or aborts; fallible functions return pm_status and fill an
 * optional pm_error; objects are freed with their _free (NULL is a no-op);
 * who owns a returned pointer is said once, in predict.h's "Ownership",
 * and what a NULL argument does in its "NULL".
 */
#ifndef PERFMODEL_PERFMODEL_H
#define PERFMODEL_PERFMODEL_H

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include "perfmodel/predict.h"
/* Other formats (hyperfine, Google Benchmark), repetitions, throughput;
 * first, as the pipelines below read files with its options. */
#include "perfmodel/ingest.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- measurements ---------------------------------------------------------
 * A dataset is a table typed once, when it is read: every column keeps its
 * distinct texts (levels, in order of first appearance), each row's level
 * and each level's number (parsed once; a column is numeric when every
 * cell is a finite decimal number). Each cell keeps its place in the file
 * (line, column), so that any later error can name the cell. Readers take
 * whole columns (pm_dataset_col_numbers, pm_dataset_col_codes); nothing
 * parses a cell after the read. Immutable once read; safe to share between
 * threads. */
typedef struct pm_dataset pm_dataset;

/* Read an RFC 4180 CSV file: header row, quoted fields ("" escapes a quote),
 * LF or CRLF line ends, a UTF-8 BOM tolerated. Errors (PM_EPARSE with the
 * place): empty file, no data rows, a row with a different number of fields,
 * an unterminated quote, an empty or duplicate column name, a field longer
 * than 1 MiB, more than 10 000 columns. */
PM_API pm_status pm_dataset_read_csv(const char *path, pm_dataset **out, pm_error *err);
/* The same from memory; `name` labels errors (may be NULL: "<input>"). */
PM_API pm_status pm_dataset_parse_csv(const char *text, size_t len, const char *name,
				      pm_dataset **out, pm_error *err);
PM_API void pm_dataset_free(pm_dataset *d);

PM_API const char *pm_dataset_name(const pm_dataset *d);	/* the file it came from */
PM_API size_t pm_dataset_nrows(const pm_dataset *d);
PM_API size_t pm_dataset_ncols(const pm_dataset *d);
PM_API const char *pm_dataset_col_name(const pm_dataset *d, size_t col);
/* PM_ESCHEMA "no column 'x' in FILE" when absent. */
PM_API pm_status pm_dataset_col_index(const pm_dataset *d, const char *name, size_t *col,
				      pm_error *err);
/* The cell's text (unquoted; "" for an empty cell). */
PM_API const char *pm_dataset_cell(const pm_dataset *d, size_t row, size_t col);
/* Where the cell starts in the file: 1-based line and column (in bytes). */
PM_API unsigned pm_dataset_cell_line(const pm_dataset *d, size_t row, size_t col);
PM_API unsigned pm_dataset_cell_column(const pm_dataset *d, size_t row, size_t col);
/* 1 if every cell of the column is a finite decimal number, else 0. O(1). */
PM_API int pm_dataset_col_is_numeric(const pm_dataset *d, size_t col);
/* A column of numbers with gaps: 1 when some cell is empty or not a finite
 * number (nan, inf: any case) and every other cell, at least one, is a
 * finite number; else 0 (a numeric column, one with text, no d). Such a
 * column is numbers, not categories, with a value missing on some rows:
 * role inference makes it a numeric input, and a fit that uses it fails at
 * its first gap unless the rows with gaps are dropped
 * (pm_read_options.drop_incomplete). O(levels). */
PM_API int pm_dataset_col_has_gaps(const pm_dataset *d, size_t col);
/* Each row's number of the column into values[0, nrows), NaN where the cell
 * is not a finite number (empty, nan, inf or text); returns the rows that
 * have one. 0 and nothing written for no d or values or col out of range. */
PM_API size_t pm_dataset_col_present(const pm_dataset *d, size_t col, double *values);
/* One cell as a finite number (parsed when the dataset was read). PM_ESCHEMA
 * naming FILE:LINE:COL and the column when the cell is empty, text, NaN or
 * infinite. */
PM_API pm_status pm_dataset_number(const pm_dataset *d, size_t row, size_t col,
				   double *value, pm_error *err);
/* The whole column as numbers, written to values[0, nrows) (the caller's:
 * the dataset keeps a number per level, not per row). When some cell is
 * not a finite number, nothing is written and the error is
 * pm_dataset_number's for the first such cell. PM_EINVAL for no d or
 * values, or col out of range. */
PM_API pm_status pm_dataset_col_numbers(const pm_dataset *d, size_t col, double *values,
					pm_error *err);
/* The column's distinct texts (levels), numbered in order of first
 * appearance; pm_dataset_cell(d, r, col) is the level of row r. The name
 * is owned by d; NULL (and 0 levels) out of range. */
PM_API size_t pm_dataset_col_nlevels(const pm_dataset *d, size_t col);
PM_API const char *pm_dataset_level_name(const pm_dataset *d, size_t col, size_t level);
/* Each row's level of the column into codes[0, nrows). Nothing is written
 * for no d, no codes or col out of range. */
PM_API void pm_dataset_col_codes(const pm_dataset *d, size_t col, uint32_t *codes);
/* A 64-bit FNV-1a hash of the parsed table (names and cells), as 16 hex
 * digits + NUL, to record which data a model was fitted to (d NULL: the
 * empty table's; out NULL: nothing written). */
PM_API void pm_dataset_fingerprint(const pm_dataset *d, char out[17]);

/* Per-row weights of the fit: the loss becomes Σ w_r·loss_r / Σ w_r (the
 * fit normalises the weights of the rows it fits to mean 1, so λ keeps its
 * meaning). w: nrows finite numbers > 0, copied; NULL: unweighted again.
 * pm_dataset_subset keeps each row's weight. PM_EINVAL naming the first bad
 * weight; PM_ENOMEM. */
PM_API pm_status pm_dataset_set_weights(pm_dataset *d, const double *w, pm_error *err);
/* nrows weights, or NULL when unweighted; *kind (may be NULL) says whence. */
PM_API const double *pm_dataset_weights(const pm_dataset *d, pm_weights *kind);
/* When the rows are aggregated runs (pm_dataset_read): each row's number of
 * runs and their coefficient of variation (NaN for one run); else NULL. */
PM_API const unsigned *pm_dataset_reps(const pm_dataset *d);
PM_API const double *pm_dataset_cv(const pm_dataset *d);

/* ---- splitting rows: held-out sets and cross-validation folds --------------
 * Seeded and repeatable: the same (nrows, seed, ...) gives the same rows on
 * every machine and for any thread count. */

/* A new dataset holding rows[0..n) of d in that order (repeats allowed);
 * cells keep their file positions so errors still name FILE:LINE:COL, and
 * pm_dataset_name() is d's. On success *out owns it (pm_dataset_free());
 * on failure *out is NULL. Errors: PM_EINVAL (no d, a row out of range,
 * rows NULL with n > 0), PM_ENOMEM. */
PM_API pm_status pm_dataset_subset(const pm_dataset *d, const size_t *rows, size_t n,
				   pm_dataset **out, pm_error *err);
/* Seeded split of rows 0..nrows-1: round(test_fraction * nrows) rows,
 * chosen uniformly at random, go to *test, the rest to *train; each list
 * ascending, malloc'd, caller frees both. PM_EINVAL unless 0 < F < 1 and
 * both sides are non-empty (and nrows <= 2^32); on failure both lists are
 * NULL and both counts 0. */
PM_API pm_status pm_split_rows(size_t nrows, double test_fraction, uint64_t seed,
			       size_t **train, size_t *ntrain, size_t **test, size_t *ntest,
			       pm_error *err);
/* Seeded K-fold assignment into fold[nrows] (caller's array): fold[r] in
 * 0..k-1 for each row, rows shuffled uniformly, fold sizes differ by at
 * most 1. PM_EINVAL unless 2 <= k <= nrows (and nrows <= 2^32). */
PM_API pm_status pm_kfold_assign(size_t nrows, unsigned k, uint64_t seed, unsigned *fold,
				 pm_error *err);

/* ---- model spec: which column plays which role ---------------------------- */
/* A list of names; { 0 } is empty. Both the array and the names are owned
 * (malloc'd): pm_names_add_list reallocates the array, with room to spare
 * so that adding n names costs time linear in n, and pm_names_clear frees
 * both. */
typedef struct pm_names {
	size_t n;
	char **name;	/* owned */
} pm_names;

typedef struct pm_bounds {
	double coef_lo, coef_hi;	/* a_i and b_{c,v} */
	double power_lo, power_hi;	/* p_i and q_j */
	double const_lo, const_hi;	/* C */
} pm_bounds;

/* Which column plays which role (DESIGN.md §5): opaque, built by
 * pm_spec_new, pm_spec_read_file or pm_spec_parse and changed by the setters
 * below. A spec with neither intrinsic nor categorical columns named infers
 * the roles: every column not otherwise used becomes numeric intrinsic
 * (numbers, with gaps or not: pm_dataset_col_has_gaps), or categorical if
 * it holds text, except a part or a copy of the target, which is left out
 * (docs/formats.md, "Leaks"; the fit's model says so in a warning).
 * pm_spec_resolve decides. */
typedef struct pm_spec pm_spec;

/* The spec's lists of column names. */
typedef enum pm_spec_list {
	PM_SPEC_INTRINSIC = 0,
	PM_SPEC_CATEGORICAL,
	PM_SPEC_EXTRINSIC,
	PM_SPEC_WORKERS		/* per-worker times (load imbalance, thesis §3) */
} pm_spec_list;

/* The thesis's bounds: a, b, C in [0, 1000]; p, q in [-5, 5]. */
PM_API pm_bounds pm_bounds_default(void);
/* An empty spec with default bounds and infer_roles = 1. */
PM_API pm_status pm_spec_new(pm_spec **out, pm_error *err);
PM_API void pm_spec_free(pm_spec *s);
/* Read models/NAME.json. Errors: PM_EIO, PM_EPARSE (line/column), PM_ESCHEMA
 * (unknown key, wrong type, missing target, bound with lo > hi, a column in
 * two roles, a name twice in one list). Its "ignore" list is what
 * pm_spec_ignore adds to. */
PM_API pm_status pm_spec_read_file(const char *path, pm_spec **out, pm_error *err);
PM_API pm_status pm_spec_parse(const char *json, const char *name, pm_spec **out,
			       pm_error *err);
/* Append a comma-separated list of names ("a,b") to a role. */
PM_API pm_status pm_names_add_list(pm_names *names, const char *list, pm_error *err);
/* Empty a role (NULL is fine). */
PM_API void pm_names_clear(pm_names *names);
PM_API pm_status pm_spec_set_target(pm_spec *s, const char *target, pm_error *err);
/* Append a comma-separated list of names ("a,b") to one of the spec's lists;
 * an empty list ("", or blanks) adds none. Naming intrinsic or categorical
 * columns, even none, ends role inference: the spec then uses the columns
 * named and no others (--intrinsic "" means no intrinsic column). Errors as
 * pm_names_add_list; PM_EINVAL for no spec or a list that is not one. */
PM_API pm_status pm_spec_add_names(pm_spec *s, pm_spec_list list, const char *names,
				   pm_error *err);
/* Leave the columns of a comma-separated list ("a,b") out of the model:
 * pm_spec_resolve takes them out of every role and out of role inference
 * (a way to drop a column the identifiability checks warn about, or one a
 * spec file names, without editing it). Role inference goes on. The list
 * adds to the spec file's "ignore". Errors as pm_names_add_list (a column
 * already ignored is one); PM_EINVAL for no spec. pm_spec_resolve then fails
 * (PM_ESCHEMA) for a column the data lacks, the target, or a column of the
 * formula. */
PM_API pm_status pm_spec_ignore(pm_spec *s, const char *names, pm_error *err);
/* A list's names, owned by the spec: valid until the spec is changed or
 * freed. NULL for no spec or a list that is not one. */
PM_API const pm_names *pm_spec_names(const pm_spec *s, pm_spec_list list);
/* The target column (NULL until set), the form (NULL: additive, else
 * "additive", "multiplicative" or a formula), owned by the spec as above. */
PM_API const char *pm_spec_target(const pm_spec *s);
PM_API const char *pm_spec_form(const pm_spec *s);
/* 1 while the spec infers the roles (see pm_spec), else 0. */
PM_API int pm_spec_infers_roles(const pm_spec *s);
/* The bounds of the fit's parameters (pm_bounds_default() until set). Set:
 * PM_EINVAL unless every bound is finite with lo <= hi. */
PM_API pm_bounds pm_spec_bounds(const pm_spec *s);
PM_API pm_status pm_spec_set_bounds(pm_spec *s, const pm_bounds *b, pm_error *err);
/* Set the form: "additive", "multiplicative" or a formula, checked here:
 * PM_EPARSE placed at "formula", line 1, the column of the mistake. */
PM_API pm_status pm_spec_set_form(pm_spec *s, const char *form, pm_error *err);
/* What the target measures (pm_target_kind, predict.h; docs/maths.md):
 * the fit works on the time scale it implies and the model reports,
 * predicts and evaluates in the target's own quantity. resource (column
 * names, copied; NULL: none): the n a speedup or efficiency is over, by
 * default (pm_spec_resolve) the first extrinsic column; per: the column
 * a throughput is per (time scale per/X; NULL: 1/X). Both must be numeric
 * inputs of the model, which predicts from them. PM_EINVAL: no spec, no
 * such kind, an empty name, a resource for a kind other than speedup or
 * efficiency, a per for a kind other than throughput ("--per goes with
 * --target-kind throughput"); the spec is unchanged then. */
PM_API pm_status pm_spec_set_target_kind(pm_spec *s, pm_target_kind kind, const char *resource,
					 const char *per, pm_error *err);
/* The kind (PM_TARGET_TIME until set; PM_TARGET_INVALID for no spec), the
 * resource and per columns (NULL: none; owned by the spec as above). */
PM_API pm_target_kind pm_spec_target_kind(const pm_spec *s);
PM_API const char *pm_spec_resource(const pm_spec *s);
PM_API const char *pm_spec_per(const pm_spec *s);
/* Check the spec against a dataset, and when infer_roles is set, give every
 * unused column a role. A speedup or efficiency without a resource gets the
 * first extrinsic column. Errors: PM_ESCHEMA for a named column the data
 * lacks, a column in two roles, no target, a speedup or efficiency with
 * neither a resource nor an extrinsic column, a resource or per that is
 * not a numeric input; afterwards infer_roles is 0. */
PM_API pm_status pm_spec_resolve(pm_spec *s, const pm_dataset *d, pm_error *err);

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

typedef struct pm_metrics {
	size_t n;		/* rows compared */
	/* rows MAPE is over: those whose measured value is not 0 (a relative
	 * error of 0 is unbounded); fewer than n says rows were left out */
	size_t mape_n;
	double mae, mape, mse, rmse, r2, smape, adj_r2;
} pm_metrics;

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

/* ---- λ sweep (thesis §4.3.3, Figures 4.15-4.17) ----------------------------
 * The regularised fit at each λ of a log grid, measured on held-out rows: by
 * a validation scheme (pm_validation_folds: fit on the rows outside each
 * fold, measure on the fold) or by o's held-out rows (o->test_fraction or
 * o->test). λ sets both penalty weights; o->reg must be l1 or l2. */
typedef struct pm_sweep_options {
	double lambda_lo, lambda_hi;	/* 0 < lo <= hi */
	unsigned npoints;		/* >= 1; lo alone when 1 */
	pm_validation validate;		/* PM_SCHEME_NONE: o's held-out rows */
} pm_sweep_options;

typedef struct pm_sweep_point {
	double lambda;
	/* held-out accuracy: with folds, each metric's mean over the folds
	 * (n: all rows); else o's held-out rows */
	pm_metrics test;
	double mape_std;	/* std of MAPE over the folds (0 without folds) */
	double cost;		/* training cost, mean over the folds */
} pm_sweep_point;

typedef struct pm_sweep {
	size_t npoints, nparams;
	pm_sweep_point *point;
	double *param;		/* npoints * nparams raw values (mean over the folds) */
	char **param_name;	/* nparams, as pm_model_param_name */
	size_t best;		/* the point with the lowest held-out MAPE (ties: smaller λ) */
	unsigned folds;		/* folds measured; 0: o's held-out rows */
	pm_validation validation;	/* the sweep options' */
	char what[512];		/* the folds in words (pm_folds.what); "" without */
	double wall_time_s;
	/* 1: o->stop cut fits short; every point is provisional, and a λ
	 * whose folds did not all start has no point (npoints counts those
	 * that have one; the first λ always has) */
	int interrupted;
} pm_sweep;

/* Run the sweep; fits run side by side on o->threads threads (0: all CPUs),
 * results independent of the thread count. On success *out owns the sweep
 * (pm_sweep_free). Errors: PM_EINVAL (bad grid, reg none, neither a scheme
 * nor held-out rows, both, o->validate set), those of pm_validation_folds,
 * else a fit's, the first in (λ, fold) order. */
PM_API pm_status pm_sweep_run(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			      const pm_sweep_options *so, pm_sweep **out, pm_error *err);
PM_API void pm_sweep_free(pm_sweep *sw);	/* NULL: no-op */
/* perfmodel sweep --json's document (docs/formats.md), malloc'd. */
PM_API pm_status pm_sweep_to_json(const pm_sweep *sw, const pm_fit_options *o, char **out,
				  pm_error *err);

/* ---- scaling report (thesis §4.3, Table 4.5) -------------------------------
 * What each extrinsic input does to run time. With eq. 4.4, t = I * E^q + C:
 * doubling E multiplies the first part by 2^q, while C stays, which is why
 * measured speedup falls short of E^q. So the report gives both: the power
 * of the input's own term, and the effective exponent d log t̂ / d log E of
 * the whole prediction (C and every term included) at a reference point,
 * the baseline. Exponents follow one convention (pm_model_param_power):
 * as they act on t, negative = faster with more E. */
typedef struct pm_scaling {
	size_t input;		/* the extrinsic input */
	size_t param;		/* the parameter of its own power; nparams (and q, q_std,
				 * power, doubling NaN) when a formula gives it none */
	double q, q_std;	/* that parameter as the formula writes it
				 * (pm_model_param_value: q of "/ E^q" too) and its std
				 * over seeds (NaN: one fit), which is power's std too */
	double power;		/* the exponent on t in its own term: q, or −q after a
				 * '/'; NaN when q is used only in log2() */
	double doubling;	/* 2^power: what doubling the input multiplies its own
				 * term by, C and the other terms aside */
	double effective;	/* d log t̂ / d log E at the baseline (E at its own
				 * baseline value too; pm_model_effective_exponent):
				 * near there, doubling E multiplies the predicted time
				 * by about 2^effective. NaN where t̂ has no derivative
				 * (an indicator on E switches at the baseline) */
	size_t npoints;		/* the input's distinct values in the data */
	double *value;		/* npoints values, ascending */
	double *time;		/* predicted time at value[i], other inputs at the baseline */
	double *speedup;	/* time[0] / time[i] */
	double *efficiency;	/* speedup[i] / (value[i] / value[0]) */
} pm_scaling;

typedef struct pm_scaling_report {
	size_t n;		/* one per extrinsic input, in input order */
	pm_scaling *scaling;
	/* pm_model_ninputs(m) values, the reference point: the median of each
	 * numeric input over the data's rows, the most frequent level (index;
	 * ties: the first) of each categorical one */
	double *baseline;
} pm_scaling_report;

/* The scaling report of m at the values in d (the rows the model was
 * fitted to, usually). On success *out owns it (pm_scaling_report_free).
 * Errors name FILE:LINE:COL as pm_model_predict_dataset's; PM_EINVAL for a
 * dataset with no rows; PM_ENOMEM. */
PM_API pm_status pm_scaling_report_new(const pm_model *m, const pm_dataset *d,
				       pm_scaling_report **out, pm_error *err);
PM_API void pm_scaling_report_free(pm_scaling_report *r);	/* NULL: no-op */
/* The document of perfmodel fit --json (docs/formats.md): m's model.json
 * members and "scaling", r as a list (malloc'd, caller frees). */
PM_API pm_status pm_fit_report_to_json(const pm_model *m, const pm_scaling_report *r,
				       char **out, pm_error *err);

/* ---- report: the plots and page people look at (perfmodel report) ---------
 * The thesis's pictures as SVG: predicted against measured (y = x line,
 * training and held-out rows in different marks), residuals against each
 * extrinsic input, predicted speedup and efficiency against the ideal (and
 * for a model with intervals its predicted target with the 90 % interval as
 * a band, "time_INPUT.svg", or for a target kind "target_INPUT.svg" in the
 * kind's quantity), and with a λ sweep its held-out MAPE, R² and parameter paths; and one
 * self-contained HTML page (inline SVG, no script) with them and the
 * accuracy and parameter (± std) tables. docs/report.md shows one. */
typedef struct pm_report_data {
	const pm_dataset *data;	/* required: rows plotted as training */
	const pm_dataset *test;	/* NULL, or held-out rows (other marks) */
	const char *sweep;	/* NULL, or a file written by perfmodel sweep --json */
	const char *model_name;	/* shown on the page (may be NULL) */
} pm_report_data;

typedef struct pm_plot {
	char *name;	/* a file name: "predicted_vs_measured.svg", "speedup_threads.svg" */
	char *title;
	char *svg;	/* a standalone SVG document */
} pm_plot;

typedef struct pm_plots {
	size_t n;
	pm_plot *plot;
} pm_plots;

/* The plots, in page order. On success *out owns them (pm_plots_free).
 * Errors: those of pm_model_predict_dataset and pm_dataset_number on the
 * rows (FILE:LINE:COL), PM_EIO/PM_EPARSE/PM_ESCHEMA for the sweep file,
 * PM_ENOMEM. */
PM_API pm_status pm_report_plots(const pm_model *m, const pm_report_data *r, pm_plots **out,
				 pm_error *err);
PM_API void pm_plots_free(pm_plots *p);	/* NULL: no-op */
/* The HTML page (malloc'd, caller frees); errors as pm_report_plots. */
PM_API pm_status pm_report_html(const pm_model *m, const pm_report_data *r, char **out,
				pm_error *err);
/* report --json (the conventions of the JSON documents below): "model"
 * (r->model_name), "target", "output" (html_path: where the page was
 * written), "plot_dir", "sweep" (r->sweep; each NULL: null), "data" and
 * "test": the accuracy table's rows, {"file", "rows", "mae", ...} or null,
 * "parameters": the parameter table, a line each, "plots": each plot's
 * "name", "title" and "file" (PLOT_DIR/NAME, null without plot_dir).
 * Errors as pm_report_html. */
PM_API pm_status pm_report_to_json(const pm_model *m, const pm_report_data *r,
				   const char *html_path, const char *plot_dir, char **out,
				   pm_error *err);

/* Predict every row of d (columns matched by name, levels by text) into
 * out[nrows], in the model's own quantity (pm_model_predict_target: a
 * speedup for a speedup model, a time for a time model). Errors name
 * FILE:LINE:COL: a missing column, an unknown level, a value <= 0 under a
 * power, text where a number is needed, no speedup (efficiency,
 * throughput) where the model's time scale is not > 0. */
PM_API pm_status pm_model_predict_dataset(const pm_model *m, const pm_dataset *d,
					  double *out, pm_error *err);
/* The same with intervals (predict.h, pm_model_predict_quantile): besides
 * out[nrows], qout[r * nq + j] (nrows * nq) gets row r's q[j]-quantile in
 * the model's own quantity (a target kind's y = w / t falls as t grows:
 * its q-quantile is the (1 - q)-quantile of t turned into y, so quantiles
 * still grow with q), and extrapolated[r] (NULL: not wanted) 1 where the
 * row lies outside the ranges the model was fitted to, else 0. nq 0 and
 * both NULL is pm_model_predict_dataset. Errors: those of
 * pm_model_predict_dataset and of pm_model_predict_quantile (no intervals,
 * a quantile beyond them: before any row; a row's, placed at it). */
PM_API pm_status pm_model_predict_dataset_quantiles(const pm_model *m, const pm_dataset *d,
						    size_t nq, const double *q, double *out,
						    double *qout, int *extrapolated,
						    pm_error *err);

/* Accuracy of m on the rows of d, whose target column (pm_model_target) holds
 * the measured values: in the model's own quantity (its target kind), so
 * that a speedup model's MAPE is that of its speedups. Errors as
 * pm_model_predict_dataset; PM_EDOMAIN for a measured value not > 0. */
PM_API pm_status pm_model_evaluate(const pm_model *m, const pm_dataset *d, pm_metrics *out,
				   pm_error *err);

/* Read a predict config (DESIGN.md §5):
 *   { "model": "model.json", "points": [ {"kernel_size": 3, "activation": "relu", ...} ] }
 * ("point": {...} for one point). A relative model path is resolved against
 * the config file's folder. On success *model owns the loaded model and
 * *points a dataset with one row per point and one column per model input,
 * in the model's order, every value already checked against the model.
 * Errors name the config file and the point: a missing input, an input the
 * model does not have, an unknown level, a number <= 0, wrong JSON types. */
PM_API pm_status pm_predict_config_read(const char *path, pm_model **model,
					pm_dataset **points, pm_error *err);

/* ---- discovering the model's terms (perfmodel discover, issue 21) ----------
 * A search over hypotheses t = C + sum_k c_k * M * term_k (docs/discover.md):
 * each term a product of up to 8 factors of the numeric inputs, x^i *
 * log2(x)^j (i from a set of fractions, negative ones included; j in 0..2)
 * or an indicator [x > v]; M the product of some categoricals' per-level
 * multipliers (or none); per-level offsets of a categorical in place of C.
 * Coefficients by weighted least squares with weights 1/t^2 (relative
 * error: small times count as much as large) and every coefficient >= 0
 * (each term adds time); hypotheses ranked by held-out MAPE under a
 * validation scheme, found by a beam search over moves (add a term, reshape
 * or multiply one, scale by a categorical, offsets), the fewest terms within
 * one standard error of the best chosen. A hypothesis whose
 * prediction at twice an input's largest value is <= 0, not finite, or more
 * than 16 times (or less than 1/16 of) that at the largest, is rejected. */
typedef struct pm_discover_options {
	unsigned max_terms;	/* terms besides the constant, 1..6 (3) */
	unsigned beam;		/* hypotheses the beam keeps at each step, 1..64 (16) */
	unsigned top;		/* candidates reported, 1..100 (10) */
	pm_validation validate;	/* how hypotheses are ranked (kfold:5, seed 1) */
	/* hypotheses evaluated side by side on this many threads (0: the
	 * CPUs; at most 1024); the result does not depend on it */
	unsigned threads;
	/* NULL, or polled between the search's steps, as pm_fit_options.stop:
	 * the search ends there, with what it has (interrupted set;
	 * pm_discover_file and pm_select_file then fail with PM_EFIT) */
	volatile sig_atomic_t *stop;
	/* pm_discover_file: fit `refined` (the powers fitted continuously from
	 * the search's numbers) rather than the chosen formula (0) */
	int refine;
} pm_discover_options;

PM_API pm_discover_options pm_discover_options_default(void);

typedef struct pm_discovered {
	char *formula;		/* in the language of pm_spec_set_form (docs/maths.md) */
	unsigned terms;		/* besides the constant or the per-level offsets */
	/* held-out MAPE (%): mean over the folds and the dealings; its
	 * standard error (std / sqrt(folds), mean over the dealings; 0 with
	 * one fold) */
	double mape;
	double mape_se;
} pm_discovered;

typedef struct pm_discovery {
	size_t n;		/* candidates, best held-out MAPE first */
	pm_discovered *cand;
	/* the fewest terms within one standard error of cand[0], or of the
	 * noise floor where that is higher */
	size_t chosen;
	/* the chosen formula with every power a fitted parameter (x^p1, ...),
	 * its log2 factors and indicators as they are */
	char *refined;
	size_t hypotheses;	/* evaluated */
	size_t rejected;	/* of those, rejected for how they extrapolate */
	unsigned folds;
	char what[512];		/* the validation in words (pm_folds.what) */
	/* the finalists (cand among them) were scored on this many dealings
	 * of kfold's folds, seeds seed .. seed + dealings - 1 (1: one dealing,
	 * another scheme or a fold per configuration) */
	unsigned dealings;
	/* the noise floor of repeated configurations (%; NaN: too few
	 * repeats), as pm_fit_info.choice's */
	double noise_floor;
	/* with a noise floor: the finalists whose lack of fit is within the
	 * noise (an F test of the configurations' means against the runs'
	 * spread, at 5 %); when some are, chosen is the least structure among
	 * them (docs/discover.md) */
	size_t adequate;
	double wall_time_s;
	/* 1: a stop request ended the search early; then n may be 0 (no
	 * candidate, no refined formula) */
	int interrupted;
} pm_discovery;

/* Search the terms of a model of d's target in the inputs of s (resolved
 * on a copy, as pm_fit does; a formula form is refused: discover writes
 * the formula). Deterministic; o NULL: the defaults. On success *out owns
 * the result (pm_discovery_free). A target kind other than time is
 * searched on its time scale (1/S, 1/(n E), per/X), as pm_fit fits it.
 * Errors: PM_EINVAL (bad options, a formula spec, no numeric or
 * categorical input to search), those of the target as pm_fit's (a value
 * <= 0, PM_EDOMAIN: the search weighs rows by 1/t², so a 0 is refused
 * whatever o's loss; the message names fit and select with mae instead),
 * those of pm_spec_resolve and pm_validation_folds, PM_EFIT when no
 * hypothesis survives, PM_ENOMEM. */
PM_API pm_status pm_discover(const pm_dataset *d, const pm_spec *s, const pm_discover_options *o,
			     pm_discovery **out, pm_error *err);
PM_API void pm_discovery_free(pm_discovery *x);	/* NULL: no-op */

/* ---- choosing the model form by cross-validation --------------------------- */
typedef struct pm_cv_result {
	unsigned folds;
	size_t nparams;		/* unknowns of the form fitted */
	double mape, mape_std;	/* held-out MAPE (%): mean and sample std over the folds */
	double r2;		/* held-out R²: mean over the folds */
	double fit_time_s;	/* wall time of one fold's fit: mean over the folds */
	/* Every held-out metric (mape, smape, mae, mse, rmse, r2) as its mean
	 * and its sample std over the folds (mape, mape_std and r2 above are
	 * three of them); n: the rows held out, all folds together; adj_r2
	 * NaN (nothing was fitted to the held-out rows). A fold whose held-out
	 * values are all 0 has no MAPE (pm_metrics_compute): MAPE's mean and
	 * std are over the other folds, NaN if there are none. */
	pm_metrics mean, std;
	/* the folds whose fit predicted one value for all its rows
	 * (pm_fit_info.constant): such a fit describes none of the inputs */
	unsigned constant_folds;
	size_t kept;		/* rows never held out (pm_folds) */
	char what[512];		/* the scheme in words (pm_folds.what) */
	/* pm_select: why this candidate was left out of the choice (a fold it
	 * could not be fitted to: more unknowns than the fold's rows, ...);
	 * then mape is NaN. "" when it was measured. */
	char note[512];
} pm_cv_result;

/* Validation of pm_fit(d, s, o) by the scheme v: rows are dealt into folds
 * by pm_validation_folds(d, s, v); each fold in turn is held out, the model
 * fitted to the other rows and its accuracy measured on the held-out ones
 * (one fold to extrapolate). v NULL or PM_SCHEME_NONE with o->test: one
 * "fold", every row of d fitted and o->test measured. Deterministic like
 * pm_fit (any thread count); o's own test_fraction and validate are not
 * used. With one fold, each std is NaN. Errors: those of
 * pm_validation_folds and pm_fit, and of predicting a held-out row, with
 * the fold named in the message; PM_EINVAL for no scheme and no o->test. */
PM_API pm_status pm_cross_validate(const pm_dataset *d, const pm_spec *s,
				   const pm_fit_options *o, const pm_validation *v,
				   pm_cv_result *out, pm_error *err);

/* One candidate of pm_select(): a form and the loss to fit it with. */
typedef struct pm_candidate {
	const char *form;	/* "additive", "multiplicative" or a formula (pm_spec's) */
	pm_loss loss;
	/* the name the choice records (pm_choice_candidate.form); NULL: the
	 * form itself, or "formula K" for a formula */
	const char *label;
	/* NULL, or why the candidate cannot be tried (discover found nothing
	 * to search): pm_select leaves it out with this note */
	const char *skip;
} pm_candidate;

/* The candidate of cv[0..n) (n >= 1; 0 for none) with the lowest mean
 * held-out MAPE; of equal ones, a candidate with no constant fold
 * (constant_folds 0) before one with some, then the first listed. A MAPE
 * that is NaN (a candidate left out) loses to any number. */
PM_API size_t pm_select_best(const pm_cv_result *cv, size_t n);

/* The candidate pm_select chooses (issue 33): the first listed whose mean
 * held-out MAPE is within one standard error (the folds' sample std /
 * sqrt(folds) of the lowest, 0 with one fold; plus 1e-9 percentage points,
 * so that MAPEs equal but for rounding are equal) of max(lowest, noise_floor),
 * so that a simpler form listed first (eq. 4.4) is kept unless another is
 * better by more than the folds disagree or the repetitions' noise allows
 * (noise_floor: pm_choice.noise_floor, NaN for none). A candidate
 * constant in every fold within that bar is chosen before any (of those,
 * the fewest unknowns: discover's "C"): no input's effect shows; one
 * constant in some folds only, only when the lowest has some too. */
PM_API size_t pm_select_choose(const pm_cv_result *cv, size_t n, double noise_floor);

/* Choose a model for the rows of d: validate each of cand[0..n) by v on
 * the same folds (dealt once by the roles of s; pm_cross_validate, o with
 * the candidate's form and loss), into cv[n]; *best is the one
 * pm_select_choose(cv, n, noise floor) chooses, and *out that candidate
 * fitted with o to every row (caller frees; o's held-out rows, a
 * test_fraction or o->validate, are held out of the choice too), with the
 * choice in its pm_fit_info.choice. A candidate that cannot be validated
 * (more unknowns than a fold's rows, a loss the data refuse, cand[i].skip)
 * is left out: its cv[i].mape NaN, cv[i].note why; when none can be, the
 * first listed that fits every row is *out, unvalidated, with a warning,
 * and when none fits either, the first validation's error (naming the
 * form). A form that does not parse fails before any fitting; PM_EINVAL for
 * o->warm_start (a model of one form) and a kfold scheme of fewer than 2
 * folds. */
PM_API pm_status pm_select(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			   const pm_candidate *cand, size_t n, const pm_validation *v,
			   pm_cv_result *cv, size_t *best, pm_model **out, pm_error *err);

/* What pm_select tried and how each candidate did, for the document of
 * select --json. Only read. */
typedef struct pm_selection {
	size_t n;			/* candidates, >= 1 */
	const pm_candidate *cand;	/* n: as given to pm_select */
	const pm_cv_result *cv;		/* n: pm_select's cv */
	size_t best;			/* the one chosen (pm_select_best) */
	const pm_validation *validation;	/* pm_select's v */
	/* pm_select_file's search for the candidate "discover" (the chosen
	 * formula is what was validated); NULL: none */
	const pm_discovery *discovery;
} pm_selection;
/* The document of perfmodel select --json (docs/json.md): the members of
 * pm_fit_report_to_json (m, the chosen candidate fitted to every row, and
 * its scaling report r), then "selection": {"validation" (its text,
 * pm_validation_text), "description" (pm_cv_result.what), "folds",
 * "fold_seed" (kfold only), "kept" (rows never held out), "rows" (held
 * out, all folds together), "chosen" (index), "candidates": [{"form",
 * "loss", "params", "chosen", "constant_folds", "mean": {"mape", "smape",
 * "mae", "mse", "rmse", "r2"}, "std": {the same}}]}, the held-out metrics'
 * mean and sample std over the folds. PM_EINVAL for no model, report or
 * candidates, or best out of range; else as pm_fit_report_to_json. */
PM_API pm_status pm_select_report_to_json(const pm_model *m, const pm_scaling_report *r,
					  const pm_selection *sel, char **out, pm_error *err);
/* The document of perfmodel discover --json (docs/json.md): the members of
 * pm_fit_report_to_json (m, the chosen formula fitted, and its scaling
 * report r), then "discovery": {"validation" (v's text), "description",
 * "folds", "hypotheses", "rejected", "chosen" (index), "candidates":
 * [{"formula", "terms", "mape", "mape_se", "chosen"}]}. PM_EINVAL for no
 * model, report, discovery or scheme; else as pm_fit_report_to_json. */
PM_API pm_status pm_discover_report_to_json(const pm_model *m, const pm_scaling_report *r,
					    const pm_discovery *x, const pm_validation *v,
					    char **out, pm_error *err);

/* Accuracy of pred against measured t (n rows; nparams for adjusted R²).
 * MAPE and SMAPE in percent. MAPE is the mean over the rows with t != 0
 * alone (a 0, which a fit under mae or mse takes, has no relative error),
 * NaN if there are none; the others count every row. PM_EINVAL if n == 0. */
PM_API pm_status pm_metrics_compute(const double *t, const double *pred, size_t n,
				    size_t nparams, pm_metrics *out, pm_error *err);

/* ---- JSON documents (docs/json.md) -----------------------------------------
 * What perfmodel prints with --json is made by these functions and by
 * pm_sweep_to_json, pm_fit_report_to_json, pm_select_report_to_json,
 * pm_lif_report_to_json,
 * pm_ssgd_report_to_json and pm_report_to_json, all alike: on success *out
 * owns a NUL-terminated text ending in a newline (caller frees), with every
 * double as the fewest digits that read back bit-exact, a value that is not
 * finite as null, strings escaped (control characters, '"', '\\'; other
 * bytes, UTF-8 included, as they are) and a NULL string as null; on failure
 * *out is NULL. Errors: PM_EINVAL for a missing argument, PM_ENOMEM. */

/* eval --json: {"model": model_name, "file": data_name, "target",
 * "target_kind" (only for a kind other than time: the metrics are in that
 * quantity), then x's members as model.json's "training": "rows", "mae",
 * ..., "adj_r2"}, on one line. */
PM_API pm_status pm_eval_to_json(const pm_model *m, const char *model_name,
				 const char *data_name, const pm_metrics *x, char **out,
				 pm_error *err);
/* predict --json: an array with one object per row of d, a line each: every
 * column (a cell that is a finite number as a number, else as a string)
 * and label: pred[row] (label NULL: "predicted"; perfmodel predict gives
 * pm_model_prediction_label, which names a target kind's quantity). */
PM_API pm_status pm_predictions_to_json(const pm_dataset *d, const double *pred,
					const char *label, char **out, pm_error *err);
/* The same with more members after label in each object: ncols numbers
 * named name[0..ncols) ("lower", "upper", "q0.95"), row r's value[r *
 * ncols + c], then, when extrapolated is not NULL, "extrapolated":
 * true/false from extrapolated[r] (predict --interval, --quantiles). */
typedef struct pm_prediction_columns {
	size_t ncols;
	const char *const *name;
	const double *value;
	const int *extrapolated;
} pm_prediction_columns;
PM_API pm_status pm_predictions_columns_to_json(const pm_dataset *d, const double *pred,
						const char *label,
						const pm_prediction_columns *x, char **out,
						pm_error *err);
/* advise --json: "model" (model_name), "target", "resource" (the input
 * vary[o->resource] names), "min_efficiency", "quantile" (only when
 * o->quantile > 0), "combinations", then "fastest", "cheapest", "largest",
 * each {"values": {input: value, ...}, "time", "cost", "speedup",
 * "efficiency", and "quantile_time" with a quantile} on one line, or null
 * when none qualifies. vary, nvary and o as given to the pm_model_advise call that
 * made a; PM_EINVAL for a vary list it would refuse (no inputs, too many, an
 * input or a resource out of range). */
PM_API pm_status pm_advice_to_json(const pm_model *m, const char *model_name,
				   const pm_vary *vary, size_t nvary,
				   const pm_advise_options *o, const pm_advice *a, char **out,
				   pm_error *err);
/* advise --slurm --json: which pick becomes the sbatch options, their
 * quantiles, each varied input's sbatch option (nvary; NULL, or an entry
 * NULL, for none: pm_slurm_option's or the user's mapping) and the limits
 * pm_slurm_limits_at gave at the pick's configuration. */
typedef struct pm_slurm_pick {
	const char *pick;	/* "fastest", "cheapest" or "largest" */
	double time_quantile, time_min_quantile;
	const char *const *option;
	const pm_slurm_limits *limits;
} pm_slurm_pick;
/* pm_advice_to_json's members, then "slurm": {"pick", "time" and
 * "time_min", each {"limit" (sbatch's text), "minutes", "quantile",
 * "seconds" (unrounded), "kill_risk" (1 - quantile: at most that share of
 * runs is killed at the limit)}, "options": [{"input", "option" (null for
 * none), "value"}, ...] per varied input, "sbatch": ["--time=...",
 * "--time-min=...", "--nodes=4", ...], "extrapolated", "distance"}.
 * PM_EINVAL as pm_advice_to_json, and for an unknown pick or one that
 * found no combination. */
PM_API pm_status pm_advice_slurm_to_json(const pm_model *m, const char *model_name,
					 const pm_vary *vary, size_t nvary,
					 const pm_advise_options *o, const pm_advice *a,
					 const pm_slurm_pick *s, char **out, pm_error *err);
/* --version --json: {"name": "perfmodel", "version": pm_version()}. */
PM_API pm_status pm_version_to_json(char **out, pm_error *err);
/* A double as these documents write it, into out, which it returns: the
 * shortest of %.15g, %.16g, %.17g that reads back bit-exact, with '.' as
 * the decimal point whatever the locale; "null" when v is not finite. NULL
 * for a NULL out. */
#define PM_DOUBLE_CHARS 40
PM_API const char *pm_format_double(double v, char out[PM_DOUBLE_CHARS]);


/* The model as a model.json text (malloc'd, caller frees): every double
 * printed so that it reads back bit-exact. */
PM_API pm_status pm_model_to_json(const pm_model *m, char **out, pm_error *err);
/* The lines of `perfmodel batch`'s results (docs/batch.md). A job's id as
 * its jobs file gave it: a string (text), a whole number, or none (given 0,
 * written as null: a line that could not be read as a job). */
typedef struct pm_batch_id {
	const char *text;	/* the string id; NULL: number is the id */
	long long number;
	int given;
} pm_batch_id;
/* One job's result as one line (newline-terminated, malloc'd, caller
 * frees): {"id": ID, "model": MODEL} with MODEL the document of
 * pm_model_to_json on one line, or {"id": ID, "error": MESSAGE}; exactly one
 * of m and error. Without timings the model's "run" member (threads used,
 * wall time) is left out, so that two runs of one batch write the same bytes
 * (the loader takes a model without it). PM_EINVAL for both or neither of m
 * and error, or a model the loader would refuse; PM_ENOMEM. */
PM_API pm_status pm_batch_line_to_json(const pm_batch_id *id, const pm_model *m,
				       const char *error, int timings, char **out, pm_error *err);
/* The last line of a batch cut short: {"incomplete": true, "done": DONE,
 * "jobs": JOBS}. PM_EINVAL when done > jobs. */
PM_API pm_status pm_batch_incomplete_to_json(size_t done, size_t jobs, char **out,
					     pm_error *err);
/* Write model.json atomically: a temporary file in the same folder, fsync,
 * rename. A failure leaves no file behind and any old file untouched. */
PM_API pm_status pm_model_save_file(const pm_model *m, const char *path, pm_error *err);

/* Whether path can take an output, checked before any work is done: PM_OK
 * for a new file or a regular one (after symbolic links); PM_EIO for a FIFO,
 * device, socket or folder, and for the same file (device and inode) as one
 * of inputs[0..n) (NULL entries and "-" skipped), which the output would
 * destroy. */
PM_API pm_status pm_output_check(const char *path, const char *const *inputs, size_t n,
				 pm_error *err);
/* Write `len` bytes to `path` the same atomic way. What is at path decides
 * (pm_output_check): nothing or a regular file is replaced; a symbolic link
 * is followed and its target replaced, the link kept; a FIFO, device,
 * socket or folder is refused (PM_EIO). "-" is not standard output here:
 * the caller decides where that makes sense. */
PM_API pm_status pm_write_file_atomic(const char *path, const char *data, size_t len,
				      pm_error *err);

#ifdef __cplusplus
}
#endif

/* Load imbalance and the S-SGD phase model (thesis chapter 3). */
#include "perfmodel/lif.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- from files to results: the pipelines of perfmodel fit, select, sweep
 * and eval, each one call between parsing options and printing ------------- */

/* Read measurements for a fit with the roles of s: s's target is the time
 * and its inputs the configuration (pm_read_options target and key; o's
 * other settings as given, NULL: the defaults). When s has no target and the
 * format (or o->throughput) makes the time column, s's target becomes
 * PM_INGEST_TIME_COLUMN. Worker times are per run: when o merges runs
 * (pm_read_merges_runs), s's workers are dropped, or with target
 * PM_LIF_COLUMN refused (PM_EINVAL) before the file is read. On success *out
 * owns the dataset and *info (may be NULL) owns its arrays
 * (pm_read_info_clear); on failure *out is NULL and *info empty. Errors:
 * those of pm_dataset_read, PM_EINVAL, PM_ENOMEM. */
PM_API pm_status pm_spec_read_data(pm_spec *s, const char *path, const pm_read_options *o,
				   pm_dataset **out, pm_read_info *info, pm_error *err);

/* Read measurements for m: its target is the time and its inputs the
 * configuration (o's other settings as given, NULL: the defaults); a model
 * fitted to a derived target (PM_LIF_COLUMN) gets that column derived from
 * the worker columns it recorded when the file lacks it
 * (pm_model_derive_lif). Ownership and failure as pm_spec_read_data. Errors:
 * those of pm_dataset_read and pm_model_derive_lif, PM_EINVAL, PM_ENOMEM. */
PM_API pm_status pm_model_read_data(const pm_model *m, const char *path,
				    const pm_read_options *o, pm_dataset **out,
				    pm_read_info *info, pm_error *err);

/* Where a pipeline's rows come from. Only read; strings not kept. */
typedef struct pm_source {
	const char *path;	/* the measurements */
	/* NULL, or held-out rows in another file: the fit uses every row of
	 * path and measures on these (pm_fit_options.test). Not with a
	 * test_fraction. */
	const char *test_path;
	pm_read_options read;	/* how both files are read */
} pm_source;

/* What a fit or a selection made. Everything is owned by the result:
 * pm_fit_result_free frees it all (NULL is a no-op); take a member over by
 * setting it to NULL first. */
typedef struct pm_fit_result {
	pm_model *model;	/* the fit (select: the chosen candidate on every row) */
	/* path's rows as fitted: read, runs merged, the target derived; with
	 * a test_fraction the held-out rows are among them */
	pm_dataset *data;
	pm_dataset *test;	/* test_path's rows, read and derived alike; NULL: none */
	pm_read_info info;	/* how path was read */
	/* pm_select_file: each candidate's cross-validation, and the chosen
	 * one's index; 0, NULL and 0 after pm_fit_file */
	size_t ncand;
	pm_cv_result *cv;
	size_t best;
	/* pm_discover_file: the search, whose chosen formula is the model's;
	 * NULL otherwise */
	pm_discovery *discovery;
} pm_fit_result;

PM_API void pm_fit_result_free(pm_fit_result *r);

/* perfmodel fit: read src->path for s (pm_spec_read_data, on a private
 * copy of s: the caller's is not changed), and src->test_path the same way;
 * derive the target in both when s's is PM_LIF_COLUMN (pm_spec_derive_lif:
 * the worker columns matched in the data name those of the test rows); fit
 * with o, holding out o->test_fraction of the rows or measuring on the test
 * rows, nseeds times (pm_fit_seeds). o->test must be NULL: the test rows
 * come from src. On success *out owns the result; on failure *out is NULL.
 * A fit stopped by o->stop succeeds with info.interrupted set; stopped
 * while the files were read, no fit begins: PM_EFIT ("interrupted while
 * reading"), as for pm_select_file and pm_sweep_file. Errors:
 * PM_EINVAL (no src, path, s or o; o->test given), and those of
 * pm_spec_read_data, pm_spec_derive_lif and pm_fit_seeds, in that order. */
PM_API pm_status pm_fit_file(const pm_source *src, const pm_spec *s, const pm_fit_options *o,
			     unsigned nseeds, pm_fit_result **out, pm_error *err);

/* perfmodel select: read and derive as pm_fit_file, then pm_select of
 * cand[0..n) validated by v (a candidate whose form is "discover" is the
 * formula pm_discover finds, ranked by v, on the rows the selection
 * validates: the result's discovery); the result's cv[ncand] and
 * best say how each did. cand is only read. Ownership as pm_fit_file.
 * Errors: as pm_fit_file, PM_EINVAL for no candidates, and those of
 * pm_select (a fold cut short by o->stop is PM_EFIT: nothing is chosen). */
PM_API pm_status pm_select_file(const pm_source *src, const pm_spec *s,
				const pm_fit_options *o, const pm_candidate *cand, size_t n,
				const pm_validation *v, pm_fit_result **out, pm_error *err);

/* perfmodel discover: read and derive as pm_fit_file, pm_discover (dopt
 * NULL: its defaults; its threads and stop, when unset, o's) on the rows,
 * then fit the chosen formula (dopt->refine: the refined one) with o as
 * pm_fit_file does (nseeds seeds), validated, when the search was ranked
 * by kfold or loo and o holds no rows out, by the same scheme (the test
 * metrics are then the folds' means of the formula's fit): the result's
 * discovery says what was searched. Ownership as pm_fit_file. Errors: as
 * pm_fit_file, then those of pm_discover and of the fit. */
PM_API pm_status pm_discover_file(const pm_source *src, const pm_spec *s,
				  const pm_fit_options *o, const pm_discover_options *dopt,
				  unsigned nseeds, pm_fit_result **out, pm_error *err);

/* perfmodel sweep: read and derive as pm_fit_file, then pm_sweep_run with
 * so. On success *out owns the sweep (pm_sweep_free); on failure it is
 * NULL. Errors: as pm_fit_file, then those of pm_sweep_run. */
PM_API pm_status pm_sweep_file(const pm_source *src, const pm_spec *s, const pm_fit_options *o,
			       const pm_sweep_options *so, pm_sweep **out, pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
