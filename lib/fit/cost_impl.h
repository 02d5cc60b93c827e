/* What the cost's plan (cost_plan.c) and its kernels (cost_kernels.c)
 * share beyond cost.h. Private to the two. */
#ifndef PM_COST_IMPL_H
#define PM_COST_IMPL_H

#include "fit/cost.h"

/* partial buckets per scatter; scatter() adds exactly four, and the plan
 * lays out room for them in the scratch */
#define SCATTER_LANES 4

#endif
