/* The report's HTML page (docs/report.md): one self-contained page, no
 * script, no network: the fit's header, the accuracy and parameter tables,
 * and the plots of report/plots.c inline as SVG. */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "perfmodel/perfmodel.h"
#include "report/svg.h"

/* A number for a table cell: readable, with the exact value on hover (and
 * for tests that compare the page with the model file). */
static void cell(pm_sbuf *b, double v, const char *fmt)
{
	if (!isfinite(v)) {
		pm__sb_printf(b, "<td></td>");
		return;
	}
	pm__sb_printf(b, "<td title=\"%.17g\">", v);
	pm__sb_printf(b, fmt, v);
	pm__sb_printf(b, "</td>");
}

static void metrics_row(pm_sbuf *b, const char *what, const char *file, const pm_metrics *x)
{
	pm__sb_printf(b, "<tr><th>%s</th><td>", what);
	pm__sb_text(b, file);
	pm__sb_printf(b, "</td><td>%zu</td>", x->n);
	cell(b, x->mape, "%.2f %%");
	cell(b, x->r2, "%.4f");
	cell(b, x->mae, "%.4g");
	cell(b, x->rmse, "%.4g");
	pm__sb_printf(b, "</tr>\n");
}

static const char *const kind_name[] = {
	"coefficient", "power", "level coefficient", "scaling exponent", "constant",
	"level log-multiplier",
};

static void parameter_table(pm_sbuf *b, const pm_model *m)
{
	size_t nseeds = pm_model_nseeds(m);

	pm__sb_printf(b, "<h2>Parameters</h2>\n<p>Raw values are in the data's units (the "
		      "ones to read); scaled values are what the fit worked with.");
	if (nseeds)
		pm__sb_printf(b, " The model is the best of %zu fits with different seeds; "
			      "&#177; is the standard deviation over them.", nseeds);
	pm__sb_printf(b, "</p>\n<table class=\"params\">\n<tr><th>parameter</th><th>kind</th>"
		      "<th>value</th><th>&#177; std</th><th>scaled</th><th>power on t (t &#8733; "
		      "input<sup>power</sup>)</th><th>doubling the input multiplies its term "
		      "by</th></tr>\n");
	for (size_t k = 0; k < pm_model_nparams(m); k++) {
		pm_param_kind kind = pm_model_param_kind(m, k);

		pm__sb_printf(b, "<tr><th>");
		pm__sb_text(b, pm_model_param_name(m, k));
		pm__sb_printf(b, "</th><td class=\"text\">%s</td>", (size_t)kind < sizeof(kind_name) /
			      sizeof(kind_name[0]) ? kind_name[kind] : "?");
		cell(b, pm_model_param_value(m, k), "%.6g");
		cell(b, pm_model_param_std(m, k), "%.3g");
		cell(b, pm_model_param_scaled(m, k), "%.6g");
		cell(b, pm_model_param_power(m, k), "%.4g");
		cell(b, pm_model_param_doubling(m, k), "%.4g");
		pm__sb_printf(b, "</tr>\n");
	}
	pm__sb_printf(b, "</table>\n");
}

static void header(pm_sbuf *b, const pm_model *m, const pm_report_data *r)
{
	const pm_fit_info *fi = pm_model_fit_info(m);

	pm__sb_printf(b, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
		      "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>perfmodel report: ");
	pm__sb_text(b, pm_model_target(m));
	pm__sb_printf(b, "</title>\n<style>\n"
		      "body { font-family: sans-serif; max-width: 1320px; margin: 1em auto; "
		      "padding: 0 1em; color: #222; }\n"
		      "table { border-collapse: collapse; margin: 0.5em 0 1em; }\n"
		      "th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; }\n"
		      "td { text-align: right; font-variant-numeric: tabular-nums; }\n"
		      "th, td.text { text-align: left; }\nth { background: #f4f4f4; }\n"
		      ".plots { display: flex; flex-wrap: wrap; gap: 12px; }\n"
		      "figure { margin: 0; }\n"
		      "code { background: #f4f4f4; padding: 0 0.2em; }\n"
		      "</style>\n</head>\n<body>\n<h1>perfmodel report: ");
	pm__sb_text(b, pm_model_target(m));
	pm__sb_printf(b, "</h1>\n<p>Model <code>");
	pm__sb_text(b, r->model_name ? r->model_name : "(unnamed)");
	pm__sb_printf(b, "</code>, form <code>");
	pm__sb_text(b, pm_model_form(m));
	pm__sb_printf(b, "</code>");
	if (pm_model_formula(m)) {
		pm__sb_printf(b, ": <code>");
		pm__sb_text(b, pm_model_formula(m));
		pm__sb_printf(b, "</code>");
	}
	pm__sb_printf(b, ", scale <code>");
	pm__sb_text(b, pm_model_scale_name(m));
	pm__sb_printf(b, "</code>; perfmodel %s.</p>\n", pm_version());
	if (fi) {
		pm__sb_printf(b, "<p>Fitted to <code>");
		pm__sb_text(b, fi->data_name);
		pm__sb_printf(b, "</code> with seed %llu: %u generations, %llu evaluations, "
			      "stopped: ", (unsigned long long)fi->options.seed, fi->generations,
			      (unsigned long long)fi->evaluations);
		pm__sb_text(b, fi->stop);
		pm__sb_printf(b, "%s, %.3g s.</p>\n", fi->polished ? ", polished" : "",
			      fi->wall_time_s);
	}
}

