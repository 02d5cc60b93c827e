/* The option table of perfmodel/options.h, private to lib/options/: one
 * list makes both the public table (scan.c) and the ids the setters switch
 * on (options.c), so that the two cannot disagree. */
#ifndef PM_OPTIONS_IMPL_H
#define PM_OPTIONS_IMPL_H

#include "perfmodel/options.h"

/* X(ID, "name", short letter, takes a value, flags), in the usage's order */
#define PM__OPTIONS(X) \
	X(SPEC, "spec", 0, 1, 0) \
	X(TARGET, "target", 0, 1, PM_OPTION_IDENTITY) \
	X(EXTRINSIC, "extrinsic", 0, 1, 0) \
	X(INTRINSIC, "intrinsic", 0, 1, 0) \
	X(CATEGORICAL, "categorical", 0, 1, 0) \
	X(IGNORE, "ignore", 0, 1, 0) \
	X(DROP_INCOMPLETE, "drop-incomplete", 0, 0, 0) \
	X(TARGET_KIND, "target-kind", 0, 1, 0) \
	X(RESOURCE, "resource", 0, 1, 0) \
	X(OUTPUT, "output", 'o', 1, PM_OPTION_OUTPUT) \
	X(JSON, "json", 0, 0, PM_OPTION_OUTPUT) \
	X(QUIET, "quiet", 'q', 0, PM_OPTION_OUTPUT) \
	X(SCALE, "scale", 0, 1, 0) \
	X(SEED, "seed", 0, 1, 0) \
	X(THREADS, "threads", 0, 1, 0) \
	X(MAXITER, "maxiter", 0, 1, 0) \
	X(ENGINE, "engine", 0, 1, 0) \
	X(POPSIZE, "popsize", 0, 1, 0) \
	X(TOL, "tol", 0, 1, 0) \
	X(ATOL, "atol", 0, 1, 0) \
	X(MUTATION, "mutation", 0, 1, 0) \
	X(RECOMBINATION, "recombination", 0, 1, 0) \
	X(NO_POLISH, "no-polish", 0, 0, 0) \
	X(NO_INTERVALS, "no-intervals", 0, 0, 0) \
	X(LOSS, "loss", 0, 1, 0) \
	X(FORMS, "forms", 0, 1, 0) \
	X(FORM, "form", 0, 1, 0) \
	X(FORMULA, "formula", 0, 1, 0) \
	X(CV, "cv", 0, 1, 0) \
	X(CV_SEED, "cv-seed", 0, 1, 0) \
	X(REG, "reg", 0, 1, 0) \
	X(LAMBDA, "lambda", 0, 1, 0) \
	X(LAMBDA_POWER, "lambda-power", 0, 1, 0) \
	X(TEST_FRACTION, "test-fraction", 0, 1, 0) \
	X(SPLIT_SEED, "split-seed", 0, 1, 0) \
	X(TEST, "test", 0, 1, 0) \
	X(VALIDATE, "validate", 0, 1, 0) \
	X(MAX_TERMS, "max-terms", 0, 1, 0) \
	X(BEAM, "beam", 0, 1, 0) \
	X(TOP, "top", 0, 1, 0) \
	X(REFINE, "refine", 0, 0, 0) \
	X(WARM_START, "warm-start", 0, 1, 0) \
	X(SEEDS, "seeds", 0, 1, 0) \
	X(WORKERS, "workers", 0, 1, 0) \
	X(PLOT_DIR, "plot-dir", 0, 1, PM_OPTION_OUTPUT) \
	X(FORMAT, "format", 0, 1, 0) \
	X(AGGREGATE, "aggregate", 0, 1, 0) \
	X(DROP_FIRST, "drop-first", 0, 1, 0) \
	X(THROUGHPUT, "throughput", 0, 1, PM_OPTION_IDENTITY) \
	X(PER, "per", 0, 1, 0) \
	X(NAME_PATTERN, "name-pattern", 0, 1, 0) \
	X(REGION, "region", 0, 1, PM_OPTION_IDENTITY) \
	X(CALLPATH, "callpath", 0, 1, PM_OPTION_IDENTITY) \
	X(INCLUSIVE, "inclusive", 0, 0, 0) \
	X(SCALING, "scaling", 0, 1, 0) \
	X(METRIC, "metric", 0, 1, PM_OPTION_IDENTITY) \
	X(WEIGHTS, "weights", 0, 1, 0) \
	X(HELP, "help", 'h', 0, PM_OPTION_HELP)

#define PM__OPTION_ID(id, name, letter, value, flags) PM__OPT_##id,
enum pm__option_id { PM__OPTIONS(PM__OPTION_ID) PM__OPT_COUNT };
#undef PM__OPTION_ID

/* The entry of that exact long name, or NULL. */
const pm_option_info *pm__option_named(const char *name);
/* The id of an entry of pm_option_table. */
enum pm__option_id pm__option_id(const pm_option_info *info);

/* Set what the option opt says in o from its value v (NULL for an option
 * that takes none), checked alone (values.c): PM_OK or PM_EINVAL. */
pm_status pm__option_value(pm_options *o, const pm_option_info *opt, const char *v,
			   pm_error *err);

#endif
