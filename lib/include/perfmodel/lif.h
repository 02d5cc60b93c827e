/*
 * perfmodel/lif.h — load imbalance and the S-SGD phase model (thesis
 * chapter 3). Included by perfmodel.h; the conventions there hold: nothing
 * prints, exits or aborts; fallible functions return pm_status and fill an
 * optional pm_error; reports are freed with their _free (NULL is a no-op).
 * Every function is reentrant: it reads its arguments and writes only *out.
 */
#ifndef PERFMODEL_LIF_H
#define PERFMODEL_LIF_H

#include <stddef.h>
#include "perfmodel/predict.h"
#include "perfmodel/dataset.h"
#include "perfmodel/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The column that --target lif derives (pm_spec_derive_lif). */
#define PM_LIF_COLUMN "lif"

/* Eq. 3.8: LIF = n * max t_i / sum t_i, 1 for a perfectly balanced load.
 * PM_EDOMAIN when n == 0, a time is negative or not finite, or every time
 * is 0 (the ratio is undefined). */
PM_API pm_status pm_lif_of(const double *t, size_t n, double *lif, pm_error *err);

/* The worker columns of d named by `workers`: each entry is a column name or
 * an fnmatch(3) glob such as "t_worker_*" (matches taken in column order).
 * On success *cols (malloc'd, caller frees) holds *ncols distinct column
 * indices. PM_ESCHEMA: no entries, a named column that d lacks, a glob that
 * matches nothing. */
PM_API pm_status pm_lif_worker_columns(const pm_dataset *d, const pm_names *workers,
				       size_t **cols, size_t *ncols, pm_error *err);

/* What pm_lif_report_new measures besides the worker times. */
typedef struct pm_lif_options {
	const char *n_col;	/* N_g of eq. 3.9; NULL: the row's non-empty worker times */
	const char *time_col;	/* t of eq. 3.9; NULL: the row's slowest worker */
	const pm_names *by;	/* configuration columns (e.g. the extrinsic ones);
				 * NULL or none: group by N_g */
} pm_lif_options;

/* One distinct configuration: rows whose `by` cells have the same texts (or
 * the same N_g when there are no `by` columns), in order of first row. */
typedef struct pm_lif_group {
	size_t first_row;	/* where to read the configuration's cells */
	size_t count;
	double mean, std;	/* of the rows' LIF; std is the sample (n-1) one, 0 for one row */
} pm_lif_group;

typedef struct pm_lif_report {
	size_t nrows;
	double *lif;		/* [nrows] eq. 3.8 over the row's non-empty worker cells */
	double *n;		/* [nrows] N_g */
	double *t;		/* [nrows] t of eq. 3.9 */
	size_t ngroups;
	pm_lif_group *group;	/* [ngroups] */
	size_t nby;
	size_t *by_col;		/* [nby] the configuration columns of d */
	size_t nworkers;
	size_t *worker_col;	/* [nworkers] the worker columns the names and globs matched */
} pm_lif_report;

/* LIF of every row of d, and per configuration. An empty worker cell means
 * "no such worker"; a row needs at least one worker time. Errors placed at
 * FILE:LINE:COL: a worker time negative, non-numeric or not finite
 * (PM_ESCHEMA), a row with no worker time or only zero times (PM_EDOMAIN),
 * an N_g cell that is not a number >= 1; and those of
 * pm_lif_worker_columns and of a missing column. On success *out owns the
 * report (pm_lif_report_free). */
PM_API pm_status pm_lif_report_new(const pm_dataset *d, const pm_names *workers,
				   const pm_lif_options *o, pm_lif_report **out,
				   pm_error *err);
PM_API void pm_lif_report_free(pm_lif_report *r);

/* Eq. 3.9, t = b0 + b1 N_g + b2 LIF, by ordinary least squares (GSL). */
typedef struct pm_lif_regression {
	size_t rows;
	double beta[3];		/* b0, b1, b2 */
	double se[3];		/* standard errors: sqrt of diag(s^2 (X'X)^-1), s^2 = SS_res/(rows-3) */
	double ss_res, ss_tot;	/* eqs. 3.11, 3.12 */
	double r2;		/* eq. 3.10: 1 - SS_res/SS_tot */
	double adj_r2;		/* 1 - (1 - R^2)(rows-1)/(rows-3) */
} pm_lif_regression;

/* Fit eq. 3.9 to rows (n[k], lif[k], t[k]). PM_EDOMAIN with a message
 * saying which coefficient cannot be identified when every N_g is equal
 * (b1), every LIF is equal (b2), N_g and LIF are collinear, or t is the
 * same in every row (R^2 undefined); PM_EINVAL for fewer than 4 rows (the
 * standard errors need rows > 3) or a value that is not finite. Never
 * returns a NaN. */
PM_API pm_status pm_lif_regress(const double *n, const double *lif, const double *t,
				size_t rows, pm_lif_regression *out, pm_error *err);

