/* The option parser of fit, select and discover (perfmodel/options.h):
 * the scan of an argument vector, each option's value, the checks made
 * together, and --help as a flag. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leak_check.h"
#include "perfmodel/options.h"

PM_LEAK_CHECKED_SUITE(options);

/* Parse the NULL-ended words (after the command's name) as command c. */
#define ARGS(...) ((char *[]){ "fit", __VA_ARGS__, NULL })
static int count(char **v)
{
	int n = 0;

	while (v[n])
		n++;
	return n;
}

static pm_status parse(pm_command c, char **v, pm_options *o, pm_error *err)
{
	*o = pm_options_default(c);
	return pm_options_parse(o, count(v), v, err);
}

/* The parse fails with PM_EINVAL and a message holding want. */
static void refused(pm_command c, char **v, const char *want)
{
	pm_options o;
	pm_error err;

	cr_assert_eq(parse(c, v, &o, &err), PM_EINVAL, "accepted; wanted '%s'", want);
	cr_expect_eq(err.code, PM_EINVAL);
	cr_expect(strstr(err.msg, want), "'%s' has no '%s'", err.msg, want);
	pm_options_clear(&o);
}

Test(options, values_of_every_kind)
{
	pm_options o;
	pm_error err;

	cr_assert_eq(parse(PM_COMMAND_FIT,
			   ARGS("--form", "multiplicative", "--seed=7", "--threads", "3",
				"--tol", "0.5", "--mutation", "0.2,0.9", "--reg", "l2",
				"--lambda", "0.1", "--lambda-power", "0.3", "--no-polish",
				"--no-intervals", "--target", "time", "--format", "csv",
				"--drop-first", "2", "--scaling", "each", "--callpath", "main",
				"--weights", "inverse-variance", "--inclusive", "data.csv"),
			   &o, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(o.form, "multiplicative");
	cr_expect_eq(o.fit.seed, 7);
	cr_expect_eq(o.fit.threads, 3);
	cr_expect_eq(o.fit.tol, 0.5);
	cr_expect_eq(o.fit.mutation_lo, 0.2);
	cr_expect_eq(o.fit.mutation_hi, 0.9);
	cr_expect_eq(o.fit.reg, PM_REG_L2);
	cr_expect_eq(o.fit.lambda_coef, 0.1);
	cr_expect_eq(o.fit.lambda_power, 0.3);
	cr_expect_eq(o.fit.polish, 0);
	cr_expect_eq(o.fit.intervals, 0);
	cr_expect_str_eq(o.target, "time");
	cr_expect_eq(o.read.format, PM_FORMAT_CSV);
	cr_expect_eq(o.read.drop_first, 2);
	cr_expect_eq(o.read.scaling, PM_SCALING_EACH);
	cr_expect_str_eq(o.read.region, "main");
	cr_expect_eq(o.read.weights, PM_WEIGHTS_INVERSE_VARIANCE);
	cr_expect_eq(o.read.inclusive, 1);
	cr_expect_str_eq(o.data, "data.csv");
	cr_expect_eq(o.command, PM_COMMAND_FIT);
	/* the split's seed follows --seed unless given */
	cr_expect_eq(o.fit.split_seed, 7);
	pm_options_clear(&o);
}

Test(options, defaults_are_the_commands)
{
	pm_options o;
	pm_error err;

	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--form", "additive", "d.csv"), &o, &err), PM_OK);
	cr_expect_str_eq(o.output, "model.json");
	cr_expect_eq(o.fit.intervals, 5);
	cr_expect_eq(o.nseeds, 1);
	cr_expect_eq(o.fit.popsize, pm_fit_options_engine(PM_ENGINE_VARPRO).popsize);
	/* the engine's defaults whatever the order, unless given */
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--form", "additive", "--engine", "de", "d.csv"),
			   &o, &err), PM_OK);
	cr_expect_eq(o.fit.popsize, pm_fit_options_engine(PM_ENGINE_DE).popsize);
	cr_expect_eq(o.fit.tol, pm_fit_options_engine(PM_ENGINE_DE).tol);
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--popsize", "4", "--form", "additive", "--engine",
						 "de", "d.csv"), &o, &err), PM_OK);
	cr_expect_eq(o.fit.popsize, 4);
	/* discover fits its formula by relative error */
	cr_assert_eq(parse(PM_COMMAND_DISCOVER, ARGS("d.csv"), &o, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(o.fit.loss, PM_LOSS_MAPE);
	cr_expect_eq(o.discover.validate.scheme, PM_SCHEME_KFOLD);
	cr_expect_eq(o.discover.validate.folds, 5);
}

Test(options, the_form_chooses_the_command)
{
	pm_options o;
	pm_error err;

	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("d.csv"), &o, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(o.command, PM_COMMAND_SELECT);
	cr_expect_eq(o.form_chosen, 1);
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--form", "auto", "--cv", "3", "--loss", "mae,log",
						 "d.csv"), &o, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(o.command, PM_COMMAND_SELECT);
	cr_expect_eq(o.form_chosen, 0);
	cr_expect_eq(o.select_validation.folds, 3);
	cr_expect_str_eq(o.losses, "mae,log");
	refused(PM_COMMAND_DISCOVER, ARGS("--form", "auto", "d.csv"), "discover writes the formula");
}

