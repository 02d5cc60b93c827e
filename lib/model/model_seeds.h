/* Reading the "seeds" of model.json. Private to the libraries. */
#ifndef PM_MODEL_SEEDS_H
#define PM_MODEL_SEEDS_H

#include "core/json_read.h"
#include "model/model_impl.h"

/* The optional top-level "seeds": [ {"seed", "cost", "values": [nparams raw
 * values]} ] of a repeated fit, into m (whose parameters are read). Absent:
 * m->nseeds stays 0. PM_ESCHEMA for a wrong shape or a values list of the
 * wrong length, PM_ENOMEM. */
pm_status pm__model_read_seeds(const pm_jctx *top, const cJSON *root, pm_model *m);

#endif
