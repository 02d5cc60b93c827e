/* What the subcommands share. The CLI parses arguments, calls the library
 * and prints; it holds no modelling logic. */
#ifndef PM_CLI_H
#define PM_CLI_H

#include <signal.h>
#include <stdio.h>
#include "perfmodel/options.h"

/* EXIT_INTERRUPTED: 128 + SIGINT, as a shell reports a run stopped by ^C */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

struct command {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
	const char *summary;
	const char *usage;	/* the full help text */
};

/* The command table, ended by a NULL name, and its lookup (cmd_help.c). */
extern const struct command pm_commands[];
const struct command *find_command(const char *name);

/* "perfmodel: FILE:LINE:COL: message" on stderr (the parts it has). */
/* printf to f through the library's number formatting: '.' as the decimal
 * point whatever the locale (main sets it from the environment, as GNU
 * tools do), so that output is the same bytes everywhere. */
int cprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cvfprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* The field width to give printf's %*s or %-*s for s to take `width`
 * columns: printf counts bytes, and a name's UTF-8 character ("größe") is
 * 2 to 4 of them; each character is taken as one column. */
int cols(const char *s, int width);
void report_error(const pm_error *err);
/* Where report_error, usage_error, report_warnings and cap_threads' note
 * go: stderr, unless diag_capture(f) sent this thread's to f (the ranks of
 * perfmodel-batch-mpi but rank 0, batch_mpi.c); diag_capture(NULL)
 * restores stderr. Returns the stream captured before. */
FILE *diag(void);
FILE *diag_capture(FILE *f);
/* Where common_option's help text goes: stdout, unless help_capture(f)
 * sent it to f (perfmodel-batch-mpi: every rank parses the command line,
 * rank 0 alone prints); help_capture(NULL) restores stdout. */
void help_capture(FILE *f);
/* Each of m's warnings as "perfmodel: warning: TEXT" on stderr. Printed
 * even with --quiet, which silences progress and reports, not what makes a
 * result untrustworthy (docs/cli.md). */
void report_warnings(const pm_model *m);
/* What the printed tables add to an R² (docs/maths.md, "Metrics"): "worse
 * than the mean" below 0 (the rows' own mean would have predicted them
 * better), else NULL. Adjusted R² is NaN when the unknowns leave it no
 * degree of freedom: the tables print "n/a (" ADJ_R2_WHY ")" (JSON: null). */
const char *r2_words(double r2);
#define ADJ_R2_WHY "unknowns ≥ rows - 1"
/* "perfmodel: message" on stderr; returns EXIT_USAGE, for bad arguments. */
/* --threads beyond the CPUs online only take turns (and a thousand would
 * cost their stacks): cap it, with a note on stderr unless quiet. */
void cap_threads(pm_fit_options *o, int quiet);
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The options of the commands that read a model: -m/--model FILE, --json,
 * -h, and when ro is not NULL the read options. Returns -1 to go on (optind
 * at the first operand), else the exit status to return. */
/* The getopt cases every subcommand shares: 'h' prints usage and gives
 * EXIT_OK; ':' (no value) and '?' (unknown option) are usage errors. */
int common_option(int c, char **argv, const char *cmd, const char *usage);
/* The one file operand after the options into *path; else a usage error
 * ("no WHAT given", or "one WHAT at a time") and EXIT_USAGE. 0 on success. */
int one_operand(int argc, char **argv, const char *cmd, const char *what, const char **path);

int parse_model_options(int argc, char **argv, const char *cmd, const char *usage,
			const char **model, int *json, pm_read_options *ro);

/* SIGINT and SIGTERM (cli/interrupt.c). interrupt_install() sets the
 * handler and returns the flag for pm_fit_options.stop: the first signal
 * sets it (the fit stops at its next cost evaluation with the best model
 * so far), a second one exits at once with EXIT_INTERRUPTED. While
 * interrupt_hold(1) is in force (writing an output file) both signals wait;
 * interrupt_hold(0) lets them in. */
