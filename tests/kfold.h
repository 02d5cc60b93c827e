/* The K-fold scheme dealt by seed s, as the validation API takes it. */
#ifndef PM_TEST_KFOLD_H
#define PM_TEST_KFOLD_H

#include "perfmodel/perfmodel.h"

#define KFOLD(k, s) (&(pm_validation){ .scheme = PM_SCHEME_KFOLD, .folds = (k), .seed = (s) })
#define KFOLD_OPTIONS(k, s) { .scheme = PM_SCHEME_KFOLD, .folds = (k), .seed = (s) }

#endif
