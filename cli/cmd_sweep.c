/* perfmodel sweep: the regularised fit over a log grid of λ, each measured on
 * rows it never saw (thesis §4.3.3, Figures 4.15-4.17). Parse, call, print. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char sweep_usage[] =
	"usage: perfmodel sweep DATA.csv [--spec SPEC.json | ROLES] [options]\n"
	"\n"
	"Fit eq. 4.4 with each lambda of a log grid and measure each fit on rows it never\n"
	"saw: for each lambda the held-out MAPE and R^2 and every fitted parameter (the\n"
	"data of thesis Figures 4.15-4.17), and the best lambda by held-out MAPE.\n"
	"\n"
	"  --spec FILE            the roles, as for fit; and/or the role flags:\n"
	"  --target COL, --extrinsic A,B, --intrinsic A,B, --categorical A,B\n"
	"                         as for fit (without --intrinsic/--categorical the other\n"
	"                         columns are used)\n"
	"  --ignore A,B           leave these columns out, as for fit\n"
	"  --drop-incomplete      drop the rows with an empty or nan cell in the target or a\n"
	"                         numeric input, as for fit\n"
	"  --target-kind K, --resource COL, --per COL\n"
	"                         what the target measures (time, speedup, efficiency,\n"
	"                         throughput), as for fit\n"
	"  --form F, --formula T  the model form, as for fit (default additive: eq. 4.4)\n"
	"  --loss L               mae (default), mse, mape or log, as for fit\n"
	"  --lambda LO:HI:N       N lambdas from LO to HI, evenly spaced in log (1e-6:1:13)\n"
	"  --reg l1|l2            the penalty (l2)\n"
	"  --validate S           the held-out rows (default kfold:5; docs/cli.md): kfold:K\n"
	"                         (stratified by level), loo, extrapolate:COL[:FRACTION]\n"
	"                         (fit the smallest values of COL, measure the rest), or a\n"
	"                         FILE of held-out rows; metrics are means over the folds\n"
	"  --cv K                 kfold:K\n"
	"  --cv-seed N            seed of the folds (default: --seed)\n"
	"  --test-fraction F      instead: one seeded split, F held out\n"
	"  --seed N               seed of every fit (1)\n"
	"  --threads N            threads (default and most: the CPUs; results do not depend on it)\n"
	"  --maxiter N, --popsize N, --scale auto|none, --engine varpro|de   as for fit\n"
	"  --csv                  the table as CSV on stdout\n"
	"  --json                 one JSON document on stdout (docs/formats.md)\n"
	"  -q, --quiet            no progress line on stderr (shown only on a terminal)\n"
	READ_USAGE
	"  -h, --help             this text\n";

enum {
	OPT_SPEC = 256, OPT_TARGET, OPT_LAMBDA, OPT_REG, OPT_CV, OPT_CV_SEED, OPT_TEST_FRACTION,
	OPT_SEED, OPT_THREADS, OPT_MAXITER, OPT_POPSIZE, OPT_SCALE, OPT_CSV, OPT_JSON,
	OPT_EXTRINSIC, OPT_INTRINSIC, OPT_CATEGORICAL, OPT_FORM, OPT_FORMULA, OPT_LOSS,
	OPT_ENGINE, OPT_IGNORE, OPT_VALIDATE, OPT_TARGET_KIND, OPT_RESOURCE, OPT_DROP_INCOMPLETE,
};

/* in the order of the enum: parse_one names an option by c - OPT_SPEC */
static const struct option sweep_options[] = {
	{ "spec", required_argument, NULL, OPT_SPEC },
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "lambda", required_argument, NULL, OPT_LAMBDA },
	{ "reg", required_argument, NULL, OPT_REG },
	{ "cv", required_argument, NULL, OPT_CV },
	{ "cv-seed", required_argument, NULL, OPT_CV_SEED },
	{ "test-fraction", required_argument, NULL, OPT_TEST_FRACTION },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "maxiter", required_argument, NULL, OPT_MAXITER },
	{ "popsize", required_argument, NULL, OPT_POPSIZE },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "extrinsic", required_argument, NULL, OPT_EXTRINSIC },
	{ "intrinsic", required_argument, NULL, OPT_INTRINSIC },
	{ "categorical", required_argument, NULL, OPT_CATEGORICAL },
	{ "form", required_argument, NULL, OPT_FORM },
	{ "formula", required_argument, NULL, OPT_FORMULA },
	{ "loss", required_argument, NULL, OPT_LOSS },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "ignore", required_argument, NULL, OPT_IGNORE },
	{ "drop-incomplete", no_argument, NULL, OPT_DROP_INCOMPLETE },
	{ "validate", required_argument, NULL, OPT_VALIDATE },
	{ "target-kind", required_argument, NULL, OPT_TARGET_KIND },
	{ "resource", required_argument, NULL, OPT_RESOURCE },
	READ_LONG_OPTIONS,
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct sweep_args {
	const char *data;
	struct role_flags roles;
	int csv, json, quiet, cv_given, cv_seed_given;
	unsigned folds;		/* --cv */
	const char *validate, *test_path;	/* --validate SCHEME|FILE */
	pm_fit_options opt;
	pm_sweep_options so;
	pm_read_options ro;
};

