#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "count.h"
#include "kfold.h"
#include "leak_check.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(report);

/* Three seeds, so that every parameter has a std to show. */
static pm_model *fit3(const pm_dataset *d)
{
	return syn_fit(d, 3, 30);
}

static const pm_plot *find(const pm_plots *ps, const char *name)
{
	for (size_t i = 0; i < ps->n; i++)
		if (!strcmp(ps->plot[i].name, name))
			return &ps->plot[i];
	cr_assert_fail("no plot %s", name);
	return NULL;
}

/* The page's numbers are the model's: each parameter's row holds its value
 * and std, exactly (title) and as shown. */
Test(report, parameter_table_matches_the_model)
{
	pm_dataset *d = syn_dataset(120, 0.05, 5);
	pm_model *m = fit3(d);
	pm_report_data rd = { .data = d, .model_name = "m.json" };
	pm_error err = { 0 };
	char *html = NULL, cellv[512];
	pm_metrics x;

	cr_assert_eq(pm_report_html(m, &rd, &html, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_nseeds(m), 3);
	for (size_t k = 0; k < pm_model_nparams(m); k++) {
		double v = pm_model_param_value(m, k), sd = pm_model_param_std(m, k);
		int len;

		cr_assert(isfinite(sd));
		len = snprintf(cellv, sizeof(cellv), "<tr><th>%s</th>", pm_model_param_name(m, k));
		const char *row = strstr(html, cellv);

		cr_assert_not_null(row, "no row for %s", cellv);
		row = strstr(row + len, "</td>") + 5;	/* past the kind */
		snprintf(cellv, sizeof(cellv), "<td title=\"%.17g\">%.6g</td>", v, v);
		cr_assert(strncmp(row, cellv, strlen(cellv)) == 0, "%s: want %s, got %.60s",
			  pm_model_param_name(m, k), cellv, row);
		row += strlen(cellv);
		snprintf(cellv, sizeof(cellv), "<td title=\"%.17g\">%.3g</td>", sd, sd);
		cr_assert(strncmp(row, cellv, strlen(cellv)) == 0, "%s std: want %s, got %.60s",
			  pm_model_param_name(m, k), cellv, row);
	}
	cr_assert_eq(pm_model_evaluate(m, d, &x, &err), PM_OK);
	snprintf(cellv, sizeof(cellv), "<td title=\"%.17g\">%.2f %%</td>", x.mape, x.mape);
	cr_assert(strstr(html, cellv), "the training MAPE %s", cellv);
	/* the model file's own record of the fit, in its own row */
	const char *fitrow = strstr(html, "<tr><th>fit: training rows</th>");

	cr_assert_not_null(fitrow);
	x = pm_model_fit_info(m)->training;
	snprintf(cellv, sizeof(cellv), "<td title=\"%.17g\">%.4f</td>", x.r2, x.r2);
	cr_assert(strstr(fitrow, cellv) && strstr(fitrow, cellv) < strstr(fitrow, "</tr>"),
		  "the model's recorded R² %s", cellv);
	cr_assert(strstr(html, "<code>m.json</code>"));
	cr_assert(strstr(html, "best of 3 fits"));
	cr_assert_null(strstr(html, "<script"), "no script");
	cr_assert_null(strstr(html, "http://www.w3.org/2000/svg\" href"), "no links out");
	cr_assert_eq(count(html, "<svg "), 7, "accuracy, 2 residuals, 2 x (speedup, efficiency)");
	cr_assert_eq(count(html, "<svg "), count(html, "</svg>"));
	free(html);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(report, plots_show_every_row_with_its_mark)
{
	pm_dataset *d = syn_dataset(90, 0.05, 7), *test = syn_dataset(30, 0.05, 8);
	pm_model *m = fit3(d);
	pm_report_data rd = { .data = d, .test = test };
	pm_plots *ps = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_report_plots(m, &rd, &ps, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(ps->n, 7);
	const char *svg = find(ps, "predicted_vs_measured.svg")->svg;

	/* 90 training dots, 30 held-out crosses, and one of each in the legend */
	cr_assert_eq(count(svg, "<circle"), 91);
	cr_assert_eq(count(svg, "<path d="), 31);
	cr_assert(strstr(svg, "y = x"));
	svg = find(ps, "residuals_threads.svg")->svg;
	cr_assert_eq(count(svg, "<circle"), 91);
	cr_assert(strstr(svg, "(predicted - measured) / measured (%)"));
	/* threads 1..8 and batch 8..128: speedup against the ideal (dashed) */
	svg = find(ps, "speedup_threads.svg")->svg;
	cr_assert(strstr(svg, "ideal (linear)"));
	cr_assert_eq(count(svg, "<polyline"), 2);
	find(ps, "efficiency_batch.svg");
	cr_assert_str_eq(find(ps, "efficiency_threads.svg")->title,
			 "Predicted parallel efficiency against threads");
	/* no intervals, no band (and no time plot for one) */
	for (size_t i = 0; i < ps->n; i++)
		cr_assert_null(strstr(ps->plot[i].svg, "<polygon"), "%s", ps->plot[i].name);
	pm_plots_free(ps);
	pm_model_free(m);
	pm_dataset_free(test);
	pm_dataset_free(d);
}

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/pm_report_XXXXXX");
	int fd = mkstemp(path);
	size_t len = strlen(text);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

Test(report, sweep_plots_from_a_sweep_document)
{
	pm_dataset *d = syn_dataset(90, 0.05, 9);
	pm_model *m = fit3(d);
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_sweep_options so = { .lambda_lo = 1e-4, .lambda_hi = 1e-1, .npoints = 3, 
				.validate = KFOLD_OPTIONS(2, 1) };
	pm_sweep *sw = NULL;
	pm_plots *ps = NULL;
	pm_error err = { 0 };
	char *json = NULL, *path;
	size_t npow = 0;

	o.reg = PM_REG_L2;
	o.maxiter = 10;
	o.threads = 1;
	cr_assert_eq(pm_sweep_run(d, s, &o, &so, &sw, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_sweep_to_json(sw, &o, &json, &err), PM_OK);
	path = write_temp(json);
	pm_report_data rd = { .data = d, .sweep = path };

	cr_assert_eq(pm_report_plots(m, &rd, &ps, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(ps->n, 7 + 4);
	cr_assert_eq(count(find(ps, "sweep_mape.svg")->svg, "<polyline"), 1);
	cr_assert(strstr(find(ps, "sweep_r2.svg")->svg, "best λ = "));
	for (size_t k = 0; k < pm_model_nparams(m); k++)
		npow += pm_model_param_kind(m, k) == PM_PARAM_POWER ||
			pm_model_param_kind(m, k) == PM_PARAM_SCALING;
	cr_assert_eq(count(find(ps, "sweep_powers.svg")->svg, "<polyline"), npow);
	cr_assert_eq(count(find(ps, "sweep_coefficients.svg")->svg, "<polyline"),
		     pm_model_nparams(m) - npow);
	pm_plots_free(ps);
	unlink(path);
	free(path);
	free(json);
	pm_sweep_free(sw);
	pm_spec_free(s);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(report, errors_name_the_file)
{
	pm_dataset *d = syn_dataset(60, 0.05, 11), *bad = NULL;
	pm_model *m = fit3(d);
	pm_report_data rd = { .data = d, .sweep = "/nonexistent/sweep.json" };
	pm_plots *ps = NULL;
	pm_error err = { 0 };
	char *path, *html = NULL;
	const char *nothreads = "k,f,h,act,opt,batch,time\n1,4,64,relu,adam,8,0.1\n";

	cr_assert_eq(pm_report_plots(m, &rd, &ps, &err), PM_EIO);
	cr_assert_null(ps);
	path = write_temp("{\"points\": [}");
	rd.sweep = path;
	cr_assert_eq(pm_report_html(m, &rd, &html, &err), PM_EPARSE);
	cr_assert_null(html);
	unlink(path);
	free(path);
	path = write_temp("{\"best_lambda\": 1, \"points\": []}");
	rd.sweep = path;
	cr_assert_eq(pm_report_plots(m, &rd, &ps, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "empty"), "%s", err.msg);
	unlink(path);
	free(path);
	cr_assert_eq(pm_dataset_parse_csv(nothreads, strlen(nothreads), "held.csv", &bad, &err),
		     PM_OK);
	rd.sweep = NULL;
	rd.test = bad;
	cr_assert_neq(pm_report_plots(m, &rd, &ps, &err), PM_OK);
	cr_assert(strstr(err.msg, "threads"), "%s", err.msg);
	cr_assert_eq(pm_report_plots(m, NULL, &ps, &err), PM_EINVAL);
	pm_dataset_free(bad);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* A model with intervals: per extrinsic input its predicted time with the
 * 90 % band, one polygon point per value and bound; on the page too. */
Test(report, time_plots_with_the_interval_band)
{
	pm_dataset *d = syn_dataset(90, 0.05, 7);
	pm_fit_options o = pm_fit_options_default();
	pm_model *m;
	pm_scaling_report *sr = NULL;
	pm_report_data rd = { .data = d };
	pm_plots *ps = NULL;
	pm_error err = { 0 };
	char *html = NULL;

	o.maxiter = 30;
	o.threads = 1;
	o.intervals = 5;
	m = syn_fit_with(d, o, 1);
	cr_assert(pm_model_has_intervals(m));
	cr_assert_eq(pm_scaling_report_new(m, d, &sr, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_report_plots(m, &rd, &ps, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(ps->n, 7 + sr->n, "the 7 plots and a time plot per input: %zu", ps->n);
	for (size_t j = 0; j < sr->n; j++) {
		const pm_scaling *sc = &sr->scaling[j];
		char name[64];
		const char *svg, *poly;
		size_t pairs;

		snprintf(name, sizeof(name), "time_%s.svg", pm_model_input_name(m, sc->input));
		svg = find(ps, name)->svg;
		cr_assert_eq(count(svg, "<polygon"), 1, "%s", name);
		cr_assert(strstr(svg, ">90 % interval</text>"));
		/* every interval is finite here: a lower and an upper per value */
		poly = strstr(svg, "<polygon");
		pairs = count(poly, ",") - count(strstr(poly, "/>"), ",");
		cr_assert_eq(pairs, 2 * sc->npoints, "%s: %zu points for %zu values", name, pairs,
			     sc->npoints);
	}
	cr_assert_str_eq(find(ps, "time_threads.svg")->title, "Predicted time against threads");
	cr_assert_eq(pm_report_html(m, &rd, &html, &err), PM_OK, "%s", err.msg);
	cr_assert(strstr(html, "<title>Predicted time against threads</title>"));
	cr_assert_eq(count(html, "<polygon"), sr->n);
	free(html);
	pm_plots_free(ps);
	pm_scaling_report_free(sr);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* The y pixels of the n points of `attr`="x,y x,y ..." after `from`. */
static void pixels_y(const char *from, double *y, size_t n)
{
	const char *p = strstr(from, "points=\"");

	cr_assert_not_null(p);
	p += strlen("points=\"");
	for (size_t i = 0; i < n; i++) {
		char *end;

		strtod(p, &end);
		cr_assert_eq(*end, ',', "point %zu of %zu", i, n);
		y[i] = strtod(end + 1, &end);
		p = end + 1;
	}
}

/* A speedup model's band is of the speedup (Amdahl: S = 1 / (0.1 + 0.9 /
 * nodes)): the interval of its time scale 1 / S turned round, as predict
 * --interval turns it, so that it holds the predicted speedup; the plot is
 * target_nodes.svg (speedup_nodes.svg is the scaling's). */
Test(report, a_target_kinds_band_is_of_its_quantity)
{
	static const double nodes[] = { 1, 2, 4, 8, 16, 32, 64 };
	char csv[4096];
	size_t len = (size_t)snprintf(csv, sizeof(csv), "nodes,speedup\n");
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_report_data rd = { 0 };
	pm_plots *ps = NULL;
	pm_error e = { 0 };
	double lo[7], hi[7], curve[7];
	const char *svg;
	char *html = NULL;

	for (int rep = 0; rep < 3; rep++)
		for (size_t i = 0; i < 7; i++)
			len += (size_t)snprintf(csv + len, sizeof(csv) - len, "%g,%.17g\n", nodes[i],
						1 / (0.1 + 0.9 / nodes[i]) *
							(1 + 0.02 * ((double)((i + 3 * rep) % 5) - 2)));
	cr_assert_eq(pm_dataset_parse_csv(csv, len, "amdahl.csv", &d, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_spec_new(&s, &e), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "speedup", &e), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_EXTRINSIC, "nodes", &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_spec_set_target_kind(s, PM_TARGET_SPEEDUP, NULL, NULL, &e), PM_OK);
	o.threads = 1;
	o.intervals = 5;
	cr_assert_eq(pm_fit(d, s, &o, &m, &e), PM_OK, "%s", e.msg);
	cr_assert(pm_model_has_intervals(m));
	rd.data = d;
	cr_assert_eq(pm_report_plots(m, &rd, &ps, &e), PM_OK, "%s", e.msg);
	for (size_t i = 0; i < ps->n; i++)
		cr_expect_neq(strcmp(ps->plot[i].name, "time_nodes.svg"), 0);
	cr_assert_str_eq(find(ps, "target_nodes.svg")->title, "Predicted speedup against nodes");
	svg = find(ps, "target_nodes.svg")->svg;
	cr_assert_eq(count(svg, "<polygon"), 1);
	/* the band's lower bounds, then its upper ones backwards, and the
	 * curve: on the page a larger speedup is higher up, a smaller pixel */
	pixels_y(strstr(svg, "<polygon"), lo, 7);
	pixels_y(strstr(svg, "<polyline"), curve, 7);
	{
		double both[14];

		pixels_y(strstr(svg, "<polygon"), both, 14);
		for (size_t i = 0; i < 7; i++)
			hi[i] = both[13 - i];
	}
	for (size_t i = 0; i < 7; i++) {
		cr_expect(lo[i] > curve[i] && curve[i] > hi[i], "nodes %g: band %g..%g, curve %g",
			  nodes[i], lo[i], hi[i], curve[i]);
	}
	cr_assert_eq(pm_report_html(m, &rd, &html, &e), PM_OK, "%s", e.msg);
	cr_assert(strstr(html, "<title>Predicted speedup against nodes</title>"));
	free(html);
	pm_plots_free(ps);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* A sweep document of two points: the first gives every parameter of m
 * the value 1; the second, in reverse order, 2, with its member `odd` (a
 * name) replaced by `odd_text` ("" drops it, NULL keeps it). */
static char *sweep_doc(const pm_model *m, const char *odd, const char *odd_text)
{
	size_t size = 4096 + pm_model_nparams(m) * 64, used = 0;
	char *s = malloc(size);

	cr_assert_not_null(s);
	used += (size_t)snprintf(s + used, size - used, "{\"best_lambda\": 0.1, \"points\": ["
				 "{\"lambda\": 0.1, \"mape\": 1, \"r2\": 0.5, \"parameters\": {");
	for (size_t k = 0; k < pm_model_nparams(m); k++)
		used += (size_t)snprintf(s + used, size - used, "%s\"%s\": 1", k ? ", " : "",
					 pm_model_param_name(m, k));
	used += (size_t)snprintf(s + used, size - used, "}}, {\"lambda\": 0.2, \"mape\": null, "
				 "\"r2\": null, \"parameters\": {\"extra\": 5");
	for (size_t k = pm_model_nparams(m); k-- > 0;) {
		const char *name = pm_model_param_name(m, k);

		if (odd && strcmp(name, odd) == 0 && odd_text)
			used += (size_t)snprintf(s + used, size - used, "%s", odd_text);
		else
			used += (size_t)snprintf(s + used, size - used, ", \"%s\": 2", name);
	}
	snprintf(s + used, size - used, "}}]}");
	return s;
}

/* A point's parameters are read by name in one pass; what is wrong with one
 * is said as the by-name getters say it, in the first point's order. */
Test(report, sweep_parameters_by_name)
{
	pm_dataset *d = syn_dataset(60, 0.05, 11);
	pm_model *m = fit3(d);
	pm_report_data rd = { .data = d };
	pm_plots *ps = NULL;
	pm_error err = { 0 };
	const char *first = pm_model_param_name(m, 0), *second = pm_model_param_name(m, 1);
	char dup[160], wrong[160], *doc, *path;
	const struct {
		const char *odd, *text;
		pm_status st;
	} cases[] = {
		{ NULL, NULL, PM_OK },
		{ second, ", \"C\": null", PM_ESCHEMA },	/* C twice, the second parameter missing */
		{ second, "", PM_ESCHEMA },
		{ first, dup, PM_ESCHEMA },
		{ second, wrong, PM_ESCHEMA },
		{ first, ", \"x\": null", PM_ESCHEMA },
	};
	char want[6][160];

	snprintf(dup, sizeof(dup), ", \"%s\": 2, \"%s\": 3", first, first);
	snprintf(wrong, sizeof(wrong), ", \"%s\": \"2\"", second);
	snprintf(want[0], sizeof(want[0]), "%s", "");
	snprintf(want[1], sizeof(want[1]), "parameters: missing '%s'", second);
	snprintf(want[2], sizeof(want[2]), "parameters: missing '%s'", second);
	snprintf(want[3], sizeof(want[3]), "parameters: duplicate key '%s'", first);
	snprintf(want[4], sizeof(want[4]), "parameters: '%s' must be a finite number or null",
		 second);
	snprintf(want[5], sizeof(want[5]), "parameters: missing '%s'", first);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		doc = sweep_doc(m, cases[i].odd, cases[i].text);
		path = write_temp(doc);
		rd.sweep = path;
		cr_assert_eq(pm_report_plots(m, &rd, &ps, &err), cases[i].st, "case %zu: %s", i,
			     err.msg);
		if (cases[i].st == PM_OK)
			pm_plots_free(ps);
		else
			cr_assert(strstr(err.msg, want[i]), "case %zu: %s", i, err.msg);
		unlink(path);
		free(path);
		free(doc);
	}
	pm_model_free(m);
	pm_dataset_free(d);
}

/* The number member `key` of o, bit for bit v (null when v is not finite). */
static void same_number(const cJSON *o, const char *key, double v)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	cr_assert_not_null(it, "no %s", key);
	if (!isfinite(v)) {
		cr_assert(cJSON_IsNull(it), "%s: not null", key);
		return;
	}
	cr_assert(cJSON_IsNumber(it), "%s: not a number", key);
	cr_assert_eq(memcmp(&it->valuedouble, &v, sizeof(v)), 0, "%s: %.17g, want %.17g", key,
		     it->valuedouble, v);
}

static const char *string_member(const cJSON *o, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	cr_assert(cJSON_IsString(it), "%s: not a string", key);
	return it->valuestring;
}

/* report --json: the page's numbers, bit for bit, and what was written
 * where; a record per line in the lists. */
Test(report, json_document)
{
	static const char head[] = "{\n  \"model\": \"m\\\"1.json\",\n  \"target\": \"time\",\n"
				   "  \"output\": \"r.html\",\n  \"plot_dir\": \"p\xc3\xa9\",\n"
				   "  \"sweep\": null,\n"
				   "  \"data\": {\"file\": \"syn.csv\", \"rows\": 120, ";
	pm_dataset *d = syn_dataset(120, 0.05, 5), *t = syn_dataset(30, 0.05, 6);
	pm_model *m = fit3(d);
	pm_report_data rd = { .data = d, .test = t, .model_name = "m\"1.json" };
	pm_plots *ps = NULL;
	pm_error err = { 0 };
	char *doc = NULL;
	cJSON *root, *it;
	pm_metrics x;
	size_t k = 0;

	cr_assert_eq(pm_report_to_json(m, &rd, "r.html", "p\xc3\xa9", &doc, &err), PM_OK, "%s",
		     err.msg);
	cr_assert_eq(strncmp(doc, head, strlen(head)), 0, "%s", doc);
	cr_assert(strstr(doc, "\n  \"parameters\": [\n    {\"name\": "), "%s", doc);
	cr_assert(strstr(doc, "\n  \"plots\": [\n    {\"name\": "), "%s", doc);
	cr_assert_str_eq(doc + strlen(doc) - 8, "}\n  ]\n}\n", "%s", doc);
	root = cJSON_Parse(doc);
	cr_assert_not_null(root);
	cr_assert_eq(pm_model_evaluate(m, t, &x, &err), PM_OK);
	it = cJSON_GetObjectItem(root, "test");
	cr_assert_str_eq(string_member(it, "file"), "syn.csv");
	same_number(it, "rows", (double)x.n);
	same_number(it, "mape", x.mape);
	same_number(it, "adj_r2", x.adj_r2);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "parameters")) {
		cr_assert_str_eq(string_member(it, "name"), pm_model_param_name(m, k));
		same_number(it, "value", pm_model_param_value(m, k));
		same_number(it, "std", pm_model_param_std(m, k));
		same_number(it, "scaled", pm_model_param_scaled(m, k));
		same_number(it, "doubling", pm_model_param_doubling(m, k));
		k++;
	}
	cr_assert_eq(k, pm_model_nparams(m));
	cr_assert_eq(pm_report_plots(m, &rd, &ps, &err), PM_OK);
	k = 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "plots")) {
		char want[512];

		cr_assert_str_eq(string_member(it, "name"), ps->plot[k].name);
		cr_assert_str_eq(string_member(it, "title"), ps->plot[k].title);
		snprintf(want, sizeof(want), "p\xc3\xa9/%s", ps->plot[k].name);
		cr_assert_str_eq(string_member(it, "file"), want);
		k++;
	}
	cr_assert_eq(k, ps->n);
	pm_plots_free(ps);
	cJSON_Delete(root);
	free(doc);

	/* nothing written: the paths null, and the plots' files */
	rd.test = NULL;
	cr_assert_eq(pm_report_to_json(m, &rd, NULL, NULL, &doc, &err), PM_OK, "%s", err.msg);
	cr_assert(strstr(doc, "\n  \"output\": null,\n  \"plot_dir\": null,\n  \"sweep\": null,\n"),
		  "%s", doc);
	cr_assert(strstr(doc, "\n  \"test\": null,\n"), "%s", doc);
	cr_assert(strstr(doc, ".svg\", \"title\": "), "%s", doc);
	cr_assert_eq(count(doc, "\"file\": null}"), count(doc, ".svg\", \"title\": "));
	free(doc);
	pm_model_free(m);
	pm_dataset_free(t);
	pm_dataset_free(d);
}

Test(report, json_document_errors)
{
	pm_dataset *d = syn_dataset(60, 0.05, 11), *bad = NULL;
	pm_model *m = fit3(d);
	pm_report_data rd = { .data = d };
	pm_error err = { 0 };
	char *doc = (char *)&rd;
	const char *notime = "k,f,h,act,opt,threads,batch\n1,4,64,relu,adam,1,8\n";

	cr_assert_eq(pm_report_to_json(NULL, &rd, NULL, NULL, &doc, &err), PM_EINVAL);
	cr_assert_null(doc);
	cr_assert_str_eq(err.msg, "no model or data");
	cr_assert_eq(pm_report_to_json(m, NULL, NULL, NULL, &doc, &err), PM_EINVAL);
	cr_assert_eq(pm_report_to_json(m, &rd, NULL, NULL, NULL, &err), PM_EINVAL);
	rd.data = NULL;
	cr_assert_eq(pm_report_to_json(m, &rd, NULL, NULL, &doc, &err), PM_EINVAL);
	cr_assert_null(doc);
	/* the held-out rows lack the target: the accuracy row cannot be made */
	cr_assert_eq(pm_dataset_parse_csv(notime, strlen(notime), "held.csv", &bad, &err), PM_OK);
	rd.data = d;
	rd.test = bad;
	cr_assert_eq(pm_report_to_json(m, &rd, NULL, NULL, &doc, &err), PM_ESCHEMA, "%s", err.msg);
	cr_assert_null(doc);
	cr_assert(strstr(err.msg, "time"), "%s", err.msg);
	pm_dataset_free(bad);
	pm_model_free(m);
	pm_dataset_free(d);
}
