/* The choice of a model form and loss by validation (issue 10): every
 * candidate is fitted on the same folds (lib/select/crossval.c), so their
 * held-out errors differ by the candidate alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stop.h"
#include "fit/holdout.h"
#include "model/model_impl.h"
#include "select/crossval.h"
#include "select/yardstick.h"
#include "spec/spec_impl.h"

/* a before b by mean held-out MAPE: a number before NaN (a fold that
 * could not be measured), then the lower */
static int lower_mape(double a, double b)
{
	return !isnan(a) && (isnan(b) || a < b);
}

size_t pm_select_best(const pm_cv_result *cv, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; cv && i < n; i++) {
		int tie = !lower_mape(cv[i].mape, cv[best].mape) &&
			  !lower_mape(cv[best].mape, cv[i].mape);

		/* a constant fit describes none of the inputs: on a tie, the
		 * candidate that does wins, whatever the order of the list */
		if (lower_mape(cv[i].mape, cv[best].mape) ||
		    (tie && cv[best].constant_folds && !cv[i].constant_folds))
			best = i;
	}
	return best;
}

size_t pm_select_choose(const pm_cv_result *cv, size_t n, double noise_floor)
{
	size_t low = pm_select_best(cv, n), first = n, flat = n;
	double bar;

	if (!cv || n == 0 || isnan(cv[low].mape))
		return low;
	/* no candidate is better than another run of the same configuration:
	 * below the noise floor, all are as good */
	/* (and 1e-9 percentage points: MAPEs that differ by rounding alone,
	 * as every candidate's 0 of a constant, are equal) */
	bar = fmax(cv[low].mape, isnan(noise_floor) ? 0.0 : noise_floor) + pm__cv_std_error(&cv[low]) +
	      1e-9;
	for (size_t i = 0; i < n; i++) {
		if (isnan(cv[i].mape) || cv[i].mape > bar)
			continue;
		/* a constant as good as the lowest: no input's effect shows
		 * beyond the folds' disagreement or the noise, so the model is
		 * a constant, the one of the fewest unknowns ("C" rather than
		 * eq. 4.4 with every a at 0 and its powers undetermined) */
		if (cv[i].folds && cv[i].constant_folds == cv[i].folds) {
			if (flat == n || cv[i].nparams < cv[flat].nparams)
				flat = i;
		} else if (first == n && (!cv[i].constant_folds || cv[low].constant_folds)) {
			/* constant in some folds only: a form that cannot
			 * follow the data there */
			first = i;
		}
	}
	return flat < n ? flat : first < n ? first : low;
}

/* s with the candidate form; a formula is parsed here, before any fit. */
static pm_status form_spec(const pm_spec *s, const char *form, pm_spec **out, pm_error *err)
{
	pm_status st = pm__spec_copy(s, out, err);

	if (!st && (st = pm_spec_set_form(*out, form, err))) {
		pm_spec_free(*out);
		*out = NULL;
		pm__err_append(err, " (form '%s')", form);
	}
	return st;
}

/* Candidate i's name in the record: its label, its form, or "formula K". */
static void label(const pm_candidate *cand, size_t i, char *out, size_t size)
{
	size_t k = 1;

	if (cand[i].label || !strcmp(cand[i].form, "additive") ||
	    !strcmp(cand[i].form, "multiplicative")) {
		snprintf(out, size, "%s", cand[i].label ? cand[i].label : cand[i].form);
		return;
	}
	/* K: the place of its text among the distinct formulas listed (each
	 * is tried with every loss) */
	for (size_t j = 0; j < i && strcmp(cand[j].form, cand[i].form); j++) {
		int earlier = 0;

		for (size_t e = 0; e < j && !earlier; e++)
			earlier = !strcmp(cand[e].form, cand[j].form);
		k += !earlier && !cand[j].label && strcmp(cand[j].form, "additive") &&
		     strcmp(cand[j].form, "multiplicative");
	}
	snprintf(out, size, "formula %zu", k);
}

/* What the choice was, into m's record: each candidate's held-out error,
 * the rule, the noise floor and the log-linear yardstick on the same folds
 * (the model's own yardstick, info.yard_*, is its calibration's). */
