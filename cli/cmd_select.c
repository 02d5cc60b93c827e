/* perfmodel select: choose the model form by cross-validation, then fit the
 * best one to every row and save it, as 'perfmodel fit --form auto'. The
 * options, the run and the output are fit's (cmd_fit.c, which also prints
 * the table of candidates); this file holds the command's help. */
#include "cli.h"

const char select_usage[] =
	"usage: perfmodel select DATA.csv [--forms F1,F2,...] [--cv K] [--cv-seed N]\n"
	"                        [--spec SPEC.json | ROLES] [fit options]\n"
	"\n"
	"Choose the model form by K-fold cross-validation: each candidate is fitted to\n"
	"K-1 folds of the rows and measured on the fold left out, K times, on the same\n"
	"seeded folds for every candidate. Prints a table (form, unknowns, held-out\n"
	"MAPE mean +- std over the folds, held-out R^2, time of one fit), then fits\n"
	"the form with the lowest held-out MAPE to every row and saves it, as\n"
	"'perfmodel fit' does. The same as 'perfmodel fit --form auto'.\n"
	"\n"
	"  --forms LIST           candidate forms, comma-separated: additive (thesis eq. 4.4),\n"
	"                         multiplicative, or a formula (default: " SELECT_DEFAULT_FORMS ")\n"
	"  --loss LIST            losses to fit each form with (default: " SELECT_DEFAULT_LOSSES ");\n"
	"                         every form is cross-validated with every loss\n"
	"  --cv K                 folds (default 5)\n"
	"  --cv-seed N            seed of the folds (default: the fit's --seed)\n"
	"\n"
	"Every option of 'perfmodel fit' applies to each fit ('perfmodel help fit'):\n"
	"roles or --spec, --reg, --seed, --threads, -o, --json, --quiet, ...\n"
	"With --json the table goes to stderr, the model document to stdout, with the\n"
	"table in it as \"selection\". A candidate whose fit was constant (one prediction\n"
	"for every row) is flagged and chosen only when strictly better.\n";

int cmd_select(int argc, char **argv)
{
	return fit_command(argc, argv, select_usage, 1);
}
