/* The options of perfmodel fit, select and discover as one table and one
 * parser (docs/embedding.md, "Options"): an argument vector becomes the
 * library's structs (pm_fit_options, pm_read_options, pm_discover_options,
 * the roles and the validation), checked as the command checks them. The
 * CLI, the batch's jobs and the Python package parse with it, so that the
 * three take the same options with the same messages.
 *
 * Nothing here prints or exits; --help is a flag for the caller to act
 * on. The parser keeps no state outside its arguments: threads may parse
 * side by side. */
#ifndef PERFMODEL_OPTIONS_H
#define PERFMODEL_OPTIONS_H

#include "perfmodel/perfmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The command whose options are parsed: which are allowed, and what the
 * defaults are (discover fits its formula with loss mape). */
typedef enum pm_command {
	PM_COMMAND_FIT,
	PM_COMMAND_SELECT,
	PM_COMMAND_DISCOVER
} pm_command;

/* What an option is to a caller that runs the fit for others. */
enum {
	/* says which data a job is (--region, --callpath, --metric,
	 * --target, --throughput): a batch's --each-region sets them */
	PM_OPTION_IDENTITY = 1,
	/* where the model goes and what is printed (-o, --json, --quiet,
	 * --plot-dir): a command line's, not a batch job's */
	PM_OPTION_OUTPUT = 2,
	/* --help: the caller prints the usage (a job: an error) */
	PM_OPTION_HELP = 4
};

/* One option of the table. */
typedef struct pm_option_info {
	const char *name;	/* the long name, without "--" */
	char short_name;	/* '-o', or '\0' */
	int takes_value;	/* 1: --name VALUE, --name=VALUE (-o VALUE, -oVALUE) */
	unsigned flags;		/* PM_OPTION_... */
} pm_option_info;

/* The table, in the order of the usage text: *n entries. */
PM_API const pm_option_info *pm_option_table(size_t *n);

/* A scan of an argument vector, as getopt_long reads one but with its
 * state here rather than in globals: long options by their name or any
 * unambiguous beginning of it (--thr for --threads), short ones alone or
 * together (-qo FILE), "--" ending the options; operands are handed back
 * where they stand. */
typedef struct pm_arg_scan {
	int argc;
	char *const *argv;
	int next;		/* the element read next */
	int letter;		/* within "-qo": the next letter's offset; 0 outside */
	int operands_only;	/* after "--" */
} pm_arg_scan;

/* One element (or one letter of a cluster) of the vector. */
typedef struct pm_arg {
	const pm_option_info *option;	/* NULL: an operand (or, value NULL too, the end) */
	const char *value;		/* the option's value, or the operand */
	const char *text;		/* the element it came from, for messages */
} pm_arg;

/* A scan of argv[1..argc) (argv[0] is the command's name). */
PM_API pm_arg_scan pm_arg_scan_start(int argc, char *const *argv);
/* The next option or operand into *a (a->option and a->value NULL at the
 * end). PM_EINVAL naming the element: an unknown option, an abbreviation
 * of more than one ("--for": --format, --form, --formula, --forms), a
 * value missing or given to an option that takes none. */
PM_API pm_status pm_arg_next(pm_arg_scan *s, pm_arg *a, pm_error *err);

/* A parse's result. The strings point into the argument vector (or the
 * spec's text, owned here): keep the vector while these are used. */
