/* perfmodel advise: which configuration to run (pm_model_advise). */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char advise_usage[] =
	"usage: perfmodel advise -m MODEL.json CONFIG.json --vary NAME=VALUES [--vary ...]\n"
	"                        [--min-efficiency X] [--cost NAME] [--quantile Q]\n"
	"                        [--max-extrapolation F|none] [--iterations N]\n"
	"                        [--setup-time S]\n"
	"                        [--json] [--slurm [--pick fastest|cheapest|largest]\n"
	"                         [--time-quantile Q] [--time-min-quantile Q]\n"
	"                         [--time-unit s|ms|min|h] [--slurm-map NAME=OPTION ...]]\n"
	"\n"
	"Predict every combination of the varied inputs, the others as in CONFIG.json\n"
	"({\"hidden\": 512, \"activation\": \"relu\", ...}; a value there for a varied input is\n"
	"replaced), and print the fastest, the cheapest (resource x time) and the largest\n"
	"resource count whose parallel efficiency is at least the minimum, each with its\n"
	"predicted time, speedup and efficiency (against the smallest resource value).\n"
	"A model of a target kind (fit --target-kind) is ranked by its time scale, which\n"
	"is proportional to the run time; its own quantity is shown in a column of its own.\n"
	"\n"
	"VALUES:  8,16,32      a list\n"
	"         1..64        every integer from 1 to 64\n"
	"         1..64:x2     1, 2, 4, ... 64 (times 2 up to the end)\n"
	"         0.5..4:+0.5  0.5, 1, 1.5, ... 4 (plus 0.5 up to the end)\n"
	"\n"
	"  -m, --model FILE        the fitted model\n"
	"      --vary NAME=VALUES  an input to vary (numeric; up to 8 of them)\n"
	"      --min-efficiency X  the threshold of 'largest', in (0, 1] (0.7)\n"
	"      --cost NAME         the resource: a varied input; cost = NAME x time\n"
	"                          (NAME-seconds is the same; default: the first --vary)\n"
	"      --quantile Q        rank by the Q-quantile time (0 < Q < 1; a model with\n"
	"                          prediction intervals): fastest and cheapest at risk Q;\n"
	"                          speedup and efficiency stay the predictions'\n"
	"      --max-extrapolation F\n"
	"                          leave out the combinations more than F times beyond\n"
	"                          the fitted data: an input above F x its largest\n"
	"                          fitted value or below its smallest / F (2; none: no\n"
	"                          limit). Every pick says how far outside the data it\n"
	"                          lies (a model with prediction intervals, which keep\n"
	"                          the fitted ranges)\n"
	"      --iterations N      a job runs N of the model's times (a model of one\n"
	"                          training iteration): times, costs, speedups and\n"
	"                          --slurm's limits are the job's (1)\n"
	"      --setup-time S      and a start-up of S once per job, in the model's\n"
	"                          time unit (0)\n"
	"      --json              one JSON document on stdout\n"
	"      --slurm             print one pick as #SBATCH lines: --time and --time-min\n"
	"                          from quantiles of its time (a model with intervals),\n"
	"                          and the option of each varied count (with --json:\n"
	"                          the advice document with a \"slurm\" member)\n"
	"      --pick P            the pick --slurm prints: fastest (the default: the\n"
	"                          shortest limit), cheapest or largest\n"
	"      --time-quantile Q   --time's quantile (0.95: 5 % of runs would be killed)\n"
	"      --time-min-quantile Q\n"
	"                          --time-min's quantile, at most --time's (0.8)\n"
	"      --time-unit U       the unit of the model's times: s (default), ms, min, h\n"
	"      --slurm-map NAME=OPTION\n"
	"                          the sbatch option of varied input NAME: --nodes,\n"
	"                          --ntasks, --cpus-per-task, --gpus or none (default by\n"
	"                          name: nodes, ntasks/tasks/ranks/processes/procs/\n"
	"                          world_size/workers, threads/cpus/cpus_per_task/\n"
	"                          omp_num_threads, gpus/num_gpus)\n"
	"  -h, --help              this text\n";

static int width(const char *name)
{
	return strlen(name) > 10 ? (int)strlen(name) : 10;
}

