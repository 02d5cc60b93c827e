/* perfmodel ssgd: the S-SGD phase model of thesis eqs. 3.3 and 3.5-3.8. */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"

const char ssgd_usage[] =
	"usage: perfmodel ssgd PHASES.csv [--by COLS] [--json]\n"
	"\n"
	"Per row of per-phase timings (columns t_io, t_h2d, t_md, t_u and per worker i\n"
	"t_f_i, t_b_i, t_c_i; a missing column or empty cell takes 0 s; worker i takes\n"
	"part when one of its cells is filled):\n"
	"  t_iter   eq. 3.3: t_io + t_h2d + t_md + max_i(t_f_i + t_b_i + t_c_i) + t_u\n"
	"  t_pipe   eq. 3.5, I/O overlapped: max(t_io + t_h2d, max_i(...) + t_u)\n"
	"  LIF      eq. 3.8 over the workers' t_f_i + t_b_i + t_c_i\n"
	"  S        eq. 3.6: N * t_iter(1 worker) / t_iter, against the one-worker row of\n"
	"           the same configuration\n"
	"  S_ovl    eq. 3.7: N * t_pipe(1 worker) / max(t_io + t_h2d + t_md, max_i(...) + t_u)\n"
	"           (the thesis prints it without that t_u; see docs/maths.md)\n"
	"\n"
	"  --by COLS   the columns that make a configuration, comma-separated (default:\n"
	"              every column that is not a phase column)\n"
	"  --json      one JSON object on stdout\n"
	"  -h, --help  this text\n";

enum { OPT_BY = 256, OPT_JSON };

static const struct option long_options[] = {
	{ "by", required_argument, NULL, OPT_BY },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void print_text(const pm_dataset *d, const pm_ssgd_report *R)
{
	cprintf(stdout, "%s: %zu rows, up to %u workers; configuration:", pm_dataset_name(d), R->nrows,
	       R->max_workers);
	for (size_t j = 0; j < R->nby; j++)
		cprintf(stdout, "%s %s", j ? "," : "", pm_dataset_col_name(d, R->by_col[j]));
	cprintf(stdout, "%s\n\n  %-6s %-28s %3s %12s %12s %9s %8s %8s\n", R->nby ? "" : " (none)",
	       "line", "configuration", "N", "t_iter 3.3", "t_pipe 3.5", "LIF", "S 3.6",
	       "S 3.7");
	for (size_t r = 0; r < R->nrows; r++) {
		const pm_ssgd_row *x = &R->row[r];
		char config[29];
		size_t len = 0;

		config[0] = '\0';
		for (size_t j = 0; j < R->nby && len < sizeof(config); j++)
			len += (size_t)pm_snprintf(config + len, sizeof(config) - len, "%s%s",
						j ? " " : "", pm_dataset_cell(d, r, R->by_col[j]));
		cprintf(stdout, "  %-6u %-*s %3u %12.6g %12.6g %9.6f", pm_dataset_cell_line(d, r, 0),
			cols(config, 28), config, x->workers, x->t_iter, x->t_pipe, x->lif);
		if (x->has_speedup)
			cprintf(stdout, " %8.4f %8.4f\n", x->speedup, x->speedup_overlap);
		else
			cprintf(stdout, " %8s %8s\n", "-", "-");
	}
}

int cmd_ssgd(int argc, char **argv)
{
	pm_spec *s = NULL;	/* holds --by in its extrinsic list */
	pm_dataset *d = NULL;
	pm_ssgd_report *R = NULL;
	pm_error err = { 0 };
	const char *by = NULL, *path;
	char *doc = NULL;
	int c, json = 0, rc = EXIT_FAIL;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_BY: by = optarg; break;
		case OPT_JSON: json = 1; break;
		default: return common_option(c, argv, "ssgd", ssgd_usage);
		}
	}
	if (one_operand(argc, argv, "ssgd", "phase file", &path))
		return EXIT_USAGE;
	if (spec_from_flags(&(struct role_flags){ .extrinsic = by }, &s, &err) ||
	    pm_dataset_read_csv(path, &d, &err) ||
	    pm_ssgd_report_new(d, pm_spec_names(s, PM_SPEC_EXTRINSIC), &R, &err)) {
		report_error(&err);
		goto out;
	}
	if (json) {
		rc = print_document(pm_ssgd_report_to_json(d, R, &doc, &err), &doc, &err);
		goto out;
	}
	print_text(d, R);
	rc = EXIT_OK;
out:
	pm_ssgd_report_free(R);
	pm_dataset_free(d);
	pm_spec_free(s);
	return rc;
}