Test(options, abbreviations_and_exact_names)
{
	pm_options o;
	pm_error err;

	/* --thre is --threads; --form is itself, not --formula or --forms */
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--thre=2", "--form", "additive", "d.csv"), &o,
			   &err), PM_OK, "%s", err.msg);
	cr_expect_eq(o.fit.threads, 2);
	cr_expect_str_eq(o.form, "additive");
	refused(PM_COMMAND_FIT, ARGS("--for", "csv", "d.csv"),
		"option '--for' is ambiguous: --forms, --form, --formula, --format");
	refused(PM_COMMAND_FIT, ARGS("--re=1", "d.csv"), "is ambiguous");
}

Test(options, short_options_alone_and_together)
{
	pm_options o;
	pm_error err;

	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("-qo", "m.json", "--form=additive", "d.csv"), &o,
			   &err), PM_OK, "%s", err.msg);
	cr_expect_eq(o.quiet, 1);
	cr_expect_str_eq(o.output, "m.json");
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("-om.json", "--form=additive", "d.csv"), &o, &err),
		     PM_OK);
	cr_expect_str_eq(o.output, "m.json");
	/* a value may begin with '-' (as getopt takes it) */
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("-o", "-", "--form=additive", "d.csv"), &o, &err),
		     PM_OK);
	cr_expect_str_eq(o.output, "-");
	refused(PM_COMMAND_FIT, ARGS("-x", "d.csv"), "unknown option '-x'");
	refused(PM_COMMAND_FIT, ARGS("-qx", "d.csv"), "unknown option '-qx'");
	refused(PM_COMMAND_FIT, ARGS("d.csv", "-q", "-o"), "option '-o' needs a value");
}

Test(options, operands_anywhere_and_after_the_end_of_options)
{
	pm_options o;
	pm_error err;

	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("d.csv", "--form", "additive"), &o, &err), PM_OK);
	cr_expect_str_eq(o.data, "d.csv");
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--form", "additive", "--", "--odd.csv"), &o, &err),
		     PM_OK, "%s", err.msg);
	cr_expect_str_eq(o.data, "--odd.csv");
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--form", "additive", "-"), &o, &err), PM_OK);
	cr_expect_str_eq(o.data, "-");
	refused(PM_COMMAND_FIT, ARGS("--form", "additive"), "no data file given");
	refused(PM_COMMAND_FIT, ARGS("--form", "additive", "a.csv", "b.csv"),
		"one data file at a time");
}

Test(options, unknown_and_valueless)
{
	refused(PM_COMMAND_FIT, ARGS("--bogus", "d.csv"), "unknown option '--bogus'");
	refused(PM_COMMAND_FIT, ARGS("--bogus=3", "d.csv"), "unknown option '--bogus=3'");
	refused(PM_COMMAND_FIT, ARGS("d.csv", "--seed"), "option '--seed' needs a value");
	refused(PM_COMMAND_FIT, ARGS("--json=yes", "d.csv"), "option '--json' takes no value");
}

