/* perfmodel plan: which runs to measure next (docs/plan.md). Its own
 * options are taken out of the arguments; the rest are fit's, read by the
 * library's one parser. Parse, call pm_plan_file, print. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char plan_usage[] =
	"usage: perfmodel plan DATA.csv --candidates CANDIDATES.csv --at TARGETS.csv\n"
	"                      [--count K] [--budget B] [--cost-column COL | --cost-scale COL]\n"
	"                      [-o NEXT.csv] [--json] [ROLES] [fit options]\n"
	"\n"
	"Which runs to measure next: fit DATA.csv as 'perfmodel fit' does, refit it to\n"
	"bootstrap resamples of the measured configurations (with no form given, the\n"
	"refits are shared among the forms the choice measured, by how likely each\n"
	"holds out as well as the best), and pick the candidates\n"
	"whose measurement is expected to shrink the spread of the refits' predictions\n"
	"at the targets most per unit of cost, each pick counting the ones before it\n"
	"(docs/plan.md). Prints the picks, best first; -o writes them as CSV.\n"
	"\n"
	"  --candidates FILE      configurations one could run next (the inputs' columns);\n"
	"                         one already measured is left out, with a note\n"
	"  --at FILE              configurations whose predictions matter (not measured)\n"
	"  --count K              pick at most K (default 5; with --budget alone: no limit)\n"
	"  --budget B             pick while the costs add up to at most B\n"
	"  --cost-column COL      each candidate's cost: its column COL (> 0)\n"
	"  --cost-scale COL       each candidate's cost: its predicted time times its\n"
	"                         COL (nodes, GPUs); default: the predicted time\n"
	"  --members N            refits on resampled configurations (16, 2 to 1000)\n"
	"  -o, --output FILE      the picks as CSV: the candidates' columns, cost, gain\n"
	"                         (-: standard output)\n"
	"      --json             one JSON document on stdout instead of the table\n"
	"\n"
	"Every option of 'perfmodel fit' sets the fit and the refits: roles or --spec,\n"
	"--form or --formula (default: chosen as 'perfmodel select' chooses), --loss,\n"
	"--seed (also the resamples'), --threads (the result does not depend on it), ...\n"
	"  -h, --help             this text\n";

struct plan_args {
	const char *candidates, *at, *output;
	int count_given;
	pm_plan_options po;
};

/* The plan's own options: takes (argv[*i], maybe argv[*i + 1]) when it is
 * one, into a; 1 taken, 0 not one, else the usage error's exit status
 * (negative). */
static int plan_option(int argc, char **argv, int *i, struct plan_args *a)
{
	static const char *const names[] = { "candidates", "at", "count", "budget", "cost-column",
					     "cost-scale", "members", "output" };
	const char *arg = argv[*i], *v = NULL, *eq;
	unsigned long long u;
	size_t k, len;

	if (!strncmp(arg, "-o", 2) && strncmp(arg, "--", 2)) {
		k = 7;
		v = arg[2] ? arg + 2 : NULL;
	} else if (!strncmp(arg, "--", 2)) {
		eq = strchr(arg + 2, '=');
		len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		for (k = 0; k < 8; k++)
			if (strlen(names[k]) == len && !strncmp(arg + 2, names[k], len))
				break;
		if (k == 8)
			return 0;
		v = eq ? eq + 1 : NULL;
	} else {
		return 0;
	}
	if (!v) {
		if (*i + 1 >= argc)
			return -usage_error("plan", "%s needs a value", arg);
		v = argv[++*i];
	}
	switch (k) {
	case 0: a->candidates = v; return 1;
	case 1: a->at = v; return 1;
	case 3:
		if (pm_parse_number(v, &a->po.budget) || !(a->po.budget > 0) ||
		    !isfinite(a->po.budget))
			return -usage_error("plan", "--budget '%s': expected a finite number > 0", v);
		return 1;
	case 4: a->po.cost_column = v; return 1;
	case 5: a->po.cost_scale = v; return 1;
	case 7: a->output = v; return 1;
	}
	if (pm_parse_whole(v, 1000000, &u) || u < (k == 2 ? 1u : 2u) || (k == 6 && u > 1000))
		return -usage_error("plan", "--%s '%s': expected a whole number %s", names[k], v,
				    k == 2 ? "from 1 to 1000000" : "from 2 to 1000");
	if (k == 2) {
		a->po.count = (unsigned)u;
		a->count_given = 1;
	} else {
		a->po.members = (unsigned)u;
	}
	return 1;
}

