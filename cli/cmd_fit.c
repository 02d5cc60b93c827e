/* perfmodel fit: read measurements and roles, fit, print, save. */
#include <getopt.h>
#include <math.h>
#include <sys/stat.h>
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

enum {
	OPT_SPEC = 256, OPT_TARGET, OPT_EXTRINSIC, OPT_INTRINSIC, OPT_CATEGORICAL, OPT_JSON,
	OPT_SCALE, OPT_SEED, OPT_THREADS, OPT_MAXITER, OPT_POPSIZE, OPT_TOL, OPT_ATOL,
	OPT_MUTATION, OPT_RECOMBINATION, OPT_NO_POLISH, OPT_REG, OPT_LAMBDA, OPT_LAMBDA_POWER,
	OPT_LOSS, OPT_FORMS, OPT_CV, OPT_CV_SEED, OPT_FORM, OPT_FORMULA,
	OPT_TEST_FRACTION, OPT_SPLIT_SEED, OPT_TEST, OPT_SEEDS, OPT_WORKERS, OPT_PLOT_DIR,
	OPT_ENGINE, OPT_IGNORE, OPT_VALIDATE, OPT_MAX_TERMS, OPT_BEAM, OPT_TOP, OPT_TARGET_KIND,
	OPT_RESOURCE, OPT_REFINE, OPT_NO_INTERVALS, OPT_WARM_START, OPT_DROP_INCOMPLETE,
};

static const struct option long_options[] = {
	{ "spec", required_argument, NULL, OPT_SPEC },
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "extrinsic", required_argument, NULL, OPT_EXTRINSIC },
	{ "intrinsic", required_argument, NULL, OPT_INTRINSIC },
	{ "categorical", required_argument, NULL, OPT_CATEGORICAL },
	{ "ignore", required_argument, NULL, OPT_IGNORE },
	{ "drop-incomplete", no_argument, NULL, OPT_DROP_INCOMPLETE },
	{ "target-kind", required_argument, NULL, OPT_TARGET_KIND },
	{ "resource", required_argument, NULL, OPT_RESOURCE },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, 'q' },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "maxiter", required_argument, NULL, OPT_MAXITER },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "popsize", required_argument, NULL, OPT_POPSIZE },
	{ "tol", required_argument, NULL, OPT_TOL },
	{ "atol", required_argument, NULL, OPT_ATOL },
	{ "mutation", required_argument, NULL, OPT_MUTATION },
	{ "recombination", required_argument, NULL, OPT_RECOMBINATION },
	{ "no-polish", no_argument, NULL, OPT_NO_POLISH },
	{ "no-intervals", no_argument, NULL, OPT_NO_INTERVALS },
	{ "loss", required_argument, NULL, OPT_LOSS },
	{ "forms", required_argument, NULL, OPT_FORMS },
	{ "form", required_argument, NULL, OPT_FORM },
	{ "formula", required_argument, NULL, OPT_FORMULA },
	{ "cv", required_argument, NULL, OPT_CV },
	{ "cv-seed", required_argument, NULL, OPT_CV_SEED },
	{ "reg", required_argument, NULL, OPT_REG },
	{ "lambda", required_argument, NULL, OPT_LAMBDA },
	{ "lambda-power", required_argument, NULL, OPT_LAMBDA_POWER },
	{ "test-fraction", required_argument, NULL, OPT_TEST_FRACTION },
	{ "split-seed", required_argument, NULL, OPT_SPLIT_SEED },
	{ "test", required_argument, NULL, OPT_TEST },
	{ "validate", required_argument, NULL, OPT_VALIDATE },
	{ "max-terms", required_argument, NULL, OPT_MAX_TERMS },
	{ "beam", required_argument, NULL, OPT_BEAM },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "refine", no_argument, NULL, OPT_REFINE },
	{ "warm-start", required_argument, NULL, OPT_WARM_START },
	{ "seeds", required_argument, NULL, OPT_SEEDS },
	{ "workers", required_argument, NULL, OPT_WORKERS },
	{ "plot-dir", required_argument, NULL, OPT_PLOT_DIR },
	READ_LONG_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct option *const fit_long_options = long_options;

