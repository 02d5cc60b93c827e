#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cvfprintf(FILE *f, const char *fmt, va_list ap)
{
	char small[1024], *buf = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = pm_vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= 0 && (size_t)n >= sizeof(small)) {
		buf = malloc((size_t)n + 1);
		n = buf ? pm_vsnprintf(buf, (size_t)n + 1, fmt, again) : -1;
	}
	va_end(again);
	if (n > 0)
		fwrite(buf, 1, (size_t)n, f);
	if (buf != small)
		free(buf);
	return n;
}

int cols(const char *s, int width)
{
	for (; *s; s++)
		width += ((unsigned char)*s & 0xC0) == 0x80;	/* a continuation byte */
	return width;
}

int cprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = cvfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

/* Where diagnostics go: stderr, or a batch job's capture (diag_capture);
 * per thread, as a batch's rank 0 runs jobs beside its dispatcher. */
static _Thread_local FILE *diag_stream;

FILE *diag(void)
{
	return diag_stream ? diag_stream : stderr;
}

FILE *diag_capture(FILE *f)
{
	FILE *old = diag_stream;

	diag_stream = f;
	return old;
}

/* s on diag() with control characters as \x1b: a message quotes file
 * names and the command line, whose bytes must not drive the terminal. */
static void put_visible(const char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			cprintf(diag(), "\\x%c%c", hex[*p >> 4], hex[*p & 15]);
		else
			fputc(*p, diag());
}

void report_error(const pm_error *err)
{
	fputs("perfmodel: ", diag());
	if (err->file[0]) {
		put_visible(err->file);
		if (err->line)
			cprintf(diag(), ":%u", err->line);
		if (err->line && err->column)
			cprintf(diag(), ":%u", err->column);
		fputs(": ", diag());
	}
	put_visible(err->msg[0] ? err->msg : pm_status_string(err->code));
	fputc('\n', diag());
}

void report_warnings(const pm_model *m)
{
	for (size_t i = 0; i < pm_model_nwarnings(m); i++) {
		fputs("perfmodel: warning: ", diag());
		put_visible(pm_model_warning(m, i));
		fputc('\n', diag());
	}
}

const char *r2_words(double r2)
{
	return r2 < 0 ? "worse than the mean" : NULL;
}

void cap_threads(pm_fit_options *o, int quiet)
{
	unsigned cpus = pm_cpu_count();

	if (o->threads <= cpus)
		return;
	if (!quiet)
		cprintf(diag(), "perfmodel: note: --threads %u is more than the %u CPUs online: "
			"using %u\n", o->threads, cpus, cpus);
	o->threads = cpus;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	pm_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fputs("perfmodel: ", diag());
	put_visible(msg);	/* it quotes the command line */
	if (cmd)
		cprintf(diag(), " (see 'perfmodel help %s')", cmd);
	fputc('\n', diag());
	return EXIT_USAGE;
}

int engine_option(const char *cmd, const char *name, pm_fit_options *o)
{
	pm_options set = { .fit = *o };
	pm_error err;

	if (pm_options_set(&set, "engine", name, &err))
		return usage_error(cmd, "%s", err.msg);
	o->engine = set.fit.engine;
	return 0;
}

void engine_defaults(pm_fit_options *o, int popsize_given, int tol_given)
{
	pm_fit_options d = pm_fit_options_engine(o->engine);

	if (!popsize_given)
		o->popsize = d.popsize;
	if (!tol_given)
		o->tol = d.tol;
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

static FILE *help_stream;

void help_capture(FILE *f)
{
	help_stream = f;
}

int common_option(int c, char **argv, const char *cmd, const char *usage)
{
	if (c == 'h') {
		fputs(usage, help_stream ? help_stream : stdout);
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

int kind_options(const char *cmd, pm_read_options *ro, const char *target_kind, const char **per)
{
	/* --per without --throughput is the target kind's (a throughput per
	 * COL); with it, reading's (time = per/throughput), as before */
	if (ro->per && !ro->throughput) {
		*per = ro->per;
		ro->per = NULL;
	}
	if (ro->throughput && target_kind)
		return usage_error(cmd, "--throughput turns its column into a time as it is "
				   "read (a model of time); --target-kind fits the target as "
				   "what it measures: give one of them");
	return 0;
}

pm_status spec_from_flags(const struct role_flags *r, pm_spec **out, pm_error *err)
{
	const pm_options o = { .spec_path = r->spec_path, .target = r->target,
			       .extrinsic = r->extrinsic, .intrinsic = r->intrinsic,
			       .categorical = r->categorical, .form = r->form,
			       .ignore = r->ignore, .target_kind = r->target_kind,
			       .resource = r->resource, .per = r->per };

	return pm_options_spec(&o, out, err);
}

int parse_read_option(const char *cmd, int c, const char *v, pm_read_options *o)
{
	/* the long names of OPT_READ_FORMAT... in their order (cli.h) */
	static const char *const name[] = { "format", "aggregate", "drop-first", "throughput",
					    "per", "name-pattern", "region", "metric", "weights",
					    "inclusive", "scaling" };
	pm_options set = { .read = *o };
	pm_error err;

	_Static_assert(sizeof(name) / sizeof(*name) == OPT_READ_SCALING - OPT_READ_FORMAT + 1,
		       "a name for each read option");
	if (c < OPT_READ_FORMAT || c > OPT_READ_SCALING)
		return -1;
	if (pm_options_set(&set, name[c - OPT_READ_FORMAT], v, &err))
		return usage_error(cmd, "%s", err.msg);
	*o = set.read;
	return 0;
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
	cprintf(f, "  weights: 1/variance of each configuration's time, %.3g to %.3g (mean 1)\n",
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
	cprintf(f, "%s (%s): %zu runs in %zu configurations, %u", pm_dataset_name(d),
		pm_format_name(info->format), info->runs, info->nrows, lo);
	if (hi != lo)
		cprintf(f, "-%u", hi);
	cprintf(f, " per configuration");
	if (info->dropped)
		cprintf(f, " after dropping %zu warm-up runs", info->dropped);
	if (!isnan(info->cv_max)) {
		cprintf(f, "\n  run-to-run coefficient of variation: median %.2f %%, max %.2f %% (",
			100 * info->cv_median, 100 * info->cv_max);
		for (size_t c = 0; c < last; c++)
			cprintf(f, "%s%s=%s", c ? ", " : "", pm_dataset_col_name(d, c),
				pm_dataset_cell(d, info->cv_max_row, c));
		fputc(')', f);
	}
	fputc('\n', f);
	print_weights(f, d);
}
