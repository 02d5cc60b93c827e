/* The fitting library's view of a model: how it was fitted, and the
 * bounds a new fit starts from. Not in the predictor library, whose header
 * (predict.h) has no pm_fit_info or pm_bounds. */
#include "model/model_impl.h"

const pm_fit_info *pm_model_fit_info(const pm_model *m)
{
	return m && m->has_fit_info ? &m->info : NULL;
}

pm_bounds pm_bounds_default(void)
{
	return pm__bounds_thesis();
}