/* Model selection ('perfmodel select', 'fit --form auto'): the candidates
 * and folds, from --forms, --loss (a list there), --cv, --cv-seed. Every
 * form is tried with every loss. */
struct select_args {
	const char *forms;	/* comma-separated; NULL: SELECT_DEFAULT_FORMS */
	const char *losses;	/* comma-separated; NULL: SELECT_DEFAULT_LOSSES */
	unsigned cv;		/* folds; 0: --validate's scheme or the default kfold:5 */
	uint64_t cv_seed;
	int cv_seed_set;	/* else the fit's seed */
	pm_validation v;	/* what the candidates are validated by */
};

struct fit_args {
	const char *data, *spec_path, *out;
	const char *target, *extrinsic, *intrinsic, *categorical;
	const char *ignore;	/* --ignore COLS */
	const char *target_kind, *resource, *per;	/* --target-kind, --resource, --per */
	const char *form;	/* --form additive|multiplicative or --formula TEXT */
	int json, quiet;
	int job;		/* run for batch (fit_command_to): -h is an error */
	pm_fit_options opt;
	int select, select_given;	/* choose the form; --forms/--cv/--cv-seed seen */
	int auto_form;		/* fit with no form given: chosen as select does */
	/* a batch job's inline spec, or --spec FILE's text (spec_text, owned) */
	const char *spec_json, *spec_name;
	char *spec_text;
	int spec_streamed;	/* spec_text came from a pipe, not a file */
	int discover, discover_given;	/* discover the form; its options seen */
	pm_discover_options dopt;
	struct select_args sel;
	const char *test_path;	/* --test FILE, or --validate FILE */
	const char *validate;	/* --validate SCHEME|FILE */
	pm_read_options ro;	/* how DATA and --test FILE are read */
	int split_seed_given;
	unsigned nseeds;
	const char *workers;	/* --workers: for --target lif */
	const char *plot_dir;	/* --plot-dir: the report's SVGs go there */
	const char *warm_start;	/* --warm-start FILE */
};

/* Split a comma-separated list in place (empty items skipped) into item[]
 * of at least (commas + 1) entries; returns the count. */
static size_t split_list(char *list, const char **item)
{
	size_t n = 0;

	for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		item[n++] = tok;
	return n;
}

static size_t list_capacity(const char *list)
{
	size_t n = 1;

	for (const char *p = list; *p; p++)
		n += *p == ',';
	return n;
}

/* 0 if every name in the comma-separated list is a loss. */
static int check_loss_list(const char *list)
{
	char *copy = strdup(list);
	const char **item = malloc(list_capacity(list) * sizeof(*item));
	size_t n = copy && item ? split_list(copy, item) : 0;
	int bad = n == 0;
	pm_loss l;

	for (size_t i = 0; i < n; i++)
		bad |= pm_loss_from_name(item[i], &l, NULL) != PM_OK;
	free(copy);
	free(item);
	return bad;
}

/* The command being parsed (fit, select or discover), which a usage error
 * names for its help. */
static const char *command = "fit";

static int bad_value(const char *opt, const char *value, const char *want)
{
	return usage_error(command, "--%s '%s': expected %s", opt, value, want);
}