/* Split argv: the plan's options into a, the rest (fit's) into rest.
 * 0, or the exit status. */
static int split_args(int argc, char **argv, struct plan_args *a, char **rest, int *nrest)
{
	int r;

	*nrest = 0;
	rest[(*nrest)++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				rest[(*nrest)++] = argv[i++];
			break;
		}
		if ((r = plan_option(argc, argv, &i, a)) < 0)
			return -r;
		if (!r)
			rest[(*nrest)++] = argv[i];
	}
	rest[*nrest] = NULL;
	if (a->po.cost_column && a->po.cost_scale)
		return usage_error("plan", "give one of --cost-column and --cost-scale");
	if (a->po.budget > 0 && !a->count_given)
		a->po.count = 0;	/* a budget alone: as many as it buys */
	return 0;
}

/* The candidates left out, each naming the line it repeats: on stderr,
 * with --json too (the document has them as "dropped"). */
static void print_dropped(const pm_plan *p)
{
	for (size_t k = 0; k < p->ndropped; k++) {
		unsigned line = pm_dataset_cell_line(p->candidates, p->dropped[k], 0);

		if (p->dropped_in[k] == PM_PLAN_IN_CANDIDATES)
			cprintf(diag(), "perfmodel: note: candidate at %s line %u repeats line %zu: "
				"left out\n", pm_dataset_name(p->candidates), line,
				p->dropped_match[k]);
		else
			cprintf(diag(), "perfmodel: note: candidate at %s line %u was measured "
				"already (%s line %zu): left out\n", pm_dataset_name(p->candidates),
				line, pm_plan_repeats_name(p->dropped_in[k]), p->dropped_match[k]);
	}
}

static void print_table(FILE *f, const pm_plan *p)
{
	const pm_model *m = p->model;
	size_t col;

	cprintf(f, "%zu runs, cost %.6g; the targets' spread (log-scale std of %u refits) "
		"%.3g -> %.3g expected; noise %.3g\n", p->npicks, p->total_cost, p->members,
		p->spread_before, p->spread_after, p->noise);
	/* the forms weighed when the form was chosen (docs/plan.md) */
	if (p->nforms > 1) {
		cprintf(f, "refits of %zu forms:", p->nforms);
		for (size_t k = 0; k < p->nforms; k++)
			cprintf(f, "%s %s, %s loss: %u%s", k ? ";" : "", p->forms[k].form,
				pm_loss_name(p->forms[k].loss), p->forms[k].members,
				k ? "" : " (the fit's)");
		cprintf(f, "\n");
	}
	cprintf(f, "\n");
	cprintf(f, "  # ");
	for (size_t i = 0; i < pm_model_ninputs(m); i++)
		cprintf(f, " %*s", cols(pm_model_input_name(m, i), 12), pm_model_input_name(m, i));
	cprintf(f, " %12s %12s %8s\n", "predicted", "cost", "gain");
	for (size_t k = 0; k < p->npicks; k++) {
		const pm_plan_pick *pk = &p->picks[k];

		cprintf(f, "%3zu ", k + 1);
		for (size_t i = 0; i < pm_model_ninputs(m); i++) {
			const char *v = pm_dataset_col_index(p->candidates, pm_model_input_name(m, i),
							     &col, NULL)
						? ""
						: pm_dataset_cell(p->candidates, pk->row, col);

			cprintf(f, " %*s", cols(v, 12), v);
		}
		cprintf(f, " %12.4g %12.4g %7.1f%%\n", pk->predicted, pk->cost, 100 * pk->gain);
	}
}

