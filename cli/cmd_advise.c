/* perfmodel advise: which configuration to run (pm_model_advise). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char advise_usage[] =
	"usage: perfmodel advise -m MODEL.json CONFIG.json --vary NAME=VALUES [--vary ...]\n"
	"                        [--min-efficiency X] [--cost NAME] [--json]\n"
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
	"      --json              one JSON document on stdout\n"
	"  -h, --help              this text\n";

/* More values than any search of a grid needs; pm_model_advise then caps
 * the product. */
#define MAX_VALUES 1000000

struct axis {
	const char *text;	/* NAME=VALUES as given */
	char name[128];
	double *values;
	size_t n;
};

static int push(struct axis *a, double v)
{
	double *p;

	if (a->n >= MAX_VALUES)
		return usage_error("advise", "--vary '%s': more than %d values", a->text,
				   MAX_VALUES);
	if (!(p = realloc(a->values, (a->n + 1) * sizeof(*p)))) {
		fputs("perfmodel: out of memory\n", stderr);
		return EXIT_FAIL;
	}
	a->values = p;
	a->values[a->n++] = v;
	return 0;
}

static int positive(const struct axis *a, const char *text, double *v)
{
	if (parse_double(text, v) || !(*v > 0))
		return usage_error("advise", "--vary '%s': '%s' is not a number > 0", a->text, text);
	return 0;
}

/* A..B, A..B:xF or A..B:+S, the text after "..": rest. */
static int parse_range(struct axis *a, char *spec, char *rest)
{
	char *step = strchr(rest, ':');
	double lo, hi, f = 0, d = 0;
	int rc;

	if (step)
		*step++ = '\0';
	if ((rc = positive(a, spec, &lo)) || (rc = positive(a, rest, &hi)))
		return rc;
	if (lo > hi)
		return usage_error("advise", "--vary '%s': the range starts above its end", a->text);
	if (step && step[0] == 'x') {
		if (parse_double(step + 1, &f) || !(f > 1))
			return usage_error("advise", "--vary '%s': ':x' needs a factor > 1", a->text);
	} else if (step && step[0] == '+') {
		if (parse_double(step + 1, &d) || !(d > 0))
			return usage_error("advise", "--vary '%s': ':+' needs a step > 0", a->text);
	} else if (step) {
		return usage_error("advise", "--vary '%s': a step is ':xFACTOR' or ':+STEP'",
				   a->text);
	} else if (lo != floor(lo) || hi != floor(hi)) {
		return usage_error("advise", "--vary '%s': A..B counts in whole numbers; give "
				   "a step (A..B:+S) for others", a->text);
	}
	/* the end is included up to rounding: 0.1..0.7:+0.3 ends at 0.7 */
	for (double k = 0, v = lo; v <= hi * (1 + 1e-12); k++) {
		if ((rc = push(a, v)))
			return rc;
		v = f ? v * f : lo + (k + 1) * (d ? d : 1);
	}
	return 0;
}

static int parse_axis(struct axis *a)
{
	char buf[4096], *eq, *dots, *tok, *save = NULL;
	double v;
	int rc;

	if (strlen(a->text) >= sizeof(buf))
		return usage_error("advise", "--vary: the value is too long");
	strcpy(buf, a->text);
	eq = strchr(buf, '=');
	if (!eq || eq == buf || !eq[1] || (size_t)(eq - buf) >= sizeof(a->name))
		return usage_error("advise", "--vary '%s' is not NAME=VALUES", a->text);
	*eq = '\0';
	strcpy(a->name, buf);
	if ((dots = strstr(eq + 1, ".."))) {
		*dots = '\0';
		return parse_range(a, eq + 1, dots + 2);
	}
	if (eq[strlen(eq) - 1] == ',' || eq[1] == ',' || strstr(eq + 1, ",,"))
		return usage_error("advise", "--vary '%s': an empty value in the list", a->text);
	for (tok = strtok_r(eq + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if ((rc = positive(a, tok, &v)) || (rc = push(a, v)))
			return rc;
	return 0;
}

static int width(const char *name)
{
	return strlen(name) > 10 ? (int)strlen(name) : 10;
}

static void print_pick_text(const pm_model *m, const char *label, const pm_advice_pick *p,
			    const struct axis *ax, size_t nax)
{
	cprintf(stdout, "%-9s", label);
	if (!p->found) {
		puts("  none reaches the minimum efficiency");
		return;
	}
	for (size_t j = 0; j < nax; j++)
		cprintf(stdout, "  %*g", width(ax[j].name), p->value[j]);
	cprintf(stdout, "  %14.6g  %14.6g  %8.4g  %10.3f", p->time, p->cost, p->speedup, p->efficiency);
	if (pm_model_target_kind(m) != PM_TARGET_TIME)
		cprintf(stdout, "  %10.6g", p->predicted);
	cprintf(stdout, "\n");
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
	cprintf(stdout, "cost = %s x time; speedup and efficiency against the smallest %s; "
	       "largest: the largest %s with efficiency >= %g\n\n", res, res, res,
	       o->min_efficiency);
	cprintf(stdout, "%-9s", "");
	for (size_t j = 0; j < nax; j++)
		cprintf(stdout, "  %*s", width(ax[j].name), ax[j].name);
	cprintf(stdout, "  %14s  %14s  %8s  %10s", "time", "cost", "speedup", "efficiency");
	if (kind != PM_TARGET_TIME)
		cprintf(stdout, "  %10s", "predicted");
	cprintf(stdout, "\n");
	print_pick_text(m, "fastest", &a->fastest, ax, nax);
	print_pick_text(m, "cheapest", &a->cheapest, ax, nax);
	print_pick_text(m, "largest", &a->largest, ax, nax);
}

enum { OPT_VARY = 256, OPT_MINEFF, OPT_COST, OPT_JSON };

static const struct option options[] = {
	{ "model", required_argument, NULL, 'm' },
	{ "vary", required_argument, NULL, OPT_VARY },
	{ "min-efficiency", required_argument, NULL, OPT_MINEFF },
	{ "cost", required_argument, NULL, OPT_COST },
	{ "json", no_argument, NULL, OPT_JSON },
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
			if (parse_double(optarg, &o.min_efficiency) ||
			    !(o.min_efficiency > 0 && o.min_efficiency <= 1)) {
				usage_error("advise", "--min-efficiency must be a number in (0, 1]");
				goto out;
			}
			break;
		case OPT_COST: cost = optarg; break;
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
	for (size_t j = 0; j < nax; j++)
		if ((rc = parse_axis(&ax[j])))
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
		rc = print_document(pm_advice_to_json(m, model_path, vary, nax, &o, &a, &doc, &err),
				    &doc, &err);
		goto out;
	}
	print_advice(m, model_path, &a, ax, nax, &o);
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
