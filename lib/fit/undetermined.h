/* Which parameters a fit's rows cannot determine (issue 19, item 5): a
 * power of terms that are all absent is free, and so is the coefficient of
 * a term that is zero on every row; any value fits the rows as well, so
 * the value is no finding (pm_model_param_undetermined). */
#ifndef PM_UNDETERMINED_H
#define PM_UNDETERMINED_H

#include "fit/problem.h"
#include "model/model_impl.h"

/* Set m->params[].undetermined from the fitted values (m->value) and the
 * rows of p. PM_ENOMEM (flags unchanged). */
pm_status pm__fit_undetermined(const pm_problem *p, pm_model *m, pm_error *err);

#endif