/* "  beyond the data: threads = 8, 4x the largest fitted (1 to 2)" after a
 * pick's row, when it lies outside the fitted ranges. */
static void print_beyond(const pm_model *m, const pm_advice_pick *p)
{
	double lo, hi;

	if (!(p->beyond > 1) || pm_model_input_range(m, p->beyond_input, &lo, &hi, NULL))
		return;
	cprintf(stdout, "  beyond the data: %s = %g, %.3gx %s fitted (%g to %g)",
		pm_model_input_name(m, p->beyond_input), p->beyond_value, p->beyond,
		p->beyond_value > hi ? "the largest" : "below the smallest", lo, hi);
}

static void print_pick_text(const pm_model *m, const char *label, const pm_advice_pick *p,
			    const struct axis *ax, size_t nax, const pm_advise_options *o)
{
	cprintf(stdout, "%-9s", label);
	if (!p->found) {
		puts("  none reaches the minimum efficiency");
		return;
	}
	for (size_t j = 0; j < nax; j++)
		cprintf(stdout, "  %*g", width(ax[j].name), p->value[j]);
	cprintf(stdout, "  %14.6g", p->time);
	if (o->quantile > 0)
		cprintf(stdout, "  %14.6g", p->quantile_time);
	cprintf(stdout, "  %14.6g  %8.4g  %10.3f", p->cost, p->speedup, p->efficiency);
	if (pm_model_target_kind(m) != PM_TARGET_TIME)
		cprintf(stdout, "  %10.6g", p->predicted);
	print_beyond(m, p);
	cprintf(stdout, "\n");
}

/* "q0.95": the quantile's column, named as predict --quantiles names it. */
static const char *quantile_label(char *out, size_t size, double q)
{
	pm_snprintf(out, size, "q%g", q);
	return out;
}

/* Below the picks: what the limit left out, or that where they lie is not
 * known (a model without the fitted ranges). */
static void print_where(const pm_advice *a, const pm_advise_options *o)
{
	if (!a->ranges)
		cprintf(stdout, "\nwhether a pick lies outside the data the model was fitted to is "
			"not known: the model keeps its fitted ranges with its prediction intervals, "
			"and it has none\n");
	else if (a->left_beyond)
		cprintf(stdout, "\n%zu of the %zu combinations lie more than %g times beyond the "
			"fitted data and were left out (--max-extrapolation)\n", a->left_beyond,
			a->combinations, o->max_extrapolation);
}

static void print_advice(const pm_model *m, const char *path, const pm_advice *a,
			 const struct axis *ax, size_t nax, const pm_advise_options *o)
{
	const char *res = ax[o->resource].name;
	pm_target_kind kind = pm_model_target_kind(m);

	cprintf(stdout, "%s: %s over %zu combinations\n", path, pm_model_target(m), a->combinations);
	/* what "time" is for a target kind, and that it is what is ranked */
	if (kind != PM_TARGET_TIME)
		cprintf(stdout, "ranked by time: the %s model's time scale (relative time); "
			"'predicted' is the model's %s\n", pm_target_kind_name(kind),
			pm_model_target(m));
	if (o->quantile > 0) {
		char q[32];

		cprintf(stdout, "ranked by the %g-quantile time (%s): cost = %s x %s; speedup "
			"and efficiency from the predicted times\n", o->quantile,
			quantile_label(q, sizeof(q), o->quantile), res, q);
	} else {
		cprintf(stdout, "cost = %s x time; ", res);
	}
	cprintf(stdout, "speedup and efficiency against the smallest %s; "
	       "largest: the largest %s with efficiency >= %g\n", res, res,
	       o->min_efficiency);
	if (o->job.iterations != 1 || o->job.setup != 0)
		cprintf(stdout, "a job: %g iterations after a set-up of %g; time, cost, speedup "
			"and efficiency are the job's\n", o->job.iterations, o->job.setup);
	cprintf(stdout, "\n");
	cprintf(stdout, "%-9s", "");
	for (size_t j = 0; j < nax; j++)
		cprintf(stdout, "  %*s", width(ax[j].name), ax[j].name);
	cprintf(stdout, "  %14s", "time");
	if (o->quantile > 0) {
		char q[32];

		cprintf(stdout, "  %14s", quantile_label(q, sizeof(q), o->quantile));
	}
	cprintf(stdout, "  %14s  %8s  %10s", "cost", "speedup", "efficiency");
	if (kind != PM_TARGET_TIME)
		cprintf(stdout, "  %10s", "predicted");
	cprintf(stdout, "\n");
	print_pick_text(m, "fastest", &a->fastest, ax, nax, o);
	print_pick_text(m, "cheapest", &a->cheapest, ax, nax, o);
	print_pick_text(m, "largest", &a->largest, ax, nax, o);
	print_where(a, o);
}