static void record(pm_model *m, const pm_candidate *cand, const pm_cv_result *cv, size_t n,
		   const pm_validation *v, size_t chosen, double floor_pct, double yard)
{
	pm_choice *c = &m->info.choice;
	size_t low = pm_select_best(cv, n), idx[PM_CHOICE_MAX];

	/* the first PM_CHOICE_MAX candidates, or of more the first ones with
	 * the chosen and the lowest in the last places */
	c->n = n < PM_CHOICE_MAX ? n : PM_CHOICE_MAX;
	for (size_t j = 0; j < c->n; j++)
		idx[j] = j;
	if (n > PM_CHOICE_MAX) {
		size_t a = chosen < low ? chosen : low, b = chosen < low ? low : chosen;

		if (b >= PM_CHOICE_MAX - 1) {
			if (a != b && a >= PM_CHOICE_MAX - 2)
				idx[PM_CHOICE_MAX - 2] = a;
			idx[PM_CHOICE_MAX - 1] = b;
		}
	}
	c->chosen = c->lowest = 0;
	for (size_t j = 0; j < c->n; j++) {
		c->chosen = idx[j] == chosen ? j : c->chosen;
		c->lowest = idx[j] == low ? j : c->lowest;
	}
	c->noise_floor = floor_pct;
	snprintf(c->validation, sizeof(c->validation), "%s", cv[low].what);
	for (size_t j = 0; j < c->n; j++) {
		pm_choice_candidate *k = &c->cand[j];
		size_t i = idx[j];

		label(cand, i, k->form, sizeof(k->form));
		k->loss = cand[i].loss;
		k->nparams = cv[i].nparams;
		k->mape = cv[i].mape;
		k->mape_se = pm__cv_std_error(&cv[i]);
		snprintf(k->note, sizeof(k->note), "%s", cv[i].note);
	}
	if (chosen == low)
		snprintf(c->why, sizeof(c->why), "the lowest held-out MAPE");
	else if (cv[chosen].folds && cv[chosen].constant_folds == cv[chosen].folds)
		pm_snprintf(c->why, sizeof(c->why), "a constant within one standard error (%.3g) of "
			 "the lowest held-out MAPE (%.3g %%)%s: no input's effect shows beyond the "
			 "folds' disagreement", pm__cv_std_error(&cv[low]), cv[low].mape,
			 isnan(floor_pct) ? "" : " or of the noise floor");
	else if (!isnan(floor_pct) && cv[low].mape < floor_pct &&
		 cv[chosen].mape <= floor_pct + pm__cv_std_error(&cv[low]))
		pm_snprintf(c->why, sizeof(c->why), "the first listed within one standard error of "
			 "the repetitions' noise floor (%.3g %%), which the lowest (%.3g %%) "
			 "cannot truly beat", floor_pct, cv[low].mape);
	else
		pm_snprintf(c->why, sizeof(c->why), "the first listed within one standard error "
			 "(%.3g) of the lowest held-out MAPE (%.3g %%)", pm__cv_std_error(&cv[low]),
			 cv[low].mape);
	c->yardstick = yard;
	/* what the choice measured is the chosen model's held-out accuracy
	 * (optimistic by the choice made on those folds) */
	if (!m->info.test.n && cv[chosen].mean.n && v && v->scheme != PM_SCHEME_NONE) {
		m->info.test = cv[chosen].mean;
		m->info.options.validate = *v;
		snprintf(m->info.validation, sizeof(m->info.validation), "%s", cv[chosen].what);
		snprintf(m->info.test_name, sizeof(m->info.test_name), "%s", m->info.data_name);
	}
}

/* The noise floor and the yardstick on the rows the choice validates, the
 * yardstick on the candidates' folds (NULL: none, a file of held-out rows). */
static pm_status measures(const pm_dataset *d, const pm_spec *s, const pm_folds *folds,
			  double *floor_pct, double *yard, pm_error *err)
{
	pm_status st;

	*floor_pct = *yard = NAN;
	if ((st = pm__noise_floor(d, s, floor_pct, err)) || !folds)
		return st;
	return pm__yardstick(d, s, folds->fold, folds->nfolds, yard, NULL, err);
}

/* An error as a note: its place first, as the command line prints it. */
static void where(const pm_error *e, char *out, size_t size)
{
	if (e->file[0] && e->line)
		snprintf(out, size, "%.160s:%u:%u: %.300s", e->file, e->line, e->column, e->msg);
	else if (e->file[0] && !strstr(e->msg, e->file))
		snprintf(out, size, "%.160s: %.300s", e->file, e->msg);
	else
		snprintf(out, size, "%s", e->msg);
}

/* Each candidate validated by v on the same folds into cv[], *measured
 * counting those that could be; their fold fits run side by side
 * (pm__cross_validate_set). A candidate that cannot be (more unknowns than
 * a fold's rows, a loss the data refuse, a search with nothing to search)
 * is left out with a note, its MAPE NaN, and the first such error kept in
 * *first; a stop request or no memory ends it all. */
