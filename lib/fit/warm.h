/* A warm-started fit (pm_fit_options.warm_start): the earlier model
 * checked against the new fit's model, and its parameters carried into the
 * new fit's scaled space as DE's start. Private to the library. */
#ifndef PM_WARM_H
#define PM_WARM_H

#include "perfmodel/perfmodel.h"
#include "fit/de.h"
#include "model/model_impl.h"

/* Where DE starts, for every parameter of the new model (nparams each,
 * scaled space, inside the bounds), and how far around it the initial
 * population spreads (pm_de_settings.start, radius). */
typedef struct pm_warm {
	double *start, *radius;
} pm_warm;

/* With the spec's form unset (NULL), the form of `warm` (additive,
 * multiplicative, or its formula's text). PM_ENOMEM, or the formula's
 * PM_EPARSE. */
pm_status pm__warm_form(pm_spec *s, const pm_model *warm, pm_error *err);

/* Check that m (made for the new fit, its parameters unset) is a model of
 * warm's kind: the same target and target kind (its resource and per
 * inputs), the same form (a formula: the same text), the same inputs by
 * name, each in the same role. Categorical levels may differ: a level only
 * in the new data gives parameters warm has not (a level coefficient, a
 * log multiplier), which start at the middle of their bounds and spread
 * over all of them, as in a cold fit; so do the log multipliers of a
 * categorical whose first level (the reference, multiplier 1) is not
 * warm's. A level only in warm is no parameter of m: it is dropped.
 * Parameters are matched by name; powers and log multipliers keep warm's
 * values, coefficients are converted from warm's raw values to m's scaled
 * space (its column scales and target scale, which differ with the rows).
 * Each start is clamped into m's bounds. The radius is a fraction of the
 * parameter's range, or for a coefficient of its value, at least twice its
 * std over warm's seeds when warm has them.
 * Errors: PM_ESCHEMA naming the first difference ("the warm-start
 * model ..."), PM_ENOMEM; w is then empty. */
pm_status pm__warm_init(const pm_model *warm, const pm_model *m, pm_warm *w, pm_error *err);
void pm__warm_free(pm_warm *w);	/* copes with { 0 } */

/* DE's settings from w's start (nothing without one): start and radius,
 * half the population (rounded up) and a stop at tol 0.01 at least. */
void pm__warm_settings(const pm_warm *w, pm_de_settings *ds);

/* The polish's evaluations per parameter: a quarter of per_param (rounded
 * up) from w's start, per_param without one. */
size_t pm__warm_polish(const pm_warm *w, size_t per_param);

/* Record warm in m's fit info (pm_fit_info.warm_*). */
void pm__warm_record(pm_model *m, const pm_model *warm);

#endif
