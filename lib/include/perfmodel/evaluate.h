/*
 * perfmodel/evaluate.h — a model against measured rows: accuracy metrics,
 * predictions for every row of a dataset (with intervals), a predict
 * config's points, and the scaling report. Included by perfmodel.h; the
 * conventions there hold.
 */
#ifndef PERFMODEL_EVALUATE_H
#define PERFMODEL_EVALUATE_H

#include <stddef.h>
#include "perfmodel/predict.h"
#include "perfmodel/dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_metrics {
	size_t n;		/* rows compared */
	/* rows MAPE is over: those whose measured value is not 0 (a relative
	 * error of 0 is unbounded); fewer than n says rows were left out */
	size_t mape_n;
	double mae, mape, mse, rmse, r2, smape, adj_r2;
} pm_metrics;
/* Accuracy of pred against measured t (n rows; nparams for adjusted R²).
 * MAPE and SMAPE in percent. MAPE is the mean over the rows with t != 0
 * alone (a 0, which a fit under mae or mse takes, has no relative error),
 * NaN if there are none; the others count every row. PM_EINVAL if n == 0. */
PM_API pm_status pm_metrics_compute(const double *t, const double *pred, size_t n,
				    size_t nparams, pm_metrics *out, pm_error *err);
/* ---- scaling report (thesis §4.3, Table 4.5) -------------------------------
 * What each extrinsic input does to run time. With eq. 4.4, t = I * E^q + C:
 * doubling E multiplies the first part by 2^q, while C stays, which is why
 * measured speedup falls short of E^q. So the report gives both: the power
 * of the input's own term, and the effective exponent d log t̂ / d log E of
 * the whole prediction (C and every term included) at a reference point,
 * the baseline. Exponents follow one convention (pm_model_param_power):
 * as they act on t, negative = faster with more E. */
typedef struct pm_scaling {
	size_t input;		/* the extrinsic input */
	size_t param;		/* the parameter of its own power; nparams (and q, q_std,
				 * power, doubling NaN) when a formula gives it none */
	double q, q_std;	/* that parameter as the formula writes it
				 * (pm_model_param_value: q of "/ E^q" too) and its std
				 * over seeds (NaN: one fit), which is power's std too */
	double power;		/* the exponent on t in its own term: q, or −q after a
				 * '/'; NaN when q is used only in log2() */
	double doubling;	/* 2^power: what doubling the input multiplies its own
				 * term by, C and the other terms aside */
	double effective;	/* d log t̂ / d log E at the baseline (E at its own
				 * baseline value too; pm_model_effective_exponent):
				 * near there, doubling E multiplies the predicted time
				 * by about 2^effective. NaN where t̂ has no derivative
				 * (an indicator on E switches at the baseline) */
	size_t npoints;		/* the input's distinct values in the data */
	double *value;		/* npoints values, ascending */
	double *time;		/* predicted time at value[i], other inputs at the baseline */
	double *speedup;	/* time[0] / time[i] */
	double *efficiency;	/* speedup[i] / (value[i] / value[0]) */
} pm_scaling;

typedef struct pm_scaling_report {
	size_t n;		/* one per extrinsic input, in input order */
	pm_scaling *scaling;
	/* pm_model_ninputs(m) values, the reference point: the median of each
	 * numeric input over the data's rows, the most frequent level (index;
	 * ties: the first) of each categorical one */
	double *baseline;
} pm_scaling_report;

/* The scaling report of m at the values in d (the rows the model was
 * fitted to, usually). On success *out owns it (pm_scaling_report_free).
 * Errors name FILE:LINE:COL as pm_model_predict_dataset's; PM_EINVAL for a
 * dataset with no rows; PM_ENOMEM. */
PM_API pm_status pm_scaling_report_new(const pm_model *m, const pm_dataset *d,
				       pm_scaling_report **out, pm_error *err);
PM_API void pm_scaling_report_free(pm_scaling_report *r);	/* NULL: no-op */

/* Predict every row of d (columns matched by name, levels by text) into
 * out[nrows], in the model's own quantity (pm_model_predict_target: a
 * speedup for a speedup model, a time for a time model). Errors name
 * FILE:LINE:COL: a missing column, an unknown level, a value <= 0 under a
 * power, text where a number is needed, no speedup (efficiency,
 * throughput) where the model's time scale is not > 0. */
PM_API pm_status pm_model_predict_dataset(const pm_model *m, const pm_dataset *d,
					  double *out, pm_error *err);
/* The same with intervals (predict.h, pm_model_predict_quantile): besides
 * out[nrows], qout[r * nq + j] (nrows * nq) gets row r's q[j]-quantile in
 * the model's own quantity (a target kind's y = w / t falls as t grows:
 * its q-quantile is the (1 - q)-quantile of t turned into y, so quantiles
 * still grow with q), and extrapolated[r] (NULL: not wanted) 1 where the
 * row lies outside the ranges the model was fitted to, else 0. nq 0 and
 * both NULL is pm_model_predict_dataset. Errors: those of
 * pm_model_predict_dataset and of pm_model_predict_quantile (no intervals,
 * a quantile beyond them: before any row; a row's, placed at it). */
PM_API pm_status pm_model_predict_dataset_quantiles(const pm_model *m, const pm_dataset *d,
						    size_t nq, const double *q, double *out,
						    double *qout, int *extrapolated,
						    pm_error *err);

/* Accuracy of m on the rows of d, whose target column (pm_model_target) holds
 * the measured values: in the model's own quantity (its target kind), so
 * that a speedup model's MAPE is that of its speedups. Errors as
 * pm_model_predict_dataset; PM_EDOMAIN for a measured value not > 0. */
PM_API pm_status pm_model_evaluate(const pm_model *m, const pm_dataset *d, pm_metrics *out,
				   pm_error *err);

/* Read a predict config (DESIGN.md §5):
 *   { "model": "model.json", "points": [ {"kernel_size": 3, "activation": "relu", ...} ] }
 * ("point": {...} for one point). A relative model path is resolved against
 * the config file's folder. On success *model owns the loaded model and
 * *points a dataset with one row per point and one column per model input,
 * in the model's order, every value already checked against the model.
 * Errors name the config file and the point: a missing input, an input the
 * model does not have, an unknown level, a number <= 0, wrong JSON types. */
PM_API pm_status pm_predict_config_read(const char *path, pm_model **model,
					pm_dataset **points, pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
