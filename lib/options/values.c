/* Each option's value into pm_options (perfmodel/options.h): the checks
 * perfmodel fit makes of one option alone, with the message it gives. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "options/options_impl.h"

/* Strict numbers: the whole text a number in range, locale-proof. */
pm_status pm_parse_whole(const char *text, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	/* digits from the first: no sign, no space (which strtoull skips) */
	if (!text || !out || *text < '0' || *text > '9')
		return PM_EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v > max)
		return PM_EINVAL;
	*out = v;
	return PM_OK;
}

pm_status pm_parse_number(const char *text, double *out)
{
	char *end;
	double v;

	/* no leading space either, which strtod would skip */
	if (!text || !*text || !out || strchr(" \t\n\v\f\r", *text))
		return PM_EINVAL;
	errno = 0;
	v = pm_strtod(text, &end);
	if (errno || *end || !isfinite(v))
		return PM_EINVAL;
	*out = v;
	return PM_OK;
}

static pm_status bad(pm_error *err, const pm_option_info *opt, const char *v, const char *want)
{
	return pm__fail(err, PM_EINVAL, "--%s '%s': expected %s", opt->name, v, want);
}

/* F, or LO,HI */
static int mutation(const char *text, pm_fit_options *o)
{
	const char *comma = strchr(text, ',');
	char lo[64];

	if (!comma)
		return pm_parse_number(text, &o->mutation_lo) || (o->mutation_hi = o->mutation_lo, 0);
	if ((size_t)(comma - text) >= sizeof(lo))
		return -1;
	memcpy(lo, text, (size_t)(comma - text));
	lo[comma - text] = '\0';
	return pm_parse_number(lo, &o->mutation_lo) || pm_parse_number(comma + 1, &o->mutation_hi);
}

/* A whole number from lo to max into *out, or the message "from lo to
 * max" (want) naming the option. */
static pm_status count(const pm_option_info *opt, const char *v, unsigned long long lo,
		       unsigned long long max, const char *want, unsigned long long *out,
		       pm_error *err)
{
	if (pm_parse_whole(v, max, out) || *out < lo)
		return bad(err, opt, v, want);
	return PM_OK;
}

/* What the three groups below return for an option not theirs. */
enum { NOT_MINE = -1 };

static int read_value(enum pm__option_id id, const pm_option_info *opt, const char *v,
			    pm_read_options *r, pm_error *err)
{
	unsigned long long u;

	switch (id) {
	case PM__OPT_FORMAT:
		return pm_format_from_name(v, &r->format, NULL)
		       ? bad(err, opt, v, "auto, csv, hyperfine, gbench, extrap, extrap-json, "
			     "extrap-jsonl or cube") : PM_OK;
	case PM__OPT_AGGREGATE:
		return pm_aggregate_from_name(v, &r->aggregate, NULL)
		       ? bad(err, opt, v, "median, mean, min or none") : PM_OK;
	case PM__OPT_DROP_FIRST:
		if (pm_parse_whole(v, 1000000, &u))
			return bad(err, opt, v, "a whole number >= 0");
		r->drop_first = (unsigned)u;
		return PM_OK;
	case PM__OPT_THROUGHPUT: r->throughput = v; return PM_OK;
	case PM__OPT_PER: r->per = v; return PM_OK;
	case PM__OPT_NAME_PATTERN: r->name_pattern = v; return PM_OK;
	case PM__OPT_REGION:
	case PM__OPT_CALLPATH: r->region = v; return PM_OK;
	case PM__OPT_METRIC: r->metric = v; return PM_OK;
	case PM__OPT_INCLUSIVE: r->inclusive = 1; return PM_OK;
	case PM__OPT_DROP_INCOMPLETE: r->drop_incomplete = 1; return PM_OK;
	case PM__OPT_SCALING:
		if (!strcmp(v, "weak"))
			r->scaling = PM_SCALING_WEAK;
		else if (!strcmp(v, "strong"))
			r->scaling = PM_SCALING_STRONG;
		else if (!strcmp(v, "each"))
			r->scaling = PM_SCALING_EACH;
		else
			return bad(err, opt, v, "weak, strong or each");
		return PM_OK;
	case PM__OPT_WEIGHTS:
		if (strcmp(v, "none") && strcmp(v, "inverse-variance"))
			return bad(err, opt, v, "none or inverse-variance");
		r->weights = strcmp(v, "none") ? PM_WEIGHTS_INVERSE_VARIANCE : PM_WEIGHTS_NONE;
		return PM_OK;
	default:
		return NOT_MINE;
	}
}

