/*
 * perfmodel/select.h — choosing by held-out accuracy: cross-validation,
 * the choice of form among candidates (pm_select), and the λ sweep of a
 * regularised fit. Included by perfmodel.h; the conventions there hold.
 */
#ifndef PERFMODEL_SELECT_H
#define PERFMODEL_SELECT_H

#include <stddef.h>
#include "perfmodel/predict.h"
#include "perfmodel/dataset.h"
#include "perfmodel/spec.h"
#include "perfmodel/evaluate.h"
#include "perfmodel/fit.h"
#include "perfmodel/discover.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- choosing the model form by cross-validation --------------------------- */
typedef struct pm_cv_result {
	unsigned folds;
	size_t nparams;		/* unknowns of the form fitted */
	double mape, mape_std;	/* held-out MAPE (%): mean and sample std over the folds */
	double r2;		/* held-out R²: mean over the folds */
	/* wall time of one fold's fit, on its share of the threads: mean
	 * over the folds */
	double fit_time_s;
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
 * "fold", every row of d fitted and o->test measured. The folds' fits run
 * side by side on o->threads, each on a share; deterministic like pm_fit
 * (any thread count); o's own test_fraction and validate are not used.
 * With one fold, each std is NaN. Errors: those of pm_validation_folds
 * and pm_fit, and of predicting a held-out row, with the fold named in the
 * message; PM_EINVAL for no scheme and no o->test. */
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

#ifdef __cplusplus
}
#endif
#endif
