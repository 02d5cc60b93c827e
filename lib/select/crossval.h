/* The folds' cross-validation on folds given. Private to the library. */
#ifndef PM_CROSSVAL_H
#define PM_CROSSVAL_H

#include "perfmodel/perfmodel.h"

/* pm_cross_validate on the folds given (NULL: those of v over d by the
 * roles of s), so that candidates of other roles are measured on the same
 * rows (pm_select deals them once, by its base roles). given is only read. */
pm_status pm__cross_validate_on(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
				const pm_validation *v, const pm_folds *given, pm_cv_result *out,
				pm_error *err);

#endif
