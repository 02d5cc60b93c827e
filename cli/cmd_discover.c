/* perfmodel discover: search the terms of the model (issue 21), then fit
 * the chosen formula and save it as 'perfmodel fit --formula' would. The
 * options, the run and the output are fit's (cmd_fit.c, which also prints
 * the table of candidates); this file holds the command's help. */
#include "cli.h"

const char discover_usage[] =
	"usage: perfmodel discover DATA.csv [--spec SPEC.json | ROLES] [--validate S]\n"
	"                          [--max-terms K] [-o model.json] [--json] [fit options]\n"
	"\n"
	"Find the model's terms when no one knows them (docs/discover.md): hypotheses\n"
	"t = c1*term1 + ... + C, each term x^i * log2(x)^j (i from -2 to 3, negative for\n"
	"strong scaling; j 0 to 2), a switch [x > v] or [x <= v] (an effect that starts\n"
	"or stops; v fitted), or a product of up to 8 factors; a categorical input's\n"
	"per-level offsets in place of C, categoricals' per-level factors scaling the\n"
	"terms, or a term per level ([device == \"gpu\"] * n^3: a curve per level).\n"
	"Coefficients by least squares on relative error, all >= 0; hypotheses ranked\n"
	"by held-out MAPE, found by a beam search over moves; those that collapse\n"
	"or explode at twice an input's largest value are rejected. Prints the best\n"
	"candidates, then fits the fewest terms within one standard error of the best\n"
	"(as 'perfmodel fit --formula', loss mape unless --loss) and saves it; ranked\n"
	"by kfold or loo, that fit is validated by the same folds (its test column).\n"
	"\n"
	"  --validate S           how hypotheses are ranked (default kfold:5): kfold[:K],\n"
	"                         loo, extrapolate:COL[:F] (the hypothesis that extrapolates\n"
	"                         along COL best), FILE (its rows); docs/cli.md, Validation\n"
	"  --cv K, --cv-seed N    kfold:K, and the seed of its folds (default: --seed)\n"
	"  --max-terms K          terms besides the constant, 1 to 6 (3)\n"
	"  --beam B               hypotheses the beam keeps at each step, 1 to 64 (16)\n"
	"  --top N                candidates printed, 1 to 100 (10)\n"
	"  --refine               fit the chosen formula's powers from the data (x^p1, ...)\n"
	"                         rather than keep the search's numbers (x^1.5)\n"
	"\n"
	"Roles are fit's (--target, --intrinsic, --extrinsic, --categorical, --ignore,\n"
	"--spec; numeric inputs are searched, categorical ones give offsets; inferred,\n"
	"they leave out a part or a copy of the target, as fit's do), and so is\n"
	"--drop-incomplete (rows with an empty or nan cell in a column used). Every other\n"
	"option of 'perfmodel fit' applies to the final fit: --loss, --seed, --threads,\n"
	"-o, --json, --quiet, ... With --json the table goes to stderr and the model\n"
	"document to stdout, with the search in it as \"discovery\".\n";

int cmd_discover(int argc, char **argv)
{
	return fit_command(argc, argv, discover_usage, MODE_DISCOVER);
}