/* ---- --slurm ---------------------------------------------------------- */

/* What --slurm prints, from its options. */
struct slurm {
	int on;
	const char *pick;		/* fastest, cheapest or largest */
	double time_q, min_q;		/* --time's and --time-min's quantiles */
	double unit;			/* seconds per unit of the model's times */
	const char *option[PM_ADVISE_MAX_VARY];	/* each axis's sbatch option, or NULL */
	const char *map[PM_ADVISE_MAX_VARY];	/* --slurm-map NAME=OPTION as given */
	size_t nmap;
};

static const char *const slurm_options[] = { "--nodes", "--ntasks", "--cpus-per-task", "--gpus",
					     "none" };

/* name is the n bytes at text: an input named in --slurm-map NAME=OPTION. */
static int same_name(const char *name, const char *text, size_t n)
{
	size_t i = 0;

	while (i < n && name[i] && name[i] == text[i])
		i++;
	return i == n && !name[i];
}

/* Each axis's option: --slurm-map's, else the default by name; every
 * --slurm-map names a varied input, no option twice, and a count is whole. */
static int slurm_resolve(struct slurm *s, const struct axis *ax, size_t nax)
{
	for (size_t j = 0; j < nax; j++)
		s->option[j] = pm_slurm_option(ax[j].name);
	for (size_t k = 0; k < s->nmap; k++) {
		const char *eq = strchr(s->map[k], '='), *opt = eq ? eq + 1 : NULL;
		size_t j = 0, n = eq ? (size_t)(eq - s->map[k]) : 0, o = 0;

		while (opt && o < sizeof(slurm_options) / sizeof(slurm_options[0]) &&
		       strcmp(opt, slurm_options[o]))
			o++;
		if (!n || !opt || o == sizeof(slurm_options) / sizeof(slurm_options[0]))
			return usage_error("advise", "--slurm-map '%s': expected NAME=OPTION, OPTION "
					   "one of --nodes, --ntasks, --cpus-per-task, --gpus or "
					   "none", s->map[k]);
		while (j < nax && !same_name(ax[j].name, s->map[k], n))
			j++;
		if (j == nax)
			return usage_error("advise", "--slurm-map '%s': '%.*s' is not a --vary input",
					   s->map[k], (int)n, s->map[k]);
		for (size_t i = 0; i < k; i++)
			if (strncmp(s->map[i], s->map[k], n + 1) == 0)
				return usage_error("advise", "--slurm-map: '%.*s' is mapped twice",
						   (int)n, s->map[k]);
		s->option[j] = strcmp(opt, "none") ? slurm_options[o] : NULL;
	}
	for (size_t j = 0; j < nax; j++) {
		for (size_t i = 0; s->option[j] && i < j; i++)
			if (s->option[i] && strcmp(s->option[i], s->option[j]) == 0)
				return usage_error("advise", "--slurm: '%s' and '%s' both map to %s; "
						   "leave one out with --slurm-map NAME=none",
						   ax[i].name, ax[j].name, s->option[j]);
		for (size_t k = 0; s->option[j] && k < ax[j].n; k++)
			if (ax[j].values[k] != floor(ax[j].values[k]))
				return usage_error("advise", "--vary '%s': %s counts whole numbers, "
						   "not %g (leave it out with --slurm-map %s=none)",
						   ax[j].text, s->option[j], ax[j].values[k],
						   ax[j].name);
	}
	return 0;
}

/* A --slurm failure into err (PM_EINVAL): the CLI's own, not the library's. */
static pm_status slurm_fail(pm_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*err = (pm_error){ .code = PM_EINVAL };
	pm_vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return PM_EINVAL;
}