typedef struct pm_options {
	/* the command to run: PM_COMMAND_SELECT when fit is given no form
	 * (chosen as select chooses; form_chosen set) or --form auto */
	pm_command command;
	int form_chosen;
	const char *data;	/* the one operand: the measurements */
	/* the roles (--spec FILE and the role options over it) */
	const char *spec_path, *target, *extrinsic, *intrinsic, *categorical, *ignore;
	const char *workers;	/* --workers: for --target lif */
	const char *target_kind, *resource, *per;
	const char *form;	/* --form additive|multiplicative or --formula TEXT */
	/* an inline spec in place of --spec FILE (a batch job's): set by the
	 * caller before parsing, named spec_name in errors; or --spec FILE's
	 * text, read once by the parser (spec_text, owned: a pipe is read
	 * once), spec_streamed when it was no regular file */
	const char *spec_json, *spec_name;
	char *spec_text;
	int spec_streamed;
	/* the command line's: the model file (default model.json; "-":
	 * stdout), --json, --quiet, --plot-dir */
	const char *output;
	int json, quiet;
	const char *plot_dir;
	pm_fit_options fit;	/* with .validate and .split_seed as the scheme says */
	pm_read_options read;	/* how DATA and --test FILE are read */
	pm_discover_options discover;	/* with .validate: how hypotheses are ranked */
	unsigned nseeds;	/* --seeds K (1) */
	const char *test_path;	/* --test FILE, or --validate FILE */
	const char *warm_start;	/* --warm-start FILE */
	/* the selection's candidates, comma-separated (NULL: the default
	 * lists), and the scheme that measures them */
	const char *forms, *losses;
	pm_validation select_validation;
	/* --help was given (as help_text): parsing stopped there */
	int help;
	const char *help_text;
	/* what the checks after the options need; the caller's to ignore */
	const char *validate;
	unsigned cv;
	uint64_t cv_seed;
	int form_auto, cv_seed_given, select_given, discover_given, split_seed_given;
	int popsize_given, tol_given, lambda_power_given;
	double lambda_power;
} pm_options;

/* The defaults of command c: what it does with no option. */
PM_API pm_options pm_options_default(pm_command c);
/* Parse argv[1..argc) into *o (from pm_options_default, spec_json set if
 * a job has one), then check the options together as the command does
 * (--lambda needs --reg, one data file, ...). PM_OK (o->help set: --help
 * was met, nothing after it was read or checked), or PM_EINVAL with a
 * message naming the option; PM_ENOMEM. pm_options_clear(o) in every case. */
PM_API pm_status pm_options_parse(pm_options *o, int argc, char *const *argv, pm_error *err);
/* One option by its whole long name (no "--"), value NULL for one that
 * takes none, checked alone as pm_options_parse checks it (no checks
 * together): for a command that shares some of these options (the reading
 * options of sweep, eval, inspect). PM_EINVAL naming it. */
PM_API pm_status pm_options_set(pm_options *o, const char *name, const char *value,
				pm_error *err);
/* The spec of o's roles: its inline spec (spec_json) or --spec FILE (or
 * none), then --target, --extrinsic, --intrinsic, --categorical, --workers
 * (add to its lists), --form/--formula (set it), --ignore, --target-kind,
 * --resource and --per (replace its own). *out owns it on success. */
PM_API pm_status pm_options_spec(const pm_options *o, pm_spec **out, pm_error *err);
/* The candidates a selection tries without --forms and --loss. */
#define PM_SELECT_DEFAULT_FORMS "additive,multiplicative,discover"
#define PM_SELECT_DEFAULT_LOSSES "mae,log"
/* A selection's candidates: every form of o->forms with every loss of
 * o->losses (the defaults above when NULL), into *cand (*n of them), whose
 * forms point into *storage; free both. PM_EINVAL naming a loss that is
 * none, or when the lists give no candidate. */
PM_API pm_status pm_options_candidates(const pm_options *o, pm_candidate **cand, size_t *n,
				       char **storage, pm_error *err);
/* A strict whole number, as the options' counts are read: the whole text
 * decimal digits (no sign, no space), at most max, into *out. PM_OK, or
 * PM_EINVAL (*out unchanged). Locale-proof. */
PM_API pm_status pm_parse_whole(const char *text, unsigned long long max,
				unsigned long long *out);
/* A strict finite number, as the options' values are read: the whole text
 * one, no space around it (pm_strtod's syntax: '.' the decimal point
 * whatever the locale), into
 * *out. PM_OK, or PM_EINVAL (*out unchanged). */
PM_API pm_status pm_parse_number(const char *text, double *out);
/* Free what o owns (the spec's text); o may be NULL. */
PM_API void pm_options_clear(pm_options *o);

#ifdef __cplusplus
}
#endif

#endif
