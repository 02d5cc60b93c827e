/* Private spec helpers. */
#ifndef PM_SPEC_IMPL_H
#define PM_SPEC_IMPL_H

#include "perfmodel/perfmodel.h"

/* A deep copy of s (so that pm_fit can resolve roles without touching the
 * caller's spec). */
pm_status pm__spec_copy(const pm_spec *s, pm_spec **out, pm_error *err);

/* With a formula form, make the formula's columns, which must be d's, the
 * roles (pm_spec's "form"), in order of first use; infer_roles becomes 0.
 * A column d lacks is PM_ESCHEMA placed in the formula. Nothing changes on
 * failure. */
pm_status pm__spec_formula_roles(pm_spec *s, const pm_dataset *d, pm_error *err);

/* The spec's formula text; NULL for a named form (additive,
 * multiplicative), where every numeric column is under a power. */
const char *pm__spec_formula_text(const pm_spec *s);

#endif