/* The fit's numbers: pm_fit_options. */
static int fit_value(enum pm__option_id id, const pm_option_info *opt, const char *v,
			   pm_options *o, pm_error *err)
{
	pm_fit_options *f = &o->fit;
	unsigned long long u = 0;
	pm_status st = PM_OK;

	switch (id) {
	case PM__OPT_NO_POLISH: f->polish = 0; return PM_OK;
	case PM__OPT_NO_INTERVALS: f->intervals = 0; return PM_OK;
	case PM__OPT_SCALE:
		if (strcmp(v, "auto") && strcmp(v, "none"))
			return bad(err, opt, v, "auto or none");
		f->scale = strcmp(v, "auto") ? PM_SCALE_NONE : PM_SCALE_AUTO;
		return PM_OK;
	case PM__OPT_REG:
		if (!strcmp(v, "none"))
			f->reg = PM_REG_NONE;
		else if (!strcmp(v, "l1"))
			f->reg = PM_REG_L1;
		else if (!strcmp(v, "l2"))
			f->reg = PM_REG_L2;
		else
			return bad(err, opt, v, "none, l1 or l2");
		return PM_OK;
	case PM__OPT_ENGINE:
		if (!strcmp(v, "varpro"))
			f->engine = PM_ENGINE_VARPRO;
		else if (!strcmp(v, "de"))
			f->engine = PM_ENGINE_DE;
		else
			return pm__fail(err, PM_EINVAL, "--engine must be varpro or de, not '%s'", v);
		return PM_OK;
	case PM__OPT_SEED:
		if (!(st = count(opt, v, 0, UINT64_MAX, "a whole number >= 0", &u, err)))
			f->seed = u;
		return st;
	case PM__OPT_SPLIT_SEED:
		if (!(st = count(opt, v, 0, UINT64_MAX, "a whole number >= 0", &u, err)))
			f->split_seed = u;
		o->split_seed_given = 1;
		return st;
	case PM__OPT_THREADS:
		if (!(st = count(opt, v, 1, 1024, "a whole number from 1 to 1024", &u, err)))
			f->threads = (unsigned)u;
		return st;
	case PM__OPT_MAXITER:
		if (!(st = count(opt, v, 1, 100000000, "a whole number >= 1", &u, err)))
			f->maxiter = (unsigned)u;
		return st;
	case PM__OPT_POPSIZE:
		if (!(st = count(opt, v, 1, 100000, "a whole number >= 1", &u, err)))
			f->popsize = (unsigned)u;
		o->popsize_given = 1;
		return st;
	case PM__OPT_TOL:
		o->tol_given = 1;
		return pm_parse_number(v, &f->tol) || f->tol < 0 ? bad(err, opt, v, "a number >= 0") : PM_OK;
	case PM__OPT_ATOL:
		return pm_parse_number(v, &f->atol) || f->atol < 0 ? bad(err, opt, v, "a number >= 0") : PM_OK;
	case PM__OPT_MUTATION:
		return mutation(v, f) || !(f->mutation_lo >= 0 && f->mutation_lo <= f->mutation_hi &&
					   f->mutation_hi <= 2)
		       ? bad(err, opt, v, "F or LO,HI with 0 <= LO <= HI <= 2") : PM_OK;
	case PM__OPT_RECOMBINATION:
		return pm_parse_number(v, &f->recombination) || f->recombination < 0 || f->recombination > 1
		       ? bad(err, opt, v, "a number in [0, 1]") : PM_OK;
	case PM__OPT_LAMBDA:
		if (pm_parse_number(v, &f->lambda_coef) || f->lambda_coef < 0)
			return bad(err, opt, v, "a number >= 0");
		f->lambda_power = f->lambda_coef;	/* unless --lambda-power says */
		return PM_OK;
	case PM__OPT_LAMBDA_POWER:
		/* wins over --lambda whatever their order (pm_options_parse) */
		if (pm_parse_number(v, &o->lambda_power) || o->lambda_power < 0)
			return bad(err, opt, v, "a number >= 0");
		o->lambda_power_given = 1;
		return PM_OK;
	case PM__OPT_TEST_FRACTION:
		return pm_parse_number(v, &f->test_fraction) || !(f->test_fraction > 0) ||
			       f->test_fraction >= 1
		       ? bad(err, opt, v, "a number between 0 and 1") : PM_OK;
	default:
		return NOT_MINE;
	}
}