volatile sig_atomic_t *interrupt_install(void);
void interrupt_hold(int hold);

/* Progress of a fit on stderr (cli/progress.c): progress_install sets o's
 * progress callback unless quiet or stderr is not a terminal; the line it
 * redraws is cleared by progress_end, before anything else is printed. */
void progress_install(pm_fit_options *o, int quiet);
void progress_end(void);

/* --engine NAME into o->engine; a usage error of `cmd` (nonzero) if NAME
 * is no engine. */
int engine_option(const char *cmd, const char *name, pm_fit_options *o);
/* After the options: the popsize and tol not given take o->engine's
 * defaults (pm_fit_options_engine), whatever the order of the flags. */
void engine_defaults(pm_fit_options *o, int popsize_given, int tol_given);

/* The roles of fit and sweep: --spec FILE, then --target, --extrinsic,
 * --intrinsic, --categorical (lists add to the spec's) and --form/--formula
 * (set it); any may be NULL. Naming intrinsic or categorical columns turns
 * off role inference. --ignore (ignore) leaves columns out of the roles and
 * of inference (pm_spec_ignore). On success *out owns the spec. */
struct role_flags {
	const char *spec_path, *target, *extrinsic, *intrinsic, *categorical, *form;
	const char *ignore;
	/* --target-kind NAME (checked), --resource COL, --per COL: each NULL
	 * to keep the spec's (pm_spec_set_target_kind) */
	const char *target_kind, *resource, *per;
};
pm_status spec_from_flags(const struct role_flags *r, pm_spec **out, pm_error *err);
/* (pm_options_spec builds it: fit's options and these are one set of roles) */

/* The options of every command that reads measurements (fit, select,
 * sweep, eval, lif): the file's format and how runs become rows
 * (docs/formats.md). Their codes are far above the commands' own. */
enum {
	OPT_READ_FORMAT = 1000, OPT_READ_AGGREGATE, OPT_READ_DROP_FIRST, OPT_READ_THROUGHPUT,
	OPT_READ_PER, OPT_READ_NAME_PATTERN, OPT_READ_REGION, OPT_READ_METRIC,
	OPT_READ_WEIGHTS, OPT_READ_INCLUSIVE, OPT_READ_SCALING,
};
#define READ_LONG_OPTIONS \
	{ "format", required_argument, NULL, OPT_READ_FORMAT }, \
	{ "aggregate", required_argument, NULL, OPT_READ_AGGREGATE }, \
	{ "drop-first", required_argument, NULL, OPT_READ_DROP_FIRST }, \
	{ "throughput", required_argument, NULL, OPT_READ_THROUGHPUT }, \
	{ "per", required_argument, NULL, OPT_READ_PER }, \
	{ "name-pattern", required_argument, NULL, OPT_READ_NAME_PATTERN }, \
	{ "region", required_argument, NULL, OPT_READ_REGION }, \
	{ "callpath", required_argument, NULL, OPT_READ_REGION }, \
	{ "inclusive", no_argument, NULL, OPT_READ_INCLUSIVE }, \
	{ "scaling", required_argument, NULL, OPT_READ_SCALING }, \
	{ "metric", required_argument, NULL, OPT_READ_METRIC }, \
	{ "weights", required_argument, NULL, OPT_READ_WEIGHTS }
#define READ_USAGE \
	"Measurements (docs/formats.md): --format auto|csv|hyperfine|gbench|extrap|\n" \
	"  extrap-json|extrap-jsonl|cube (a file, or a folder of run folders),\n" \
	"  --aggregate median|mean|min|none, --drop-first N (warm-up runs), --throughput\n" \
	"  COL [--per COL] (the time is per/throughput, or 1/throughput: a model of time;\n" \
	"  --target-kind throughput models the throughput itself), --name-pattern P,\n" \
	"  --region R (or --callpath 'main->f'), --metric M, CUBE: --inclusive,\n" \
	"  --scaling weak|strong|each (mean or sum over processes, or each: lif),\n" \
	"  --weights inverse-variance (each configuration by 1/(s^2/runs))\n"
