/* perfmodel select: choose the model form by cross-validation, then fit the
 * best one to every row and save it, as 'perfmodel fit --form auto'. The
 * options, the run and the output are fit's (cmd_fit.c, which also prints
 * the table of candidates); this file holds the command's help. */
#include "cli.h"

const char select_usage[] =
	"usage: perfmodel select DATA.csv [--forms F1,F2,...] [--validate S | --cv K]\n"
	"                        [--cv-seed N] [--spec SPEC.json | ROLES] [fit options]\n"
	"\n"
	"Choose the model form by K-fold cross-validation: each candidate is fitted to\n"
	"K-1 folds of the rows and measured on the fold left out, K times, on the same\n"
	"seeded folds for every candidate (or by another --validate scheme). Prints a\n"
	"table (form, unknowns, held-out MAPE mean +- std over the folds, held-out R^2,\n"
	"time of one fit), then fits the form with the lowest held-out MAPE to every\n"
	"row and saves it, as 'perfmodel fit' does. The same as 'perfmodel fit --form\n"
	"auto'.\n"
	"\n"
	"  --forms LIST           candidate forms, comma-separated: additive (thesis eq. 4.4),\n"
	"                         multiplicative, discover (the formula 'perfmodel discover'\n"
	"                         finds, by the same validation), or a formula\n"
	"                         (default: " PM_SELECT_DEFAULT_FORMS ")\n"
	"  --loss LIST            losses to fit each form with (default: " PM_SELECT_DEFAULT_LOSSES ");\n"
	"                         every form is cross-validated with every loss\n"
	"  --validate S           how candidates are measured (docs/cli.md, Validation):\n"
	"                         kfold[:K] (default kfold:5; stratified: every level in\n"
	"                         every training fold; fewer rows than K: leave-one-out),\n"
	"                         loo, extrapolate:COL[:F] (fit the smallest F of COL's\n"
	"                         values, 0.5, measure the larger: choose the form that\n"
	"                         extrapolates), or FILE (measure on its rows)\n"
	"  --cv K                 kfold:K\n"
	"  --cv-seed N            seed of the folds (default: the fit's --seed)\n"
	"\n"
	"Every option of 'perfmodel fit' applies to each fit ('perfmodel help fit'):\n"
	"roles or --spec, --drop-incomplete, --reg, --seed, --threads, -o, --json,\n"
	"--quiet, ...\n"
	"With --json the table goes to stderr, the model document to stdout, with the\n"
	"table in it as \"selection\". A candidate whose fit was constant (one prediction\n"
	"for every row) is flagged and chosen only when strictly better.\n";

int cmd_select(int argc, char **argv)
{
	return fit_command(argc, argv, select_usage, MODE_SELECT);
}
