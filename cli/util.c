#include <errno.h>
#include <getopt.h>
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

/* The shortest of %.15g, %.16g, %.17g that reads back as the same double:
 * exact, and as short as a person would write it. */
void print_exact(FILE *f, double v)
{
	char buf[40];

	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static const struct option model_options[] = {
	{ "model", required_argument, NULL, 'm' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int parse_model_options(int argc, char **argv, const char *cmd, const char *usage,
			const char **model, int *json)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":m:h", model_options, NULL)) != -1) {
		switch (c) {
		case 'm': *model = optarg; break;
		case 'j': *json = 1; break;
		case 'h': fputs(usage, stdout); return EXIT_OK;
		case ':': return usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default: return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
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
