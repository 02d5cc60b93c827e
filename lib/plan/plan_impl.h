/* What the files of plan/ share: the configurations of a file's rows, the
 * ensemble of refits, the greedy design. Private to plan/. */
#ifndef PM_PLAN_IMPL_H
#define PM_PLAN_IMPL_H

#include <stddef.h>
#include "perfmodel/pipeline.h"
#include "perfmodel/plan.h"

/* The model's inputs of every row of d as one number each (a numeric
 * input's value, a categorical one's level index in m), row r at
 * (*x)[r * ninputs], malloc'd: configurations compare as these numbers.
 * `what` names the file's part in messages ("the candidates"). Errors:
 * PM_ESCHEMA (d lacks an input's column), PM_EDOMAIN (a level m does not
 * know, text where a number is needed: at FILE:LINE:COL), PM_ENOMEM. */
pm_status pm__plan_inputs(const pm_model *m, const pm_dataset *d, const char *what, double **x,
			  pm_error *err);

/* The first of the n rows of xs (nin numbers each) equal to x, or n. */
size_t pm__plan_find(const double *xs, size_t n, size_t nin, const double *x);

/* The measured rows grouped by configuration, the groups by combination of
 * categorical levels (a stratum): a bootstrap draws groups, each with all
 * its rows, within each stratum, so that every level stays in every
 * resample. */
typedef struct pm_plan_groups {
	size_t ngroups;
	size_t *start, *rows;		/* group g's rows: rows[start[g] .. start[g + 1]) */
	size_t nstrata;
	size_t *sstart, *sgroups;	/* stratum k's groups: sgroups[sstart[k] .. sstart[k + 1]) */
} pm_plan_groups;

/* The groups of the n rows of x (nin inputs each; categorical[i] set for
 * a categorical input). PM_ENOMEM. */
pm_status pm__plan_groups(const double *x, size_t n, size_t nin, const int *categorical,
			  pm_plan_groups *g, pm_error *err);
void pm__plan_groups_free(pm_plan_groups *g);

/* The ensemble's view of the points (the candidates, then the targets):
 * a[j * nmembers + b] = member b's log prediction at point j less the
 * members' mean, over sqrt(nmembers - 1), so that a a^T is the members'
 * covariance. */
typedef struct pm_plan_ensemble {
	size_t npoints;
	unsigned nmembers;
	double *a;
} pm_plan_ensemble;

/* The forms the members come from: fit[0] the fit's own, then each other
 * form the automatic choice measured; members[k]: form k's share of the
 * refits (members b from the sum of the shares before it on); cand[k]:
 * its index among the choice's candidates (SIZE_MAX: the form was given).
 * fit[0] is the caller's, the others pm__plan_forms_free's. */
typedef struct pm_plan_forms {
	size_t n;
	const pm_model **fit;
	unsigned *members;
	size_t *cand;
} pm_plan_forms;

/* o as the plan's fits of other forms and its refits take it: no
 * intervals, no rows held out, no validation, no progress (the plan's
 * own). */
static inline pm_fit_options pm__plan_refit_options(const pm_fit_options *o)
{
	pm_fit_options r = *o;

	r.intervals = 0;
	r.test_fraction = 0;
	r.test = NULL;
	r.validate.scheme = PM_SCHEME_NONE;
	r.progress = NULL;
	return r;
}

/* The forms of r's choice among cand (r->ncand of them; fit the chosen
 * candidate's model, fitted to every row): the fit's, then each other
 * form measured and not constant in every fold, with the loss of its
 * lowest held-out MAPE. The members are split among them in proportion
 * to how likely each is to hold out as well as the lowest held-out MAPE
 * (docs/plan.md); each form with a share is fitted to every row of
 * r->data with s's roles and o's settings (no intervals, nothing held
 * out). A form that cannot be fitted gives its share to the fit's.
 * Errors: PM_EFIT (o->stop set), PM_ENOMEM. */
pm_status pm__plan_forms(const pm_fit_result *r, const pm_candidate *cand, const pm_spec *s,
			 const pm_fit_options *o, const pm_model *fit, unsigned members,
			 pm_plan_forms *f, pm_error *err);
void pm__plan_forms_free(pm_plan_forms *f);

/* po->members refits of s to bootstrap resamples of d's groups, each
 * warm-started from its form's fit (forms->members) with o's settings and
 * that fit's loss (no intervals, no held-out rows; kept[k]: form k's
 * refits kept),
 * predicting cand's and targets' rows. A refit that fails, or predicts a
 * point it cannot (a level its resample lacked), is left out. Errors:
 * PM_EFIT (fewer than 2 refits left; o->stop set), PM_ENOMEM. */
pm_status pm__plan_ensemble(const pm_dataset *d, const pm_plan_groups *g, const pm_spec *s,
			    const pm_fit_options *o, const pm_plan_forms *forms, unsigned *kept,
			    const pm_dataset *cand, const pm_dataset *targets,
			    const pm_plan_options *po, pm_plan_ensemble *e, pm_error *err);
void pm__plan_ensemble_free(pm_plan_ensemble *e);

/* The greedy design (docs/plan.md): among the candidates not excluded
 * (excluded[c] set), pick the one of the highest expected reduction of
 * the targets' summed variance per cost, condition the ensemble's
 * covariance on it, and go on until po's count or budget is reached or no
 * candidate is affordable. The picks, their gains and costs go into p
 * (p->picks allocated, npicks, spread_before and _after, total_cost);
 * noise2[c] is candidate c's measurement variance on log scale, as the
 * fit will weigh it. PM_ENOMEM. */
pm_status pm__plan_design(const pm_plan_ensemble *e, size_t ncand, const double *cost,
			  const int *excluded, const double *noise2, const pm_plan_options *po,
			  pm_plan *p, pm_error *err);

/* Whether a run of cost `cost` fits in budget once `spent` is spent: the
 * sum may exceed the budget by its rounding, 1e-12 relative, so that costs
 * 0.1 and 0.2 fit in a budget of 0.3 (docs/plan.md). */
static inline int pm__plan_affordable(double spent, double cost, double budget)
{
	return spent + cost <= budget * (1 + 1e-12);
}

#endif
