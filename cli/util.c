#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void report_error(const pm_error *err)
{
	fputs("perfmodel: ", stderr);
	if (err->file[0]) {
		fputs(err->file, stderr);
		if (err->line)
			fprintf(stderr, ":%u", err->line);
		if (err->line && err->column)
			fprintf(stderr, ":%u", err->column);
		fputs(": ", stderr);
	}
	fprintf(stderr, "%s\n", err->msg[0] ? err->msg : pm_status_string(err->code));
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("perfmodel: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, " (see 'perfmodel help %s')", cmd);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int parse_uint(const char *text, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!text || !*text || *text == '-' || *text == '+')
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *text, double *out)
{
	char *end;
	double v;

	if (!text || !*text)
		return -1;
	errno = 0;
	v = strtod(text, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

void csv_field(FILE *f, const char *text)
{
	if (!strpbrk(text, ",\"\r\n")) {
		fputs(text, f);
		return;
	}
	fputc('"', f);
	for (const char *p = text; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

void print_exact(FILE *f, double v)
{
	char buf[PM_DOUBLE_CHARS];

	fputs(pm_format_double(v, buf), f);
}

int print_document(pm_status st, char **doc, const pm_error *err)
{
	if (st) {
		report_error(err);
		return EXIT_FAIL;
	}
	fputs(*doc, stdout);
	free(*doc);
	*doc = NULL;
	return EXIT_OK;
}

static const struct option model_options[] = {
	{ "model", required_argument, NULL, 'm' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	READ_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

int common_option(int c, char **argv, const char *cmd, const char *usage)
{
	if (c == 'h') {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (c == ':')
		return usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
	return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int one_operand(int argc, char **argv, const char *cmd, const char *what, const char **path)
{
	if (optind == argc)
		return usage_error(cmd, "no %s given", what);
	if (optind != argc - 1)
		return usage_error(cmd, "one %s at a time", what);
	*path = argv[optind];
	return 0;
}

int parse_model_options(int argc, char **argv, const char *cmd, const char *usage,
			const char **model, int *json, pm_read_options *ro)
{
	int c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":m:h", model_options, NULL)) != -1) {
		switch (c) {
		case 'm': *model = optarg; break;
		case 'j': *json = 1; break;
		case 'h': fputs(usage, stdout); return EXIT_OK;
		case ':': return usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			if (ro && (rc = parse_read_option(cmd, c, optarg, ro)) >= 0) {
				if (rc)
					return rc;
				break;
			}
			return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	return -1;
}

pm_status spec_from_flags(const struct role_flags *r, pm_spec **out, pm_error *err)
{
	pm_spec *s = NULL;
	pm_status st;

	st = r->spec_path ? pm_spec_read_file(r->spec_path, &s, err) : pm_spec_new(&s, err);
	if (st)
		return st;
	if ((r->target && (st = pm_spec_set_target(s, r->target, err))) ||
	    (r->extrinsic && (st = pm_names_add_list(&s->extrinsic, r->extrinsic, err))) ||
	    (r->intrinsic && (st = pm_names_add_list(&s->intrinsic, r->intrinsic, err))) ||
	    (r->categorical && (st = pm_names_add_list(&s->categorical, r->categorical, err))) ||
	    (r->form && (st = pm_spec_set_form(s, r->form, err)))) {
		pm_spec_free(s);
		return st;
	}
	if (r->intrinsic || r->categorical)
		s->infer_roles = 0;
	*out = s;
	return PM_OK;
}

int parse_read_option(const char *cmd, int c, const char *v, pm_read_options *o)
{
	unsigned long long u;

	switch (c) {
	case OPT_READ_FORMAT:
		if (pm_format_from_name(v, &o->format, NULL))
			return usage_error(cmd, "--format '%s': expected auto, csv, hyperfine, "
					   "gbench, extrap, extrap-json or extrap-jsonl", v);
		return 0;
	case OPT_READ_AGGREGATE:
		if (pm_aggregate_from_name(v, &o->aggregate, NULL))
			return usage_error(cmd, "--aggregate '%s': expected median, mean, min or "
					   "none", v);
		return 0;
	case OPT_READ_DROP_FIRST:
		if (parse_uint(v, 1000000, &u))
			return usage_error(cmd, "--drop-first '%s': expected a whole number >= 0", v);
		o->drop_first = (unsigned)u;
		return 0;
	case OPT_READ_THROUGHPUT: o->throughput = v; return 0;
	case OPT_READ_PER: o->per = v; return 0;
	case OPT_READ_NAME_PATTERN: o->name_pattern = v; return 0;
	case OPT_READ_REGION: o->region = v; return 0;
	case OPT_READ_METRIC: o->metric = v; return 0;
	case OPT_READ_WEIGHTS:
		if (strcmp(v, "none") && strcmp(v, "inverse-variance"))
			return usage_error(cmd, "--weights '%s': expected none or inverse-variance",
					   v);
		o->weights = strcmp(v, "none") ? PM_WEIGHTS_INVERSE_VARIANCE : PM_WEIGHTS_NONE;
		return 0;
	}
	return -1;
}

/* The spec's inputs, NULL-terminated; NULL when it names none (then every
 * column but the time tells configurations apart). */
static int spec_key(const pm_spec *s, const char ***out)
{
	const pm_names *lists[] = { &s->intrinsic, &s->categorical, &s->extrinsic };
	size_t n = 0;
	const char **key;

	*out = NULL;
	for (size_t i = 0; i < 3; i++)
		n += lists[i]->n;
	if (!n)
		return 0;
	key = malloc((n + 1) * sizeof(*key));
	if (!key)
		return -1;
	n = 0;
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < lists[i]->n; k++)
			key[n++] = lists[i]->name[k];
	key[n] = NULL;
	*out = key;
	return 0;
}

pm_status read_for_model(const char *path, const pm_read_options *ro, const pm_model *m,
			 pm_dataset **d, pm_read_info *info, pm_error *err)
{
	size_t n = pm_model_ninputs(m);
	pm_read_options o = *ro;
	const char **key = malloc((n + 1) * sizeof(*key));
	pm_status rc;

	if (!key) {
		*err = (pm_error){ .code = PM_ENOMEM };
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return PM_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		key[i] = pm_model_input_name(m, i);
	key[n] = NULL;
	o.target = pm_model_target(m);
	o.key = key;
	rc = pm_dataset_read(path, &o, d, info, err);
	free(key);
	return rc;
}

pm_status derive_model_target(const pm_model *m, pm_dataset **d, pm_error *err)
{
	pm_dataset *x;
	pm_status st = pm_model_derive_lif(m, *d, &x, err);

	if (!st && x) {
		pm_dataset_free(*d);
		*d = x;
	}
	return st;
}

int merges_runs(const pm_read_options *ro)
{
	return (ro->aggregate != PM_AGG_DEFAULT && ro->aggregate != PM_AGG_NONE) ||
	       ro->drop_first || ro->weights != PM_WEIGHTS_NONE;
}

/* Worker times are per run: rows merged into configurations have none (the
 * merge keeps the configuration's columns and the time). A fit of the time
 * does not use them; a fit of the LIF cannot do without them. */
static pm_status workers_or_merge(const pm_read_options *ro, pm_spec *s, pm_error *err)
{
	if (!merges_runs(ro) || s->workers.n == 0)
		return PM_OK;
	if (s->target && strcmp(s->target, PM_LIF_COLUMN) == 0) {
		*err = (pm_error){ .code = PM_EINVAL };
		snprintf(err->msg, sizeof(err->msg),
			 "--target lif is taken per run from the worker times: not with "
			 "--aggregate, --drop-first or --weights, which merge runs into "
			 "configurations");
		return PM_EINVAL;
	}
	pm_names_clear(&s->workers);
	return PM_OK;
}

pm_status read_for_spec(const char *path, const pm_read_options *ro, pm_spec *s,
			pm_dataset **d, pm_read_info *info, pm_error *err)
{
	pm_read_options o = *ro;
	const char **key;
	pm_status rc;

	if (info)
		*info = (pm_read_info){ 0 };
	if ((rc = workers_or_merge(ro, s, err)))
		return rc;
	if (spec_key(s, &key)) {
		*err = (pm_error){ .code = PM_ENOMEM };
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return PM_ENOMEM;
	}
	o.target = s->target;
	o.key = key;
	rc = pm_dataset_read(path, &o, d, info, err);
	free(key);
	/* the JSON formats and --throughput make the time column themselves */
	if (!rc && !s->target && (info->format != PM_FORMAT_CSV || ro->throughput))
		rc = pm_spec_set_target(s, PM_INGEST_TIME_COLUMN, err);
	return rc;
}

/* The spread of the weights says how much they matter. */
static void print_weights(FILE *f, const pm_dataset *d)
{
	const double *w = pm_dataset_weights(d, NULL);
	double lo = INFINITY, hi = 0;

	if (!w)
		return;
	for (size_t r = 0; r < pm_dataset_nrows(d); r++) {
		lo = w[r] < lo ? w[r] : lo;
		hi = w[r] > hi ? w[r] : hi;
	}
	fprintf(f, "  weights: 1/variance of each configuration's time, %.3g to %.3g (mean 1)\n",
		lo, hi);
}

void print_read_info(FILE *f, const pm_read_info *info, const pm_dataset *d)
{
	unsigned lo = UINT_MAX, hi = 0;
	size_t last = pm_dataset_ncols(d) - 1;	/* the time: the rest is the configuration */

	if (!info->aggregated)
		return;
	for (size_t r = 0; r < info->nrows; r++) {
		lo = info->reps[r] < lo ? info->reps[r] : lo;
		hi = info->reps[r] > hi ? info->reps[r] : hi;
	}
	fprintf(f, "%s (%s): %zu runs in %zu configurations, %u", pm_dataset_name(d),
		pm_format_name(info->format), info->runs, info->nrows, lo);
	if (hi != lo)
		fprintf(f, "-%u", hi);
	fprintf(f, " per configuration");
	if (info->dropped)
		fprintf(f, " after dropping %zu warm-up runs", info->dropped);
	if (!isnan(info->cv_max)) {
		fprintf(f, "\n  run-to-run coefficient of variation: median %.2f %%, max %.2f %% (",
			100 * info->cv_median, 100 * info->cv_max);
		for (size_t c = 0; c < last; c++)
			fprintf(f, "%s%s=%s", c ? ", " : "", pm_dataset_col_name(d, c),
				pm_dataset_cell(d, info->cv_max_row, c));
		fputc(')', f);
	}
	fputc('\n', f);
	print_weights(f, d);
}