static int parse_mutation(const char *text, pm_fit_options *o)
{
	char buf[64];
	char *comma;

	pm_snprintf(buf, sizeof(buf), "%s", text);
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
	case OPT_IGNORE: a->ignore = v; return 0;
	case OPT_DROP_INCOMPLETE: a->ro.drop_incomplete = 1; return 0;
	case OPT_TARGET_KIND:
		if (pm_target_kind_from_name(v, NULL, NULL))
			return bad_value("target-kind", v, "time, speedup, efficiency or throughput");
		a->target_kind = v;
		return 0;
	case OPT_RESOURCE: a->resource = v; return 0;
	case 'o': a->out = v; return 0;
	case OPT_JSON: a->json = 1; return 0;
	case 'q': a->quiet = 1; return 0;
	case OPT_NO_POLISH: o->polish = 0; return 0;
	case OPT_NO_INTERVALS: o->intervals = 0; return 0;
	case OPT_SCALE:
		if (strcmp(v, "auto") && strcmp(v, "none"))
			return bad_value("scale", v, "auto or none");
		o->scale = strcmp(v, "auto") ? PM_SCALE_NONE : PM_SCALE_AUTO;
		return 0;
	case OPT_LOSS:
		a->sel.losses = v;	/* read once the mode is known */
		return 0;
	case OPT_FORM:
		if (strcmp(v, "auto") == 0) {
			a->select = 1;
			return 0;
		}
		if (strcmp(v, "additive") && strcmp(v, "multiplicative"))
			return bad_value("form", v, "additive, multiplicative or auto "
					 "(a formula goes in --formula)");
		/* fall through */
	case OPT_FORMULA:
		if (a->form)
			return usage_error(command, "give one of --form and --formula, once");
		a->form = v;
		return 0;
	case OPT_FORMS:
		a->sel.forms = v;
		a->select_given = 1;
		return 0;
	case OPT_CV:
		if (parse_uint(v, 1000000, &u) || u < 2)
			return bad_value("cv", v, "a whole number of folds >= 2");
		a->sel.cv = (unsigned)u;
		a->select_given = 1;
		return 0;
	case OPT_CV_SEED:
		if (parse_uint(v, UINT64_MAX, &u))
			return bad_value("cv-seed", v, "a whole number >= 0");
		a->sel.cv_seed = u;
		a->sel.cv_seed_set = 1;
		a->select_given = 1;
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
	case OPT_ENGINE:
		return engine_option("fit", v, o);
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
	case OPT_TEST_FRACTION:
		if (parse_double(v, &o->test_fraction) || !(o->test_fraction > 0) ||
		    o->test_fraction >= 1)
			return bad_value("test-fraction", v, "a number between 0 and 1");
		return 0;
	case OPT_SPLIT_SEED:
		if (parse_uint(v, UINT64_MAX, &u))
			return bad_value("split-seed", v, "a whole number >= 0");
		o->split_seed = u;
		a->split_seed_given = 1;
		return 0;
	case OPT_TEST: a->test_path = v; return 0;
	case OPT_VALIDATE: a->validate = v; return 0;
	case OPT_REFINE: a->dopt.refine = a->discover_given = 1; return 0;
	case OPT_MAX_TERMS:
	case OPT_BEAM:
	case OPT_TOP:
		a->discover_given = 1;
		if (parse_uint(v, c == OPT_MAX_TERMS ? 6 : c == OPT_BEAM ? 64 : 100, &u) || u == 0)
			return bad_value(c == OPT_MAX_TERMS ? "max-terms" : c == OPT_BEAM ? "beam" : "top",
					 v, c == OPT_MAX_TERMS ? "a whole number from 1 to 6"
					 : c == OPT_BEAM ? "a whole number from 1 to 64"
							  : "a whole number from 1 to 100");
		*(c == OPT_MAX_TERMS ? &a->dopt.max_terms : c == OPT_BEAM ? &a->dopt.beam
									    : &a->dopt.top) =
			(unsigned)u;
		return 0;
	case OPT_PLOT_DIR: a->plot_dir = v; return 0;
	case OPT_WARM_START: a->warm_start = v; return 0;
	case OPT_WORKERS: a->workers = v; return 0;
	case OPT_SEEDS:
		if (parse_uint(v, 10000, &u) || u == 0)
			return bad_value("seeds", v, "a whole number from 1 to 10000");
		a->nseeds = (unsigned)u;
		return 0;
	}
	return -1;
}

/* --validate: a scheme (for the selection when selecting, else for the
 * fit), or a file of held-out rows; --cv K is kfold:K. Seeds: the folds'
 * is --cv-seed selecting, --split-seed fitting, else --seed. */
