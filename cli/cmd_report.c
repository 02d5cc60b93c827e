/* perfmodel report: one self-contained HTML page with the fit's plots. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

const char report_usage[] =
	"usage: perfmodel report -m MODEL.json DATA.csv [--test FILE] [--sweep SWEEP.json]\n"
	"                        [-o REPORT.html] [--plot-dir DIR] [--json]\n"
	"\n"
	"Write one HTML page (inline SVG, no script, no network) to look at a fit:\n"
	"predicted against measured with the y = x line, residuals against each\n"
	"extrinsic parameter, the parameter table with +- std over seeds, predicted\n"
	"speedup and efficiency against the ideal and, with --sweep, held-out MAPE,\n"
	"R^2 and parameter paths against lambda.\n"
	"\n"
	"  -m, --model FILE   the fitted model\n"
	"      --test FILE    held-out rows, drawn with other marks than DATA.csv's\n"
	"      --sweep FILE   a sweep written by 'perfmodel sweep --json'\n"
	"  -o, --output FILE  the page to write (atomically; - for stdout); never an input\n"
	"      --plot-dir DIR the same plots as SVG files in DIR (made if missing)\n"
	"      --json         say what was written, and the page's numbers, as one JSON\n"
	"                     object on stdout (docs/json.md)\n"
	"  -h, --help         this text\n";

static const struct option options[] = {
	{ "model", required_argument, NULL, 'm' },
	{ "test", required_argument, NULL, 't' },
	{ "sweep", required_argument, NULL, 's' },
	{ "output", required_argument, NULL, 'o' },
	{ "plot-dir", required_argument, NULL, 'p' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

pm_status write_plots(const char *dir, const pm_model *m, const pm_report_data *rd,
		      const char *const *inputs, size_t ninputs, pm_error *err)
{
	pm_plots *ps = NULL;
	pm_status st;
	char why[128];

	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		pm_strerror(errno, why, sizeof(why));
		*err = (pm_error){ .code = PM_EIO };
		pm_snprintf(err->file, sizeof(err->file), "%s", dir);
		pm_snprintf(err->msg, sizeof(err->msg), "cannot make the folder: %s", why);
		return PM_EIO;
	}
	if ((st = pm_report_plots(m, rd, &ps, err)))
		return st;
	for (size_t i = 0; i < ps->n && !st; i++) {
		size_t n = strlen(dir) + strlen(ps->plot[i].name) + 2;
		char *path = malloc(n);

		if (!path) {
			*err = (pm_error){ .code = PM_ENOMEM };
			st = PM_ENOMEM;
			break;
		}
		pm_snprintf(path, n, "%s/%s", dir, ps->plot[i].name);
		st = pm_output_check(path, inputs, ninputs, err);
		if (!st)
			st = pm_write_file_atomic(path, ps->plot[i].svg, strlen(ps->plot[i].svg), err);
		free(path);
	}
	pm_plots_free(ps);
	return st;
}

int cmd_report(int argc, char **argv)
{
	const char *model_path = NULL, *test_path = NULL, *out_path = NULL, *plot_dir = NULL;
	/* the rows as they are: no runs merged */
	const pm_read_options csv = { .format = PM_FORMAT_CSV };
	pm_report_data rd = { 0 };
	pm_dataset *d = NULL, *test = NULL;
	pm_model *m = NULL;
	pm_error err = { 0 };
	char *html = NULL, *doc = NULL;
	int c, json = 0, rc = EXIT_FAIL, to_stdout;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":m:o:h", options, NULL)) != -1) {
		switch (c) {
		case 'm': model_path = optarg; break;
		case 't': test_path = optarg; break;
		case 's': rd.sweep = optarg; break;
		case 'o': out_path = optarg; break;
		case 'p': plot_dir = optarg; break;
		case 'j': json = 1; break;
		case 'h': fputs(report_usage, stdout); return EXIT_OK;
		case ':': return usage_error("report", "option '%s' needs a value", argv[optind - 1]);
		default: return usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!model_path)
		return usage_error("report", "give the model with -m MODEL.json");
	if (!out_path && !plot_dir)
		return usage_error("report", "give the page to write with -o REPORT.html "
				   "(or a folder for the plots with --plot-dir DIR)");
	if (optind != argc - 1)
		return usage_error("report", "give one data file");
	to_stdout = out_path && strcmp(out_path, "-") == 0;
	if (to_stdout && json)
		return usage_error("report", "-o - and --json both write to standard output: "
				   "choose one");
	/* before any work: the page must not replace the model or the data */
	if (out_path && !to_stdout &&
	    pm_output_check(out_path, (const char *const[]){ model_path, argv[optind], test_path,
							      rd.sweep }, 4, &err))
		goto fail;
	if (pm_model_load_file(model_path, &m, &err) ||
	    pm_model_read_data(m, argv[optind], &csv, &d, NULL, &err) ||
	    (test_path && pm_model_read_data(m, test_path, &csv, &test, NULL, &err)))
		goto fail;
	rd.data = d;
	rd.test = test;
	rd.model_name = model_path;
	if ((out_path && (pm_report_html(m, &rd, &html, &err) ||
			  (to_stdout ? (fputs(html, stdout), PM_OK)
				     : pm_write_file_atomic(out_path, html, strlen(html), &err)))) ||
	    (plot_dir && write_plots(plot_dir, m, &rd, (const char *const[]){ model_path,
		    argv[optind], test_path, rd.sweep, to_stdout ? NULL : out_path }, 5, &err)) ||
	    (json && pm_report_to_json(m, &rd, out_path, plot_dir, &doc, &err)))
		goto fail;
	if (doc)
		fputs(doc, stdout);
	rc = EXIT_OK;
	goto out;
fail:
	report_error(&err);
out:
	free(doc);
	free(html);
	pm_dataset_free(test);
	pm_dataset_free(d);
	pm_model_free(m);
	return rc;
}
