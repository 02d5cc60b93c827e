/* perfmodel predict: from a config (DESIGN.md §5) or a model and a CSV. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char predict_usage[] =
	"usage: perfmodel predict CONFIG.json [--json] [--interval L] [--quantiles Q,...]\n"
	"       perfmodel predict -m MODEL.json POINTS.csv [--json] [--interval L] [--quantiles Q,...]\n"
	"\n"
	"Predict the target of a fitted model at new points.\n"
	"\n"
	"CONFIG.json names the model and the points:\n"
	"  {\"model\": \"model.json\", \"points\": [{\"threads\": 2, \"activation\": \"relu\", ...}]}\n"
	"(\"point\": {...} for one point; a relative model path is taken from the config's\n"
	"folder). With -m, every row of POINTS.csv is predicted; extra columns are kept.\n"
	"Output: the points as CSV with a 'predicted' column; --json: an array of objects.\n"
	"A model of a target kind (fit --target-kind) predicts in its own quantity, in a\n"
	"column named for it: 'predicted_speedup', 'predicted_efficiency' or\n"
	"'predicted_throughput'.\n"
	"\n"
	"  -m, --model FILE  the fitted model (with POINTS.csv)\n"
	"      --json        a JSON array on stdout\n"
	"      --interval L  add 'lower' and 'upper': the central interval of probability L\n"
	"                    (0 < L < 1; 0.9: between the 5 % and 95 % quantiles), from the\n"
	"                    residuals the fit calibrated (docs/maths.md, \"Prediction\n"
	"                    intervals\"), wider outside the data's ranges; and 'extrapolated'\n"
	"                    (1 or 0; JSON true or false): a point outside them\n"
	"      --quantiles Q,...\n"
	"                    add a column 'qQ' per quantile (0 < Q < 1, e.g. q0.5, q0.95),\n"
	"                    and 'extrapolated'\n"
	"  -h, --help        this text\n";

enum { OPT_JSON = 256, OPT_INTERVAL, OPT_QUANTILES };

static const struct option options[] = {
	{ "model", required_argument, NULL, 'm' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "quantiles", required_argument, NULL, OPT_QUANTILES },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The most quantiles one run prints. */
#define MAX_Q 64

/* The quantiles asked for and their column names: the interval's two
 * bounds first, then --quantiles in their order. */
struct quantiles {
	size_t n;
	double q[MAX_Q];
	char name[MAX_Q][32];
	const char *names[MAX_Q];
};

static int bad(const char *opt, const char *value, const char *why)
{
	return usage_error("predict", "--%s '%s': %s", opt, value, why);
}

static int add_q(struct quantiles *qs, double q, const char *name)
{
	if (qs->n == MAX_Q)
		return -1;
	qs->q[qs->n] = q;
	pm_snprintf(qs->name[qs->n], sizeof(qs->name[0]), "%s", name);
	qs->names[qs->n] = qs->name[qs->n];
	qs->n++;
	return 0;
}

/* --interval L: probability in (0, 1). */
static int interval_option(const char *v, struct quantiles *qs)
{
	double l;

	if (pm_parse_number(v, &l) || !(l > 0 && l < 1))
		return bad("interval", v, "expected a probability between 0 and 1 (0.9)");
	add_q(qs, (1 - l) / 2, "lower");
	add_q(qs, (1 + l) / 2, "upper");
	return 0;
}

