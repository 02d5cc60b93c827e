/* The fit's losses by name (pm_loss): shared by the model writer, the
 * loader and pm_loss_from_name, so that the spelling lives in one place. In
 * the predict core because the loader reads a fit's loss back. */
#ifndef PM_LOSS_H
#define PM_LOSS_H

#include "perfmodel/perfmodel.h"

/* In pm_loss order, NULL-terminated (pm__json_enum's form). */
extern const char *const pm__loss_names[];

#endif
