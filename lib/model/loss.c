#include "model/loss.h"

#include <string.h>

#include "core/error.h"

const char *const pm__loss_names[] = { "mae", "mse", "mape", "log", NULL };
const char *const pm__weights_names[] = { "none", "inverse-variance", "given", NULL };

const char *pm_weights_name(pm_weights w)
{
	return (unsigned)w <= PM_WEIGHTS_GIVEN ? pm__weights_names[w] : NULL;
}

const char *pm_loss_name(pm_loss loss)
{
	return (unsigned)loss <= PM_LOSS_LOG ? pm__loss_names[loss] : NULL;
}

pm_status pm_loss_from_name(const char *name, pm_loss *out, pm_error *err)
{
	if (!name || !out)
		return pm__fail(err, PM_EINVAL, "pm_loss_from_name: a NULL argument");
	for (int k = 0; pm__loss_names[k]; k++)
		if (strcmp(name, pm__loss_names[k]) == 0) {
			*out = (pm_loss)k;
			return PM_OK;
		}
	return pm__fail(err, PM_EINVAL, "unknown loss '%s': expected mae, mse, mape or log", name);
}