static int validation_args(struct fit_args *a)
{
	pm_validation v = { PM_SCHEME_NONE };
	pm_error err;

	if (a->validate && pm_validation_is_scheme(a->validate) &&
	    pm_validation_parse(a->validate, &v, &err))
		return usage_error(command, "--validate '%s': %s", a->validate, err.msg);
	if (a->validate && !v.scheme)
		a->test_path = a->validate;
	if (a->split_seed_given && !(a->opt.test_fraction > 0) &&
	    !(!a->select && !a->discover && v.scheme == PM_SCHEME_KFOLD))
		return usage_error(command, "--split-seed needs --test-fraction or --validate kfold");
	/* the whole run repeats from one number unless told otherwise */
	if (!a->split_seed_given)
		a->opt.split_seed = a->opt.seed;
	if (!a->select && !a->discover) {
		v.seed = a->opt.split_seed;
		a->opt.validate = v;
		return 0;
	}
	if (a->sel.cv && a->validate)
		return usage_error(command, "--cv K is --validate kfold:K: give one of them");
	if (a->sel.cv || !a->validate)
		v = (pm_validation){ .scheme = PM_SCHEME_KFOLD,
				     .folds = a->sel.cv ? a->sel.cv : 5 };
	v.seed = a->sel.cv_seed_set ? a->sel.cv_seed : a->opt.seed;
	if (a->sel.cv_seed_set && v.scheme != PM_SCHEME_KFOLD)
		return usage_error(command, "--cv-seed deals k folds: not with --validate %s",
				   a->validate);
	a->sel.v = v;
	a->dopt.validate = v;
	return 0;
}

/* --spec FILE's text, read once into a->spec_text (a->spec_json, named by
 * the path), so that a pipe (--spec <(...)) is not used up by a first look;
 * a file that cannot be read is left to build_spec, which says why. */
static void read_spec_text(struct fit_args *a)
{
	FILE *f;
	size_t len = 0, cap = 4096, got;
	char *text;

	if (a->spec_json || !a->spec_path || !(f = fopen(a->spec_path, "rb")))
		return;
	text = malloc(cap + 1);
	while (text && (got = fread(text + len, 1, cap - len, f)) > 0) {
		char *more;

		len += got;
		if (len < cap)
			continue;
		more = realloc(text, 2 * cap + 1);
		if (!more) {
			free(text);
			text = NULL;
		}
		text = more;
		cap *= 2;
	}
	if (text && !ferror(f) && memchr(text, '\0', len) == NULL) {
		struct stat st;

		text[len] = '\0';
		a->spec_text = text;
		a->spec_json = text;
		a->spec_name = a->spec_path;
		/* read already: no output can clobber a pipe's, nor wait on it */
		a->spec_streamed = fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode);
	} else {
		free(text);
	}
	fclose(f);
}

/* 1 when the spec (--spec FILE or a batch job's inline one) names a form;
 * one that cannot be read names none here: build_spec reports it. */
static int spec_form(struct fit_args *a)
{
	pm_spec *s = NULL;
	int has;

	read_spec_text(a);
	if (a->spec_json)
		pm_spec_parse(a->spec_json, a->spec_name, &s, NULL);
	has = pm_spec_form(s) != NULL;
	pm_spec_free(s);
	return has;
}

