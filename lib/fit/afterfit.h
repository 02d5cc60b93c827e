/* What the fitted values show the rows could not settle (issue 20, item 2,
 * after the fit; identify.h does the checks before it): a parameter held by
 * a bound of its search box that is a search limit, not the model's own
 * constraint (the fit's cost still falls beyond it); a column that changes
 * no prediction, or a formula's term that is next to nothing of every
 * prediction. Each finding is a warning in the model (pm_model_warning)
 * that names the parameter or column and says what to do; the fit is
 * unchanged (docs/cli.md, "Warnings"). */
#ifndef PM_AFTERFIT_H
#define PM_AFTERFIT_H

#include "fit/problem.h"
#include "model/model_impl.h"

/* Add m's warnings for its fit (m->value, the undetermined flags set) to
 * the rows of p under the options o it was fitted with; pred holds m's
 * predictions of p's rows (the target's units). No column is said to have
 * no effect in a constant fit (m->info.constant), whose warning says more,
 * nor one named[] marks (pm__fit_identify: its warning before the fit says
 * what to do); an interrupted fit (m->info.interrupted) gets none. PM_ENOMEM,
 * or pm__cost_init's errors. */
pm_status pm__fit_after(const pm_problem *p, pm_model *m, const pm_fit_options *o,
			const double *pred, const unsigned char *named, pm_error *err);

#endif
