/*
 * perfmodel/report.h — the plots and the page of perfmodel report (SVG,
 * HTML) and its --json document. Included by perfmodel.h; the conventions
 * there hold.
 */
#ifndef PERFMODEL_REPORT_H
#define PERFMODEL_REPORT_H

#include <stddef.h>
#include "perfmodel/predict.h"
#include "perfmodel/dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- report: the plots and page people look at (perfmodel report) ---------
 * The thesis's pictures as SVG: predicted against measured (y = x line,
 * training and held-out rows in different marks), residuals against each
 * extrinsic input, predicted speedup and efficiency against the ideal (and
 * for a model with intervals its predicted target with the 90 % interval as
 * a band, "time_INPUT.svg", or for a target kind "target_INPUT.svg" in the
 * kind's quantity), and with a λ sweep its held-out MAPE, R² and parameter paths; and one
 * self-contained HTML page (inline SVG, no script) with them and the
 * accuracy and parameter (± std) tables. docs/report.md shows one. */
typedef struct pm_report_data {
	const pm_dataset *data;	/* required: rows plotted as training */
	const pm_dataset *test;	/* NULL, or held-out rows (other marks) */
	const char *sweep;	/* NULL, or a file written by perfmodel sweep --json */
	const char *model_name;	/* shown on the page (may be NULL) */
} pm_report_data;

typedef struct pm_plot {
	char *name;	/* a file name: "predicted_vs_measured.svg", "speedup_threads.svg" */
	char *title;
	char *svg;	/* a standalone SVG document */
} pm_plot;

typedef struct pm_plots {
	size_t n;
	pm_plot *plot;
} pm_plots;

/* The plots, in page order. On success *out owns them (pm_plots_free).
 * Errors: those of pm_model_predict_dataset and pm_dataset_number on the
 * rows (FILE:LINE:COL), PM_EIO/PM_EPARSE/PM_ESCHEMA for the sweep file,
 * PM_ENOMEM. */
PM_API pm_status pm_report_plots(const pm_model *m, const pm_report_data *r, pm_plots **out,
				 pm_error *err);
PM_API void pm_plots_free(pm_plots *p);	/* NULL: no-op */
/* The HTML page (malloc'd, caller frees); errors as pm_report_plots. */
PM_API pm_status pm_report_html(const pm_model *m, const pm_report_data *r, char **out,
				pm_error *err);
/* report --json (the conventions of the JSON documents below): "model"
 * (r->model_name), "target", "output" (html_path: where the page was
 * written), "plot_dir", "sweep" (r->sweep; each NULL: null), "data" and
 * "test": the accuracy table's rows, {"file", "rows", "mae", ...} or null,
 * "parameters": the parameter table, a line each, "plots": each plot's
 * "name", "title" and "file" (PLOT_DIR/NAME, null without plot_dir).
 * Errors as pm_report_html. */
PM_API pm_status pm_report_to_json(const pm_model *m, const pm_report_data *r,
				   const char *html_path, const char *plot_dir, char **out,
				   pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
