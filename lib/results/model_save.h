/* model.json's members, for documents that embed a model. Private. */
#ifndef PM_MODEL_SAVE_H
#define PM_MODEL_SAVE_H

#include "core/jsonw.h"
#include "model/model_impl.h"

/* Write every member of m's model.json object into the open object of w
 * (pm_model_to_json is this between braces). PM_EINVAL, writing nothing,
 * for a model the loader would refuse. */
pm_status pm__model_write_members(pm_jw *w, const pm_model *m, pm_error *err);
/* The same, with the "run" member (threads used, wall time: what differs
 * between two runs that should agree) only when run is nonzero. */
pm_status pm__model_write_members_run(pm_jw *w, const pm_model *m, int run, pm_error *err);
/* The members of model.json's "training": "rows", "mae", "mape", "mse",
 * "rmse", "r2", "smape", "adj_r2", into the open object of w; every
 * document that reports accuracy uses these keys (docs/json.md). */
void pm__metrics_write_members(pm_jw *w, const pm_metrics *x);

#endif
