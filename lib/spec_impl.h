/* Private spec helpers. */
#ifndef PM_SPEC_IMPL_H
#define PM_SPEC_IMPL_H

#include "perfmodel/perfmodel.h"

/* A deep copy of s (so that pm_fit can resolve roles without touching the
 * caller's spec). */
pm_status pm__spec_copy(const pm_spec *s, pm_spec **out, pm_error *err);

#endif
