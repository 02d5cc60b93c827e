/* perfmodel fit: read measurements and roles, fit, print, save. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char fit_usage[] =
	"usage: perfmodel fit DATA.csv [--spec SPEC.json | ROLES] [options]\n"
	"\n"
	"Fit t = (sum_i a_i*I_i^p_i + sum_c b_c,level) * prod_j E_j^q_j + C (thesis eq. 4.4)\n"
	"to the rows of DATA.csv by differential evolution, print the parameters and the\n"
	"training accuracy, and save the model.\n"
	"\n"
	"Roles (instead of, or on top of, --spec):\n"
	"  --spec FILE            a spec: {\"target\", \"intrinsic\", \"categorical\", \"extrinsic\", \"bounds\"}\n"
	"  --target COL           the measured time (must be > 0)\n"
	"  --extrinsic A,B        scaling parameters E_j (threads, GPUs, batch size)\n"
	"  --intrinsic A,B        numeric intrinsic parameters I_i\n"
	"  --categorical A,B      text parameters, one coefficient per level\n"
	"                         Without --intrinsic/--categorical every other column is used:\n"
	"                         numeric ones as intrinsic, text ones as categorical.\n"
	"\n"
	"Output:\n"
	"  -o, --output FILE      where to save the model (default model.json)\n"
	"      --json             print the model document as JSON on stdout\n"
	"  -q, --quiet            print nothing but errors\n"
	"\n"
	"Fit (defaults are scipy.optimize.differential_evolution's):\n"
	"      --scale auto|none  auto (default): fit on columns / geometric mean and time /\n"
	"                         median; none: raw units, the thesis exactly\n"
	"      --seed N           random seed (default 1: runs repeat)\n"
	"      --threads N        threads (default: all CPUs; the result does not depend on it)\n"
	"      --maxiter N        generations at most (1000)\n"
	"      --popsize N        population = N * unknowns (15)\n"
	"      --tol X            stop when std(costs) <= atol + tol*|mean(costs)| (0.01)\n"
	"      --atol X           (0)\n"
	"      --mutation LO,HI   differential weight F, dithered per generation (0.5,1)\n"
	"      --recombination X  crossover probability CR (0.7)\n"
	"      --no-polish        skip the final local search\n"
	"      --reg none|l1|l2   penalty on coefficients and powers, never C (none)\n"
	"      --lambda X         penalty weight for both groups (0)\n"
	"      --lambda-power X   penalty weight for the powers alone\n"
	"  -h, --help             this text\n";

enum {
	OPT_SPEC = 256, OPT_TARGET, OPT_EXTRINSIC, OPT_INTRINSIC, OPT_CATEGORICAL, OPT_JSON,
	OPT_SCALE, OPT_SEED, OPT_THREADS, OPT_MAXITER, OPT_POPSIZE, OPT_TOL, OPT_ATOL,
	OPT_MUTATION, OPT_RECOMBINATION, OPT_NO_POLISH, OPT_REG, OPT_LAMBDA, OPT_LAMBDA_POWER,
};

static const struct option long_options[] = {
	{ "spec", required_argument, NULL, OPT_SPEC },
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "extrinsic", required_argument, NULL, OPT_EXTRINSIC },
	{ "intrinsic", required_argument, NULL, OPT_INTRINSIC },
	{ "categorical", required_argument, NULL, OPT_CATEGORICAL },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, 'q' },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "maxiter", required_argument, NULL, OPT_MAXITER },
	{ "popsize", required_argument, NULL, OPT_POPSIZE },
	{ "tol", required_argument, NULL, OPT_TOL },
	{ "atol", required_argument, NULL, OPT_ATOL },
	{ "mutation", required_argument, NULL, OPT_MUTATION },
	{ "recombination", required_argument, NULL, OPT_RECOMBINATION },
	{ "no-polish", no_argument, NULL, OPT_NO_POLISH },
	{ "reg", required_argument, NULL, OPT_REG },
	{ "lambda", required_argument, NULL, OPT_LAMBDA },
	{ "lambda-power", required_argument, NULL, OPT_LAMBDA_POWER },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct fit_args {
	const char *data, *spec_path, *out;
	const char *target, *extrinsic, *intrinsic, *categorical;
	int json, quiet;
	pm_fit_options opt;
};

static int bad_value(const char *opt, const char *value, const char *want)
{
	return usage_error("fit", "--%s '%s': expected %s", opt, value, want);
}

static int parse_mutation(const char *text, pm_fit_options *o)
{
	char buf[64];
	char *comma;

	snprintf(buf, sizeof(buf), "%s", text);
	comma = strchr(buf, ',');
	if (!comma)
		return parse_double(buf, &o->mutation_lo) ||
		       (o->mutation_hi = o->mutation_lo, 0);
	*comma = '\0';
	return parse_double(buf, &o->mutation_lo) || parse_double(comma + 1, &o->mutation_hi);
}

static int parse_option(int c, const char *v, struct fit_args *a)
{
	pm_fit_options *o = &a->opt;
	unsigned long long u;

	switch (c) {
	case OPT_SPEC: a->spec_path = v; return 0;
	case OPT_TARGET: a->target = v; return 0;
	case OPT_EXTRINSIC: a->extrinsic = v; return 0;
	case OPT_INTRINSIC: a->intrinsic = v; return 0;
	case OPT_CATEGORICAL: a->categorical = v; return 0;
	case 'o': a->out = v; return 0;
	case OPT_JSON: a->json = 1; return 0;
	case 'q': a->quiet = 1; return 0;
	case OPT_NO_POLISH: o->polish = 0; return 0;
	case OPT_SCALE:
		if (strcmp(v, "auto") && strcmp(v, "none"))
			return bad_value("scale", v, "auto or none");
		o->scale = strcmp(v, "auto") ? PM_SCALE_NONE : PM_SCALE_AUTO;
		return 0;
	case OPT_REG:
		if (!strcmp(v, "none"))
			o->reg = PM_REG_NONE;
		else if (!strcmp(v, "l1"))
			o->reg = PM_REG_L1;
		else if (!strcmp(v, "l2"))
			o->reg = PM_REG_L2;
		else
			return bad_value("reg", v, "none, l1 or l2");
		return 0;
	case OPT_SEED:
		if (parse_uint(v, UINT64_MAX, &u))
			return bad_value("seed", v, "a whole number >= 0");
		o->seed = u;
		return 0;
	case OPT_THREADS:
		if (parse_uint(v, 1024, &u) || u == 0)
			return bad_value("threads", v, "a whole number from 1 to 1024");
		o->threads = (unsigned)u;
		return 0;
	case OPT_MAXITER:
		if (parse_uint(v, 100000000, &u) || u == 0)
			return bad_value("maxiter", v, "a whole number >= 1");
		o->maxiter = (unsigned)u;
		return 0;
	case OPT_POPSIZE:
		if (parse_uint(v, 100000, &u) || u == 0)
			return bad_value("popsize", v, "a whole number >= 1");
		o->popsize = (unsigned)u;
		return 0;
	case OPT_TOL:
		if (parse_double(v, &o->tol) || o->tol < 0)
			return bad_value("tol", v, "a number >= 0");
		return 0;
	case OPT_ATOL:
		if (parse_double(v, &o->atol) || o->atol < 0)
			return bad_value("atol", v, "a number >= 0");
		return 0;
	case OPT_MUTATION:
		if (parse_mutation(v, o) || !(o->mutation_lo >= 0 && o->mutation_lo <= o->mutation_hi &&
					       o->mutation_hi <= 2))
			return bad_value("mutation", v, "F or LO,HI with 0 <= LO <= HI <= 2");
		return 0;
	case OPT_RECOMBINATION:
		if (parse_double(v, &o->recombination) || o->recombination < 0 ||
		    o->recombination > 1)
			return bad_value("recombination", v, "a number in [0, 1]");
		return 0;
	case OPT_LAMBDA:
		if (parse_double(v, &o->lambda_coef) || o->lambda_coef < 0)
			return bad_value("lambda", v, "a number >= 0");
		o->lambda_power = o->lambda_coef;	/* unless --lambda-power says */
		return 0;
	case OPT_LAMBDA_POWER:
		if (parse_double(v, &o->lambda_power) || o->lambda_power < 0)
			return bad_value("lambda-power", v, "a number >= 0");
		return 0;
	}
	return -1;
}