static int parse_args(int argc, char **argv, const char *usage, struct fit_args *a)
{
	int c, rc, power_given = 0, popsize_given = 0, tol_given = 0;
	double lambda_power = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, FIT_SHORT_OPTIONS, long_options, NULL)) != -1) {
		if (c == 'h') {
			/* a batch job ends nothing but itself, and prints nothing */
			if (a->job)
				return usage_error(NULL, "'%s' is --help, which is not an option of a "
						   "batch job", argv[optind - 1]);
			fputs(usage, stdout);
			exit(EXIT_OK);
		}
		if (c == '?')
			return usage_error(command, "unknown option '%s'", argv[optind - 1]);
		if (c == ':')
			return usage_error(command, "option '%s' needs a value", argv[optind - 1]);
		if (c == OPT_LAMBDA_POWER)
			power_given = 1;
		popsize_given |= c == OPT_POPSIZE;
		tol_given |= c == OPT_TOL;
		if ((rc = parse_read_option("fit", c, optarg, &a->ro)) > 0)
			return rc;
		if (rc < 0 && parse_option(c, optarg, a))
			return EXIT_USAGE;
		if (c == OPT_LAMBDA_POWER)
			lambda_power = a->opt.lambda_power;
	}
	engine_defaults(&a->opt, popsize_given, tol_given);
	/* --lambda-power wins over --lambda whatever their order. */
	if (power_given)
		a->opt.lambda_power = lambda_power;
	if (a->opt.reg == PM_REG_NONE && (a->opt.lambda_coef > 0 || a->opt.lambda_power > 0))
		return usage_error(command, "--lambda needs --reg l1 or l2");
	if ((a->test_path != NULL) + (a->opt.test_fraction > 0) + (a->validate != NULL) > 1)
		return usage_error(command, "--test, --test-fraction and --validate exclude each other");
	if (a->nseeds > 1 && a->select)
		return usage_error(command, "--seeds repeats one form's fit: not with model selection");
	if (!a->select && !a->discover && !a->form && !a->warm_start && !spec_form(a)) {
		if (a->nseeds > 1)
			return usage_error(command, "--seeds K repeats the fit of one form: name it "
					   "(--form additive, as the thesis's tables; --form "
					   "multiplicative; --formula TEXT)");
		/* the best model it can find (docs/model-selection.md) */
		a->select = a->auto_form = 1;
	}
	if (a->discover && (a->form || a->sel.forms || a->select))
		return usage_error("discover", "discover writes the formula: no --form, --formula "
				   "or --forms");
	if ((rc = kind_options("fit", &a->ro, a->target_kind, &a->per)))
		return rc;
	if (a->select_given && !a->select && !a->discover)
		return usage_error(command, "--forms, --cv and --cv-seed choose the form: not "
				   "with a form given (--form, --formula, the spec's \"form\")");
	if (a->warm_start && (a->select || a->discover))
		return usage_error(a->discover ? "discover" : usage == fit_usage ? "fit" : "select",
				   "--warm-start refits the form of one model: not with model "
				   "selection or discover");
	if (a->discover_given && !a->discover)
		return usage_error(command, "--max-terms, --beam, --top and --refine are discover's: "
				   "use 'perfmodel discover'");
	/* discover ranks by relative error: its winner is fitted so too */
	if (a->discover && !a->sel.losses)
		a->opt.loss = PM_LOSS_MAPE;
	if ((rc = validation_args(a)))
		return rc;
	/* selecting, --loss is a list: each form is tried with each loss */
	if (a->sel.losses && (a->select ? check_loss_list(a->sel.losses) != 0
					: pm_loss_from_name(a->sel.losses, &a->opt.loss, NULL) != PM_OK))
		return bad_value("loss", a->sel.losses, a->select ? "a list of mae, mse, mape, log"
								  : "mae, mse, mape or log");
	if (optind != argc - 1)
		return usage_error(command, optind == argc ? "no data file given"
							 : "one data file at a time");
	a->data = argv[optind];
	return 0;
}

/* Roles from --spec and the role flags; flags add to (or set) the spec's. */
static pm_status build_spec(const struct fit_args *a, pm_spec **out, pm_error *err)
{
	const struct role_flags r = { a->spec_path, a->target, a->extrinsic, a->intrinsic,
				      a->categorical, a->form, a->ignore, a->target_kind,
				      a->resource, a->per, a->spec_json, a->spec_name };

	return spec_from_flags(&r, out, err);
}

/* A selection's candidates and how they did, kept for the report: cand
 * points into flist and llist. */
