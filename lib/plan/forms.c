/* The forms the ensemble's members come from (plan_impl.h, docs/plan.md):
 * the fit's, and, when the form was chosen among candidates, each other
 * candidate form the choice measured, fitted to every row. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/erfc.h"
#include "core/error.h"
#include "plan/plan_impl.h"
#include "select/crossval.h"
#include "spec/spec_impl.h"

/* Candidate k's form as fitted: discover's formula for "discover"; NULL
 * when it was not measured (left out, skipped, constant in every fold:
 * a form that describes none of the inputs predicts nothing to tell the
 * forms apart by). */
static const char *measured_form(const pm_fit_result *r, const pm_candidate *cand, size_t k)
{
	const pm_cv_result *cv = &r->cv[k];

	if (cand[k].skip || isnan(cv->mape) || (cv->folds && cv->constant_folds == cv->folds))
		return NULL;
	if (strcmp(cand[k].form, "discover") != 0)
		return cand[k].form;
	return r->discovery ? r->discovery->cand[r->discovery->chosen].formula : NULL;
}

/* The candidate that stands for k's form: the chosen one for the chosen
 * form, else the form's lowest held-out MAPE (ties: the first listed). */
static size_t representative(const pm_fit_result *r, const pm_candidate *cand, size_t k)
{
	const char *form = measured_form(r, cand, k), *chosen = measured_form(r, cand, r->best);
	size_t rep = SIZE_MAX;

	if (chosen && !strcmp(form, chosen))
		return r->best;
	for (size_t j = 0; j < r->ncand; j++) {
		const char *fj = measured_form(r, cand, j);

		if (fj && !strcmp(fj, form) && (rep == SIZE_MAX || r->cv[j].mape < r->cv[rep].mape))
			rep = j;
	}
	return rep;
}

/* form fitted to every row of d with s's roles and the loss given (nothing held out,
 * no intervals). */
static pm_status fit_form(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			  const char *form, pm_loss loss, pm_model **out, pm_error *err)
{
	pm_fit_options co = pm__plan_refit_options(o);
	pm_spec *fs = NULL;
	pm_status st = pm__spec_copy(s, &fs, err);

	co.loss = loss;
	if (!st && !(st = pm_spec_set_form(fs, form, err)))
		st = pm_fit(d, fs, &co, out, err);
	pm_spec_free(fs);
	return st;
}

/* How likely candidate k's form is to hold out as well as the lowest
 * (low), by the folds' standard errors: 2 Phi(-delta / sqrt(se_k^2 +
 * se_low^2)) = erfc(delta / sqrt(2 (se_k^2 + se_low^2))), delta its
 * held-out MAPE above the lowest's, or above the repetitions' noise floor
 * when that is higher (below it every form is as good); 1 at delta 0. */
static double standing(const pm_fit_result *r, size_t k, size_t low, double floor_pct)
{
	const pm_cv_result *a = &r->cv[k], *b = &r->cv[low];
	double bar = isnan(floor_pct) ? b->mape : fmax(b->mape, floor_pct);
	double delta = a->mape - bar;
	double se2 = pm__cv_std_error(a) * pm__cv_std_error(a) +
		     pm__cv_std_error(b) * pm__cv_std_error(b);

	if (!(delta > 0))
		return 1;
	return se2 > 0 ? pm__erfc(delta / sqrt(2 * se2)) : 0;
}

/* members split by weight w[0..n) (sum > 0), by largest remainders (ties:
 * the earlier form) into m[0..n). */
static void split(unsigned members, const double *w, size_t n, unsigned *m)
{
	double sum = 0;
	unsigned given = 0;

	for (size_t k = 0; k < n; k++)
		sum += w[k];
	for (size_t k = 0; k < n; k++) {
		m[k] = (unsigned)floor(members * w[k] / sum);
		given += m[k];
	}
	while (given < members) {
		size_t best = 0;
		double most = -1;

		for (size_t k = 0; k < n; k++) {
			double rest = members * w[k] / sum - m[k];

			if (rest > most) {
				most = rest;
				best = k;
			}
		}
		m[best]++;
		given++;
	}
}

pm_status pm__plan_forms(const pm_fit_result *r, const pm_candidate *cand, const pm_spec *s,
			 const pm_fit_options *o, const pm_model *fit, unsigned members,
			 pm_plan_forms *f, pm_error *err)
{
	double floor_pct = pm_model_fit_info(fit)->choice.noise_floor, *w;
	size_t low = pm_select_best(r->cv, r->ncand), n = 0;
	pm_status st = PM_OK;

	memset(f, 0, sizeof(*f));
	f->fit = calloc(r->ncand + 1, sizeof(*f->fit));
	f->cand = calloc(r->ncand + 1, sizeof(*f->cand));
	f->members = calloc(r->ncand + 1, sizeof(*f->members));
	w = malloc((r->ncand + 1) * sizeof(*w));
	if (!f->fit || !f->cand || !f->members || !w) {
		free(w);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	/* the candidates that stand for a form, the chosen first */
	f->cand[n] = r->best;
	w[n++] = standing(r, r->best, low, floor_pct);
	for (size_t k = 0; k < r->ncand; k++)
		if (k != r->best && measured_form(r, cand, k) && representative(r, cand, k) == k) {
			f->cand[n] = k;
			w[n++] = standing(r, k, low, floor_pct);
		}
	split(members, w, n, f->members);
	free(w);
	f->fit[f->n++] = fit;
	for (size_t j = 1; j < n && !st; j++) {
		size_t k = f->cand[j];
		pm_model *m = NULL;
		pm_error e;

		/* a form of no members is not fitted */
		if (!f->members[j])
			continue;
		st = fit_form(r->data, s, o, measured_form(r, cand, k), cand[k].loss, &m, &e);
		if (st == PM_ENOMEM) {
			if (err)
				*err = e;
		} else if (o->stop && *o->stop) {
			pm_model_free(m);
			st = pm__fail(err, PM_EFIT, "interrupted while fitting the other forms: "
				      "nothing was planned");
		} else if (st) {
			/* a form that cannot be fitted to every row: its members are
			 * the fit's */
			f->members[0] += f->members[j];
			st = PM_OK;
		} else {
			f->fit[f->n] = m;
			f->cand[f->n] = k;
			f->members[f->n++] = f->members[j];
		}
	}
	return st;
}

void pm__plan_forms_free(pm_plan_forms *f)
{
	/* fit[0] is the caller's */
	for (size_t k = 1; k < f->n; k++)
		pm_model_free((pm_model *)f->fit[k]);
	free(f->fit);
	free(f->cand);
	free(f->members);
	memset(f, 0, sizeof(*f));
}
