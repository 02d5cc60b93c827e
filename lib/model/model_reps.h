/* The runs behind a model's fitted rows (pm_model_repetitions). Private to
 * the libraries. */
#ifndef PM_MODEL_REPS_H
#define PM_MODEL_REPS_H

#include "core/json_read.h"
#include "model/model_impl.h"

/* model.json's optional "fit.weights" (absent: PM_WEIGHTS_NONE) into
 * *weights, and "fit.repetitions": {"runs": [..], "cv": [..], "weight": [..]}
 * (each optional, all of one length) into m. PM_ESCHEMA for a wrong shape,
 * PM_ENOMEM. */
pm_status pm__model_read_repetitions(const pm_jctx *top, const cJSON *fit, pm_model *m,
				     pm_weights *weights);

#endif
