/* perfmodel lif: load-imbalance factors and the regression of thesis eq. 3.9. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char lif_usage[] =
	"usage: perfmodel lif DATA.csv --workers COLS [--n-col COL] [--target COL]\n"
	"                     [--extrinsic COLS] [--spec SPEC.json] [--json]\n"
	"\n"
	"The load-imbalance factor of thesis eq. 3.8, LIF = N * max t_i / sum t_i, of every\n"
	"row from its per-worker times (1 = balanced); its mean, sample std and count per\n"
	"distinct configuration; and the regression of eq. 3.9, t = b0 + b1*N + b2*LIF, by\n"
	"ordinary least squares with standard errors and R^2 (eqs. 3.10-3.12).\n"
	"An empty worker cell means that the row has no such worker.\n"
	"\n"
	"  --workers COLS     the per-worker time columns: names or globs, comma-separated\n"
	"                     (e.g. 't_worker_*'); add to the spec's \"workers\"\n"
	"  --n-col COL        N of eq. 3.9 (default: the row's non-empty worker times)\n"
	"  --target COL       t of eq. 3.9 (default: the spec's target, else the row's\n"
	"                     slowest worker)\n"
	"  --extrinsic COLS   the columns that make a configuration (default: the spec's\n"
	"                     extrinsic columns, else N)\n"
	"  --spec FILE        take workers, target and extrinsic columns from a spec\n"
	"  --json             one JSON object on stdout\n"
	READ_USAGE
	"  (lif needs every run's worker times: --aggregate but none, --drop-first and\n"
	"  --weights, which merge runs, are refused)\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status 1 when eq. 3.9 cannot be fitted (e.g. every row has the same N: b1\n"
	"is not identifiable); the LIF tables are printed first.\n";

enum { OPT_WORKERS = 256, OPT_N_COL, OPT_TARGET, OPT_EXTRINSIC, OPT_SPEC, OPT_JSON };

static const struct option long_options[] = {
	{ "workers", required_argument, NULL, OPT_WORKERS },
	{ "n-col", required_argument, NULL, OPT_N_COL },
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "extrinsic", required_argument, NULL, OPT_EXTRINSIC },
	{ "spec", required_argument, NULL, OPT_SPEC },
	{ "json", no_argument, NULL, OPT_JSON },
	READ_LONG_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct lif_args {
	struct role_flags roles;
	const char *workers, *n_col, *data;
	int json;
	pm_read_options ro;
};

static int parse_args(int argc, char **argv, struct lif_args *a)
{
	int c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
		if ((rc = parse_read_option("lif", c, optarg, &a->ro)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case OPT_WORKERS: a->workers = optarg; break;
		case OPT_N_COL: a->n_col = optarg; break;
		case OPT_TARGET: a->roles.target = optarg; break;
		case OPT_EXTRINSIC: a->roles.extrinsic = optarg; break;
		case OPT_SPEC: a->roles.spec_path = optarg; break;
		case OPT_JSON: a->json = 1; break;
		default: return common_option(c, argv, "lif", lif_usage);
		}
	}
	/* lif groups runs itself: each configuration's LIFs give its mean and std */
	if (pm_read_merges_runs(&a->ro))
		return usage_error("lif", "--aggregate, --drop-first and --weights merge runs into "
				   "configurations; lif needs every run's worker times");
	return one_operand(argc, argv, "lif", "data file", &a->data) ? EXIT_USAGE : -1;
}