static int bad(const char *opt, const char *value, const char *want)
{
	return usage_error("sweep", "--%s '%s': expected %s", opt, value, want);
}

/* "LO:HI:N" */
static int parse_grid(const char *v, pm_sweep_options *so)
{
	char buf[128], *c1, *c2;
	unsigned long long n;

	pm_snprintf(buf, sizeof(buf), "%s", v);
	c1 = strchr(buf, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c2)
		return -1;
	*c1 = *c2 = '\0';
	if (pm_parse_number(buf, &so->lambda_lo) || pm_parse_number(c1 + 1, &so->lambda_hi) ||
	    pm_parse_whole(c2 + 1, 10000, &n) || n == 0 || !(so->lambda_lo > 0) ||
	    so->lambda_hi < so->lambda_lo)
		return -1;
	so->npoints = (unsigned)n;
	return 0;
}

static int parse_one(int c, const char *v, struct sweep_args *a)
{
	unsigned long long u;

	switch (c) {
	case OPT_SPEC: a->roles.spec_path = v; return 0;
	case OPT_TARGET: a->roles.target = v; return 0;
	case OPT_EXTRINSIC: a->roles.extrinsic = v; return 0;
	case OPT_INTRINSIC: a->roles.intrinsic = v; return 0;
	case OPT_CATEGORICAL: a->roles.categorical = v; return 0;
	case OPT_IGNORE: a->roles.ignore = v; return 0;
	case OPT_DROP_INCOMPLETE: a->ro.drop_incomplete = 1; return 0;
	case OPT_VALIDATE: a->validate = v; return 0;
	case OPT_TARGET_KIND:
		if (pm_target_kind_from_name(v, NULL, NULL))
			return bad("target-kind", v, "time, speedup, efficiency or throughput");
		a->roles.target_kind = v;
		return 0;
	case OPT_RESOURCE: a->roles.resource = v; return 0;
	case OPT_FORM:
	case OPT_FORMULA:
		if (a->roles.form)
			return usage_error("sweep", "give one of --form and --formula, once");
		a->roles.form = v;
		return 0;
	case OPT_LOSS:
		if (pm_loss_from_name(v, &a->opt.loss, NULL))
			return bad("loss", v, "mae, mse, mape or log");
		return 0;
	case OPT_ENGINE: return engine_option("sweep", v, &a->opt);
	case OPT_CSV: a->csv = 1; return 0;
	case OPT_JSON: a->json = 1; return 0;
	case OPT_LAMBDA:
		return parse_grid(v, &a->so) ? bad("lambda", v, "LO:HI:N with 0 < LO <= HI") : 0;
	case OPT_REG:
		if (strcmp(v, "l1") && strcmp(v, "l2"))
			return bad("reg", v, "l1 or l2");
		a->opt.reg = strcmp(v, "l1") ? PM_REG_L2 : PM_REG_L1;
		return 0;
	case OPT_SCALE:
		if (strcmp(v, "auto") && strcmp(v, "none"))
			return bad("scale", v, "auto or none");
		a->opt.scale = strcmp(v, "auto") ? PM_SCALE_NONE : PM_SCALE_AUTO;
		return 0;
	case OPT_TEST_FRACTION:
		if (pm_parse_number(v, &a->opt.test_fraction) || !(a->opt.test_fraction > 0) ||
		    a->opt.test_fraction >= 1)
			return bad("test-fraction", v, "a number between 0 and 1");
		return 0;
	}
	if (pm_parse_whole(v, UINT64_MAX, &u))
		return bad(sweep_options[c - OPT_SPEC].name, v, "a whole number");
	switch (c) {
	case OPT_CV:
		if (u < 2 || u > 1000)
			return bad("cv", v, "a whole number from 2 to 1000");
		a->folds = (unsigned)u;
		a->cv_given = 1;
		return 0;
	case OPT_CV_SEED: a->so.validate.seed = u; a->cv_seed_given = 1; return 0;
	case OPT_SEED: a->opt.seed = u; return 0;
	case OPT_THREADS:
		if (u < 1 || u > 1024)
			return bad("threads", v, "a whole number from 1 to 1024");
		a->opt.threads = (unsigned)u;
		return 0;
	case OPT_MAXITER:
		if (u < 1 || u > 100000000)
			return bad("maxiter", v, "a whole number >= 1");
		a->opt.maxiter = (unsigned)u;
		return 0;
	case OPT_POPSIZE:
		if (u < 1 || u > 100000)
			return bad("popsize", v, "a whole number >= 1");
		a->opt.popsize = (unsigned)u;
		return 0;
	}
	return -1;
}