static pm_status validate_all(const pm_dataset *d, pm_spec *const *fs, const pm_candidate *cand,
			      size_t n, const pm_fit_options *o, const pm_validation *v,
			      const pm_folds *given, pm_cv_result *cv, size_t *measured,
			      pm_error *first, pm_status *first_st, pm_error *err)
{
	pm_folds folds = { 0 };
	const pm_spec **run = calloc(n, sizeof(*run));
	pm_fit_options *co = calloc(n, sizeof(*co));
	pm_cv_result *rcv = calloc(n, sizeof(*rcv));
	pm_status *rst = calloc(n, sizeof(*rst)), st = PM_OK, fst;
	pm_error *rerr = calloc(n, sizeof(*rerr));
	size_t nrun = 0, k = 0;

	*measured = 0;
	*first_st = PM_OK;
	if (!run || !co || !rcv || !rst || !rerr)
		st = pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !st; i++)
		if (!cand[i].skip) {
			run[nrun] = fs[i];
			co[nrun] = *o;
			co[nrun++].loss = cand[i].loss;
		}
	if (given)
		folds = *given;
	else if (!st && nrun && (fst = pm__cv_folds(d, run[0], o, v, &folds, &rerr[0]))) {
		/* no folds (no held-out rows either): every candidate's error */
		for (size_t j = 0; j < nrun; j++) {
			rst[j] = fst;
			rerr[j] = rerr[0];
		}
		nrun = 0;
	}
	if (!st && nrun)
		st = pm__cross_validate_set(d, nrun, run, co, &folds, rcv, rst, rerr, err);
	for (size_t i = 0; i < n && !st; i++) {
		pm_error e = { 0 };
		pm_status cst;

		if (cand[i].skip) {
			cst = pm__fail(&e, PM_EINVAL, "%s", cand[i].skip);
			cv[i] = (pm_cv_result){ 0 };
		} else if (!(cst = rst[k])) {
			cv[i] = rcv[k++];
			(*measured)++;
			continue;
		} else {
			cv[i] = rcv[k];	/* its folds, no means */
			e = rerr[k++];
			pm__err_append(&e, " (form '%s', loss %s)", cand[i].form,
				       pm_loss_name(cand[i].loss));
		}
		if (cst == PM_ENOMEM || pm__stop_requested(o->stop)) {
			if (err)
				*err = e;
			st = cst;
			break;
		}
		if (!*first_st) {
			*first_st = cst;
			*first = e;
		}
		cv[i].mape = cv[i].mape_std = cv[i].r2 = NAN;
		cv[i].mean.mape = cv[i].mean.r2 = NAN;
		where(&e, cv[i].note, sizeof(cv[i].note));
	}
	if (!given)
		pm_folds_free(&folds);
	free(run);
	free(co);
	free(rcv);
	free(rst);
	free(rerr);
	return st;
}

/* No candidate could be validated (a handful of rows): the first listed
 * that fits every row is the model, said in a warning; none: the first
 * validation's error. */
static pm_status unvalidated(const pm_dataset *d, pm_spec *const *fs, const pm_candidate *cand,
			     size_t n, const pm_fit_options *o, const pm_validation *v,
			     const pm_cv_result *cv, const pm_error *first, pm_status first_st,
			     size_t *best, pm_model **out, pm_error *err)
{
	pm_fit_options co = *o;
	pm_status st;

	for (size_t i = 0; i < n; i++) {
		if (cand[i].skip)
			continue;
		co.loss = cand[i].loss;
		if ((st = pm_fit(d, fs[i], &co, out, NULL)) == PM_OK) {
			*best = i;
			record(*out, cand, cv, n, v, i, NAN, NAN);
			snprintf((*out)->info.choice.why, sizeof((*out)->info.choice.why),
				 "no candidate could be validated: the first listed that fits "
				 "every row, unvalidated");
			return pm__model_add_warning(*out, err, "no candidate could be validated "
						     "(%s): '%s' (loss %s), the first listed that "
						     "fits every row, is fitted without a held-out "
						     "measure; measure more configurations", first->msg,
						     cand[i].form, pm_loss_name(co.loss));
		}
		if (st == PM_ENOMEM || pm__stop_requested(o->stop))
			return pm__fail(err, st, "%s", st == PM_ENOMEM ? "out of memory"
								 : "interrupted: nothing fitted");
	}
	if (err)
		*err = *first;
	return first_st;
}

/* The candidate chosen among those measured, fitted to every row of d,
 * with what the choice was recorded. */
