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

/* The folds of v over d by the roles of s, or with no scheme one "fold":
 * o->test (an error without it). */
pm_status pm__cv_folds(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
		       const pm_validation *v, pm_folds *folds, pm_error *err);

/* The candidates s[0..n), each with its options o[i], cross-validated on
 * the same folds (given, as pm_validation_folds deals them, or one "fold":
 * o[0].test), their fold fits running side by side: out[i] as
 * pm__cross_validate_on gives it, or st[i] and cerr[i] why candidate i
 * could not be measured (its first fold in fold order that failed, or was
 * cut short by a stop request). Returns an error (in *err) only when the
 * set could not be run (no memory). */
pm_status pm__cross_validate_set(const pm_dataset *d, size_t n, const pm_spec *const *s,
				 const pm_fit_options *o, const pm_folds *folds,
				 pm_cv_result *out, pm_status *st, pm_error *cerr, pm_error *err);

/* A candidate's standard error of its held-out MAPE: the folds' sample
 * std / sqrt(folds); 0 with one fold, whose std is NaN. */
double pm__cv_std_error(const pm_cv_result *cv);

#endif
