/* perfmodel: the command table and dispatch, in the manner of git. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const struct command pm_commands[] = {
	{ "fit", cmd_fit, "fit the model of thesis eq. 4.4 to measurements", fit_usage },
	{ "predict", cmd_predict, "predict run times from a fitted model", predict_usage },
	{ "advise", cmd_advise, "which configuration to run: fastest, cheapest, largest efficient",
	  advise_usage },
	{ "select", cmd_select, "choose the model form by cross-validation, fit and save it",
	  select_usage },
	{ "eval", cmd_eval, "accuracy of a fitted model on measurements", eval_usage },
	{ "sweep", cmd_sweep, "choose lambda: regularised fits measured on held-out rows",
	  sweep_usage },
	{ "lif", cmd_lif, "load-imbalance factors and their regression (thesis eqs. 3.8, 3.9)",
	  lif_usage },
	{ "ssgd", cmd_ssgd, "the S-SGD phase model: iteration time and speedup (eqs. 3.3-3.7)",
	  ssgd_usage },
	{ "report", cmd_report, "an HTML page with the fit's plots and tables", report_usage },
	{ "help", cmd_help, "show help for a command", help_usage },
	{ NULL, NULL, NULL, NULL },
};

const struct command *find_command(const char *name)
{
	for (const struct command *c = pm_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *c;
	pm_error err = { 0 };
	char *doc = NULL;

	/* The library checks its inputs before calling GSL; a GSL error must
	 * come back as a status, never abort the process. */
	gsl_set_error_handler_off();
	if (argc < 2)
		return cmd_help(1, (char *[]){ "help", NULL }), EXIT_USAGE;
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		if (argc > 2 && strcmp(argv[2], "--json") == 0)
			return print_document(pm_version_to_json(&doc, &err), &doc, &err);
		printf("perfmodel %s\n", pm_version());
		return EXIT_OK;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return cmd_help(1, (char *[]){ "help", NULL });
	c = find_command(argv[1]);
	if (!c)
		return usage_error(NULL, "'%s' is not a command; see 'perfmodel help'", argv[1]);
	return c->run(argc - 1, argv + 1);
}
