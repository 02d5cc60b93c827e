/* What the rows cannot determine, seen before the fit (issue 20, item 2):
 * a powered column that is constant, powered columns collinear in log
 * space, an indicator true on no row or on every row, a level of too few
 * rows, more unknowns than distinct input configurations. Each finding is
 * a warning in the model (pm_model_warning) that names the columns and
 * says what to do; the fit goes on (docs/cli.md, "Warnings"). */
#ifndef PM_IDENTIFY_H
#define PM_IDENTIFY_H

#include "fit/problem.h"
#include "model/model_impl.h"

/* Add m's warnings for the rows of p (m's inputs are p's columns, in
 * order), and set named[i] (p->ncols flags, set by the caller to 0) for
 * each column a warning names as one whose power the rows cannot settle
 * (constant, collinear, a product or ratio), so that the checks after the
 * fit (afterfit.h) do not name it again. PM_ENOMEM. */
pm_status pm__fit_identify(const pm_problem *p, pm_model *m, unsigned char *named,
			   pm_error *err);

#endif
