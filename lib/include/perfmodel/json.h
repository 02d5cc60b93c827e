/*
 * perfmodel/json.h — the documents perfmodel prints with --json
 * (docs/json.md), model.json's text, and the lines of a batch's results.
 * Included by perfmodel.h; the conventions there hold.
 */
#ifndef PERFMODEL_JSON_H
#define PERFMODEL_JSON_H

#include <stddef.h>
#include "perfmodel/predict.h"
#include "perfmodel/dataset.h"
#include "perfmodel/evaluate.h"
#include "perfmodel/select.h"
#include "perfmodel/discover.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- JSON documents (docs/json.md) -----------------------------------------
 * What perfmodel prints with --json is made by these functions and by
 * pm_sweep_to_json (select.h), pm_lif_report_to_json and
 * pm_ssgd_report_to_json (lif.h) and pm_report_to_json (report.h), all
 * alike: on success *out owns a NUL-terminated text ending in a newline
 * (caller frees), with every double as the fewest digits that read back
 * bit-exact, a value that is not finite as null, strings escaped (control
 * characters, '"', '\\'; other bytes, UTF-8 included, as they are) and a
 * NULL string as null; on failure *out is NULL. Errors: PM_EINVAL for a
 * missing argument, PM_ENOMEM. */

/* The document of perfmodel fit --json (docs/formats.md): m's model.json
 * members and "scaling", r as a list (malloc'd, caller frees). */
PM_API pm_status pm_fit_report_to_json(const pm_model *m, const pm_scaling_report *r,
				       char **out, pm_error *err);
/* The document of perfmodel select --json (docs/json.md): the members of
 * pm_fit_report_to_json (m, the chosen candidate fitted to every row, and
 * its scaling report r), then "selection": {"validation" (its text,
 * pm_validation_text), "description" (pm_cv_result.what), "folds",
 * "fold_seed" (kfold only), "kept" (rows never held out), "rows" (held
 * out, all folds together), "chosen" (index), "candidates": [{"form",
 * "loss", "params", "chosen", "constant_folds", "mean": {"mape", "smape",
 * "mae", "mse", "rmse", "r2"}, "std": {the same}}]}, the held-out metrics'
 * mean and sample std over the folds. PM_EINVAL for no model, report or
 * candidates, or best out of range; else as pm_fit_report_to_json. */
PM_API pm_status pm_select_report_to_json(const pm_model *m, const pm_scaling_report *r,
					  const pm_selection *sel, char **out, pm_error *err);
/* The document of perfmodel discover --json (docs/json.md): the members of
 * pm_fit_report_to_json (m, the chosen formula fitted, and its scaling
 * report r), then "discovery": {"validation" (v's text), "description",
 * "folds", "hypotheses", "rejected", "chosen" (index), "candidates":
 * [{"formula", "terms", "mape", "mape_se", "chosen"}]}. PM_EINVAL for no
 * model, report, discovery or scheme; else as pm_fit_report_to_json. */
PM_API pm_status pm_discover_report_to_json(const pm_model *m, const pm_scaling_report *r,
					    const pm_discovery *x, const pm_validation *v,
					    char **out, pm_error *err);

/* eval --json: {"model": model_name, "file": data_name, "target",
 * "target_kind" (only for a kind other than time: the metrics are in that
 * quantity), then x's members as model.json's "training": "rows", "mae",
 * ..., "adj_r2"}, on one line. */
PM_API pm_status pm_eval_to_json(const pm_model *m, const char *model_name,
				 const char *data_name, const pm_metrics *x, char **out,
				 pm_error *err);
/* predict --json: an array with one object per row of d, a line each: every
 * column (a cell that is a finite number as a number, else as a string)
 * and label: pred[row] (label NULL: "predicted"; perfmodel predict gives
 * pm_model_prediction_label, which names a target kind's quantity). */
PM_API pm_status pm_predictions_to_json(const pm_dataset *d, const double *pred,
					const char *label, char **out, pm_error *err);
/* The same with more members after label in each object: ncols numbers
 * named name[0..ncols) ("lower", "upper", "q0.95"), row r's value[r *
 * ncols + c], then, when extrapolated is not NULL, "extrapolated":
 * true/false from extrapolated[r] (predict --interval, --quantiles). */
