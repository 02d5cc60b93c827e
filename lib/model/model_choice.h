/* How a model's form was chosen, and its yardstick (pm_fit_info.choice,
 * .yard_*), read from model.json. Private to the libraries. */
#ifndef PM_MODEL_CHOICE_H
#define PM_MODEL_CHOICE_H

#include "core/json_read.h"
#include "perfmodel/perfmodel.h"

/* model.json's optional "fit.yardstick": {"model": "log-linear", "mape",
 * "model_mape", "held_out"} and "fit.choice": {"validation", "why",
 * "chosen", "lowest", "noise_floor", "yardstick", "candidates": [{"form",
 * "loss", "params", "mape", "mape_se", "note"}]} into f (absent: NaN and
 * no choice). PM_ESCHEMA for a wrong shape. */
pm_status pm__model_read_choice(const pm_jctx *top, const cJSON *fit, pm_fit_info *f);

#endif
