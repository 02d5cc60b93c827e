/*
 * perfmodel/pipeline.h — from files to results: reading measurements for
 * a spec or a model, and the pipelines of perfmodel fit, select, discover
 * and sweep, each one call between parsing options and printing. Included
 * by perfmodel.h; the conventions there hold.
 */
#ifndef PERFMODEL_PIPELINE_H
#define PERFMODEL_PIPELINE_H

#include "perfmodel/predict.h"
#include "perfmodel/ingest.h"
#include "perfmodel/dataset.h"
#include "perfmodel/spec.h"
#include "perfmodel/fit.h"
#include "perfmodel/select.h"
#include "perfmodel/discover.h"

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