/* Selection's and discovery's options. */
static int search_value(enum pm__option_id id, const pm_option_info *opt, const char *v,
			      pm_options *o, pm_error *err)
{
	unsigned long long u = 0;
	pm_status st;

	switch (id) {
	case PM__OPT_FORMS:
		o->forms = v;
		o->select_given = 1;
		return PM_OK;
	case PM__OPT_CV:
		o->select_given = 1;
		if (!(st = count(opt, v, 2, 1000000, "a whole number of folds >= 2", &u, err)))
			o->cv = (unsigned)u;
		return st;
	case PM__OPT_CV_SEED:
		o->select_given = 1;
		if (!(st = count(opt, v, 0, UINT64_MAX, "a whole number >= 0", &u, err)))
			o->cv_seed = u, o->cv_seed_given = 1;
		return st;
	case PM__OPT_REFINE:
		o->discover.refine = o->discover_given = 1;
		return PM_OK;
	case PM__OPT_MAX_TERMS:
		o->discover_given = 1;
		if (!(st = count(opt, v, 1, 6, "a whole number from 1 to 6", &u, err)))
			o->discover.max_terms = (unsigned)u;
		return st;
	case PM__OPT_BEAM:
		o->discover_given = 1;
		if (!(st = count(opt, v, 1, 64, "a whole number from 1 to 64", &u, err)))
			o->discover.beam = (unsigned)u;
		return st;
	case PM__OPT_TOP:
		o->discover_given = 1;
		if (!(st = count(opt, v, 1, 100, "a whole number from 1 to 100", &u, err)))
			o->discover.top = (unsigned)u;
		return st;
	case PM__OPT_SEEDS:
		if (!(st = count(opt, v, 1, 10000, "a whole number from 1 to 10000", &u, err)))
			o->nseeds = (unsigned)u;
		return st;
	default:
		return NOT_MINE;
	}
}

pm_status pm__option_value(pm_options *o, const pm_option_info *opt, const char *v,
			   pm_error *err)
{
	enum pm__option_id id = pm__option_id(opt);
	int st;

	switch (id) {
	case PM__OPT_SPEC: o->spec_path = v; return PM_OK;
	case PM__OPT_TARGET: o->target = v; return PM_OK;
	case PM__OPT_EXTRINSIC: o->extrinsic = v; return PM_OK;
	case PM__OPT_INTRINSIC: o->intrinsic = v; return PM_OK;
	case PM__OPT_CATEGORICAL: o->categorical = v; return PM_OK;
	case PM__OPT_IGNORE: o->ignore = v; return PM_OK;
	case PM__OPT_WORKERS: o->workers = v; return PM_OK;
	case PM__OPT_RESOURCE: o->resource = v; return PM_OK;
	case PM__OPT_TARGET_KIND:
		if (pm_target_kind_from_name(v, NULL, NULL))
			return bad(err, opt, v, "time, speedup, efficiency or throughput");
		o->target_kind = v;
		return PM_OK;
	case PM__OPT_OUTPUT: o->output = v; return PM_OK;
	case PM__OPT_JSON: o->json = 1; return PM_OK;
	case PM__OPT_QUIET: o->quiet = 1; return PM_OK;
	case PM__OPT_PLOT_DIR: o->plot_dir = v; return PM_OK;
	case PM__OPT_LOSS: o->losses = v; return PM_OK;	/* read once the command is known */
	case PM__OPT_FORM:
		if (!strcmp(v, "auto")) {
			o->form_auto = 1;	/* select's choice (pm_options_parse) */
			return PM_OK;
		}
		if (strcmp(v, "additive") && strcmp(v, "multiplicative"))
			return bad(err, opt, v, "additive, multiplicative or auto (a formula goes "
				   "in --formula)");
		/* fall through */
	case PM__OPT_FORMULA:
		if (o->form)
			return pm__fail(err, PM_EINVAL, "give one of --form and --formula, once");
		o->form = v;
		return PM_OK;
	case PM__OPT_TEST: o->test_path = v; return PM_OK;
	case PM__OPT_VALIDATE: o->validate = v; return PM_OK;
	case PM__OPT_WARM_START: o->warm_start = v; return PM_OK;
	case PM__OPT_HELP: o->help = 1; return PM_OK;
	default:
		break;
	}
	if ((st = read_value(id, opt, v, &o->read, err)) == NOT_MINE &&
	    (st = fit_value(id, opt, v, o, err)) == NOT_MINE)
		st = search_value(id, opt, v, o, err);
	return (pm_status)st;	/* every id is one group's */
}