static int parse_args(int argc, char **argv, struct fit_args *a)
{
	int c, power_given = 0;
	double lambda_power = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
		if (c == 'h') {
			fputs(fit_usage, stdout);
			exit(EXIT_OK);
		}
		if (c == '?')
			return usage_error("fit", "unknown option '%s'", argv[optind - 1]);
		if (c == ':')
			return usage_error("fit", "option '%s' needs a value", argv[optind - 1]);
		if (c == OPT_LAMBDA_POWER)
			power_given = 1;
		if (parse_option(c, optarg, a))
			return EXIT_USAGE;
		if (c == OPT_LAMBDA_POWER)
			lambda_power = a->opt.lambda_power;
	}
	/* --lambda-power wins over --lambda whatever their order. */
	if (power_given)
		a->opt.lambda_power = lambda_power;
	if (a->opt.reg == PM_REG_NONE && (a->opt.lambda_coef > 0 || a->opt.lambda_power > 0))
		return usage_error("fit", "--lambda needs --reg l1 or l2");
	if (optind != argc - 1)
		return usage_error("fit", optind == argc ? "no data file given"
							 : "one data file at a time");
	a->data = argv[optind];
	return 0;
}

/* Roles from --spec and the role flags; flags add to (or set) the spec's. */
static pm_status build_spec(const struct fit_args *a, pm_spec **out, pm_error *err)
{
	pm_spec *s = NULL;
	pm_status st;

	st = a->spec_path ? pm_spec_read_file(a->spec_path, &s, err) : pm_spec_new(&s, err);
	if (st)
		return st;
	if ((a->target && (st = pm_spec_set_target(s, a->target, err))) ||
	    (a->extrinsic && (st = pm_names_add_list(&s->extrinsic, a->extrinsic, err))) ||
	    (a->intrinsic && (st = pm_names_add_list(&s->intrinsic, a->intrinsic, err))) ||
	    (a->categorical && (st = pm_names_add_list(&s->categorical, a->categorical, err)))) {
		pm_spec_free(s);
		return st;
	}
	if (a->intrinsic || a->categorical)
		s->infer_roles = 0;
	*out = s;
	return PM_OK;
}

