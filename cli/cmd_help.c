/* perfmodel help [COMMAND], and the command table it lists: the table holds
 * help too, so the two live in one file (main.c dispatches through it). */
#include <string.h>

#include "cli.h"

const char help_usage[] =
	"usage: perfmodel help [COMMAND]\n"
	"\n"
	"Without a command, list the commands; with one, show its help (the same as\n"
	"'perfmodel COMMAND --help').\n";

const struct command pm_commands[] = {
	{ "inspect", cmd_inspect, "what a measurements file or profile set holds, before fitting",
	  inspect_usage },
	{ "fit", cmd_fit, "fit the model of thesis eq. 4.4 to measurements", fit_usage },
	{ "predict", cmd_predict, "predict run times from a fitted model", predict_usage },
	{ "advise", cmd_advise, "which configuration to run: fastest, cheapest, largest efficient",
	  advise_usage },
	{ "select", cmd_select, "choose the model form by cross-validation, fit and save it",
	  select_usage },
	{ "discover", cmd_discover, "find the model's terms: a search over performance-model terms",
	  discover_usage },
	{ "plan", cmd_plan, "which runs to measure next: the most accuracy at the targets per cost",
	  plan_usage },
	{ "eval", cmd_eval, "accuracy of a fitted model on measurements", eval_usage },
	{ "sweep", cmd_sweep, "choose lambda: regularised fits measured on held-out rows",
	  sweep_usage },
	{ "lif", cmd_lif, "load-imbalance factors and their regression (thesis eqs. 3.8, 3.9)",
	  lif_usage },
	{ "ssgd", cmd_ssgd, "the S-SGD phase model: iteration time and speedup (eqs. 3.3-3.7)",
	  ssgd_usage },
	{ "report", cmd_report, "an HTML page with the fit's plots and tables", report_usage },
	{ "batch", cmd_batch, "many fits from a jobs file, over MPI ranks when run under one",
	  batch_usage },
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

int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc > 2)
		return usage_error("help", "one command at a time");
	if (argc == 2) {
		c = find_command(argv[1]);
		if (!c)
			return usage_error(NULL, "'%s' is not a command; see 'perfmodel help'",
					   argv[1]);
		fputs(c->usage, stdout);
		return EXIT_OK;
	}
	cprintf(stdout, "usage: perfmodel COMMAND [ARGS]\n\n"
	       "Fit interpretable performance models to measured run times and predict\n"
	       "from them (perfmodel %s).\n\ncommands:\n", pm_version());
	for (c = pm_commands; c->name; c++)
		cprintf(stdout, "  %-10s %s\n", c->name, c->summary);
	cprintf(stdout, "\n  perfmodel --version       print the version\n"
	       "  perfmodel help COMMAND    the options of a command\n");
	return EXIT_OK;
}
