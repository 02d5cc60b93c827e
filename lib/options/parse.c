/* pm_options_parse (perfmodel/options.h): the options of fit, select and
 * discover one by one (scan.c, values.c), then together, as the commands
 * check them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "options/options_impl.h"

pm_options pm_options_default(pm_command c)
{
	pm_options o = { .command = c, .output = "model.json", .fit = pm_fit_options_default(),
			 .read = pm_read_options_default(),
			 .discover = pm_discover_options_default(), .nseeds = 1 };

	/* calibrated intervals by default (docs/cli.md): 5 fold fits */
	o.fit.intervals = 5;
	return o;
}

void pm_options_clear(pm_options *o)
{
	if (!o)
		return;
	free(o->spec_text);
	o->spec_text = NULL;
}

/* --spec FILE's text, read once into o->spec_text (o->spec_json, named by
 * the path), so that a pipe (--spec <(...)) is not used up by a first look;
 * a file that cannot be read is left to whoever builds the spec, which
 * says why. */
static pm_status read_spec_text(pm_options *o, pm_error *err)
{
	FILE *f;
	size_t len = 0, cap = 4096, got;
	char *text;
	struct stat st;

	if (o->spec_json || !o->spec_path)
		return PM_OK;
	if (!(f = fopen(o->spec_path, "rb")))
		return errno == ENOMEM ? pm__fail(err, PM_ENOMEM, "%s: out of memory", o->spec_path)
				       : PM_OK;
	text = malloc(cap + 1);
	while (text && (got = fread(text + len, 1, cap - len, f)) > 0) {
		char *more;

		len += got;
		if (len < cap)
			continue;
		more = realloc(text, 2 * cap + 1);
		if (!more)
			free(text);
		text = more;
		cap *= 2;
	}
	if (!text) {
		fclose(f);
		return pm__fail(err, PM_ENOMEM, "%s: out of memory", o->spec_path);
	}
	if (!ferror(f) && memchr(text, '\0', len) == NULL) {
		text[len] = '\0';
		o->spec_text = text;
		o->spec_json = text;
		o->spec_name = o->spec_path;
		/* read already: no output can clobber a pipe's, nor wait on it */
		o->spec_streamed = fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode);
	} else {
		free(text);
	}
	fclose(f);
	return PM_OK;
}

/* Whether the spec (--spec FILE or a job's inline one) names a form, in
 * *has; one that cannot be read names none here (building the spec
 * reports it), but memory that ran out is PM_ENOMEM, not "no form". */
static pm_status spec_names_form(const pm_options *o, int *has, pm_error *err)
{
	pm_spec *s = NULL;
	pm_error why;
	pm_status st = o->spec_json ? pm_spec_parse(o->spec_json, o->spec_name, &s, &why) : PM_OK;

	*has = pm_spec_form(s) != NULL;
	pm_spec_free(s);
	if (st == PM_ENOMEM)
		return pm__fail(err, PM_ENOMEM, "%s: out of memory", o->spec_name);
	return PM_OK;
}

/* 0 if every name in the comma-separated list is a loss, and one is. */
static int loss_list_bad(const char *list)
{
	char name[64];
	size_t n = 0;
	pm_loss l;

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		if (len) {
			if (len >= sizeof(name))
				return 1;
			memcpy(name, p, len);
			name[len] = '\0';
			if (pm_loss_from_name(name, &l, NULL))
				return 1;
			n++;
		}
		p += len + (p[len] == ',');
	}
	return n == 0;
}

/* --validate: a scheme (for the selection when selecting, else for the
 * fit), or a file of held-out rows; --cv K is kfold:K. Seeds: the folds'
 * is --cv-seed selecting, --split-seed fitting, else --seed. */
static pm_status validation(pm_options *o, int select, pm_error *err)
{
	pm_validation v = { PM_SCHEME_NONE };
	int search = select || o->command == PM_COMMAND_DISCOVER;
	pm_error why;

	if (o->validate && pm_validation_is_scheme(o->validate) &&
	    pm_validation_parse(o->validate, &v, &why))
		return pm__fail(err, PM_EINVAL, "--validate '%s': %s", o->validate, why.msg);
	if (o->validate && !v.scheme)
		o->test_path = o->validate;
	if (o->split_seed_given && !(o->fit.test_fraction > 0) &&
	    !(!search && v.scheme == PM_SCHEME_KFOLD))
		return pm__fail(err, PM_EINVAL, "--split-seed needs --test-fraction or --validate "
				"kfold");
	/* the whole run repeats from one number unless told otherwise */
	if (!o->split_seed_given)
		o->fit.split_seed = o->fit.seed;
	if (!search) {
		v.seed = o->fit.split_seed;
		o->fit.validate = v;
		return PM_OK;
	}
	if (o->cv && o->validate)
		return pm__fail(err, PM_EINVAL, "--cv K is --validate kfold:K: give one of them");
	if (o->cv || !o->validate)
		v = (pm_validation){ .scheme = PM_SCHEME_KFOLD, .folds = o->cv ? o->cv : 5 };
	v.seed = o->cv_seed_given ? o->cv_seed : o->fit.seed;
	if (o->cv_seed_given && v.scheme != PM_SCHEME_KFOLD)
		return pm__fail(err, PM_EINVAL, "--cv-seed deals k folds: not with --validate %s",
				o->validate);
	o->select_validation = v;
	o->discover.validate = v;
	return PM_OK;
}

