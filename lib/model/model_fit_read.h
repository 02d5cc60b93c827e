/* model.json's "fit" and "run" records into pm_fit_info, for
 * model_load.c. Private to the libraries. */
#ifndef PM_MODEL_FIT_READ_H
#define PM_MODEL_FIT_READ_H

#include "core/json_read.h"
#include "perfmodel/perfmodel.h"

/* "auto", "none": pm_scale's names, in its order, as model.json writes them. */
extern const char *const pm__scale_names[];

/* An optional boolean member, written only when true ("interrupted": a
 * fit stopped early; a parameter's "undetermined"): absent is false. */
pm_status pm__model_read_flag(const pm_jctx *c, const cJSON *obj, const char *key, int *out);

/* The optional "fit" record and "run" (what differs between two identical
 * runs) into m->info, has_fit_info set; absent, m is unchanged. PM_ESCHEMA
 * for a wrong shape, naming the member. */
pm_status pm__model_read_fit(const pm_jctx *top, const cJSON *root, pm_model *m);

#endif
