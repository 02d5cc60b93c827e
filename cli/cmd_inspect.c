/* perfmodel inspect: what a measurements file or profile set holds, before
 * fitting it. The library writes the JSON document (pm_inspect_to_json);
 * the text is printed from it, so the two never disagree. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char inspect_usage[] =
	"usage: perfmodel inspect FILE|FOLDER [--json] [--target COL] [--key COLS] [...]\n"
	"\n"
	"What an input holds, read as a fit reads it: its format, the columns and their\n"
	"roles (parameters, the target, per-location values), each parameter's values,\n"
	"the points (configurations) with their repetitions, median value and run-to-run\n"
	"variation, the regions x metrics of an Extra-P file or CUBE profile (with the\n"
	"one read: --region/--metric, else the first), and a CUBE profile's metrics,\n"
	"locations and call tree. A FOLDER is a set of CUBE profiles in run folders.\n"
	"Values of 0 are counted, not refused.\n"
	"\n"
	"      --json        one JSON object on stdout (docs/json.md, schema/inspect.json)\n"
	"      --target COL  the measured column of a CSV file (without it the columns are\n"
	"                    listed, not the points); other formats: time_s\n"
	"      --key COLS    the columns that make a point (default: every column but the\n"
	"                    target and CUBE's loc_N)\n"
	"      --all         list every point, pair and call path (default: the first 40)\n"
	READ_USAGE
	"  -h, --help        this text\n";

enum { OPT_JSON = 1, OPT_TARGET, OPT_KEY, OPT_ALL };

static const struct option options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "help", no_argument, NULL, 'h' },
	READ_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

#define SHOWN 40	/* rows of a list printed without --all */

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *text(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* A JSON value as the text shows it: numbers with %g, strings as they are. */
static void print_value(const cJSON *v)
{
	if (cJSON_IsNumber(v))
		cprintf(stdout, "%.6g", v->valuedouble);
	else if (cJSON_IsString(v))
		cprintf(stdout, "%s", v->valuestring);
	else
		cprintf(stdout, "-");
}

/* "… and N more (--all lists them)" after a list cut at SHOWN. */
static void more(size_t n, const char *what)
{
	if (n > SHOWN)
		cprintf(stdout, "  ... and %zu more %s (--all or --json lists them)\n", n - SHOWN,
			what);
}

static void print_columns(const cJSON *doc, const char *role, const char *title)
{
	const cJSON *c;
	int any = 0;

	cJSON_ArrayForEach(c, get(doc, "columns")) {
		const cJSON *values = get(c, "values"), *v;
		size_t k = 0, n = (size_t)cJSON_GetArraySize(values);

		if (strcmp(text(c, "role"), role))
			continue;
		if (!any++)
			cprintf(stdout, "%s:\n", title);
		cprintf(stdout, "  %-*s %s, %.0f distinct", cols(text(c, "name"), 16), text(c, "name"),
			cJSON_IsTrue(get(c, "numeric")) ? "numbers" : "text", num(c, "distinct"));
		if (values) {
			cprintf(stdout, ":");
			cJSON_ArrayForEach(v, values) {
				if (k++ == 12 && n > 14) {
					cprintf(stdout, " ... (%zu more)", n - 12);
					break;
				}
				cprintf(stdout, "%s", k > 1 ? ", " : " ");
				print_value(v);
			}
		} else if (cJSON_IsTrue(get(c, "numeric"))) {
			cprintf(stdout, ", %.6g to %.6g", num(c, "min"), num(c, "max"));
		}
		if (num(c, "empty") > 0)
			cprintf(stdout, "; %.0f empty", num(c, "empty"));
		cprintf(stdout, "\n");
	}
}

/* Whether the points fill the grid of the parameters' values: " (the full
 * 3 x 2 grid)" or " (a full 5 x 4 grid would have 20)", which says how much a
 * fit has to go on between them. */
static void print_grid(const cJSON *doc, size_t n)
{
	const cJSON *c;
	double cells = 1;
	int k = 0;
	char dims[256] = "";

	cJSON_ArrayForEach(c, get(doc, "columns"))
		if (!strcmp(text(c, "role"), "parameter")) {
			size_t at = strlen(dims);

			cells *= num(c, "distinct");
			pm_snprintf(dims + at, sizeof(dims) - at, "%s%.0f", k++ ? " x " : "",
				    num(c, "distinct"));
		}
	if (k < 2)
		return;
	if (cells == (double)n)
		cprintf(stdout, " (the full %s grid)", dims);
	else
		cprintf(stdout, " (a full %s grid would have %.0f)", dims, cells);
}

static void print_points(const cJSON *doc, int all)
{
	const cJSON *p = get(doc, "points"), *e, *k;
	size_t n = 0, i = 0;

	if (!p) {
		cprintf(stdout, "points: give --target COL (the measured column) to group the rows "
			"into points\n");
		return;
	}
	n = (size_t)num(p, "count");
	cprintf(stdout, "points: %zu", n);
	print_grid(doc, n);
	cprintf(stdout, ", %.0f", num(p, "runs_min"));
	if (num(p, "runs_max") != num(p, "runs_min"))
		cprintf(stdout, "-%.0f", num(p, "runs_max"));
	cprintf(stdout, " run%s each", num(p, "runs_max") == 1 ? "" : "s");
	if (num(p, "dropped") > 0)
		cprintf(stdout, " after dropping %.0f warm-up runs", num(p, "dropped"));
	if (cJSON_IsNumber(get(p, "cv_median")))
		cprintf(stdout, "; run-to-run variation median %.2f %%, max %.2f %%",
			100 * num(p, "cv_median"), 100 * num(p, "cv_max"));
	cprintf(stdout, "\n");
	if (num(p, "zeros") > 0)
		cprintf(stdout, "  %.0f point%s the value 0 (a count, or no time at that scale): "
			"fit --loss mae (the default) or mse takes %s; mape, log and discover "
			"do not\n", num(p, "zeros"), num(p, "zeros") == 1 ? " has" : "s have",
			num(p, "zeros") == 1 ? "it" : "them");
	cJSON_ArrayForEach(e, get(p, "list")) {
		if (i++ == SHOWN && !all)
			break;
		cprintf(stdout, " ");
		cJSON_ArrayForEach(k, get(e, "point")) {
			cprintf(stdout, " %s=", k->string);
			print_value(k);
		}
		if (!get(e, "point")->child)
			cprintf(stdout, " (no parameter)");
		cprintf(stdout, ": %.0f run%s, %s %.6g", num(e, "runs"), num(e, "runs") == 1 ? "" : "s",
			num(e, "runs") > 1 ? "median" : "value", num(e, "value"));
		if (cJSON_IsNumber(get(e, "cv")))
			cprintf(stdout, ", cv %.2f %%", 100 * num(e, "cv"));
		cprintf(stdout, "\n");
	}
	if (!all)
		more(n, "points");
}

static void print_pairs(const cJSON *doc, const char *path, int all)
{
	const cJSON *pairs = get(doc, "regions"), *e;
	size_t n = (size_t)cJSON_GetArraySize(pairs), i = 0, width = 0;

	if (!pairs)
		return;
	cprintf(stdout, "regions x metrics: %zu (perfmodel batch --each-region %s fits each)\n", n,
		path);
	cJSON_ArrayForEach(e, pairs)
		if (strlen(text(e, "region")) > width)
			width = strlen(text(e, "region"));
	cJSON_ArrayForEach(e, pairs) {
		if (i++ == SHOWN && !all)
			break;
		cprintf(stdout, "  %-*s  %s\n", (int)width, text(e, "region"), text(e, "metric"));
	}
	if (!all)
		more(n, "pairs");
}

static void print_cube(const cJSON *doc, int all)
{
	const cJSON *c = get(doc, "cube"), *e;
	size_t n, i = 0;

	if (!c)
		return;
	cprintf(stdout, "CUBE profile %s", text(c, "profile"));
	if (get(c, "run_folders"))
		cprintf(stdout, " (the first of %.0f in %.0f run folders)", num(c, "profiles"),
			num(c, "run_folders"));
	cprintf(stdout, ": %.0f locations\n", num(c, "locations"));
	cprintf(stdout, "  metrics:\n");
	cJSON_ArrayForEach(e, get(c, "metrics")) {
		cprintf(stdout, "    %-*s %s %s", cols(text(e, "name"), 20), text(e, "name"),
			text(e, "type"), text(e, "dtype"));
		if (text(e, "unreadable"))
			cprintf(stdout, "  (not read: %s)", text(e, "unreadable"));
		cprintf(stdout, "\n");
	}
	n = (size_t)cJSON_GetArraySize(get(c, "callpaths"));
	cprintf(stdout, "  call tree (%zu call paths):\n", n);
	cJSON_ArrayForEach(e, get(c, "callpaths")) {
		const char *path = text(e, "path"), *name = strrchr(path, '>');

		if (i++ == SHOWN && !all)
			break;
		cprintf(stdout, "    %*s%s\n", 2 * (int)num(e, "depth"), "", name ? name + 1 : path);
	}
	if (!all)
		more(n, "call paths");
}

static void print_text(const cJSON *doc, int all)
{
	const char *path = text(doc, "file");
	const cJSON *c;

	cprintf(stdout, "%s: %s%s, %.0f run%s", path, text(doc, "format"),
		cJSON_IsTrue(get(doc, "folder")) ? " (a folder of run folders)" : "",
		num(doc, "runs"), num(doc, "runs") == 1 ? "" : "s");
	if (text(doc, "target"))
		cprintf(stdout, ", target %s", text(doc, "target"));
	cprintf(stdout, "\n");
	if (get(doc, "regions"))
		cprintf(stdout, "read: region '%s', metric '%s'\n", text(doc, "region"),
			text(doc, "metric"));
	if (text(doc, "scaling"))
		cprintf(stdout, "  %s values, %s\n", cJSON_IsTrue(get(doc, "inclusive")) ?
			"inclusive" : "exclusive", !strcmp(text(doc, "scaling"), "strong") ?
			"summed over the locations (--scaling strong)" :
			!strcmp(text(doc, "scaling"), "each") ? "their mean and each location's "
			"(--scaling each)" : "the mean over the locations (--scaling weak)");
	if (get(doc, "constant") && get(doc, "constant")->child) {
		cprintf(stdout, "the same in every run folder, so no parameter:");
		cJSON_ArrayForEach(c, get(doc, "constant"))
			cprintf(stdout, "%s %s = %.6g", c == get(doc, "constant")->child ? "" : ",",
				c->string, c->valuedouble);
		cprintf(stdout, "\n");
	}
	if (!text(doc, "target")) {
		print_columns(doc, "column", "columns");
	} else {
		print_columns(doc, "parameter", "parameters");
		print_columns(doc, "other", "other columns (not part of a point)");
		cJSON_ArrayForEach(c, get(doc, "columns"))
			if (!strcmp(text(c, "role"), "location")) {
				cprintf(stdout, "per-location columns: loc_1 .. loc_N (--workers "
					"'loc_*' for lif)\n");
				break;
			}
	}
	print_points(doc, all);
	print_pairs(doc, path, all);
	print_cube(doc, all);
}

/* "a,b" into a NULL-terminated list of its items (in place). */
static const char **split_key(char *list)
{
	size_t n = 2;
	const char **key;

	for (const char *p = list; *p; p++)
		n += *p == ',';
	if (!(key = calloc(n, sizeof(*key))))
		return NULL;
	n = 0;
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
		key[n++] = t;
	return key;
}

int cmd_inspect(int argc, char **argv)
{
	pm_read_options ro = pm_read_options_default();
	pm_error err = { 0 };
	int json = 0, all = 0, c, rc;
	const char *path, **key = NULL;
	char *doc = NULL, *keys = NULL;
	cJSON *root;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		switch (c) {
		case OPT_JSON: json = 1; break;
		case OPT_ALL: all = 1; break;
		case OPT_TARGET: ro.target = optarg; break;
		case OPT_KEY: keys = optarg; break;
		default:
			if ((rc = parse_read_option("inspect", c, optarg, &ro)) >= 0) {
				if (rc)
					return rc;
				break;
			}
			return common_option(c, argv, "inspect", inspect_usage);
		}
	}
	if ((rc = one_operand(argc, argv, "inspect", "file or folder", &path)))
		return rc;
	if (keys && !(key = split_key(keys))) {
		report_error(&(pm_error){ .code = PM_ENOMEM });
		return EXIT_FAIL;
	}
	ro.key = key;
	rc = pm_inspect_to_json(path, &ro, &doc, &err);
	free(key);
	if (rc || json)
		return print_document(rc, &doc, &err);
	if (!(root = cJSON_Parse(doc))) {
		free(doc);
		report_error(&(pm_error){ .code = PM_ENOMEM });
		return EXIT_FAIL;
	}
	free(doc);
	print_text(root, all);
	cJSON_Delete(root);
	return EXIT_OK;
}