/* lif --json (docs/json.md; the conventions of perfmodel.h's JSON
 * documents): "file", "workers" (r's worker columns), "t" (time_col: the
 * pm_lif_options.time_col r was made with; NULL, the slowest worker, is
 * null), then a line each: "rows" (line, n, lif, t per row, a line each),
 * "groups" (config, count, mean, std per group, a line each) and
 * "regression": reg's members, or with reg NULL (eq. 3.9 failed) null and
 * "regression_error": reg_error. */
PM_API pm_status pm_lif_report_to_json(const pm_dataset *d, const pm_lif_report *r,
				       const char *time_col, const pm_lif_regression *reg,
				       const char *reg_error, char **out, pm_error *err);

/* For `fit --target lif`: when s->target is PM_LIF_COLUMN and d has no
 * such column, *out is d with a column PM_LIF_COLUMN appended (eq. 3.8 per
 * row, written so that it reads back bit-exact; its cells are placed at
 * their row's first worker cell) and s->workers is replaced by the worker
 * columns its names and globs match, so that pm_spec_resolve accepts them
 * and role inference leaves them alone. Otherwise *out is NULL and nothing
 * changes. Errors: PM_ESCHEMA when the target is lif but s has no workers,
 * and those of pm_lif_report_new. */
PM_API pm_status pm_spec_derive_lif(pm_spec *s, const pm_dataset *d, pm_dataset **out,
				    pm_error *err);

/* For a model fitted with pm_spec_derive_lif's column as its target: when
 * d lacks that column, *out is d with it derived from the worker columns
 * the model recorded (model.json "workers"), as the fit derived it, so that
 * pm_model_evaluate can compare. Otherwise (a measured target, or d has the
 * column) *out is NULL. Errors: those of pm_lif_report_new (a worker column
 * d lacks, a bad worker time, at FILE:LINE:COL). */
PM_API pm_status pm_model_derive_lif(const pm_model *m, const pm_dataset *d, pm_dataset **out,
				     pm_error *err);

/* ---- the S-SGD phase model (eqs. 3.3, 3.5-3.7) -----------------------------
 * Phase columns: t_io, t_h2d, t_md, t_u, and per worker i = 1, 2, ...
 * t_f_i, t_b_i, t_c_i (forward, backward, gradient aggregation). A missing
 * column or an empty cell is a phase that takes 0 s; worker i takes part in
 * a row when one of its cells is not empty. */
typedef struct pm_ssgd_row {
	unsigned workers;	/* N_g of the row */
	double t_iter;		/* eq. 3.3: t_io + t_h2d + t_md + max_i(t_f_i + t_b_i + t_c_i) + t_u */
	double t_pipe;		/* eq. 3.5: max(t_io + t_h2d, max_i(t_f_i + t_b_i + t_c_i) + t_u) */
	double lif;		/* eq. 3.8 over the per-worker t_f_i + t_b_i + t_c_i */
	int has_speedup;	/* 0: no one-worker row of the same configuration */
	size_t base_row;	/* that one-worker row */
	double speedup;		/* eq. 3.6: N_g * t_iter(base) / t_iter */
	double speedup_overlap;	/* eq. 3.7: N_g * t_pipe(base) / max(t_io + t_h2d + t_md,
				 * max_i(t_f_i + t_b_i + t_c_i) + t_u); the thesis prints
				 * the denominator without t_u (docs/maths.md) */
} pm_ssgd_row;

typedef struct pm_ssgd_report {
	size_t nrows;
	pm_ssgd_row *row;	/* [nrows] */
	unsigned max_workers;	/* the largest worker index among the columns */
	size_t nby;
	size_t *by_col;		/* [nby] the configuration columns of d */
} pm_ssgd_report;

/* The phase model for every row of d. The configuration of a row is the
 * texts of its `by` columns (NULL or none: every column that is not a phase
 * column); a row's speedups compare it with the one-worker row of its
 * configuration. Errors: PM_ESCHEMA placed at FILE:LINE:COL for a phase
 * time that is negative, not a number or not finite; PM_EDOMAIN placed at
 * the row for a row without any worker phase or with only zero compute
 * times where the LIF or a speedup would divide by zero, and for two
 * one-worker rows of one configuration; PM_ESCHEMA for no worker phase
 * column at all or a `by` column d lacks. On success *out owns the report
 * (pm_ssgd_report_free). */
PM_API pm_status pm_ssgd_report_new(const pm_dataset *d, const pm_names *by,
				    pm_ssgd_report **out, pm_error *err);
PM_API void pm_ssgd_report_free(pm_ssgd_report *r);
/* ssgd --json (docs/json.md; the conventions of perfmodel.h's JSON
 * documents): "file", "max_workers", "by" (r's configuration columns), then
 * on a new line "rows", one per line: "line", "config" (the row's `by`
 * cells), "workers", "t_iter", "t_pipe", "lif", "base_line", "speedup",
 * "speedup_overlap" (the last three null without a one-worker row). */
PM_API pm_status pm_ssgd_report_to_json(const pm_dataset *d, const pm_ssgd_report *r,
					char **out, pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
