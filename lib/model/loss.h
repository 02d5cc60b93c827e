/* The fit's losses (pm_loss) and row weights (pm_weights) by name: shared
 * by the model writer, the loader and pm_loss_from_name, so that the
 * spelling lives in one place. In
 * the predict core because the loader reads a fit's loss back. */
#ifndef PM_LOSS_H
#define PM_LOSS_H

#include "perfmodel/perfmodel.h"

/* In pm_loss order, NULL-terminated (pm__json_enum's form). */
extern const char *const pm__loss_names[];
/* pm_weights likewise. */
extern const char *const pm__weights_names[];

#endif