Test(options, bad_values_name_the_option)
{
	refused(PM_COMMAND_FIT, ARGS("--seed", "-1", "d.csv"), "--seed '-1': expected a whole number");
	refused(PM_COMMAND_FIT, ARGS("--seed", "1x", "d.csv"), "--seed '1x'");
	refused(PM_COMMAND_FIT, ARGS("--threads", "0", "d.csv"), "from 1 to 1024");
	refused(PM_COMMAND_FIT, ARGS("--maxiter", "", "d.csv"), "--maxiter ''");
	refused(PM_COMMAND_FIT, ARGS("--popsize", "100001", "d.csv"), "--popsize");
	refused(PM_COMMAND_FIT, ARGS("--tol", "nan", "d.csv"), "--tol 'nan': expected a number >= 0");
	refused(PM_COMMAND_FIT, ARGS("--atol", "-1", "d.csv"), "--atol '-1'");
	refused(PM_COMMAND_FIT, ARGS("--mutation", "1,0.5", "d.csv"), "0 <= LO <= HI <= 2");
	refused(PM_COMMAND_FIT, ARGS("--mutation", "0.1,x", "d.csv"), "--mutation");
	refused(PM_COMMAND_FIT, ARGS("--recombination", "2", "d.csv"), "a number in [0, 1]");
	refused(PM_COMMAND_FIT, ARGS("--lambda", "1e999", "d.csv"), "--lambda '1e999'");
	refused(PM_COMMAND_FIT, ARGS("--lambda-power", "x", "d.csv"), "--lambda-power 'x'");
	refused(PM_COMMAND_FIT, ARGS("--test-fraction", "1", "d.csv"), "between 0 and 1");
	refused(PM_COMMAND_FIT, ARGS("--split-seed", "x", "d.csv"), "--split-seed 'x'");
	refused(PM_COMMAND_FIT, ARGS("--scale", "log", "d.csv"), "auto or none");
	refused(PM_COMMAND_FIT, ARGS("--reg", "l3", "d.csv"), "none, l1 or l2");
	refused(PM_COMMAND_FIT, ARGS("--engine", "nm", "d.csv"), "--engine must be varpro or de");
	refused(PM_COMMAND_FIT, ARGS("--form", "cubic", "d.csv"), "additive, multiplicative or auto");
	refused(PM_COMMAND_FIT, ARGS("--target-kind", "speed", "d.csv"), "--target-kind 'speed'");
	refused(PM_COMMAND_FIT, ARGS("--format", "xls", "d.csv"), "--format 'xls'");
	refused(PM_COMMAND_FIT, ARGS("--aggregate", "max", "d.csv"), "--aggregate 'max'");
	refused(PM_COMMAND_FIT, ARGS("--drop-first", "x", "d.csv"), "--drop-first 'x'");
	refused(PM_COMMAND_FIT, ARGS("--scaling", "x", "d.csv"), "--scaling 'x'");
	refused(PM_COMMAND_FIT, ARGS("--weights", "x", "d.csv"), "--weights 'x'");
	refused(PM_COMMAND_FIT, ARGS("--seeds", "0", "d.csv"), "from 1 to 10000");
	refused(PM_COMMAND_SELECT, ARGS("--cv", "1", "d.csv"), "folds >= 2");
	refused(PM_COMMAND_SELECT, ARGS("--cv-seed", "x", "d.csv"), "--cv-seed 'x'");
	refused(PM_COMMAND_DISCOVER, ARGS("--max-terms", "7", "d.csv"), "from 1 to 6");
	refused(PM_COMMAND_DISCOVER, ARGS("--beam", "0", "d.csv"), "from 1 to 64");
	refused(PM_COMMAND_DISCOVER, ARGS("--top", "101", "d.csv"), "from 1 to 100");
	refused(PM_COMMAND_FIT, ARGS("--form", "additive", "--loss", "l1", "d.csv"),
		"--loss 'l1': expected mae, mse, mape or log");
	refused(PM_COMMAND_SELECT, ARGS("--loss", "mae,l1", "d.csv"), "a list of mae");
	refused(PM_COMMAND_SELECT, ARGS("--loss", ",", "d.csv"), "a list of mae");
	refused(PM_COMMAND_FIT, ARGS("--validate", "kfold:1", "d.csv"), "--validate 'kfold:1'");
}

Test(options, repeated_options)
{
	pm_options o;
	pm_error err;

	/* a value given twice: the last (a batch's --threads, then a job's) */
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--seed", "1", "--seed", "2", "--form", "additive",
						 "d.csv"), &o, &err), PM_OK);
	cr_expect_eq(o.fit.seed, 2);
	/* --lambda-power wins over --lambda whatever their order */
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--reg", "l1", "--lambda-power", "0.3", "--lambda",
						 "0.1", "--form", "additive", "d.csv"), &o, &err),
		     PM_OK);
	cr_expect_eq(o.fit.lambda_power, 0.3);
	cr_expect_eq(o.fit.lambda_coef, 0.1);
	/* the form, though, once */
	refused(PM_COMMAND_FIT, ARGS("--form", "additive", "--form", "additive", "d.csv"),
		"give one of --form and --formula, once");
	refused(PM_COMMAND_FIT, ARGS("--form", "additive", "--formula", "a*n+C", "d.csv"),
		"give one of --form and --formula, once");
}

