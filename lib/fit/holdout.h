/* Fitting with held-out rows. Private to the library. */
#ifndef PM_HOLDOUT_H
#define PM_HOLDOUT_H

#include "perfmodel/perfmodel.h"

/* pm_fit for options with test_fraction > 0 or a test dataset: fit on the
 * training rows (pm_fit with neither), then record the held-out accuracy,
 * the held-out file and the split in the model's info; the fingerprint is
 * that of all of d's rows. Errors: those of pm_fit and pm_model_evaluate
 * (a held-out row with a level the training rows lack names its cell),
 * PM_EINVAL for both a fraction and a test dataset, or a split that leaves
 * a side empty. */
pm_status pm__fit_holdout(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			  pm_model **out, pm_error *err);

/* The rows outside fold f (*train) and inside it (*test), each in file
 * order; fold[r] is row r's fold (pm_kfold_assign). On failure both are
 * NULL. Errors: those of pm_dataset_subset, PM_ENOMEM. */
pm_status pm__fold_subsets(const pm_dataset *d, const unsigned *fold, unsigned f,
			   pm_dataset **train, pm_dataset **test, pm_error *err);

#endif