typedef struct pm_prediction_columns {
	size_t ncols;
	const char *const *name;
	const double *value;
	const int *extrapolated;
} pm_prediction_columns;
PM_API pm_status pm_predictions_columns_to_json(const pm_dataset *d, const double *pred,
						const char *label,
						const pm_prediction_columns *x, char **out,
						pm_error *err);
/* advise --json: "model" (model_name), "target", "resource" (the input
 * vary[o->resource] names), "min_efficiency", "quantile" (only when
 * o->quantile > 0), "combinations", then "fastest", "cheapest", "largest",
 * each {"values": {input: value, ...}, "time", "cost", "speedup",
 * "efficiency", and "quantile_time" with a quantile} on one line, or null
 * when none qualifies. vary, nvary and o as given to the pm_model_advise call that
 * made a; PM_EINVAL for a vary list it would refuse (no inputs, too many, an
 * input or a resource out of range). */
PM_API pm_status pm_advice_to_json(const pm_model *m, const char *model_name,
				   const pm_vary *vary, size_t nvary,
				   const pm_advise_options *o, const pm_advice *a, char **out,
				   pm_error *err);
/* advise --slurm --json: which pick becomes the sbatch options, their
 * quantiles, each varied input's sbatch option (nvary; NULL, or an entry
 * NULL, for none: pm_slurm_option's or the user's mapping) and the limits
 * pm_slurm_limits_at gave at the pick's configuration. */
typedef struct pm_slurm_pick {
	const char *pick;	/* "fastest", "cheapest" or "largest" */
	double time_quantile, time_min_quantile;
	const char *const *option;
	const pm_slurm_limits *limits;
} pm_slurm_pick;
/* pm_advice_to_json's members, then "slurm": {"pick", "time" and
 * "time_min", each {"limit" (sbatch's text), "minutes", "quantile",
 * "seconds" (unrounded), "kill_risk" (1 - quantile: at most that share of
 * runs is killed at the limit)}, "options": [{"input", "option" (null for
 * none), "value"}, ...] per varied input, "sbatch": ["--time=...",
 * "--time-min=...", "--nodes=4", ...], "extrapolated", "distance"}.
 * PM_EINVAL as pm_advice_to_json, and for an unknown pick or one that
 * found no combination. */
PM_API pm_status pm_advice_slurm_to_json(const pm_model *m, const char *model_name,
					 const pm_vary *vary, size_t nvary,
					 const pm_advise_options *o, const pm_advice *a,
					 const pm_slurm_pick *s, char **out, pm_error *err);
/* --version --json: {"name": "perfmodel", "version": pm_version()}. */
PM_API pm_status pm_version_to_json(char **out, pm_error *err);
/* A double as these documents write it, into out, which it returns: the
 * shortest of %.15g, %.16g, %.17g that reads back bit-exact, with '.' as
 * the decimal point whatever the locale; "null" when v is not finite. NULL
 * for a NULL out. */
#define PM_DOUBLE_CHARS 40
PM_API const char *pm_format_double(double v, char out[PM_DOUBLE_CHARS]);

/* The model as a model.json text (malloc'd, caller frees): every double
 * printed so that it reads back bit-exact. */
PM_API pm_status pm_model_to_json(const pm_model *m, char **out, pm_error *err);
/* The lines of `perfmodel batch`'s results (docs/batch.md). A job's id as
 * its jobs file gave it: a string (text), a whole number, or none (given 0,
 * written as null: a line that could not be read as a job). */
typedef struct pm_batch_id {
	const char *text;	/* the string id; NULL: number is the id */
	long long number;
	int given;
} pm_batch_id;
/* One job's result as one line (newline-terminated, malloc'd, caller
 * frees): {"id": ID, "model": MODEL} with MODEL the document of
 * pm_model_to_json on one line, or {"id": ID, "error": MESSAGE}; exactly one
 * of m and error. Without timings the model's "run" member (threads used,
 * wall time) is left out, so that two runs of one batch write the same bytes
 * (the loader takes a model without it). PM_EINVAL for both or neither of m
 * and error, or a model the loader would refuse; PM_ENOMEM. */
PM_API pm_status pm_batch_line_to_json(const pm_batch_id *id, const pm_model *m,
				       const char *error, int timings, char **out, pm_error *err);
/* The last line of a batch cut short: {"incomplete": true, "done": DONE,
 * "jobs": JOBS}. PM_EINVAL when done > jobs. */
PM_API pm_status pm_batch_incomplete_to_json(size_t done, size_t jobs, char **out,
					     pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