/* Seconds per --time-unit U; 0 for no such unit. */
static double time_unit(const char *u)
{
	static const struct {
		const char *name;
		double seconds;
	} units[] = { { "s", 1 }, { "ms", 1e-3 }, { "min", 60 }, { "h", 3600 } };

	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (strcmp(u, units[k].name) == 0)
			return units[k].seconds;
	return 0;
}

/* "at most 5 %": the runs a limit at quantile q kills, rounding up aside */
static double killed(double q)
{
	return (1 - q) * 100;
}

/* A limit pm_slurm_time made UNLIMITED (minutes 0: longer than sbatch
 * reads): a warning naming the time it stands for, in --json mode too. */
static void warn_unlimited(const char *option, uint64_t minutes, const char *pick, double q,
			   double seconds)
{
	char longest[PM_SLURM_TIME_CHARS];

	if (minutes)
		return;
	pm_slurm_time(PM_SLURM_MAX_MINUTES * 60.0, longest, NULL, NULL);
	cprintf(diag(), "perfmodel: warning: %s=UNLIMITED: the %s pick's %g-quantile time, "
		"%.6g s (%.6g days), is longer than the longest limit Slurm reads (%s)\n",
		option, pick, q, seconds, seconds / 86400, longest);
}

/* s->pick of a, and the time limits at it (pm_slurm_limits_at). */
static pm_status slurm_limits(const pm_model *m, const char *path, const pm_advice *a,
			      const pm_advise_options *o, const pm_vary *vary, size_t nax,
			      const double *x0, const struct slurm *s, const pm_advice_pick **pick,
			      pm_slurm_limits *l, pm_error *err)
{
	const pm_advice_pick *p = strcmp(s->pick, "fastest") == 0  ? &a->fastest
				  : strcmp(s->pick, "cheapest") == 0 ? &a->cheapest
								     : &a->largest;
	double *x;
	pm_status st;

	if (pm_model_target_kind(m) != PM_TARGET_TIME)
		return slurm_fail(err, "--slurm needs a model of a run time: %s's target "
				  "is a %s (its times are relative)", path,
				  pm_target_kind_name(pm_model_target_kind(m)));
	if (!p->found)
		return slurm_fail(err, "--pick largest: no combination reaches the minimum "
				  "efficiency %g", o->min_efficiency);
	if (!(x = malloc((pm_model_ninputs(m) + 1) * sizeof(*x))))
		return slurm_fail(err, "out of memory");
	memcpy(x, x0, pm_model_ninputs(m) * sizeof(*x));
	for (size_t j = 0; j < nax; j++)
		x[vary[j].input] = p->value[j];
	st = pm_slurm_limits_at(m, x, &o->job, s->time_q, s->min_q, s->unit, l, err);
	free(x);
	*pick = p;
	if (!st) {
		warn_unlimited("--time", l->time_minutes, s->pick, s->time_q, l->time_s);
		warn_unlimited("--time-min", l->time_min_minutes, s->pick, s->min_q, l->time_min_s);
	}
	return st;
}

/* An #SBATCH time line and what its limit means (min: the quantile in
 * minutes): the share of runs it kills, or, UNLIMITED (minutes 0), why. */
static void print_limit(int width, const char *line, double q, double min, uint64_t minutes,
			const char *before, const char *after)
{
	cprintf(stdout, "%-*s  # %g-quantile %.3g min: ", width, line, q, min);
	if (minutes)
		cprintf(stdout, "%sat most %g %% %s\n", before, killed(q), after);
	else
		cprintf(stdout, "longer than Slurm's longest limit\n");
}

/* The #SBATCH lines of s->pick: the time limits, then each varied input's
 * option or a comment why none. Prints nothing when it fails. */