static pm_status choose_and_fit(const pm_dataset *d, const pm_dataset *cvd, const pm_spec *s,
				pm_spec *const *fs, const pm_candidate *cand, size_t n,
				const pm_fit_options *o, const pm_validation *v,
				const pm_folds *folds, const pm_cv_result *cv, size_t *best,
				pm_model **out, pm_error *err)
{
	pm_fit_options co = *o;
	double floor_pct, yard;
	pm_status st = measures(cvd, s, folds, &floor_pct, &yard, err);

	if (st)
		return st;
	*best = pm_select_choose(cv, n, floor_pct);
	co.loss = cand[*best].loss;
	if ((st = pm_fit(d, fs[*best], &co, out, err))) {
		pm__err_append(err, " (form '%s' on every row)", cand[*best].form);
		return st;
	}
	record(*out, cand, cv, n, v, *best, floor_pct, yard);
	/* clearly below: by more than the folds disagree */
	if (!isnan(floor_pct) && cv[*best].mape + pm__cv_std_error(&cv[*best]) < floor_pct)
		st = pm__model_add_warning(*out, err, "the chosen model's held-out MAPE, %.3g %%, "
					   "is below the noise floor of the repeated "
					   "configurations, %.3g %% (the spread of repeated runs "
					   "of one configuration, what a perfect model misses a "
					   "new run by) by more than its standard error: no model "
					   "predicts a new run that well; expect about %.3g %%",
					   cv[*best].mape, floor_pct, floor_pct);
	return st;
}

pm_status pm_select(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
		    const pm_candidate *cand, size_t n, const pm_validation *v, pm_cv_result *cv,
		    size_t *best, pm_model **out, pm_error *err)
{
	pm_spec **fs;
	pm_dataset *cvd = NULL, *held = NULL;
	pm_folds folds = { 0 };
	char what[512];
	size_t measured = 0;
	pm_error first = { 0 };
	pm_status st = PM_OK, first_st = PM_OK, fst;

	if (!out || !best || !cv || !d || !s || !o)
		return pm__fail(err, PM_EINVAL, "pm_select: NULL argument");
	*out = NULL;
	*best = 0;
	if (n == 0 || !cand)
		return pm__fail(err, PM_EINVAL, "no candidate to choose from");
	/* a scheme that cannot hold out is the caller's error, not the data's
	 * (no candidate would be validated, and none should be chosen so) */
	if (v && v->scheme == PM_SCHEME_KFOLD && v->folds < 2)
		return pm__fail(err, PM_EINVAL, "%u folds: cross-validation needs 2 or more",
				v->folds);
	/* a warm start is of one form: the candidates' differ */
	if (o->warm_start)
		return pm__fail(err, PM_EINVAL, "a warm start refits the form of one model: not "
				"with a selection among forms");
	if (!(fs = calloc(n, sizeof(*fs))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	/* every form checked before the first (long) fit */
	for (size_t i = 0; i < n && !st; i++)
		if (!cand[i].skip)
			st = form_spec(s, cand[i].form, &fs[i], err);
	/* rows o holds out for the final model are held out of the choice too:
	 * the folds split only the rows its fit will train on */
	if (!st && !(st = pm__holdout_split(d, s, o, &cvd, &held, what, err)))
		pm_dataset_free(held);
	/* one dealing of the rows for every candidate, by the roles they share
	 * (a formula's own roles would group and stratify them otherwise);
	 * folds that cannot be dealt (one configuration) leave every candidate
	 * unvalidated */
	if (!st && v && v->scheme != PM_SCHEME_NONE &&
	    (fst = pm_validation_folds(cvd ? cvd : d, s, v, &folds, &first)) != PM_OK) {
		if (fst == PM_ENOMEM) {
			st = fst;
			if (err)
				*err = first;
		}
		for (size_t i = 0; i < n; i++) {
			cv[i] = (pm_cv_result){ .mape = NAN, .mape_std = NAN, .r2 = NAN };
			cv[i].mean.mape = cv[i].mean.r2 = NAN;
			where(&first, cv[i].note, sizeof(cv[i].note));
		}
		first_st = fst;
	} else if (!st) {
		st = validate_all(cvd ? cvd : d, fs, cand, n, o, v, folds.fold ? &folds : NULL, cv,
				  &measured, &first, &first_st, err);
	}
	if (!st && measured)
		st = choose_and_fit(d, cvd ? cvd : d, s, fs, cand, n, o, v,
				    folds.fold ? &folds : NULL, cv, best, out, err);
	else if (!st)
		st = unvalidated(d, fs, cand, n, o, v, cv, &first, first_st, best, out, err);
	pm_folds_free(&folds);
	if (st) {
		pm_model_free(*out);
		*out = NULL;
	}
	for (size_t i = 0; i < n; i++)
		pm_spec_free(fs[i]);
	free(fs);
	pm_dataset_free(cvd);
	return st;
}
