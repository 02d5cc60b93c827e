/* perfmodel fit, select and discover: read measurements and roles, fit
 * (select: choose the form by cross-validation; discover: search the
 * model's terms, then fit the formula found), print, save. One runner,
 * fit_command; the three differ in their help and the form they fit. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char fit_usage[] =
	"usage: perfmodel fit DATA.csv [--spec SPEC.json | ROLES] [options]\n"
	"\n"
	"Fit t = (sum_i a_i*I_i^p_i + sum_c b_c,level) * prod_j E_j^q_j + C (thesis eq. 4.4)\n"
	"to the rows of DATA.csv, print the parameters, the accuracy (training, held-out\n"
	"with --test-fraction or --test), the scaling report, and save the model.\n"
	"\n"
	"Roles (with or instead of --spec):\n"
	"  --spec FILE            a spec: {\"target\", \"intrinsic\", \"categorical\", \"extrinsic\", \"bounds\"}\n"
	"  --target COL           the measured time (> 0; >= 0 under --loss mae and mse), or a\n"
	"                         speedup, efficiency or throughput with --target-kind; 'lif'\n"
	"                         with --workers: the load-imbalance factor of the worker\n"
	"                         times (thesis eq. 3.8)\n"
	"  --workers COLS         worker time columns or globs ('t_worker_*'), for --target lif\n"
	"  --extrinsic A,B        scaling parameters E_j (threads, GPUs, batch size)\n"
	"  --intrinsic A,B        numeric intrinsic parameters I_i\n"
	"  --categorical A,B      text parameters, one coefficient per level\n"
	"                         Without them every other column is used: numeric ones as\n"
	"                         intrinsic, text ones as categorical; \"\" names none.\n"
	"  --ignore A,B           leave these columns out of every role\n"
	"                         Inference leaves out a column that is a part or a copy\n"
	"                         of the target (a worker's time, the time in other units;\n"
	"                         docs/formats.md, \"Leaks\") and says so in a warning.\n"
	"  --drop-incomplete      drop the rows with an empty or nan cell in the target or a\n"
	"                         numeric input, and say how many (default: such a cell is\n"
	"                         an error naming it)\n"
	"\n"
	"Target kind (docs/maths.md): what --target measures; the fit works on the time it\n"
	"implies and reports, predicts and evaluates in the target's own quantity:\n"
	"  --target-kind time     a run time (default)\n"
	"  --target-kind speedup  S over a resource, fitted as the relative time 1/S\n"
	"  --target-kind efficiency\n"
	"                         parallel efficiency E over a resource n, fitted as 1/(n*E)\n"
	"  --target-kind throughput\n"
	"                         X, fitted as 1/X, or per/X with --per\n"
	"  --resource COL         the n of speedup and efficiency (default: the first\n"
	"                         extrinsic column); must be a numeric input\n"
	"  --per COL              a throughput's unit of work (batch size): time = per/X;\n"
	"                         must be a numeric input\n"
	"\n"
	"Model form (default: the spec's \"form\"/\"formula\", else auto):\n"
	"      --form auto        choose by cross-validation, as 'perfmodel select': eq. 4.4,\n"
	"                         the power law and discover's formula, eq. 4.4 kept unless\n"
	"                         another is better by more than the folds disagree\n"
	"                         (--forms, --loss LIST, --cv, --cv-seed as for select)\n"
	"      --form additive    thesis eq. 4.4 (above)\n"
	"      --form multiplicative\n"
	"                         t = a * prod_i I_i^p_i * prod_c level(c) * prod_j E_j^q_j + C\n"
	"      --formula TEXT     a formula of the columns, e.g.\n"
	"                         'a * hidden^p1 / world_size^q1 + b * [world_size > 1] + C'\n"
	"                         (docs/maths.md); its columns are the inputs\n"
	"\n"
	"Output:\n"
	"  -o, --output FILE      the model file (default model.json; -: stdout)\n"
	"      --json             print one JSON document on stdout instead: the model, the\n"
	"                         held-out metrics, every seed and the scaling report\n"
	"  -q, --quiet            print nothing but errors and warnings\n"
	"      --plot-dir DIR     also write report's plots there as SVG\n"
	"\n"
	"Fit:\n"
	"      --engine varpro|de varpro (default): DE over the powers, coefficients solved\n"
	"                         per trial; de: DE over all, scipy's defaults (the thesis)\n"
	"      --scale auto|none  auto (default): columns / geometric mean, time / median;\n"
	"                         none: raw units (the thesis)\n"
	"      --seed N           random seed (default 1: runs repeat)\n"
	"      --seeds K          K fits with seeds N..N+K-1: table of mean ± std of every\n"
	"                         parameter (thesis Tables 4.2/4.3); saves the best; needs\n"
	"                         a form (--form additive for the thesis's tables)\n"
	"      --threads N        threads (default: the CPUs, fewer for small fits)\n"
	"      --maxiter N        generations at most (1000)\n"
	"      --popsize N        population = N * searched unknowns (varpro 10, de 15)\n"
	"      --tol X            stop at std(costs) <= atol + tol*|mean| (0.001, de 0.01)\n"
	"      --atol X           (0)\n"
	"      --mutation LO,HI   differential weight F, dithered per generation (0.5,1)\n"
	"      --recombination X  crossover probability CR (0.7)\n"
	"      --no-polish        skip the final local search\n"
	"      --warm-start FILE  start from an earlier model of the same inputs (same target,\n"
	"                         roles and form; its form unless --form/--formula): the\n"
	"                         population around its parameters, for a refit on more rows\n"
	"      --loss L           mae |t-t^| (default, the thesis), mse, mape |t-t^|/t,\n"
	"                         log |log(t^/t)|; mae and mse take measured values of 0\n"
	"      --reg none|l1|l2   penalty on coefficients and powers, never C (none)\n"
	"      --lambda X         penalty weight for both groups (0)\n"
	"      --lambda-power X   penalty weight for the powers alone\n"
	"      --no-intervals     skip calibrating prediction intervals (by default 5 more\n"
	"                         fits, each without one fold, whose held-out residuals\n"
	"                         the model keeps for predict --interval/--quantiles)\n"
	"\n"
	READ_USAGE
	"\n"
	"Held-out accuracy (default: none; every row is fitted; one of these):\n"
	"      --validate S       measure on rows the fit never saw (docs/cli.md, Validation):\n"
	"                         kfold[:K]  fit every row, and K more times without one fold\n"
	"                                    each; test = the folds' means (stratified: every\n"
	"                                    level in every training fold; K=5)\n"
	"                         loo        the same with one fold per row\n"
	"                         extrapolate:COL[:F]  fit the rows with the smallest F of\n"
	"                                    COL's distinct values (0.5), measure the rest:\n"
	"                                    how the model does at larger scale\n"
	"                         FILE       as --test FILE\n"
	"      --test-fraction F  hold out round(F*rows) rows chosen at random, fit the rest,\n"
	"                         report accuracy on both (the thesis: 1000 fit / 500 held out)\n"
	"      --split-seed N     seed of that choice or of kfold's folds (default: --seed)\n"
	"      --test FILE        fit every row of DATA.csv, measure on the rows of FILE\n"
	"  -h, --help             this text\n";

/* The command's options (perfmodel/options.h) into *o: 0; -1 after --help
 * printed the usage; else the exit status, after saying what is wrong. */
