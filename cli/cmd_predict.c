/* perfmodel predict: from a config (DESIGN.md §5) or a model and a CSV. */
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

const char predict_usage[] =
	"usage: perfmodel predict CONFIG.json [--json]\n"
	"       perfmodel predict -m MODEL.json POINTS.csv [--json]\n"
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
	"  -h, --help        this text\n";

static void print_csv(const pm_dataset *d, const double *pred, const char *label)
{
	for (size_t c = 0; c < pm_dataset_ncols(d); c++) {
		csv_field(stdout, pm_dataset_col_name(d, c));
		fputc(',', stdout);
	}
	csv_field(stdout, label);
	fputc('\n', stdout);
	for (size_t r = 0; r < pm_dataset_nrows(d); r++) {
		for (size_t c = 0; c < pm_dataset_ncols(d); c++) {
			csv_field(stdout, pm_dataset_cell(d, r, c));
			fputc(',', stdout);
		}
		print_exact(stdout, pred[r]);
		fputc('\n', stdout);
	}
}

int cmd_predict(int argc, char **argv)
{
	const char *model_path = NULL;
	int json = 0, c, rc = EXIT_FAIL;
	pm_model *m = NULL;
	pm_dataset *d = NULL;
	double *pred = NULL;
	char *doc = NULL;
	pm_error err = { 0 };
	pm_status st;

	if ((c = parse_model_options(argc, argv, "predict", predict_usage, &model_path, &json,
				     NULL)) >= 0)
		return c;
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
	pred = malloc((pm_dataset_nrows(d) + 1) * sizeof(*pred));
	if (!pred) {
		err.msg[0] = '\0';
		err.code = PM_ENOMEM;
		goto fail;
	}
	if (pm_model_predict_dataset(m, d, pred, &err))
		goto fail;
	if (json) {
		rc = print_document(pm_predictions_to_json(d, pred, pm_model_prediction_label(m), &doc,
							   &err), &doc, &err);
		goto out;
	}
	print_csv(d, pred, pm_model_prediction_label(m));
	rc = EXIT_OK;
	goto out;
fail:
	report_error(&err);
out:
	free(pred);
	pm_dataset_free(d);
	pm_model_free(m);
	return rc;
}