static pm_status accuracy_table(pm_sbuf *b, const pm_model *m, const pm_report_data *r,
				pm_error *err)
{
	pm_metrics x;
	pm_status st;

	const pm_fit_info *fi = pm_model_fit_info(m);

	pm__sb_printf(b, "<h2>Accuracy</h2>\n<table>\n<tr><th>rows</th><th>file</th><th>n</th>"
		      "<th>MAPE</th><th>R&#178;</th><th>MAE</th><th>RMSE</th></tr>\n");
	/* what the model file recorded, held-out rows of --test-fraction included:
	 * the page cannot tell those rows apart again */
	if (fi)
		metrics_row(b, "fit: training rows", fi->data_name, &fi->training);
	if (fi && fi->test.n)
		metrics_row(b, "fit: held-out rows", fi->test_name[0] ? fi->test_name
								 : fi->data_name, &fi->test);
	if ((st = pm_model_evaluate(m, r->data, &x, err)))
		return st;
	metrics_row(b, "plotted as training", pm_dataset_name(r->data), &x);
	if (r->test) {
		if ((st = pm_model_evaluate(m, r->test, &x, err)))
			return st;
		metrics_row(b, "plotted as held out", pm_dataset_name(r->test), &x);
	}
	pm__sb_printf(b, "</table>\n");
	return PM_OK;
}

/* Which section a plot belongs to, by its file name. */
static const struct {
	const char *prefix, *heading, *note;
} sections[] = {
	{ "predicted_vs_measured", "Predicted against measured",
	  "A perfect model puts every point on the dashed diagonal." },
	{ "residuals_", "Residuals against each extrinsic parameter",
	  "A pattern here (a slope, a curve) is scaling the model does not capture." },
	{ "speedup_", "Predicted scaling",
	  "Each extrinsic parameter over the values in the data, the other inputs held at "
	  "their median (numbers) or most frequent level (categories)." },
	{ "sweep_", "Regularisation sweep",
	  "Held-out accuracy and fitted parameters against the penalty weight λ "
	  "(perfmodel sweep); the dotted line marks the λ of lowest held-out MAPE." },
};

static void plot_sections(pm_sbuf *b, const pm_plots *ps)
{
	size_t nsec = sizeof(sections) / sizeof(sections[0]), cur = nsec;

	for (size_t i = 0; i < ps->n; i++) {
		for (size_t s = 0; s < nsec; s++)
			if (s != cur && strncmp(ps->plot[i].name, sections[s].prefix,
						strlen(sections[s].prefix)) == 0) {
				pm__sb_printf(b, "%s<h2>%s</h2>\n<p>%s</p>\n<div class=\"plots\">\n",
					      cur < nsec ? "</div>\n" : "", sections[s].heading,
					      sections[s].note);
				cur = s;
			}
		pm__sb_printf(b, "<figure>\n%s</figure>\n", ps->plot[i].svg);
	}
	if (cur < nsec)
		pm__sb_printf(b, "</div>\n");
}

pm_status pm_report_html(const pm_model *m, const pm_report_data *r, char **out,
			 pm_error *err)
{
	pm_plots *ps = NULL;
	pm_sbuf b;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the report");
	*out = NULL;
	if ((st = pm_report_plots(m, r, &ps, err)))
		return st;
	pm__sb_init(&b);
	header(&b, m, r);
	if ((st = accuracy_table(&b, m, r, err))) {
		pm__sb_discard(&b);
		pm_plots_free(ps);
		return st;
	}
	parameter_table(&b, m);
	plot_sections(&b, ps);
	pm__sb_printf(&b, "</body>\n</html>\n");
	pm_plots_free(ps);
	return pm__sb_finish(&b, out, err);
}