static void print_names(const char *label, const pm_model *m, pm_role role)
{
	int first = 1;

	printf("  %-12s", label);
	for (size_t i = 0; i < pm_model_ninputs(m); i++) {
		if (pm_model_input_role(m, i) != role)
			continue;
		printf("%s%s", first ? "" : ", ", pm_model_input_name(m, i));
		first = 0;
		if (role == PM_ROLE_CATEGORICAL) {
			printf(" (");
			for (size_t v = 0; v < pm_model_nlevels(m, i); v++)
				printf("%s%s", v ? " " : "", pm_model_level_name(m, i, v));
			printf(")");
		}
	}
	printf("%s\n", first ? "(none)" : "");
}

static void print_param_rows(const pm_model *m)
{
	size_t np = pm_model_nparams(m);

	printf("\nparameters (raw: eq. 4.4 in the data's units; scaled: as fitted)\n");
	printf("  %-28s %-6s %14s %14s\n", "name", "kind", "raw", "scaled");
	for (size_t k = 0; k < np; k++) {
		static const char *const kind[] = { "a", "p", "b", "q", "C" };

		printf("  %-28s %-6s %14.6g %14.6g\n", pm_model_param_name(m, k),
		       kind[pm_model_param_kind(m, k)], pm_model_param_value(m, k),
		       pm_model_param_scaled(m, k));
	}
}

static void print_summary(const pm_model *m, const pm_dataset *d, const char *out)
{
	const pm_fit_info *fi = pm_model_fit_info(m);
	const pm_metrics *t = &fi->training;

	printf("data\n  %-12s%s, %zu rows\n  %-12s%s\n", "file", pm_dataset_name(d),
	       pm_dataset_nrows(d), "target", pm_model_target(m));
	print_names("intrinsic", m, PM_ROLE_INTRINSIC);
	print_names("categorical", m, PM_ROLE_CATEGORICAL);
	print_names("extrinsic", m, PM_ROLE_EXTRINSIC);
	print_param_rows(m);
	printf("\ntraining accuracy (%zu rows)\n", t->n);
	printf("  MAE %.6g   MAPE %.2f %%   RMSE %.6g   R^2 %.4f\n", t->mae, t->mape, t->rmse,
	       t->r2);
	printf("\nfit\n  %u generations, %llu evaluations, stop: %s%s\n", fi->generations,
	       (unsigned long long)fi->evaluations, fi->stop,
	       fi->options.polish ? (fi->polished ? ", polish improved it" : ", polish kept it")
				  : ", no polish");
	printf("  %.3f s on %u thread%s, seed %llu, scale %s, cost %.6g\n", fi->wall_time_s,
	       fi->threads_used, fi->threads_used == 1 ? "" : "s",
	       (unsigned long long)fi->options.seed, pm_model_scale_name(m), fi->cost);
	printf("  saved to %s\n", out);
}

int cmd_fit(int argc, char **argv)
{
	struct fit_args a = { .out = "model.json", .opt = pm_fit_options_default() };
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_model *m = NULL;
	pm_error err = { 0 };
	char *json = NULL;
	int rc;

	if ((rc = parse_args(argc, argv, &a)))
		return rc;
	rc = EXIT_FAIL;
	if (build_spec(&a, &s, &err) || pm_dataset_read_csv(a.data, &d, &err) ||
	    pm_fit(d, s, &a.opt, &m, &err) || pm_model_to_json(m, &json, &err) ||
	    pm_write_file_atomic(a.out, json, strlen(json), &err)) {
		report_error(&err);
		goto out;
	}
	if (a.json)
		fputs(json, stdout);
	else if (!a.quiet)
		print_summary(m, d, a.out);
	rc = EXIT_OK;
out:
	free(json);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
	return rc;
}
