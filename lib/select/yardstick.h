/* What a choice of model is held against (issue 33): the noise floor of
 * repeated runs and a log-linear yardstick. Private to the library. */
#ifndef PM_YARDSTICK_H
#define PM_YARDSTICK_H

#include "perfmodel/perfmodel.h"

/* The noise floor of d's repeated configurations (rows whose inputs, by
 * the roles of s, are all equal): what a perfect model of these inputs
 * misses a new run by, in % — each run's distance from its configuration's
 * median log time, scaled by sqrt(m/(m-1)) for that median's own spread
 * over its m runs, averaged over the repeated runs; into *floor_pct. NaN when
 * too few runs repeat to say (fewer than 3 configurations run twice or
 * more, or fewer than a quarter of the rows in them). Rows of 0 are left
 * out. Errors: those of pm_spec_resolve and reading the columns,
 * PM_ENOMEM. */
pm_status pm__noise_floor(const pm_dataset *d, const pm_spec *s, double *floor_pct,
			  pm_error *err);

/* The held-out MAPE (%) of a log-linear fit of s's inputs over the rows of
 * d, under the folds fold[0..rows) (row r held out in fold fold[r]; a value
 * >= nfolds: never), the mean over the folds, into *mape, and each fold's
 * into fold_mape[nfolds] unless it is NULL; NaN when a target is <= 0 or a
 * fold cannot be fitted or measured. Errors: those of pm_spec_resolve and
 * reading the columns, PM_ENOMEM. */
pm_status pm__yardstick(const pm_dataset *d, const pm_spec *s, const unsigned *fold,
			unsigned nfolds, double *mape, double *fold_mape, pm_error *err);

/* Whether a model's held-out MAPEs model[0..n) are worse than the
 * yardstick's yard[0..n) on the same folds by more than chance: the mean
 * of the paired differences above its standard error, and the model's mean
 * more than 25 % above the yardstick's (a near tie, or a model of
 * the same shape fitted another way, is no finding). */
int pm__yardstick_beats(const double *model, const double *yard, unsigned n);

#endif