Test(options, checks_together)
{
	refused(PM_COMMAND_FIT, ARGS("--lambda", "1", "d.csv"), "--lambda needs --reg l1 or l2");
	refused(PM_COMMAND_FIT, ARGS("--test", "t.csv", "--test-fraction", "0.2", "d.csv"),
		"exclude each other");
	refused(PM_COMMAND_SELECT, ARGS("--seeds", "3", "d.csv"), "not with model selection");
	refused(PM_COMMAND_FIT, ARGS("--seeds", "3", "d.csv"), "--seeds K repeats the fit of one form");
	refused(PM_COMMAND_DISCOVER, ARGS("--forms", "additive", "d.csv"),
		"discover writes the formula");
	refused(PM_COMMAND_FIT, ARGS("--throughput", "x", "--target-kind", "speedup", "d.csv"),
		"give one of them");
	refused(PM_COMMAND_FIT, ARGS("--form", "additive", "--cv", "3", "d.csv"),
		"--forms, --cv and --cv-seed choose the form");
	refused(PM_COMMAND_SELECT, ARGS("--warm-start", "m.json", "d.csv"), "--warm-start refits");
	refused(PM_COMMAND_FIT, ARGS("--form", "additive", "--top", "3", "d.csv"),
		"are discover's");
	refused(PM_COMMAND_FIT, ARGS("--form", "additive", "--split-seed", "3", "d.csv"),
		"--split-seed needs --test-fraction");
	refused(PM_COMMAND_SELECT, ARGS("--cv", "3", "--validate", "loo", "d.csv"),
		"--cv K is --validate kfold:K");
	refused(PM_COMMAND_SELECT, ARGS("--cv-seed", "3", "--validate", "loo", "d.csv"),
		"--cv-seed deals k folds");
}

Test(options, per_and_validate_files)
{
	pm_options o;
	pm_error err;

	/* --per without --throughput is the target kind's */
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--form", "additive", "--target-kind", "throughput",
						 "--per", "batch", "d.csv"), &o, &err), PM_OK,
		     "%s", err.msg);
	cr_expect_str_eq(o.per, "batch");
	cr_expect_null(o.read.per);
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--form", "additive", "--throughput", "x", "--per",
						 "batch", "d.csv"), &o, &err), PM_OK);
	cr_expect_null(o.per);
	cr_expect_str_eq(o.read.per, "batch");
	/* --validate FILE is --test FILE */
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--form", "additive", "--validate", "held.csv",
						 "d.csv"), &o, &err), PM_OK);
	cr_expect_str_eq(o.test_path, "held.csv");
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--form", "additive", "--validate", "kfold:4",
						 "--split-seed", "9", "d.csv"), &o, &err), PM_OK);
	cr_expect_eq(o.fit.validate.folds, 4);
	cr_expect_eq(o.fit.validate.seed, 9);
}

Test(options, help_is_a_flag)
{
	pm_options o;
	pm_error err;

	/* nothing after it is read or checked: no data file, a bad option */
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--seed", "3", "--he", "--bogus"), &o, &err), PM_OK);
	cr_expect_eq(o.help, 1);
	cr_expect_str_eq(o.help_text, "--he");
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("-qh"), &o, &err), PM_OK);
	cr_expect_eq(o.help, 1);
	/* an error before it is still one */
	refused(PM_COMMAND_FIT, ARGS("--seed", "x", "--help"), "--seed 'x'");
}

Test(options, spec_form_read_once)
{
	char path[] = "/tmp/pm_options_specXXXXXX";
	int fd = mkstemp(path);
	const char spec[] = "{\"target\": \"t\", \"form\": \"additive\"}";
	pm_options o;
	pm_error err;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, spec, sizeof(spec) - 1), (ssize_t)sizeof(spec) - 1);
	close(fd);
	/* the spec names a form: no selection, and its text is kept */
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--spec", path, "d.csv"), &o, &err), PM_OK);
	cr_expect_eq(o.command, PM_COMMAND_FIT);
	cr_expect_str_eq(o.spec_json, spec);
	cr_expect_eq(o.spec_streamed, 0);
	pm_options_clear(&o);
	cr_expect_null(o.spec_text);
	/* a job's inline spec stands for the file */
	o = pm_options_default(PM_COMMAND_FIT);
	o.spec_json = "{\"target\": \"t\", \"form\": \"multiplicative\"}";
	cr_assert_eq(pm_options_parse(&o, 2, ARGS("d.csv"), &err), PM_OK);
	cr_expect_eq(o.command, PM_COMMAND_FIT);
	pm_options_clear(&o);
	unlink(path);
	/* a spec that cannot be read names no form: the fit says why */
	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--spec", "/nonexistent/s.json", "d.csv"), &o,
			   &err), PM_OK);
	cr_expect_eq(o.command, PM_COMMAND_SELECT);
	pm_options_clear(&o);
}

