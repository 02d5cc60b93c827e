/*
 * perfmodel/perfmodel.h — the full library: measurements, model spec, fitting
 * (thesis eq. 4.4 by parallel deterministic differential evolution), metrics,
 * saving models. Includes predict.h, whose conventions hold here too: nothing
 * prints, exits or aborts; fallible functions return pm_status and fill an
 * optional pm_error; objects are freed with their _free (NULL is a no-op).
 */
#ifndef PERFMODEL_PERFMODEL_H
#define PERFMODEL_PERFMODEL_H

#include <stdint.h>
#include <stddef.h>
#include "perfmodel/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- measurements ---------------------------------------------------------
 * A dataset is a CSV table kept as text: header names, and per cell its text
 * and its place in the file (line, column), so that any later error can name
 * the cell. Numbers are parsed when a role needs them. Immutable once read;
 * safe to share between threads. */
typedef struct pm_dataset pm_dataset;

/* Read an RFC 4180 CSV file: header row, quoted fields ("" escapes a quote),
 * LF or CRLF line ends, a UTF-8 BOM tolerated. Errors (PM_EPARSE with the
 * place): empty file, no data rows, a row with a different number of fields,
 * an unterminated quote, an empty or duplicate column name. */
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
/* 1 if every cell of the column is a finite decimal number, else 0. */
PM_API int pm_dataset_col_is_numeric(const pm_dataset *d, size_t col);
/* Parse one cell as a finite number. PM_ESCHEMA naming FILE:LINE:COL and the
 * column when the cell is empty, text, NaN or infinite. */
PM_API pm_status pm_dataset_number(const pm_dataset *d, size_t row, size_t col,
				   double *value, pm_error *err);
/* A 64-bit FNV-1a hash of the parsed table (names and cells), as 16 hex
 * digits + NUL, to record which data a model was fitted to. */
PM_API void pm_dataset_fingerprint(const pm_dataset *d, char out[17]);

/* ---- model spec: which column plays which role ---------------------------- */
typedef struct pm_names {
	size_t n;
	char **name;	/* owned */
} pm_names;

typedef struct pm_bounds {
	double coef_lo, coef_hi;	/* a_i and b_{c,v} */
	double power_lo, power_hi;	/* p_i and q_j */
	double const_lo, const_hi;	/* C */
} pm_bounds;

typedef struct pm_spec {
	char *target;		/* owned; NULL until set */
	pm_names intrinsic, categorical, extrinsic, workers;
	pm_bounds bounds;
	/* 1 when neither intrinsic nor categorical was named: every column not
	 * otherwise used becomes numeric intrinsic, or categorical if it holds
	 * text (pm_spec_resolve decides). */
	int infer_roles;
} pm_spec;

/* The thesis's bounds: a, b, C in [0, 1000]; p, q in [-5, 5]. */
PM_API pm_bounds pm_bounds_default(void);
/* An empty spec with default bounds and infer_roles = 1. */
PM_API pm_status pm_spec_new(pm_spec **out, pm_error *err);
PM_API void pm_spec_free(pm_spec *s);
/* Read models/NAME.json. Errors: PM_EIO, PM_EPARSE (line/column), PM_ESCHEMA
 * (unknown key, wrong type, missing target, bound with lo > hi, a column in
 * two roles). */
PM_API pm_status pm_spec_read_file(const char *path, pm_spec **out, pm_error *err);
PM_API pm_status pm_spec_parse(const char *json, const char *name, pm_spec **out,
			       pm_error *err);
/* Append a comma-separated list of names ("a,b") to a role. */
PM_API pm_status pm_names_add_list(pm_names *names, const char *list, pm_error *err);
PM_API pm_status pm_spec_set_target(pm_spec *s, const char *target, pm_error *err);
/* Check the spec against a dataset, and when infer_roles is set, give every
 * unused column a role. Errors: PM_ESCHEMA for a named column the data lacks,
 * a column in two roles, no target; afterwards infer_roles is 0. */
PM_API pm_status pm_spec_resolve(pm_spec *s, const pm_dataset *d, pm_error *err);