struct selection {
	char *flist, *llist;
	pm_candidate *cand;
	pm_selection sel;	/* cand, and the result's cv once run */
};

static void selection_free(struct selection *c)
{
	free(c->flist);
	free(c->llist);
	free(c->cand);
}

/* The candidates of a selection: every form of sa's list with every loss
 * of its list (both already checked), pointing into *flist and *llist. */
static pm_status candidates(const struct select_args *sa, char **flist,
			    char **llist, pm_candidate **cand, size_t *n, pm_error *err)
{
	const char *ftext = sa->forms ? sa->forms : SELECT_DEFAULT_FORMS;
	const char *ltext = sa->losses ? sa->losses : SELECT_DEFAULT_LOSSES;
	const char **forms = malloc(list_capacity(ftext) * sizeof(*forms));
	const char **losses = malloc(list_capacity(ltext) * sizeof(*losses));
	size_t nf, nl;

	*flist = strdup(ftext);
	*llist = strdup(ltext);
	*cand = malloc(list_capacity(ftext) * list_capacity(ltext) * sizeof(**cand));
	*n = 0;
	if (!*flist || !*llist || !forms || !losses || !*cand) {
		free(forms);
		free(losses);
		*err = (pm_error){ .code = PM_ENOMEM };
		return PM_ENOMEM;
	}
	nf = split_list(*flist, forms);
	nl = split_list(*llist, losses);
	for (size_t i = 0; i < nf; i++)
		for (size_t j = 0; j < nl; j++) {
			(*cand)[*n] = (pm_candidate){ .form = forms[i] };
			pm_loss_from_name(losses[j], &(*cand)[(*n)++].loss, NULL);	/* checked */
		}
	free(forms);
	free(losses);
	return PM_OK;
}

/* pm_select_file on a's candidates, the table on `table` (NULL: none);
 * c keeps what was tried (selection_free). */