/* The options together, in the order perfmodel fit has always checked
 * them (its messages come in that order). */
static pm_status check(pm_options *o, int nops, pm_error *err)
{
	int discover = o->command == PM_COMMAND_DISCOVER;
	int select = o->command == PM_COMMAND_SELECT || o->form_auto;
	pm_fit_options engine = pm_fit_options_engine(o->fit.engine);
	pm_status st = PM_OK;
	int has_form = 0;

	if (!o->popsize_given)
		o->fit.popsize = engine.popsize;
	if (!o->tol_given)
		o->fit.tol = engine.tol;
	if (o->lambda_power_given)
		o->fit.lambda_power = o->lambda_power;
	if (o->fit.reg == PM_REG_NONE && (o->fit.lambda_coef > 0 || o->fit.lambda_power > 0))
		return pm__fail(err, PM_EINVAL, "--lambda needs --reg l1 or l2");
	if ((o->test_path != NULL) + (o->fit.test_fraction > 0) + (o->validate != NULL) > 1)
		return pm__fail(err, PM_EINVAL, "--test, --test-fraction and --validate exclude "
				"each other");
	if (o->nseeds > 1 && select)
		return pm__fail(err, PM_EINVAL, "--seeds repeats one form's fit: not with model "
				"selection");
	if (!select && !discover && !o->form && !o->warm_start &&
	    !((st = read_spec_text(o, err)) || (st = spec_names_form(o, &has_form, err)) ||
	      has_form)) {
		if (o->nseeds > 1)
			return pm__fail(err, PM_EINVAL, "--seeds K repeats the fit of one form: name "
					"it (--form additive, as the thesis's tables; --form "
					"multiplicative; --formula TEXT)");
		/* the best model it can find (docs/model-selection.md) */
		select = o->form_chosen = 1;
	}
	if (st)
		return st;
	if (discover && (o->form || o->forms || select))
		return pm__fail(err, PM_EINVAL, "discover writes the formula: no --form, --formula "
				"or --forms");
	/* --per without --throughput is the target kind's (a throughput per
	 * COL); with it, reading's (time = per/throughput) */
	if (o->read.per && !o->read.throughput) {
		o->per = o->read.per;
		o->read.per = NULL;
	}
	if (o->read.throughput && o->target_kind)
		return pm__fail(err, PM_EINVAL, "--throughput turns its column into a time as it "
				"is read (a model of time); --target-kind fits the target as what "
				"it measures: give one of them");
	if (o->select_given && !select && !discover)
		return pm__fail(err, PM_EINVAL, "--forms, --cv and --cv-seed choose the form: not "
				"with a form given (--form, --formula, the spec's \"form\")");
	if (o->warm_start && (select || discover))
		return pm__fail(err, PM_EINVAL, "--warm-start refits the form of one model: not "
				"with model selection or discover");
	if (o->discover_given && !discover)
		return pm__fail(err, PM_EINVAL, "--max-terms, --beam, --top and --refine are "
				"discover's: use 'perfmodel discover'");
	/* discover ranks by relative error: its winner is fitted so too */
	if (discover && !o->losses)
		o->fit.loss = PM_LOSS_MAPE;
	if ((st = validation(o, select, err)))
		return st;
	/* selecting, --loss is a list: each form is tried with each loss */
	if (o->losses && (select ? loss_list_bad(o->losses)
				 : pm_loss_from_name(o->losses, &o->fit.loss, NULL) != PM_OK))
		return pm__fail(err, PM_EINVAL, "--loss '%s': expected %s", o->losses,
				select ? "a list of mae, mse, mape, log" : "mae, mse, mape or log");
	if (select && o->forms && !o->forms[strspn(o->forms, ",")])
		return pm__fail(err, PM_EINVAL, "--forms '%s': expected a form or a list of them",
				o->forms);
	if (nops != 1)
		return pm__fail(err, PM_EINVAL, nops ? "one data file at a time"
						    : "no data file given");
	if (select)
		o->command = PM_COMMAND_SELECT;
	return PM_OK;
}

pm_status pm_options_parse(pm_options *o, int argc, char *const *argv, pm_error *err)
{
	pm_error none;
	pm_arg_scan s = pm_arg_scan_start(argc, argv);
	pm_arg a;
	pm_status st;
	int nops = 0;

	if (!err)
		err = &none;
	*err = (pm_error){ 0 };
	if (!o)
		return pm__fail(err, PM_EINVAL, "pm_options_parse: no options");
	while (!(st = pm_arg_next(&s, &a, err)) && (a.option || a.value)) {
		if (!a.option) {
			o->data = nops++ ? o->data : a.value;
			continue;
		}
		if ((st = pm__option_value(o, a.option, a.value, err)))
			return st;
		if (o->help) {
			o->help_text = a.text;
			return PM_OK;
		}
	}
	return st ? st : check(o, nops, err);
}

pm_status pm_options_set(pm_options *o, const char *name, const char *value, pm_error *err)
{
	const pm_option_info *opt = pm__option_named(name);

	if (!o)
		return pm__fail(err, PM_EINVAL, "pm_options_set: no options");
	if (!opt)
		return pm__fail(err, PM_EINVAL, "unknown option '--%s'", name ? name : "");
	if (opt->takes_value != (value != NULL))
		return pm__fail(err, PM_EINVAL, value ? "option '--%s' takes no value"
					      : "option '--%s' needs a value", name);
	return pm__option_value(o, opt, value, err);
}