/* The held-out rows: --validate SCHEME|FILE, --cv K (kfold:K),
 * --test-fraction F, one of them; default kfold:5. */
static int validation_args(struct sweep_args *a)
{
	pm_validation *v = &a->so.validate;
	uint64_t seed = a->cv_seed_given ? v->seed : a->opt.seed;
	pm_error err;

	if (a->cv_given + (a->opt.test_fraction > 0) + (a->validate != NULL) > 1)
		return usage_error("sweep", "--cv, --test-fraction and --validate exclude each "
				   "other");
	a->opt.split_seed = a->opt.seed;
	if (a->validate && !pm_validation_is_scheme(a->validate))
		a->test_path = a->validate;
	else if (a->validate && pm_validation_parse(a->validate, v, &err))
		return usage_error("sweep", "--validate '%s': %s", a->validate, err.msg);
	else if (!a->validate && !(a->opt.test_fraction > 0))
		*v = (pm_validation){ .scheme = PM_SCHEME_KFOLD,
				      .folds = a->cv_given ? a->folds : 5 };
	if (a->cv_seed_given && v->scheme != PM_SCHEME_KFOLD)
		return usage_error("sweep", "--cv-seed deals k folds: not with %s",
				   a->validate ? a->validate : "--test-fraction");
	v->seed = seed;
	return 0;
}

static int parse_args(int argc, char **argv, struct sweep_args *a)
{
	int c, rc, popsize_given = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hq", sweep_options, NULL)) != -1) {
		if (c == 'h') {
			fputs(sweep_usage, stdout);
			exit(EXIT_OK);
		}
		if (c == 'q') {
			a->quiet = 1;
			continue;
		}
		if (c == '?')
			return usage_error("sweep", "unknown option '%s'", argv[optind - 1]);
		if (c == ':')
			return usage_error("sweep", "option '%s' needs a value", argv[optind - 1]);
		if ((rc = parse_read_option("sweep", c, optarg, &a->ro)) > 0)
			return rc;
		if (rc < 0 && parse_one(c, optarg, a))
			return EXIT_USAGE;
		popsize_given |= c == OPT_POPSIZE;
	}
	engine_defaults(&a->opt, popsize_given, 0);
	if ((rc = validation_args(a)) ||
	    (rc = kind_options("sweep", &a->ro, a->roles.target_kind, &a->roles.per)))
		return rc;
	if (optind != argc - 1)
		return usage_error("sweep", optind == argc ? "no data file given"
							   : "one data file at a time");
	a->data = argv[optind];
	return 0;
}

/* a parameter's column: its whole name, 12 at least, in characters (its
 * UTF-8 bytes less those beyond one a character) */
static int width(const char *name)
{
	int n = (int)strlen(name) - cols(name, 0);

	return n > 12 ? n : 12;
}