Test(options, table_says_what_each_is)
{
	size_t n, identity = 0, output = 0;
	const pm_option_info *t = pm_option_table(&n);

	cr_assert_gt(n, 50);
	for (size_t i = 0; i < n; i++) {
		cr_expect(t[i].name && *t[i].name);
		identity += (t[i].flags & PM_OPTION_IDENTITY) != 0;
		output += (t[i].flags & PM_OPTION_OUTPUT) != 0;
		for (size_t j = 0; j < i; j++)
			cr_expect_str_neq(t[i].name, t[j].name);
	}
	cr_expect_eq(identity, 5);	/* region, callpath, metric, target, throughput */
	cr_expect_eq(output, 4);	/* output, json, quiet, plot-dir */
}

Test(options, scan_reports_where)
{
	char **v = ARGS("--seed");
	pm_arg_scan s = pm_arg_scan_start(2, v);
	pm_arg a;
	pm_error err;

	cr_assert_eq(pm_arg_next(&s, &a, &err), PM_EINVAL);
	cr_expect_str_eq(a.text, "--seed");
	cr_expect_str_eq(a.option->name, "seed");
	cr_expect_null(a.value);
	cr_expect_eq(pm_arg_next(NULL, &a, &err), PM_EINVAL);
	cr_expect_eq(pm_options_parse(NULL, 2, v, &err), PM_EINVAL);
	/* a NULL argv parses as nothing given */
	s = pm_arg_scan_start(3, NULL);
	cr_expect_eq(pm_arg_next(&s, &a, &err), PM_OK);
	cr_expect(!a.option && !a.value);
	/* no err: the status alone */
	s = pm_arg_scan_start(2, ARGS("--bogus"));
	cr_expect_eq(pm_arg_next(&s, &a, NULL), PM_EINVAL);
	pm_options_clear(NULL);
}

/* Threads parse at once (a batch's jobs): no state is shared. */
static void *parse_many(void *arg)
{
	long k = (long)(intptr_t)arg;

	for (int i = 0; i < 2000; i++) {
		char seed[32];
		pm_options o;
		pm_error err;

		snprintf(seed, sizeof(seed), "%ld", k * 100000 + i);
		if (parse(PM_COMMAND_FIT, ARGS("-q", "--seed", seed, "--form", "additive", "d.csv"),
			  &o, &err) || o.fit.seed != (uint64_t)(k * 100000 + i) || !o.quiet)
			return (void *)1;
	}
	return NULL;
}

Test(options, threads_parse_side_by_side)
{
	pthread_t t[4];
	void *bad;

	for (long k = 0; k < 4; k++)
		cr_assert_eq(pthread_create(&t[k], NULL, parse_many, (void *)(intptr_t)k), 0);
	for (int k = 0; k < 4; k++) {
		cr_assert_eq(pthread_join(t[k], &bad), 0);
		cr_expect_null(bad);
	}
}

