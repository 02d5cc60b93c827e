/*
 * perfmodel/dataset.h — the typed table every reader makes (pm_dataset):
 * its columns as numbers or levels, each cell's place in the file, row
 * weights; and the seeded splits of its rows (held-out sets, folds).
 * Included by perfmodel.h; the conventions there hold.
 */
#ifndef PERFMODEL_DATASET_H
#define PERFMODEL_DATASET_H

#include <stddef.h>
#include <stdint.h>
#include "perfmodel/predict.h"

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

#ifdef __cplusplus
}
#endif
#endif
