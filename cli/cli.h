/* What the subcommands share. The CLI parses arguments, calls the library
 * and prints; it holds no modelling logic. */
#ifndef PM_CLI_H
#define PM_CLI_H

#include <stdio.h>
#include "perfmodel/perfmodel.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

struct command {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
	const char *summary;
	const char *usage;	/* the full help text */
};

extern const struct command pm_commands[];
const struct command *find_command(const char *name);

/* "perfmodel: FILE:LINE:COL: message" on stderr (the parts it has). */
void report_error(const pm_error *err);
/* "perfmodel: message" on stderr; returns EXIT_USAGE, for bad arguments. */
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The options of the commands that read a model: -m/--model FILE, --json,
 * -h. Returns -1 to go on (optind at the first operand), else the exit
 * status to return. */
int parse_model_options(int argc, char **argv, const char *cmd, const char *usage,
			const char **model, int *json);

/* Strict numeric option values: the whole text must be a number in range. */
int parse_uint(const char *text, unsigned long long max, unsigned long long *out);
int parse_double(const char *text, double *out);

/* Write one CSV field, quoted when it needs to be (RFC 4180). */
void csv_field(FILE *f, const char *text);
/* Print a double so that it reads back bit-exact. */
void print_exact(FILE *f, double v);
/* Print s as a JSON string literal. */
void json_string(FILE *f, const char *s);

int cmd_fit(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_help(int argc, char **argv);

extern const char fit_usage[], predict_usage[], eval_usage[], help_usage[];

#endif