/* ---- fitting -------------------------------------------------------------- */
typedef enum pm_scale {
	PM_SCALE_AUTO = 0,	/* numeric columns / geometric mean, target / median */
	PM_SCALE_NONE		/* the thesis exactly: raw units */
} pm_scale;

typedef enum pm_reg { PM_REG_NONE = 0, PM_REG_L1, PM_REG_L2 } pm_reg;

typedef struct pm_fit_options {
	uint64_t seed;		/* default 1 */
	unsigned threads;	/* 0: the number of online CPUs */
	unsigned maxiter;	/* 1000 (scipy) */
	unsigned popsize;	/* 15: population = popsize * unknowns (scipy) */
	double tol, atol;	/* 0.01, 0 (scipy) */
	double mutation_lo, mutation_hi;	/* 0.5, 1: F dithered per generation */
	double recombination;	/* 0.7 */
	int polish;		/* 1: finish with a bounded local search */
	pm_scale scale;		/* PM_SCALE_AUTO */
	pm_reg reg;		/* PM_REG_NONE */
	double lambda_coef;	/* penalty weight on a and b */
	double lambda_power;	/* penalty weight on p and q */
} pm_fit_options;

/* scipy.optimize.differential_evolution's defaults, seed 1, all CPUs. */
PM_API pm_fit_options pm_fit_options_default(void);

typedef struct pm_metrics {
	size_t n;		/* rows compared */
	double mae, mape, mse, rmse, r2, smape, adj_r2;
} pm_metrics;

/* How a fit ended, kept in the model and in model.json. */
typedef struct pm_fit_info {
	pm_fit_options options;	/* the settings used (threads: as asked) */
	unsigned threads_used;
	unsigned generations;
	uint64_t evaluations;
	char stop[64];		/* "converged", "maxiter" */
	int polished;		/* 1 if the local search improved the DE best */
	double cost;		/* final cost (scaled space, penalty included) */
	double wall_time_s;
	pm_metrics training;	/* accuracy on the training rows, raw units */
	char data_name[256];	/* the file fitted to */
	char fingerprint[17];
} pm_fit_info;

/* Fit eq. 4.4 to the rows of d with the roles of s (resolved by the call if
 * needed, on a private copy). On success *out owns a new model carrying its
 * pm_fit_info. Errors: PM_ESCHEMA (roles), PM_EDOMAIN (a value <= 0 under a
 * power, naming file, line, column and column name; a target <= 0), PM_EINVAL
 * (bad option, fewer rows than unknowns), PM_EFIT (no finite cost),
 * PM_ENOMEM. Deterministic: the same data, spec and options give
 * bit-identical results for any thread count. */
PM_API pm_status pm_fit(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			pm_model **out, pm_error *err);

PM_API const pm_fit_info *pm_model_fit_info(const pm_model *m);

/* Predict every row of d (columns matched by name, levels by text) into
 * out[nrows]. Errors name FILE:LINE:COL: a missing column, an unknown level,
 * a value <= 0 under a power, text where a number is needed. */
PM_API pm_status pm_model_predict_dataset(const pm_model *m, const pm_dataset *d,
					  double *out, pm_error *err);

/* Accuracy of m on the rows of d, whose target column (pm_model_target) holds
 * the measured values; errors as pm_model_predict_dataset. */
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

/* Accuracy of pred against measured t (n rows; nparams for adjusted R²).
 * MAPE and SMAPE in percent. PM_EINVAL if n == 0. */
PM_API pm_status pm_metrics_compute(const double *t, const double *pred, size_t n,
				    size_t nparams, pm_metrics *out, pm_error *err);

/* The model as a model.json text (malloc'd, caller frees): every double
 * printed so that it reads back bit-exact. */
PM_API pm_status pm_model_to_json(const pm_model *m, char **out, pm_error *err);
/* Write model.json atomically: a temporary file in the same folder, fsync,
 * rename. A failure leaves no file behind and any old file untouched. */
PM_API pm_status pm_model_save_file(const pm_model *m, const char *path, pm_error *err);

/* Write `len` bytes to `path` the same atomic way. */
PM_API pm_status pm_write_file_atomic(const char *path, const char *data, size_t len,
				      pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