/* --quantiles Q,...: each in (0, 1), none twice, columns "qQ". */
static int quantiles_option(const char *v, struct quantiles *qs)
{
	size_t first = qs->n;
	const char *p = v;

	for (;;) {
		char item[64], name[32];
		size_t len = strcspn(p, ",");
		double q;

		if (len == 0 || len >= sizeof(item))
			return bad("quantiles", v, "expected probabilities between 0 and 1, "
				   "separated by commas (0.5,0.95)");
		memcpy(item, p, len);
		item[len] = '\0';
		if (pm_parse_number(item, &q) || !(q > 0 && q < 1))
			return usage_error("predict", "--quantiles: '%s' is not a probability "
					   "between 0 and 1", item);
		/* the interval's bounds may equal a quantile: their own columns */
		for (size_t j = first; j < qs->n; j++)
			if (qs->q[j] == q)
				return usage_error("predict", "--quantiles: %s is given twice",
						   item);
		pm_snprintf(name, sizeof(name), "q%g", q);
		if (add_q(qs, q, name))
			return usage_error("predict", "--quantiles: at most %d", MAX_Q - 2);
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static void print_csv(const pm_dataset *d, const double *pred, const char *label,
		      const struct quantiles *qs, const double *qv, const int *extrap)
{
	for (size_t c = 0; c < pm_dataset_ncols(d); c++) {
		csv_field(stdout, pm_dataset_col_name(d, c));
		fputc(',', stdout);
	}
	csv_field(stdout, label);
	for (size_t j = 0; j < qs->n; j++) {
		fputc(',', stdout);
		csv_field(stdout, qs->names[j]);
	}
	if (extrap)
		fputs(",extrapolated", stdout);
	fputc('\n', stdout);
	for (size_t r = 0; r < pm_dataset_nrows(d); r++) {
		for (size_t c = 0; c < pm_dataset_ncols(d); c++) {
			csv_field(stdout, pm_dataset_cell(d, r, c));
			fputc(',', stdout);
		}
		print_exact(stdout, pred[r]);
		for (size_t j = 0; j < qs->n; j++) {
			fputc(',', stdout);
			print_exact(stdout, qv[r * qs->n + j]);
		}
		if (extrap)
			fprintf(stdout, ",%d", extrap[r]);
		fputc('\n', stdout);
	}
}

int cmd_predict(int argc, char **argv)
{
	const char *model_path = NULL, *interval = NULL, *quantiles = NULL;
	int json = 0, c, rc = EXIT_FAIL, *extrap = NULL;
	struct quantiles qs = { 0 };
	pm_model *m = NULL;
	pm_dataset *d = NULL;
	double *pred = NULL, *qv = NULL;
	char *doc = NULL;
	pm_error err = { 0 };
	pm_status st;
	size_t n;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":m:h", options, NULL)) != -1) {
		if (c == 'm')
			model_path = optarg;
		else if (c == OPT_JSON)
			json = 1;
		else if (c == OPT_INTERVAL || c == OPT_QUANTILES) {
			const char **slot = c == OPT_INTERVAL ? &interval : &quantiles;

			if (*slot)
				return usage_error("predict", "give --%s once", c == OPT_INTERVAL
						   ? "interval" : "quantiles");
			*slot = optarg;
		} else
			return common_option(c, argv, "predict", predict_usage);
	}
	/* the interval's columns first, whatever the order of the options */
	if ((interval && interval_option(interval, &qs)) ||
	    (quantiles && quantiles_option(quantiles, &qs)))
		return EXIT_USAGE;
	if (optind != argc - 1)
		return usage_error("predict", model_path ? "give one points file"
							 : "give one config file");
	if (model_path)
		st = pm_model_load_file(model_path, &m, &err) ||
		     pm_dataset_read_csv(argv[optind], &d, &err);
	else
		st = pm_predict_config_read(argv[optind], &m, &d, &err);
	if (st)
		goto fail;
	n = pm_dataset_nrows(d);
	pred = malloc((n + 1) * sizeof(*pred));
	qv = malloc((n * qs.n + 1) * sizeof(*qv));
	extrap = qs.n ? malloc((n + 1) * sizeof(*extrap)) : NULL;
	if (!pred || !qv || (qs.n && !extrap)) {
		err.msg[0] = '\0';
		err.code = PM_ENOMEM;
		goto fail;
	}
	if (pm_model_predict_dataset_quantiles(m, d, qs.n, qs.q, pred, qv, extrap, &err))
		goto fail;
	if (json) {
		pm_prediction_columns x = { qs.n, qs.names, qv, extrap };

		rc = print_document(pm_predictions_columns_to_json(d, pred,
								   pm_model_prediction_label(m),
								   &x, &doc, &err), &doc, &err);
		goto out;
	}
	print_csv(d, pred, pm_model_prediction_label(m), &qs, qv, extrap);
	rc = EXIT_OK;
	goto out;
fail:
	report_error(&err);
out:
	free(pred);
	free(qv);
	free(extrap);
	pm_dataset_free(d);
	pm_model_free(m);
	return rc;
}
