/* perfmodel report --json (docs/json.md): what the page shows, as data:
 * the accuracy rows, the parameters and where each plot was written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/jsonw.h"
#include "results/model_save.h"
#include "perfmodel/perfmodel.h"

/* "key": the accuracy table's row for d, {"file", "rows", "mae", ...} on one
 * line, or null without d. */
static pm_status json_accuracy(pm_jw *w, const char *key, const pm_model *m, const pm_dataset *d,
			       pm_error *err)
{
	pm_metrics x;
	pm_status st;

	pm__jw_key(w, key);
	if (!d) {
		pm__jw_null(w);
		return PM_OK;
	}
	if ((st = pm_model_evaluate(m, d, &x, err)))
		return st;
	pm__jw_object_begin_line(w);
	pm__jw_key(w, "file");
	pm__jw_string(w, pm_dataset_name(d));
	pm__metrics_write_members(w, &x);
	pm__jw_object_end(w);
	return PM_OK;
}

static void json_parameters(pm_jw *w, const pm_model *m)
{
	static const char *const keys[] = { "value", "std", "scaled", "power", "doubling" };

	pm__jw_key(w, "parameters");
	pm__jw_array_begin(w);
	for (size_t k = 0; k < pm_model_nparams(m); k++) {
		const double v[] = { pm_model_param_value(m, k), pm_model_param_std(m, k),
				     pm_model_param_scaled(m, k), pm_model_param_power(m, k),
				     pm_model_param_doubling(m, k) };

		pm__jw_object_begin_line(w);
		pm__jw_key(w, "name");
		pm__jw_string(w, pm_model_param_name(m, k));
		pm__jw_doubles(w, keys, v, sizeof(v) / sizeof(v[0]));
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
}

/* Each plot's name and title, and the file it is in under plot_dir. */
static pm_status json_plots(pm_jw *w, const pm_plots *ps, const char *plot_dir, pm_error *err)
{
	pm__jw_key(w, "plots");
	pm__jw_array_begin(w);
	for (size_t i = 0; i < ps->n; i++) {
		pm__jw_object_begin_line(w);
		pm__jw_key(w, "name");
		pm__jw_string(w, ps->plot[i].name);
		pm__jw_key(w, "title");
		pm__jw_string(w, ps->plot[i].title);
		pm__jw_key(w, "file");
		if (plot_dir) {
			size_t n = strlen(plot_dir) + strlen(ps->plot[i].name) + 2;
			char *path = malloc(n);

			if (!path)
				return pm__fail(err, PM_ENOMEM, "out of memory");
			snprintf(path, n, "%s/%s", plot_dir, ps->plot[i].name);
			pm__jw_string(w, path);
			free(path);
		} else {
			pm__jw_null(w);
		}
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
	return PM_OK;
}

pm_status pm_report_to_json(const pm_model *m, const pm_report_data *r, const char *html_path,
			    const char *plot_dir, char **out, pm_error *err)
{
	const char *const paths[][2] = { { "output", html_path }, { "plot_dir", plot_dir },
					 { "sweep", r ? r->sweep : NULL } };
	pm_plots *ps = NULL;
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, m && r, "model or data", err)) ||
	    (st = pm_report_plots(m, r, &ps, err)))
		return st;
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "model");
	pm__jw_string(&w, r->model_name);
	pm__jw_key(&w, "target");
	pm__jw_string(&w, pm_model_target(m));
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		pm__jw_key(&w, paths[i][0]);
		pm__jw_string(&w, paths[i][1]);
	}
	if ((st = json_accuracy(&w, "data", m, r->data, err)) ||
	    (st = json_accuracy(&w, "test", m, r->test, err)))
		goto fail;
	json_parameters(&w, m);
	if ((st = json_plots(&w, ps, plot_dir, err)))
		goto fail;
	pm__jw_object_end(&w);
	pm_plots_free(ps);
	return pm__jw_finish(&w, out, err);
fail:
	free(w.buf);
	pm_plots_free(ps);
	return st;
}