static pm_status select_run(const struct fit_args *a, const pm_source *src, const pm_spec *s,
			    FILE *table, pm_fit_result **r, struct selection *c, pm_error *err)
{
	const struct select_args *sa = &a->sel;
	pm_selection *sel = &c->sel;
	pm_status st;

	sel->validation = &sa->v;
	if ((st = candidates(sa, &c->flist, &c->llist, &c->cand, &sel->n, err)) ||
	    (st = pm_select_file(src, s, &a->opt, c->cand, sel->n, &sa->v, r, err)))
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

/* fit_command, or with sink fit_command_to. */
static int fit_run(int argc, char **argv, const char *usage, enum fit_mode mode,
		   const struct fit_sink *sink)
{
	struct fit_args a = { .out = "model.json", .opt = pm_fit_options_default(), .nseeds = 1,
			      .select = mode == MODE_SELECT, .discover = mode == MODE_DISCOVER,
			      .dopt = pm_discover_options_default() };
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
	int rc, to_stdout;

	command = cmd;
	/* calibrated intervals by default (docs/cli.md): 5 fold fits */
	a.opt.intervals = 5;
	a.job = sink != NULL;
	if (sink) {
		a.spec_json = sink->spec_json;
		a.spec_name = sink->spec_name;
	}
	if ((rc = parse_args(argc, argv, usage, &a))) {
		free(a.spec_text);
		return rc;
	}
	/* a batch job prints nothing but its diagnostics and saves nothing */
	a.quiet |= sink != NULL;
	if (sink && sink->cache)
		a.ro.cache = sink->cache(sink->arg, a.data, &a.ro);
	cap_threads(&a.opt, a.quiet);
	/* -o -: model.json on stdout, which the report then leaves alone */
	to_stdout = !sink && strcmp(a.out, "-") == 0;
	if (to_stdout && a.json) {
		free(a.spec_text);
		return usage_error(cmd, "-o - and --json both write to standard output: choose one");
	}
	rc = EXIT_FAIL;
	/* before any work: an output that would destroy an input, or cannot
	 * be a file, fails now rather than after the fit */
	if ((!to_stdout && !sink &&
	     pm_output_check(a.out, (const char *const[]){ a.data,
							    a.spec_streamed ? NULL : a.spec_path,
							    a.test_path }, 3, &err)) ||
	    (a.warm_start && pm_model_load_file(a.warm_start, &warm, &err))) {
		report_error(&err);
		free(a.spec_text);
		return rc;
	}
	a.opt.warm_start = warm;
	a.quiet |= to_stdout;
	src = (pm_source){ .path = a.data, .test_path = a.test_path, .read = a.ro };
	a.opt.stop = interrupt_install();
	/* select prints its table as it goes: a progress line would cut into it */
	progress_install(&a.opt, a.quiet || a.select || a.discover);
	table = a.quiet ? NULL : a.json ? stderr : stdout;
	if (build_spec(&a, &s, &err) ||
	    (a.workers && pm_spec_add_names(s, PM_SPEC_WORKERS, a.workers, &err)) ||
	    (a.select ? select_run(&a, &src, s, table, &r, &chosen, &err)
	     : a.discover ? pm_discover_file(&src, s, &a.opt, &a.dopt, a.nseeds, &r, &err)
			  : pm_fit_file(&src, s, &a.opt, a.nseeds, &r, &err))) {
		progress_end();
		report_error(&err);
		/* a selection cut short chooses nothing and saves nothing; a fit
		 * stopped before it had any finite cost saves nothing either */
		if (*a.opt.stop)
			rc = EXIT_INTERRUPTED;
		goto out;
	}
	progress_end();
	if (a.discover && table)
		print_discovery(table, r->discovery, &a.dopt.validate, a.dopt.refine);
	m = r->model;
	/* a batch keeps whole fits only: one the signal touched (the fit, or
	 * the calibration of its intervals) is run again (--resume) */
	if (sink && *a.opt.stop) {
		rc = EXIT_INTERRUPTED;
		goto out;
	}
	/* the fit is over: a signal now waits until the file is whole */
	interrupt_hold(1);
	if (sink) {
		if (sink->keep(m, sink->arg, &err))
			report_error(&err);
		else
			rc = EXIT_OK;
		goto out;
	}
	if (pm_model_to_json(m, &json, &err) ||
	    (to_stdout ? (fputs(json, stdout), PM_OK)
		       : pm_write_file_atomic(a.out, json, strlen(json), &err)) ||
	    (a.plot_dir && write_plots(a.plot_dir, m,
				       &(pm_report_data){ .data = r->data, .test = r->test },
				       (const char *const[]){ a.data, a.spec_path, a.test_path,
							      a.warm_start, a.out }, 5, &err))) {
		report_error(&err);
		goto out;
	}
	if (!a.quiet)
		print_read_info(a.json ? stderr : stdout, &r->info, r->data);
	if ((a.json || !a.quiet) &&
	    print_fit_report(m, r->data, a.out, a.json,
			     &(struct fit_extra){ a.select ? &chosen.sel : NULL, r->discovery,
						  &a.dopt.validate }))
		goto out;
	report_warnings(m);
	rc = EXIT_OK;
	if (pm_model_fit_info(m)->interrupted) {
		const pm_fit_info *fi = pm_model_fit_info(m);

		cprintf(stderr, "perfmodel: interrupted: saved the best model so far (%u "
			"generations) to %s", fi->generations, a.out);
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
	free(a.spec_text);
	selection_free(&chosen);
	pm_fit_result_free(r);
	pm_spec_free(s);
	pm_model_free(warm);
	return rc;
}

int fit_command(int argc, char **argv, const char *usage, enum fit_mode mode)
{
	return fit_run(argc, argv, usage, mode, NULL);
}

int fit_command_to(int argc, char **argv, enum fit_mode mode, const struct fit_sink *sink)
{
	return fit_run(argc, argv, mode == MODE_SELECT ? select_usage
				   : mode == MODE_DISCOVER ? discover_usage : fit_usage,
		       mode, sink);
}