static pm_status print_slurm(const pm_model *m, const char *path, const pm_advice *a,
			     const pm_advise_options *o, const struct axis *ax, const pm_vary *vary,
			     size_t nax, const double *x0, const struct slurm *s, pm_error *err)
{
	const pm_advice_pick *p;
	pm_slurm_limits l;
	char line[2][64], opt[PM_ADVISE_MAX_VARY][64];
	double tq, tm;
	int width = 0;
	pm_status st;

	if ((st = slurm_limits(m, path, a, o, vary, nax, x0, s, &p, &l, err)))
		return st;
	tq = l.time_s / s->unit;
	tm = l.time_min_s / s->unit;
	pm_snprintf(line[0], sizeof(line[0]), "#SBATCH --time=%s", l.time);
	pm_snprintf(line[1], sizeof(line[1]), "#SBATCH --time-min=%s", l.time_min);
	for (size_t j = 0; j < nax; j++)
		if (s->option[j])
			pm_snprintf(opt[j], sizeof(opt[j]), "#SBATCH %s=%.0f", s->option[j],
				    p->value[j]);
	for (size_t k = 0; k < 2; k++)
		width = (int)strlen(line[k]) > width ? (int)strlen(line[k]) : width;
	for (size_t j = 0; j < nax; j++)
		if (s->option[j] && (int)strlen(opt[j]) > width)
			width = (int)strlen(opt[j]);
	cprintf(stdout, "# perfmodel advise: the %s of %zu combinations (%s", s->pick,
		a->combinations, path);
	if (o->quantile > 0)
		cprintf(stdout, ", ranked by the %g-quantile time", o->quantile);
	if (o->job.iterations != 1 || o->job.setup != 0)
		cprintf(stdout, "; a job of %g iterations after a set-up of %g", o->job.iterations,
			o->job.setup);
	cprintf(stdout, ")\n");
	print_limit(width, line[0], s->time_q, tq * s->unit / 60, l.time_minutes, "",
		    "of runs would be killed at this limit");
	print_limit(width, line[1], s->min_q, tm * s->unit / 60, l.time_min_minutes,
		    "if Slurm lowers the limit to it, ", "would be killed");
	for (size_t j = 0; j < nax; j++) {
		if (s->option[j])
			cprintf(stdout, "%-*s  # %s = %g\n", width, opt[j], ax[j].name, p->value[j]);
		else
			cprintf(stdout, "# %s = %g: no sbatch option (--slurm-map %s=OPTION gives "
				"it one)\n", ax[j].name, p->value[j], ax[j].name);
	}
	if (l.extrapolated)
		cprintf(stdout, "# warning: this configuration lies outside the data the model was "
			"fitted to (%.3g ranges' widths beyond): its quantiles are widened, but "
			"check the limits against a run\n", l.distance);
	return PM_OK;
}

/* advise --slurm --json: the advice document with its "slurm" member. */
static pm_status slurm_json(const pm_model *m, const char *path, const pm_advice *a,
			    const pm_advise_options *o, const pm_vary *vary, size_t nax,
			    const double *x0, const struct slurm *s, char **doc, pm_error *err)
{
	const pm_advice_pick *p;
	pm_slurm_limits l;
	pm_slurm_pick sp = { s->pick, s->time_q, s->min_q, s->option, &l };
	pm_status st = slurm_limits(m, path, a, o, vary, nax, x0, s, &p, &l, err);

	return st ? st : pm_advice_slurm_to_json(m, path, vary, nax, o, a, &sp, doc, err);
}

enum { OPT_VARY = 256, OPT_MINEFF, OPT_COST, OPT_JSON, OPT_QUANTILE, OPT_SLURM, OPT_PICK,
       OPT_TIME_Q, OPT_TIME_MIN_Q, OPT_TIME_UNIT, OPT_SLURM_MAP, OPT_MAX_EXTRAPOLATION,
       OPT_ITERATIONS, OPT_SETUP };

