/*
 * perfmodel/perfmodel.h — the full library: measurements, model spec, fitting
 * (thesis eq. 4.4 by parallel deterministic differential evolution), metrics,
 * saving models: one header per concern, each compiling on its own, all
 * included here. Includes predict.h, whose conventions hold in every one:
 * nothing prints, exits or aborts; fallible functions return pm_status and
 * fill an optional pm_error; objects are freed with their _free (NULL is a
 * no-op); who owns a returned pointer is said once, in predict.h's
 * "Ownership", and what a NULL argument does in its "NULL".
 */
#ifndef PERFMODEL_PERFMODEL_H
#define PERFMODEL_PERFMODEL_H

#include "perfmodel/predict.h"
/* Other formats (hyperfine, Google Benchmark), repetitions, throughput. */
#include "perfmodel/ingest.h"
#include "perfmodel/dataset.h"	/* the typed table; splitting its rows */
#include "perfmodel/spec.h"	/* which column plays which role */
#include "perfmodel/evaluate.h"	/* metrics, predictions over rows, scaling report */
#include "perfmodel/fit.h"	/* validation folds, fit options, pm_fit, pm_fit_info */
#include "perfmodel/discover.h"	/* discovering the model's terms */
#include "perfmodel/select.h"	/* cross-validation, the choice of form, the λ sweep */
#include "perfmodel/report.h"	/* plots and the HTML page */
#include "perfmodel/json.h"	/* the --json documents, model.json's text, batch lines */
#include "perfmodel/output.h"	/* atomic writes, output paths checked */
/* Load imbalance and the S-SGD phase model (thesis chapter 3). */
#include "perfmodel/lif.h"
#include "perfmodel/pipeline.h"	/* files to results: fit, select, discover, sweep */
#include "perfmodel/plan.h"	/* which runs to measure next */

#endif