/* The plan written as -o asks: CSV to a file or stdout. */
static pm_status write_csv(const pm_plan *p, const char *path, pm_error *err)
{
	char *csv = NULL;
	pm_status st = pm_plan_to_csv(p, &csv, err);

	if (!st) {
		if (!strcmp(path, "-"))
			fputs(csv, stdout);
		else
			st = pm_write_file_atomic(path, csv, strlen(csv), err);
	}
	free(csv);
	return st;
}

int cmd_plan(int argc, char **argv)
{
	struct plan_args a = { .po = pm_plan_options_default() };
	pm_options o = pm_options_default(PM_COMMAND_FIT);
	char **rest = calloc((size_t)argc + 1, sizeof(*rest)), *doc = NULL, *names = NULL;
	pm_candidate *cand = NULL;
	size_t ncand = 0;
	pm_spec *s = NULL;
	pm_plan *p = NULL;
	pm_error err = { 0 };
	pm_source src;
	int nrest, rc;

	if (!rest)
		return cprintf(stderr, "perfmodel: out of memory\n"), EXIT_FAIL;
	if ((rc = split_args(argc, argv, &a, rest, &nrest)))
		goto out;
	if (pm_options_parse(&o, nrest, rest, &err)) {
		rc = err.code == PM_EINVAL ? usage_error("plan", "%s", err.msg)
					   : (report_error(&err), EXIT_FAIL);
		goto out;
	}
	if (o.help) {
		fputs(plan_usage, stdout);
		goto out;
	}
	if (!a.candidates || !a.at) {
		rc = usage_error("plan", "--candidates FILE and --at FILE are both needed");
		goto out;
	}
	if (o.json && a.output && !strcmp(a.output, "-")) {
		rc = usage_error("plan", "-o - and --json both write to standard output: choose one");
		goto out;
	}
	rc = EXIT_FAIL;
	cap_threads(&o.fit, o.quiet);
	o.fit.intervals = 0;	/* the refits measure the uncertainty */
	a.po.seed = o.fit.seed;
	src = (pm_source){ .path = o.data, .test_path = o.test_path, .read = o.read };
	o.fit.stop = interrupt_install();
	src.read.stop = o.fit.stop;
	progress_install(&o.fit, o.quiet);
	if ((a.output && strcmp(a.output, "-") &&
	     pm_output_check(a.output, (const char *const[]){ o.data, a.candidates, a.at }, 3,
			     &err)) ||
	    pm_options_spec(&o, &s, &err) ||
	    (o.command == PM_COMMAND_SELECT &&
	     pm_options_candidates(&o, &cand, &ncand, &names, &err)) ||
	    pm_plan_file(&src, s, &o.fit, cand, ncand, &o.select_validation, a.candidates, a.at,
			 &a.po, &p, &err)) {
		progress_end();
		report_error(&err);
		rc = *o.fit.stop ? EXIT_INTERRUPTED : EXIT_FAIL;
		goto out;
	}
	progress_end();
	interrupt_hold(1);
	if (!o.quiet)
		print_dropped(p);
	if (a.output && write_csv(p, a.output, &err)) {
		report_error(&err);
		goto out;
	}
	if (o.json)
		rc = print_document(pm_plan_to_json(p, &doc, &err), &doc, &err);
	else {
		if (!o.quiet)
			print_table(a.output && !strcmp(a.output, "-") ? stderr : stdout, p);
		rc = EXIT_OK;
	}
out:
	fflush(stdout);
	interrupt_hold(0);
	pm_plan_free(p);
	pm_spec_free(s);
	free(cand);
	free(names);
	free(rest);
	pm_options_clear(&o);
	return rc;
}
