/* model.json's members, for documents that embed a model. Private. */
#ifndef PM_MODEL_SAVE_H
#define PM_MODEL_SAVE_H

#include "core/jsonw.h"
#include "model/model_impl.h"

/* Write every member of m's model.json object into the open object of w
 * (pm_model_to_json is this between braces). PM_EINVAL, writing nothing,
 * for a model the loader would refuse. */
pm_status pm__model_write_members(pm_jw *w, const pm_model *m, pm_error *err);

#endif