static const struct option options[] = {
	{ "model", required_argument, NULL, 'm' },
	{ "vary", required_argument, NULL, OPT_VARY },
	{ "min-efficiency", required_argument, NULL, OPT_MINEFF },
	{ "cost", required_argument, NULL, OPT_COST },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quantile", required_argument, NULL, OPT_QUANTILE },
	{ "slurm", no_argument, NULL, OPT_SLURM },
	{ "pick", required_argument, NULL, OPT_PICK },
	{ "time-quantile", required_argument, NULL, OPT_TIME_Q },
	{ "time-min-quantile", required_argument, NULL, OPT_TIME_MIN_Q },
	{ "time-unit", required_argument, NULL, OPT_TIME_UNIT },
	{ "slurm-map", required_argument, NULL, OPT_SLURM_MAP },
	{ "max-extrapolation", required_argument, NULL, OPT_MAX_EXTRAPOLATION },
	{ "iterations", required_argument, NULL, OPT_ITERATIONS },
	{ "setup-time", required_argument, NULL, OPT_SETUP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The index in ax of the --cost input (NULL: 0), or -1 after an error. */
static long find_resource(const char *cost, const struct axis *ax, size_t nax)
{
	size_t len;

	if (!cost)
		return 0;
	len = strlen(cost);
	if (len > 8 && strcmp(cost + len - 8, "-seconds") == 0)
		len -= 8;
	for (size_t j = 0; j < nax; j++)
		if (strlen(ax[j].name) == len && strncmp(ax[j].name, cost, len) == 0)
			return (long)j;
	usage_error("advise", "--cost '%s': the resource must be one of the --vary inputs", cost);
	return -1;
}

int cmd_advise(int argc, char **argv)
{
	struct axis ax[PM_ADVISE_MAX_VARY] = { 0 };
	pm_vary vary[PM_ADVISE_MAX_VARY];
	pm_advise_options o = pm_advise_options_default();
	const char *model_path = NULL, *cost = NULL;
	size_t nax = 0;
	long res;
	int json = 0, c, rc = EXIT_USAGE;
	pm_model *m = NULL;
	pm_point *p = NULL;
	pm_advice a;
	pm_error err = { 0 };
	char *doc = NULL;
	struct slurm sl = { .pick = "fastest", .time_q = 0.95, .min_q = 0.8, .unit = 1 };
	int slurm_opts = 0;	/* options that need --slurm */

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":m:h", options, NULL)) != -1) {
		switch (c) {
		case 'm': model_path = optarg; break;
		case OPT_VARY:
			if (nax == PM_ADVISE_MAX_VARY) {
				usage_error("advise", "at most %d --vary", PM_ADVISE_MAX_VARY);
				goto out;
			}
			ax[nax++].text = optarg;
			break;
		case OPT_MINEFF:
			if (pm_parse_number(optarg, &o.min_efficiency) ||
			    !(o.min_efficiency > 0 && o.min_efficiency <= 1)) {
				usage_error("advise", "--min-efficiency must be a number in (0, 1]");
				goto out;
			}
			break;
		case OPT_QUANTILE:
			if (pm_parse_number(optarg, &o.quantile) || !(o.quantile > 0 && o.quantile < 1)) {
				usage_error("advise", "--quantile '%s': expected a probability "
					    "between 0 and 1 (0.9)", optarg);
				goto out;
			}
			break;
		case OPT_MAX_EXTRAPOLATION:
			if (strcmp(optarg, "none") == 0) {
				o.max_extrapolation = 0;
			} else if (pm_parse_number(optarg, &o.max_extrapolation) ||
				   !(o.max_extrapolation >= 1 && isfinite(o.max_extrapolation))) {
				usage_error("advise", "--max-extrapolation '%s': expected a factor "
					    ">= 1 (2: twice the largest fitted value) or none",
					    optarg);
				goto out;
			}
			break;
		case OPT_ITERATIONS:
			if (pm_parse_number(optarg, &o.job.iterations) ||
			    !(o.job.iterations > 0 && isfinite(o.job.iterations))) {
				usage_error("advise", "--iterations '%s': expected a number > 0 (2000)",
					    optarg);
				goto out;
			}
			break;
		case OPT_SETUP:
			if (pm_parse_number(optarg, &o.job.setup) ||
			    !(o.job.setup >= 0 && isfinite(o.job.setup))) {
				usage_error("advise", "--setup-time '%s': expected a number >= 0 in "
					    "the model's time unit", optarg);
				goto out;
			}
			break;
		case OPT_COST: cost = optarg; break;
		case OPT_SLURM: sl.on = 1; break;
		case OPT_PICK:
			slurm_opts = 1;
			if (strcmp(optarg, "fastest") && strcmp(optarg, "cheapest") &&
			    strcmp(optarg, "largest")) {
				usage_error("advise", "--pick '%s': expected fastest, cheapest or "
					    "largest", optarg);
				goto out;
			}
			sl.pick = optarg;
			break;
		case OPT_TIME_Q:
		case OPT_TIME_MIN_Q: {
			double *q = c == OPT_TIME_Q ? &sl.time_q : &sl.min_q;

			slurm_opts = 1;
			if (pm_parse_number(optarg, q) || !(*q > 0 && *q < 1)) {
				usage_error("advise", "--%s '%s': expected a probability between 0 "
					    "and 1", c == OPT_TIME_Q ? "time-quantile" :
					    "time-min-quantile", optarg);
				goto out;
			}
			break;
		}
		case OPT_TIME_UNIT:
			slurm_opts = 1;
			if (!(sl.unit = time_unit(optarg))) {
				usage_error("advise", "--time-unit '%s': expected s, ms, min or h",
					    optarg);
				goto out;
			}
			break;
		case OPT_SLURM_MAP:
			slurm_opts = 1;
			if (sl.nmap == PM_ADVISE_MAX_VARY) {
				usage_error("advise", "at most %d --slurm-map", PM_ADVISE_MAX_VARY);
				goto out;
			}
			sl.map[sl.nmap++] = optarg;
			break;
		case OPT_JSON: json = 1; break;
		case 'h': fputs(advise_usage, stdout); rc = EXIT_OK; goto out;
		case ':': usage_error("advise", "option '%s' needs a value", argv[optind - 1]); goto out;
		default: usage_error("advise", "unknown option '%s'", argv[optind - 1]); goto out;
		}
	}
	if (!model_path) {
		usage_error("advise", "give the model with -m MODEL.json");
		goto out;
	}
	if (optind != argc - 1) {
		usage_error("advise", "give one config file");
		goto out;
	}
	if (nax == 0) {
		usage_error("advise", "give at least one --vary NAME=VALUES");
		goto out;
	}
	if (slurm_opts && !sl.on) {
		usage_error("advise", "--pick, --time-quantile, --time-min-quantile, --time-unit "
			    "and --slurm-map go with --slurm");
		goto out;
	}
	if (sl.on && sl.min_q > sl.time_q) {
		usage_error("advise", "--time-min-quantile %g is above --time-quantile %g: "
			    "--time-min is the lower limit", sl.min_q, sl.time_q);
		goto out;
	}
	for (size_t j = 0; j < nax; j++)
		if ((rc = advise_parse_axis(&ax[j])))
			goto out;
	if (sl.on && (rc = slurm_resolve(&sl, ax, nax)))
		goto out;
	rc = EXIT_USAGE;
	if ((res = find_resource(cost, ax, nax)) < 0)
		goto out;
	o.resource = (size_t)res;
	rc = EXIT_FAIL;
	if (pm_model_load_file(model_path, &m, &err) || pm_point_new(m, &p, &err) ||
	    pm_point_set_json_file(p, argv[optind], &err))
		goto fail;
	for (size_t j = 0; j < nax; j++) {
		vary[j] = (pm_vary){ 0, ax[j].n, ax[j].values };
		if (pm_model_input_index(m, ax[j].name, &vary[j].input, &err))
			goto fail;
	}
	if (pm_model_advise(m, pm_point_values(p), vary, nax, &o, &a, &err))
		goto fail;
	if (json) {
		rc = print_document(sl.on ? slurm_json(m, model_path, &a, &o, vary, nax,
						       pm_point_values(p), &sl, &doc, &err)
					  : pm_advice_to_json(m, model_path, vary, nax, &o, &a, &doc,
							      &err),
				    &doc, &err);
		goto out;
	}
	if (sl.on) {
		if (print_slurm(m, model_path, &a, &o, ax, vary, nax, pm_point_values(p), &sl, &err))
			goto fail;
	} else {
		print_advice(m, model_path, &a, ax, nax, &o);
	}
	rc = EXIT_OK;
	goto out;
fail:
	report_error(&err);
out:
	for (size_t j = 0; j < nax; j++)
		free(ax[j].values);
	pm_point_free(p);
	pm_model_free(m);
	return rc;
}
