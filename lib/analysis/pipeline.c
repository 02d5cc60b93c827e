/* From files to results: what perfmodel fit, select, sweep and eval do
 * between parsing their options and printing. Here, above fit/, because a
 * target may be derived from other columns: the LIF of the worker times
 * (eq. 3.8, lif.c), which the LIF report computes the same way. */
#include "perfmodel/perfmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stop.h"
#include "fit/holdout.h"
#include "spec/spec_impl.h"

pm_status pm_model_read_data(const pm_model *m, const char *path, const pm_read_options *o,
			     pm_dataset **out, pm_read_info *info, pm_error *err)
{
	pm_read_options ro = o ? *o : pm_read_options_default();
	pm_dataset *x = NULL;
	const char **key;
	size_t n;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_model_read_data: out is NULL");
	*out = NULL;
	if (info)
		*info = (pm_read_info){ 0 };
	if (!m || !path)
		return pm__fail(err, PM_EINVAL, "pm_model_read_data: NULL argument");
	n = pm_model_ninputs(m);
	if (!(key = malloc((n + 1) * sizeof(*key))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		key[i] = pm_model_input_name(m, i);
	key[n] = NULL;
	ro.target = pm_model_target(m);
	ro.key = key;
	st = pm_dataset_read(path, &ro, out, info, err);
	free(key);
	if (!st && !(st = pm_model_derive_lif(m, *out, &x, err)) && x) {
		pm_dataset_free(*out);
		*out = x;
	}
	if (st) {
		pm_dataset_free(*out);
		*out = NULL;
		pm_read_info_clear(info);
	}
	return st;
}

/* A derived target (fit --target lif): *d gets its column from s's workers. */
static pm_status derive(pm_spec *s, pm_dataset **d, pm_error *err)
{
	pm_dataset *x;
	pm_status st = pm_spec_derive_lif(s, *d, &x, err);

	if (!st && x) {
		pm_dataset_free(*d);
		*d = x;
	}
	return st;
}

/* Free what r holds, not r. */
static void clear(pm_fit_result *r)
{
	pm_model_free(r->model);
	pm_dataset_free(r->data);
	pm_dataset_free(r->test);
	pm_read_info_clear(&r->info);
	free(r->cv);
	pm_discovery_free(r->discovery);
}

void pm_fit_result_free(pm_fit_result *r)
{
	if (!r)
		return;
	clear(r);
	free(r);
}

/* src's files read into r for a private copy *sp of s (which reading may
 * give a target, and deriving the worker columns matched), the target
 * derived in both; *fo is o with the test file's rows as its held-out rows. */
static pm_status load(const pm_source *src, const pm_spec *s, const pm_fit_options *o,
		      pm_spec **sp, pm_fit_options *fo, pm_fit_result *r, pm_error *err)
{
	pm_status st;

	*sp = NULL;
	if (!src || !src->path || !s || !o)
		return pm__fail(err, PM_EINVAL, "no data file, spec or options");
	if (o->test)
		return pm__fail(err, PM_EINVAL, "held-out rows in a file come from the source's "
				"test_path, read as the data are");
	if ((st = pm__spec_copy(s, sp, err)) ||
	    (st = pm_spec_read_data(*sp, src->path, &src->read, &r->data, &r->info, err)) ||
	    (src->test_path &&
	     (st = pm_spec_read_data(*sp, src->test_path, &src->read, &r->test, NULL, err))) ||
	    (st = derive(*sp, &r->data, err)) || (r->test && (st = derive(*sp, &r->test, err))) ||
	    (st = pm__spec_complete(*sp, &r->data, &r->test, src->read.drop_incomplete, err)))
		return st;
	*fo = *o;
	fo->test = r->test;
	/* a stop request while the files were read: no fit begins (even
	 * stopped at once, one would take a good part of a second on many
	 * rows, and its model would be one random point) */
	if (pm__stop_requested(o->stop))
		return pm__fail(err, PM_EFIT, "interrupted while reading %s: nothing fitted",
				src->path);
	return PM_OK;
}

/* discover's winner as sp's form: its formula, fitted then as any. */
static pm_status discover(pm_spec *sp, const pm_discover_options *dopt,
			  const pm_fit_options *o, pm_fit_result *r, pm_error *err)
{
	pm_discover_options d = *dopt;
	pm_status st;

	/* the fit's threads and stop flag, unless the search has its own */
	if (!d.threads)
		d.threads = o->threads;
	if (!d.stop)
		d.stop = o->stop;
	st = pm_discover(r->data, sp, &d, &r->discovery, err);
	if (st)
		return st;
	/* a search cut short chose from what it had seen: no model to trust */
	if (r->discovery->interrupted)
		return pm__fail(err, PM_EFIT, "interrupted during the search: nothing fitted");
	return pm_spec_set_form(sp, d.refine ? r->discovery->refined
					     : r->discovery->cand[r->discovery->chosen].formula,
				err);
}

/* select's candidates, with the form "discover" replaced by the formula
 * pm_discover finds on the rows the selection validates (o's held-out rows
 * left out), ranked by the selection's scheme (none, for a file of held-out
 * rows: discover's default); *out NULL when no candidate is "discover".
 * r->discovery owns the formula. */
static pm_status discovered(pm_spec *sp, const pm_fit_options *o, const pm_candidate *cand,
			    size_t n, const pm_validation *v, pm_fit_result *r, pm_candidate **out,
			    char *skip, size_t skip_size, pm_error *err)
{
	pm_discover_options d = pm_discover_options_default();
	pm_dataset *train = NULL, *test = NULL;
	pm_error e = { 0 };
	char what[512];
	size_t k = 0;
	pm_status st;

	*out = NULL;
	while (k < n && strcmp(cand[k].form, "discover") != 0)
		k++;
	if (k == n)
		return PM_OK;
	if (v && v->scheme)
		d.validate = *v;
	d.threads = o->threads;
	d.stop = o->stop;
	if (!(st = pm__holdout_split(r->data, sp, o, &train, &test, what, err)) &&
	    (st = pm_discover(train ? train : r->data, sp, &d, &r->discovery, &e))) {
		/* a search that finds nothing to search, or no hypothesis that
		 * holds, leaves the other candidates to the choice */
		if (st != PM_ENOMEM && !pm__stop_requested(o->stop)) {
			snprintf(skip, skip_size, "%s%s",
				 strncmp(e.msg, "discover", 8) ? "discover: " : "", e.msg);
			st = PM_OK;
		} else if (err) {
			*err = e;
			pm__err_append(err, " (form 'discover')");
		}
	} else if (!st && r->discovery->interrupted) {
		st = pm__fail(err, PM_EFIT, "interrupted: no form chosen, the search for "
			      "'discover' was stopped");
	}
	if (!st && !(*out = malloc(n * sizeof(**out))))
		st = pm__fail(err, PM_ENOMEM, "out of memory");
	for (k = 0; !st && k < n; k++) {
		(*out)[k] = cand[k];
		if (strcmp(cand[k].form, "discover") != 0)
			continue;
		(*out)[k].label = "discover";
		if (r->discovery)
			(*out)[k].form = r->discovery->cand[r->discovery->chosen].formula;
		else
			(*out)[k].skip = skip;
	}
	pm_dataset_free(train);
	pm_dataset_free(test);
	return st;
}

/* The roles every candidate of a selection shares, resolved once on a copy:
 * a missing target or column is the data's error, not a candidate's. */
static pm_status roles_resolve(const pm_spec *sp, const pm_dataset *d, pm_error *err)
{
	pm_spec *rs = NULL;
	pm_status st = pm__spec_copy(sp, &rs, err);

	if (!st)
		st = pm_spec_resolve(rs, d, err);
	pm_spec_free(rs);
	return st;
}

/* The pipeline of fit (cand NULL: nseeds seeds of s's form), discover (dopt:
 * its winner's formula, fitted as fit does) or select (the candidates, each
 * on the same folds). */
static pm_status run(const pm_source *src, const pm_spec *s, const pm_fit_options *o,
		     unsigned nseeds, const pm_candidate *cand, size_t n, const pm_validation *v,
		     const pm_discover_options *dopt, pm_fit_result **out, pm_error *err)
{
	pm_fit_result *r;
	pm_spec *sp = NULL;
	pm_candidate *found = NULL;
	pm_fit_options fo;
	char skip[sizeof(((pm_error *)0)->msg) + 16];
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the result");
	*out = NULL;
	if (!(r = calloc(1, sizeof(*r))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if (!(st = load(src, s, o, &sp, &fo, r, err))) {
		if (dopt && (st = discover(sp, dopt, &fo, r, err)))
			;
		else if (!cand && dopt && !fo.test && !(fo.test_fraction > 0) &&
			 !fo.validate.scheme && (dopt->validate.scheme == PM_SCHEME_KFOLD ||
						 dopt->validate.scheme == PM_SCHEME_LOO)) {
			/* the formula's own fit measured by the search's folds */
			fo.validate = dopt->validate;
			st = pm_fit_seeds(r->data, sp, &fo, nseeds, &r->model, err);
		} else if (!cand)
			st = pm_fit_seeds(r->data, sp, &fo, nseeds, &r->model, err);
		else if (!(r->cv = calloc(n ? n : 1, sizeof(*r->cv))))
			st = pm__fail(err, PM_ENOMEM, "out of memory");
		else if ((st = roles_resolve(sp, r->data, err)))
			;
		else if (!(st = discovered(sp, &fo, cand, n, v, r, &found, skip, sizeof(skip),
					   err)) &&
			 !(st = pm_select(r->data, sp, &fo, found ? found : cand, n, v, r->cv,
					  &r->best, &r->model, err)))
			r->ncand = n;
	}
	free(found);
	pm_spec_free(sp);
	if (st) {
		pm_fit_result_free(r);
		return st;
	}
	*out = r;
	return PM_OK;
}

pm_status pm_fit_file(const pm_source *src, const pm_spec *s, const pm_fit_options *o,
		      unsigned nseeds, pm_fit_result **out, pm_error *err)
{
	return run(src, s, o, nseeds, NULL, 0, NULL, NULL, out, err);
}

pm_status pm_select_file(const pm_source *src, const pm_spec *s, const pm_fit_options *o,
			 const pm_candidate *cand, size_t n, const pm_validation *v,
			 pm_fit_result **out, pm_error *err)
{
	if (!cand) {
		if (out)
			*out = NULL;
		return pm__fail(err, PM_EINVAL, "no candidate to choose from");
	}
	return run(src, s, o, 0, cand, n, v, NULL, out, err);
}

pm_status pm_discover_file(const pm_source *src, const pm_spec *s, const pm_fit_options *o,
			   const pm_discover_options *dopt, unsigned nseeds, pm_fit_result **out,
			   pm_error *err)
{
	pm_discover_options def = pm_discover_options_default();

	return run(src, s, o, nseeds, NULL, 0, NULL, dopt ? dopt : &def, out, err);
}

pm_status pm_sweep_file(const pm_source *src, const pm_spec *s, const pm_fit_options *o,
			const pm_sweep_options *so, pm_sweep **out, pm_error *err)
{
	pm_fit_result r = { 0 };
	pm_spec *sp = NULL;
	pm_fit_options fo;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the sweep");
	*out = NULL;
	if (!(st = load(src, s, o, &sp, &fo, &r, err)))
		st = pm_sweep_run(r.data, sp, &fo, so, out, err);
	pm_spec_free(sp);
	clear(&r);
	return st;
}