static int parse_args(int argc, char **argv, const char *usage, const char *cmd, pm_options *o)
{
	pm_error err;

	if (pm_options_parse(o, argc, argv, &err)) {
		if (err.code != PM_EINVAL) {
			report_error(&err);
			return EXIT_FAIL;
		}
		return usage_error(cmd, "%s", err.msg);
	}
	if (!o->help)
		return 0;
	fputs(usage, stdout);
	return -1;
}

/* A selection's candidates and how they did, kept for the report: cand
 * points into names. */
struct selection {
	char *names;
	pm_candidate *cand;
	pm_selection sel;	/* cand, and the result's cv once run */
};

static void selection_free(struct selection *c)
{
	free(c->names);
	free(c->cand);
}

/* pm_select_file on a's candidates, the table on `table` (NULL: none);
 * c keeps what was tried (selection_free). */
static pm_status select_run(const pm_options *a, const pm_source *src, const pm_spec *s,
			    FILE *table, pm_fit_result **r, struct selection *c, pm_error *err)
{
	pm_selection *sel = &c->sel;
	pm_status st;

	sel->validation = &a->select_validation;
	if ((st = pm_options_candidates(a, &c->cand, &sel->n, &c->names, err)) ||
	    (st = pm_select_file(src, s, &a->fit, c->cand, sel->n, &a->select_validation, r,
				 err)))
		return st;
	sel->cand = c->cand;
	sel->cv = (*r)->cv;
	sel->best = (*r)->best;
	sel->discovery = (*r)->discovery;
	if (table)
		print_selection(table, sel, &pm_model_fit_info((*r)->model)->choice);
	return PM_OK;
}

int cmd_fit(int argc, char **argv)
{
	return fit_command(argc, argv, fit_usage, MODE_FIT);
}

