/* Fitting with held-out rows. Private to the library. */
#ifndef PM_HOLDOUT_H
#define PM_HOLDOUT_H

#include "perfmodel/perfmodel.h"

/* The rows a fit with o sets apart: with o->test_fraction > 0, o's seeded
 * split of d into *train and *test (new datasets, the caller frees both);
 * otherwise both are NULL (every row of d is fitted; o->test, if any, holds
 * the held-out rows). On failure both are NULL. Errors: PM_EINVAL for both a
 * fraction and a test dataset, or a split that leaves a side empty; those of
 * pm_dataset_subset. */
pm_status pm__holdout_split(const pm_dataset *d, const pm_fit_options *o, pm_dataset **train,
			    pm_dataset **test, pm_error *err);

/* After the fit of m to the training rows of d: the accuracy on the held-out
 * rows `test` into m's info, with the held-out file and o's split; the
 * fingerprint becomes that of all of d's rows. Errors: those of
 * pm_model_evaluate (a held-out row with a level the training rows lack
 * names its cell). */
pm_status pm__holdout_record(pm_model *m, const pm_dataset *d, const pm_dataset *test,
			     const pm_fit_options *o, pm_error *err);

/* The rows outside fold f (*train) and inside it (*test), each in file
 * order; fold[r] is row r's fold (pm_kfold_assign). On failure both are
 * NULL. Errors: those of pm_dataset_subset, PM_ENOMEM. */
pm_status pm__fold_subsets(const pm_dataset *d, const unsigned *fold, unsigned f,
			   pm_dataset **train, pm_dataset **test, pm_error *err);

#endif