Test(options, spec_of_the_roles)
{
	pm_options o;
	pm_spec *s = NULL;
	pm_error err;

	cr_assert_eq(parse(PM_COMMAND_FIT, ARGS("--target", "t", "--extrinsic", "p", "--form",
						 "additive", "--workers", "w_*", "d.csv"), &o, &err),
		     PM_OK);
	cr_assert_eq(pm_options_spec(&o, &s, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(pm_spec_form(s), "additive");
	pm_spec_free(s);
	/* the first role that cannot be set is the error */
	o.target_kind = "speed";
	cr_expect_eq(pm_options_spec(&o, &s, &err), PM_EINVAL);
	o.target_kind = NULL;
	o.spec_path = "/nonexistent/spec.json";
	cr_expect_neq(pm_options_spec(&o, &s, &err), PM_OK);
	cr_expect(strstr(err.file, "/nonexistent/spec.json") || strstr(err.msg, "nonexistent"),
		  "%s", err.msg);
	cr_expect_eq(pm_options_spec(NULL, &s, &err), PM_EINVAL);
	cr_expect_eq(pm_options_spec(&o, NULL, &err), PM_EINVAL);
}

Test(options, candidates_every_form_with_every_loss)
{
	pm_options o = pm_options_default(PM_COMMAND_SELECT);
	pm_candidate *c = NULL;
	char *names = NULL;
	size_t n = 0;
	pm_error err;

	cr_assert_eq(pm_options_candidates(&o, &c, &n, &names, &err), PM_OK);
	cr_expect_eq(n, 6);	/* the default 3 forms x 2 losses */
	cr_expect_str_eq(c[0].form, "additive");
	cr_expect_eq(c[1].loss, PM_LOSS_LOG);
	free(c);
	free(names);
	o.forms = "additive,,a*n^p+C";
	o.losses = "mape";
	cr_assert_eq(pm_options_candidates(&o, &c, &n, &names, &err), PM_OK);
	cr_expect_eq(n, 2);
	cr_expect_str_eq(c[1].form, "a*n^p+C");
	cr_expect_eq(c[1].loss, PM_LOSS_MAPE);
	free(c);
	free(names);
	o.losses = "mae,l1";
	cr_expect_eq(pm_options_candidates(&o, &c, &n, &names, &err), PM_EINVAL);
	cr_expect(strstr(err.msg, "l1"), "%s", err.msg);
	cr_expect_null(c);
	o.forms = ",";
	o.losses = NULL;
	cr_expect_eq(pm_options_candidates(&o, &c, &n, &names, &err), PM_EINVAL);
	cr_expect(strstr(err.msg, "no candidate"), "%s", err.msg);
	cr_expect_eq(pm_options_candidates(NULL, &c, &n, &names, &err), PM_EINVAL);
}

Test(options, forms_name_a_form)
{
	refused(PM_COMMAND_SELECT, ARGS("--forms", ",,", "d.csv"),
		"--forms ',,': expected a form or a list of them");
}

Test(options, one_option_by_name)
{
	pm_options o = pm_options_default(PM_COMMAND_FIT);
	pm_error err;

	cr_assert_eq(pm_options_set(&o, "drop-first", "2", &err), PM_OK);
	cr_expect_eq(o.read.drop_first, 2);
	cr_assert_eq(pm_options_set(&o, "inclusive", NULL, &err), PM_OK);
	cr_expect_eq(o.read.inclusive, 1);
	cr_expect_eq(pm_options_set(&o, "scaling", "x", &err), PM_EINVAL);
	cr_expect_str_eq(err.msg, "--scaling 'x': expected weak, strong or each");
	cr_expect_eq(pm_options_set(&o, "drop", "2", &err), PM_EINVAL);
	cr_expect_str_eq(err.msg, "unknown option '--drop'");
	cr_expect_eq(pm_options_set(&o, "inclusive", "1", &err), PM_EINVAL);
	cr_expect_str_eq(err.msg, "option '--inclusive' takes no value");
	cr_expect_eq(pm_options_set(&o, "metric", NULL, &err), PM_EINVAL);
	cr_expect_str_eq(err.msg, "option '--metric' needs a value");
	cr_expect_eq(pm_options_set(&o, NULL, "x", &err), PM_EINVAL);
	cr_expect_eq(pm_options_set(NULL, "metric", "x", &err), PM_EINVAL);
}

/* The one strict number reader of the options and the CLI: the whole text
 * a finite number, '.' whatever the locale; *out untouched on refusal. */
Test(options, parse_number)
{
	static const char *const bad[] = { "", " 1", "1 ", "1,5", "0x", "nan", "inf", "1e999",
					   "1.5x", "--1", NULL };
	double v = 42;

	cr_expect_eq(pm_parse_number("1.5", &v), PM_OK);
	cr_expect_eq(v, 1.5);
	cr_expect_eq(pm_parse_number("-2e-3", &v), PM_OK);
	cr_expect_eq(v, -2e-3);
	v = 42;
	for (const char *const *t = bad; *t; t++)
		cr_expect_eq(pm_parse_number(*t, &v), PM_EINVAL, "'%s'", *t);
	cr_expect_eq(pm_parse_number(NULL, &v), PM_EINVAL);
	cr_expect_eq(pm_parse_number("1", NULL), PM_EINVAL);
	cr_expect_eq(v, 42);
}