static void print_text(const pm_dataset *d, const pm_lif_report *r,
		       const pm_lif_regression *reg, const char *tname)
{
	cprintf(stdout, "%s: %zu rows, workers", pm_dataset_name(d), r->nrows);
	for (size_t i = 0; i < r->nworkers; i++)
		cprintf(stdout, "%s %s", i ? "," : "", pm_dataset_col_name(d, r->worker_col[i]));
	cprintf(stdout, "\n\nLIF per row (eq. 3.8)\n  %-6s %4s %12s %14s\n", "line", "N", "LIF", "t");
	for (size_t i = 0; i < r->nrows; i++) {
		/* "-": a row of no file line (a CUBE profile's) */
		char line[16] = "-";

		if (pm_dataset_cell_line(d, i, 0))
			pm_snprintf(line, sizeof(line), "%u", pm_dataset_cell_line(d, i, 0));
		cprintf(stdout, "  %-6s %4g %12.6f %14.6g\n", line, r->n[i], r->lif[i], r->t[i]);
	}
	cprintf(stdout, "\nLIF per configuration (mean +- sample std, count)\n  ");
	for (size_t j = 0; j < r->nby; j++)
		cprintf(stdout, "%-*s ", cols(pm_dataset_col_name(d, r->by_col[j]), 12),
			pm_dataset_col_name(d, r->by_col[j]));
	if (!r->nby)
		cprintf(stdout, "%-12s ", "N");
	cprintf(stdout, "%12s %12s %6s\n", "mean", "std", "count");
	for (size_t g = 0; g < r->ngroups; g++) {
		const pm_lif_group *G = &r->group[g];

		cprintf(stdout, "  ");
		for (size_t j = 0; j < r->nby; j++)
			cprintf(stdout, "%-*s ", cols(pm_dataset_cell(d, G->first_row, r->by_col[j]), 12),
				pm_dataset_cell(d, G->first_row, r->by_col[j]));
		if (!r->nby)
			cprintf(stdout, "%-12g ", r->n[G->first_row]);
		cprintf(stdout, "%12.6f %12.6f %6zu\n", G->mean, G->std, G->count);
	}
	if (!reg)
		return;
	cprintf(stdout, "\nregression (eq. 3.9): %s = b0 + b1*N + b2*LIF, %zu rows\n"
	       "  %-4s %16s %16s\n", tname, reg->rows, "", "estimate", "std error");
	for (int j = 0; j < 3; j++)
		cprintf(stdout, "  b%-3d %16.8g %16.8g\n", j, reg->beta[j], reg->se[j]);
	cprintf(stdout, "  R^2 %.6f   adjusted R^2 %.6f   SS_res %.6g   SS_tot %.6g\n", reg->r2,
	       reg->adj_r2, reg->ss_res, reg->ss_tot);
}

int cmd_lif(int argc, char **argv)
{
	struct lif_args a = { .roles = { NULL, NULL, NULL, NULL, NULL, NULL } };
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_lif_report *r = NULL;
	pm_lif_options o;
	pm_lif_regression reg;
	pm_error err = { 0 }, rerr = { 0 };
	pm_read_info info = { 0 };
	char *doc = NULL;
	int rc, regressed;

	if ((rc = parse_args(argc, argv, &a)) >= 0)
		return rc;
	rc = EXIT_FAIL;
	if (spec_from_flags(&a.roles, &s, &err) ||
	    (a.workers && pm_spec_add_names(s, PM_SPEC_WORKERS, a.workers, &err)) ||
	    pm_spec_read_data(s, a.data, &a.ro, &d, &info, &err)) {
		report_error(&err);
		goto out;
	}
	o = (pm_lif_options){ .n_col = a.n_col, .time_col = pm_spec_target(s),
			     .by = pm_spec_names(s, PM_SPEC_EXTRINSIC) };
	if (pm_lif_report_new(d, pm_spec_names(s, PM_SPEC_WORKERS), &o, &r, &err)) {
		report_error(&err);
		goto out;
	}
	/* the LIF tables stand on their own: print them even when eq. 3.9 fails */
	regressed = pm_lif_regress(r->n, r->lif, r->t, r->nrows, &reg, &rerr) == PM_OK;
	if (a.json) {
		if (print_document(pm_lif_report_to_json(d, r, pm_spec_target(s), regressed ? &reg : NULL,
							 rerr.msg, &doc, &err),
				   &doc, &err))
			goto out;
	} else {
		print_text(d, r, regressed ? &reg : NULL, pm_spec_target(s) ? pm_spec_target(s) : "t (slowest worker)");
	}
	if (!regressed) {
		fflush(stdout);
		report_error(&rerr);
		goto out;
	}
	rc = EXIT_OK;
out:
	pm_read_info_clear(&info);
	pm_lif_report_free(r);
	pm_spec_free(s);
	pm_dataset_free(d);
	return rc;
}