int fit_command(int argc, char **argv, const char *usage, enum fit_mode mode)
{
	pm_options a = pm_options_default(mode == MODE_SELECT ? PM_COMMAND_SELECT
					   : mode == MODE_DISCOVER ? PM_COMMAND_DISCOVER
								   : PM_COMMAND_FIT);
	const char *cmd = mode == MODE_SELECT ? "select" : mode == MODE_DISCOVER ? "discover" : "fit";
	FILE *table;
	pm_source src;
	pm_spec *s = NULL;
	pm_fit_result *r = NULL;
	struct selection chosen = { 0 };
	const pm_model *m;
	pm_model *warm = NULL;
	pm_error err = { 0 };
	char *json = NULL;
	int rc, to_stdout, select, discover;

	if ((rc = parse_args(argc, argv, usage, cmd, &a))) {
		pm_options_clear(&a);
		return rc < 0 ? EXIT_OK : rc;
	}
	select = a.command == PM_COMMAND_SELECT;
	discover = a.command == PM_COMMAND_DISCOVER;
	cap_threads(&a.fit, a.quiet);
	/* -o -: model.json on stdout, which the report then leaves alone */
	to_stdout = strcmp(a.output, "-") == 0;
	if (to_stdout && a.json) {
		pm_options_clear(&a);
		return usage_error(cmd, "-o - and --json both write to standard output: choose one");
	}
	rc = EXIT_FAIL;
	/* before any work: an output that would destroy an input, or cannot
	 * be a file, fails now rather than after the fit */
	if ((!to_stdout &&
	     pm_output_check(a.output, (const char *const[]){ a.data,
							    a.spec_streamed ? NULL : a.spec_path,
							    a.test_path }, 3, &err)) ||
	    (a.warm_start && pm_model_load_file(a.warm_start, &warm, &err))) {
		report_error(&err);
		pm_options_clear(&a);
		return rc;
	}
	a.fit.warm_start = warm;
	a.quiet |= to_stdout;
	src = (pm_source){ .path = a.data, .test_path = a.test_path, .read = a.read };
	a.fit.stop = interrupt_install();
	/* a set of CUBE runs takes a while to read: the signal stops that too */
	src.read.stop = a.fit.stop;
	/* select prints its table as it goes: a progress line would cut into it */
	progress_install(&a.fit, a.quiet || select || discover);
	table = a.quiet ? NULL : a.json ? stderr : stdout;
	if (pm_options_spec(&a, &s, &err) ||
	    (select ? select_run(&a, &src, s, table, &r, &chosen, &err)
	     : discover ? pm_discover_file(&src, s, &a.fit, &a.discover, a.nseeds, &r, &err)
			  : pm_fit_file(&src, s, &a.fit, a.nseeds, &r, &err))) {
		progress_end();
		report_error(&err);
		/* a selection cut short chooses nothing and saves nothing; a fit
		 * stopped before it had any finite cost saves nothing either */
		if (*a.fit.stop)
			rc = EXIT_INTERRUPTED;
		goto out;
	}
	progress_end();
	if (discover && table)
		print_discovery(table, r->discovery, &a.discover.validate, a.discover.refine);
	m = r->model;
	/* the fit is over: a signal now waits until the file is whole */
	interrupt_hold(1);
	if (pm_model_to_json(m, &json, &err) ||
	    (to_stdout ? (fputs(json, stdout), PM_OK)
		       : pm_write_file_atomic(a.output, json, strlen(json), &err)) ||
	    (a.plot_dir && write_plots(a.plot_dir, m,
				       &(pm_report_data){ .data = r->data, .test = r->test },
				       (const char *const[]){ a.data, a.spec_path, a.test_path,
							      a.warm_start, a.output }, 5, &err))) {
		report_error(&err);
		goto out;
	}
	if (!a.quiet)
		print_read_info(a.json ? stderr : stdout, &r->info, r->data);
	if ((a.json || !a.quiet) &&
	    print_fit_report(m, r->data, a.output, a.json,
			     &(struct fit_extra){ select ? &chosen.sel : NULL, r->discovery,
						  &a.discover.validate }))
		goto out;
	report_warnings(m);
	rc = EXIT_OK;
	if (pm_model_fit_info(m)->interrupted) {
		const pm_fit_info *fi = pm_model_fit_info(m);

		cprintf(stderr, "perfmodel: interrupted: saved the best model so far (%u "
			"generations) to %s", fi->generations, a.output);
		if (fi->seeds_asked)
			cprintf(stderr, "; %zu of %u seeds completed", pm_model_nseeds(m),
				fi->seeds_asked);
		cprintf(stderr, "\n");
		rc = EXIT_INTERRUPTED;
	}
out:
	fflush(stdout);	/* a held second signal will _exit: print first */
	interrupt_hold(0);
	free(json);
	pm_options_clear(&a);
	selection_free(&chosen);
	pm_fit_result_free(r);
	pm_spec_free(s);
	pm_model_free(warm);
	return rc;
}

/* ---- select: choose the model form by cross-validation, then fit the best
 * one to every row and save it, as 'perfmodel fit --form auto' ---- */
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

/* ---- discover: search the terms of the model (issue 21), then fit the
 * chosen formula and save it as 'perfmodel fit --formula' would ---- */
const char discover_usage[] =
	"usage: perfmodel discover DATA.csv [--spec SPEC.json | ROLES] [--validate S]\n"
	"                          [--max-terms K] [-o model.json] [--json] [fit options]\n"
	"\n"
	"Find the model's terms when no one knows them (docs/discover.md): hypotheses\n"
	"t = c1*term1 + ... + C, each term x^i * log2(x)^j (i from -2 to 3, negative for\n"
	"strong scaling; j 0 to 2), a switch [x > v] or [x <= v] (an effect that starts\n"
	"or stops; v fitted), a term split at a breakpoint into each side's own shape\n"
	"(L * [x <= v] + R * [x > v]), or a product of up to 8 factors; a categorical\n"
	"input's per-level offsets in place of C, categoricals' per-level factors\n"
	"scaling the terms, or a term per level ([device == \"gpu\"] * n^3: a curve\n"
	"per level).\n"
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