static void print_table(const pm_sweep *sw)
{
	cprintf(stdout, "%-10s %9s %9s %9s", "lambda", "MAPE %", "± std", "R^2");
	for (size_t k = 0; k < sw->nparams; k++)
		cprintf(stdout, " %*s", cols(sw->param_name[k], width(sw->param_name[k])),
			sw->param_name[k]);
	cprintf(stdout, "\n");
	for (size_t p = 0; p < sw->npoints; p++) {
		const pm_sweep_point *pt = &sw->point[p];

		cprintf(stdout, "%-10.3g %9.4g %9.2g %9.4f", pt->lambda, pt->test.mape, pt->mape_std,
		       pt->test.r2);
		for (size_t k = 0; k < sw->nparams; k++)
			cprintf(stdout, " %*.5g", width(sw->param_name[k]), sw->param[p * sw->nparams + k]);
		cprintf(stdout, "%s", p == sw->best ? "  <- best" : "");
		if (r2_words(pt->test.r2))
			cprintf(stdout, "  R^2 < 0: %s", r2_words(pt->test.r2));
		cprintf(stdout, "\n");
	}
	cprintf(stdout, "\nbest lambda %.6g: held-out MAPE %.4g %% (%s), %.2f s\n",
	       sw->point[sw->best].lambda, sw->point[sw->best].test.mape,
	       sw->folds > 1 ? "mean over the folds" : sw->what[0] ? sw->what : "one split",
	       sw->wall_time_s);
	if (sw->folds > 1)
		cprintf(stdout, "validation: %s\n", sw->what);
}

static void print_csv(const pm_sweep *sw)
{
	fputs("lambda,mape,mape_std,r2,mae,rmse,cost", stdout);
	for (size_t k = 0; k < sw->nparams; k++) {
		fputc(',', stdout);
		csv_field(stdout, sw->param_name[k]);
	}
	fputc('\n', stdout);
	for (size_t p = 0; p < sw->npoints; p++) {
		const pm_sweep_point *pt = &sw->point[p];
		const double v[] = { pt->lambda, pt->test.mape, pt->mape_std, pt->test.r2,
				     pt->test.mae, pt->test.rmse, pt->cost };

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			if (i)
				fputc(',', stdout);
			print_exact(stdout, v[i]);
		}
		for (size_t k = 0; k < sw->nparams; k++) {
			fputc(',', stdout);
			print_exact(stdout, sw->param[p * sw->nparams + k]);
		}
		fputc('\n', stdout);
	}
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_args a = {
		.opt = pm_fit_options_default(),
		.so = { .lambda_lo = 1e-6, .lambda_hi = 1, .npoints = 13 },
	};
	pm_source src;
	pm_spec *s = NULL;
	pm_sweep *sw = NULL;
	pm_error err = { 0 };
	char *json = NULL;
	int rc;

	a.opt.reg = PM_REG_L2;
	if ((rc = parse_args(argc, argv, &a)))
		return rc;
	cap_threads(&a.opt, a.quiet);
	rc = EXIT_FAIL;
	src = (pm_source){ .path = a.data, .test_path = a.test_path, .read = a.ro };
	a.opt.stop = interrupt_install();
	src.read.stop = a.opt.stop;	/* the reading of a CUBE set too */
	progress_install(&a.opt, a.quiet);
	if (spec_from_flags(&a.roles, &s, &err) || pm_sweep_file(&src, s, &a.opt, &a.so, &sw, &err) ||
	    (a.json && pm_sweep_to_json(sw, &a.opt, &json, &err))) {
		progress_end();
		report_error(&err);
		if (*a.opt.stop)
			rc = EXIT_INTERRUPTED;
		goto out;
	}
	progress_end();
	if (a.json)
		fputs(json, stdout);
	else if (a.csv)
		print_csv(sw);
	else
		print_table(sw);
	rc = EXIT_OK;
	if (sw->interrupted) {
		cprintf(stderr, "perfmodel: interrupted: the fits were stopped early; the table "
			"is provisional\n");
		rc = EXIT_INTERRUPTED;
	}
out:
	free(json);
	pm_sweep_free(sw);
	pm_spec_free(s);
	return rc;
}
