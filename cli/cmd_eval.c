/* perfmodel eval: accuracy of a model on measurements. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

const char eval_usage[] =
	"usage: perfmodel eval -m MODEL.json DATA.csv [--json]\n"
	"\n"
	"Predict every row of DATA.csv and compare with its measured target column:\n"
	"MAE, MAPE (over the rows not 0), MSE, RMSE, R^2, SMAPE and adjusted R^2.\n"
	"A model fitted with mae or mse takes measured values of 0. A model fitted with\n"
	"--target lif derives the lif column from the worker columns it recorded.\n"
	"\n"
	"  -m, --model FILE  the fitted model\n"
	"      --json        one JSON object on stdout (docs/json.md)\n"
	READ_USAGE
	"  -h, --help        this text\n";

int cmd_eval(int argc, char **argv)
{
	const char *model_path = NULL;
	int json = 0, c, rc = EXIT_FAIL;
	pm_model *m = NULL;
	pm_dataset *d = NULL;
	pm_metrics x;
	pm_error err = { 0 };
	pm_read_options ro = pm_read_options_default();
	pm_read_info info = { 0 };
	char *doc = NULL;

	if ((c = parse_model_options(argc, argv, "eval", eval_usage, &model_path, &json, &ro)) >= 0)
		return c;
	if (!model_path)
		return usage_error("eval", "give the model with -m MODEL.json");
	if (ro.weights)
		return usage_error("eval", "--weights is for fitting: eval measures every row "
				   "alike");
	if (optind != argc - 1)
		return usage_error("eval", "give one data file");
	if (pm_model_load_file(model_path, &m, &err) ||
	    pm_model_read_data(m, argv[optind], &ro, &d, &info, &err) ||
	    pm_model_evaluate(m, d, &x, &err)) {
		report_error(&err);
		goto out;
	}
	rc = EXIT_OK;
	if (json) {
		/* docs/schema/eval.json: where the numbers come from, then the metrics */
		rc = print_document(pm_eval_to_json(m, model_path, argv[optind], &x, &doc, &err),
				    &doc, &err);
	} else {
		print_read_info(stdout, &info, d);
		cprintf(stdout, "%s on %s (%zu rows, target %s", model_path, argv[optind], x.n,
		       pm_model_target(m));
		/* a target kind's metrics are in its own quantity */
		if (pm_model_target_kind(m) != PM_TARGET_TIME)
			cprintf(stdout, ", a %s", pm_target_kind_name(pm_model_target_kind(m)));
		cprintf(stdout, ")\n");
		cprintf(stdout, "  MAE    %.6g\n", x.mae);
		/* MAPE is over the rows of a measured value that is not 0 */
		if (isnan(x.mape))
			cprintf(stdout, "  MAPE   n/a (every measured value is 0)\n");
		else if (x.mape_n != x.n)
			cprintf(stdout, "  MAPE   %.2f %%  (over %zu of %zu rows: %zu measured 0, "
				"whose relative error is unbounded)\n", x.mape, x.mape_n, x.n,
				x.n - x.mape_n);
		else
			cprintf(stdout, "  MAPE   %.2f %%\n", x.mape);
		cprintf(stdout, "  MSE    %.6g\n  RMSE   %.6g\n  R^2    %.4f%s%s\n  SMAPE  %.2f %%\n",
		       x.mse, x.rmse, x.r2, r2_words(x.r2) ? "  " : "",
		       r2_words(x.r2) ? r2_words(x.r2) : "", x.smape);
		if (isnan(x.adj_r2))
			cprintf(stdout, "  adj R^2 n/a (" ADJ_R2_WHY ")\n");
		else
			cprintf(stdout, "  adj R^2 %.4f\n", x.adj_r2);
	}
out:
	pm_read_info_clear(&info);
	pm_dataset_free(d);
	pm_model_free(m);
	return rc;
}
