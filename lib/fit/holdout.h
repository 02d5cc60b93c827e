/* Fitting with held-out rows. Private to the library. */
#ifndef PM_HOLDOUT_H
#define PM_HOLDOUT_H

#include "perfmodel/perfmodel.h"

/* The rows a fit with o sets apart: with o->test_fraction > 0, o's seeded
 * split of d into *train and *test (new datasets, the caller frees both);
 * with o->validate extrapolating, its training and measured rows (by the
 * roles of s), and the scheme in words into what[512]; otherwise both are
 * NULL (every row of d is fitted; o->test, if any, holds the held-out
 * rows). On failure both are NULL. Errors: PM_EINVAL for a fraction, a
 * test dataset and a scheme together, or a split that leaves a side empty;
 * those of pm_validation_folds and pm_dataset_subset. */
pm_status pm__holdout_split(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			    pm_dataset **train, pm_dataset **test, char *what, pm_error *err);

/* After the fit of m to the training rows of d: the accuracy on the held-out
 * rows `test` into m's info, with the held-out file, o's split or scheme
 * and `what` (NULL: none); the fingerprint becomes that of all of d's rows.
 * Errors: those of pm_model_evaluate (a held-out row with a level the
 * training rows lack names its cell). */
pm_status pm__holdout_record(pm_model *m, const pm_dataset *d, const pm_dataset *test,
			     const pm_fit_options *o, const char *what, pm_error *err);

/* pm_fit without the folds: a fit of d's rows, or of those o holds out
 * none of (a test fraction, an extrapolation; pm__holdout_split), their
 * accuracy recorded (pm__holdout_record). PM_EINVAL for o->validate kfold
 * or loo, which pm_fit runs around this (lib/select/fit_validated.c); else
 * pm_fit's errors. */
pm_status pm__fit_held_out(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			   pm_model **out, pm_error *err);

/* The rows outside fold f (*train) and inside it (*test), each in file
 * order; fold[r] is row r's fold (pm_kfold_assign). On failure both are
 * NULL. Errors: those of pm_dataset_subset, PM_ENOMEM. */
pm_status pm__fold_subsets(const pm_dataset *d, const unsigned *fold, unsigned f,
			   pm_dataset **train, pm_dataset **test, pm_error *err);

/* The seeded order in which pm_kfold_assign deals rows 0..nrows-1 to its
 * folds (*perm malloc'd, caller frees), for schemes that deal the same way.
 * Errors: PM_EINVAL (more than 2^32 rows), PM_ENOMEM. */
pm_status pm__kfold_order(size_t nrows, uint64_t seed, size_t **perm, pm_error *err);

#endif