/* Set o from read option c with value v: 0; -1 if c is not one; else
 * EXIT_USAGE after saying what is wrong. */
int parse_read_option(const char *cmd, int c, const char *v, pm_read_options *o);
/* After the options: --per without --throughput is the target kind's
 * (into *per, out of ro); --throughput with --target-kind is a usage error
 * of cmd (nonzero). */
int kind_options(const char *cmd, pm_read_options *ro, const char *target_kind, const char **per);
/* One or two lines on runs, repetitions and their variation; nothing when
 * the rows were not aggregated. */
void print_read_info(FILE *f, const pm_read_info *info, const pm_dataset *d);

/* Write one CSV field, quoted when it needs to be (RFC 4180). */
void csv_field(FILE *f, const char *text);
/* Print a double so that it reads back bit-exact, as the JSON documents
 * write it (pm_format_double): for the CSV outputs. */
void print_exact(FILE *f, double v);
/* Print a --json document: st is what the pm_..._to_json call that made
 * *doc returned. Prints and frees *doc and returns EXIT_OK, or reports err
 * and returns EXIT_FAIL. */
int print_document(pm_status st, char **doc, const pm_error *err);

/* What fit_command runs. */
enum fit_mode { MODE_FIT, MODE_SELECT, MODE_DISCOVER };

/* 'perfmodel fit', 'select' or 'discover': one parser, one run, one output;
 * -h prints usage. */
int fit_command(int argc, char **argv, const char *usage, enum fit_mode mode);

/* What a fit report adds to the fit's JSON document: select's table, or
 * discover's search and its scheme. */
struct fit_extra {
	const pm_selection *sel;
	const pm_discovery *disc;
	const pm_validation *disc_validation;
};

/* The report of a fit of d saved to out (cli/fit_print.c): for people, or
 * with json the document of docs/json.md, with the selection's table or the
 * discovery when x says (NULL: neither). 0, or 1 after reporting an error. */
int print_fit_report(const pm_model *m, const pm_dataset *d, const char *out, int json,
		     const struct fit_extra *x);

/* The table of a choice of form (select, fit with no form): each
 * candidate's held-out MAPE and R², what makes one untrustworthy, the
 * yardstick, the noise floor and the rule that chose (cli/choice_print.c). */
void print_selection(FILE *f, const pm_selection *sel, const pm_choice *ch);
/* discover's table: the candidates by held-out MAPE, the chosen one marked. */
void print_discovery(FILE *f, const pm_discovery *x, const pm_validation *v, int refine);

int cmd_fit(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
/* One --vary of advise: its text, its input's name and values. */
struct axis {
	const char *text;	/* NAME=VALUES as given */
	char name[128];
	double *values;
	size_t n;
};
/* a->text into a's name and values (advise_vary.c); 0, or the usage
 * error's exit status after saying it. */
int advise_parse_axis(struct axis *a);
int cmd_select(int argc, char **argv);
int cmd_discover(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_lif(int argc, char **argv);
int cmd_ssgd(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_plan(int argc, char **argv);
/* The plots of pm_report_plots as DIR/NAME.svg files, each written
 * atomically and never over one of inputs[0..ninputs) (pm_output_check); DIR is
 * made if missing (cmd_report.c). */
pm_status write_plots(const char *dir, const pm_model *m, const pm_report_data *rd,
		      const char *const *inputs, size_t ninputs, pm_error *err);

extern const char select_usage[], discover_usage[];
extern const char advise_usage[];
extern const char lif_usage[], ssgd_usage[];
extern const char report_usage[];
extern const char batch_usage[];
extern const char inspect_usage[];
extern const char plan_usage[];
extern const char fit_usage[], predict_usage[], eval_usage[], help_usage[], sweep_usage[];

#endif
