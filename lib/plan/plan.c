/* perfmodel plan: the fit, the files checked against it, the costs and the
 * measurements' noise, then the ensemble and the design (plan_impl.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/detmath.h"
#include "core/error.h"
#include "core/sort.h"
#include "model/model_impl.h"
#include "plan/plan_impl.h"

/* The noise floor on log scale: timings repeat to 0.1 % at best, and an
 * exact fit must not make a measurement look noiseless (docs/plan.md). */
#define NOISE_FLOOR 1e-3

pm_plan_options pm_plan_options_default(void)
{
	return (pm_plan_options){ .count = 5, .members = 16, .seed = 1 };
}

void pm_plan_free(pm_plan *p)
{
	if (!p)
		return;
	pm_model_free(p->model);
	pm_dataset_free(p->candidates);
	pm_dataset_free(p->targets);
	free(p->picks);
	free(p->forms);
	free(p->dropped);
	free(p->dropped_match);
	free(p->dropped_in);
	free(p->data_name);
	free(p->test_name);
	free(p);
}

static pm_status check_options(const pm_plan_options *po, pm_error *err)
{
	if (po->cost_column && po->cost_scale)
		return pm__fail(err, PM_EINVAL, "give one of --cost-column and --cost-scale: a "
				"cost is a column of the candidates, or their predicted time times "
				"one");
	if (!(po->budget >= 0) || !isfinite(po->budget))
		return pm__fail(err, PM_EINVAL, "the budget must be a finite number >= 0 (0: none)");
	if (!po->count && !po->budget)
		return pm__fail(err, PM_EINVAL, "no count and no budget: give either, or both");
	if (po->members < 2 || po->members > 1000)
		return pm__fail(err, PM_EINVAL, "members %u: from 2 to 1000 refits", po->members);
	return PM_OK;
}

/* Measured value y of row x (inputs as numbers) on the time scale the fit
 * works on (docs/maths.md, "Target kinds"): the library's own conversion,
 * with the model's resource and per inputs. */
static double time_scale(const pm_model *m, const double *x, double y)
{
	size_t res = pm_model_target_resource(m), per = pm_model_target_per(m);
	pm_target_kind kind = pm_model_target_kind(m);

	return pm__target_swap(kind, y,
			       pm__target_w(kind, res < SIZE_MAX ? x[res] : 1,
					    per < SIZE_MAX ? x[per] : 1));
}

/* The measurements' variance on log scale: the fit's residuals log(t / t^)
 * over the rows (the same on the time scale: t = w / y with one w), per
 * degree of freedom left, at least NOISE_FLOOR^2, into *noise2; and the
 * median measured time scale, the scale of the fit's absolute losses,
 * into *median. x: d's inputs as numbers. */
static pm_status noise_variance(const pm_model *m, const pm_dataset *d, const double *x,
				double *noise2, double *median, pm_error *err)
{
	size_t n = pm_dataset_nrows(d), col, used = 0, np = pm_model_nparams(m);
	size_t nin = pm_model_ninputs(m);
	double *pred = malloc((n + 1) * sizeof(*pred)), *seen = malloc((n + 1) * sizeof(*seen));
	double sum = 0, t;
	pm_status st;

	if (!pred || !seen) {
		free(pred);
		free(seen);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	st = pm_dataset_col_index(d, pm_model_target(m), &col, err);
	if (!st)
		st = pm_model_predict_dataset(m, d, pred, err);
	for (size_t r = 0; r < n && !st; r++)
		if (!pm_dataset_number(d, r, col, &t, NULL) && t > 0 && pred[r] > 0) {
			sum += pm__log(t / pred[r]) * pm__log(t / pred[r]);
			seen[used++] = time_scale(m, &x[r * nin], t);
		}
	qsort(seen, used, sizeof(*seen), pm__cmp_double);
	*median = used ? seen[used / 2] : 1;
	free(pred);
	free(seen);
	*noise2 = used > np ? sum / (double)(used - np) : used ? sum / (double)used : 0;
	*noise2 = fmax(*noise2, NOISE_FLOOR * NOISE_FLOOR);
	return st;
}

/* How much a measurement of candidate c will count in the fit, as a
 * variance on log scale: under the relative losses (mape, log) every run
 * counts alike; under the absolute ones (mae, mse) a run's residual on the
 * time scale weighs in proportion to its time scale, so a run of a tenth
 * of the typical time moves the fit as one ten times noisier would
 * (docs/plan.md). xc: the candidates' inputs as numbers. */
static pm_status candidate_noise(const pm_model *m, const double *xc, size_t nc,
				 double noise2, double median, double *out, pm_error *err)
{
	pm_loss loss = pm_model_fit_info(m)->options.loss;
	pm_status st;

	if (loss != PM_LOSS_MAE && loss != PM_LOSS_MSE) {
		for (size_t c = 0; c < nc; c++)
			out[c] = noise2;
		return PM_OK;
	}
	/* pm_model_predict's scale is the time scale */
	if ((st = pm_model_predict_batch(m, xc, nc, out, err)))
		return st;
	for (size_t c = 0; c < nc; c++) {
		double ratio = out[c] > 0 ? median / out[c] : 1;

		out[c] = fmax(noise2 * ratio * ratio, NOISE_FLOOR * NOISE_FLOOR);
	}
	return PM_OK;
}

/* Each candidate's cost: its column, or its predicted time pred[c] (times
 * the cost_scale column's value). Only those kept are read and checked: a
 * candidate left out is never run (its cost is set to 1). */
static pm_status costs(const pm_plan *p, const pm_plan_options *po, const double *pred,
		       const int *excluded, double *cost, pm_error *err)
{
	const pm_dataset *cd = p->candidates;
	const char *name = po->cost_column ? po->cost_column : po->cost_scale;
	size_t col = 0;
	pm_status st;

	if (!po->cost_column && pm_model_target_kind(p->model) != PM_TARGET_TIME)
		return pm__fail(err, PM_EINVAL, "the model predicts a %s, not a time: give the "
				"candidates' costs (--cost-column)",
				pm_target_kind_name(pm_model_target_kind(p->model)));
	if (name && pm_dataset_col_index(cd, name, &col, NULL))
		return pm__fail(err, PM_ESCHEMA, "the candidates (%s) have no column '%s' (the "
				"%s)", pm_dataset_name(cd), name,
				po->cost_column ? "cost column" : "cost scale");
	for (size_t c = 0; c < pm_dataset_nrows(cd); c++) {
		double v = 1;

		cost[c] = 1;
		if (excluded[c])
			continue;
		if (name && (st = pm_dataset_number(cd, c, col, &v, err)))
			return st;
		cost[c] = po->cost_column ? v : pred[c] * v;
		if (!(cost[c] > 0) || !isfinite(cost[c]))
			return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(cd),
					   pm_dataset_cell_line(cd, c, col),
					   name ? pm_dataset_cell_column(cd, c, col) : 0,
					   "candidate %zu costs %g: a cost must be a finite number > 0",
					   c + 1, cost[c]);
	}
	return PM_OK;
}

/* The measured rows: the fit's, and the test file's (--test): both are
 * known times. */
struct measured {
	const pm_dataset *d[2];	/* data, test (NULL: none) */
	const double *x[2];
};

/* Where x was measured: 1 with *where and *line set, else 0. */
static int find_measured(const struct measured *ms, size_t nin, const double *x,
			 pm_plan_repeats *where, size_t *line)
{
	for (int k = 0; k < 2; k++) {
		size_t n = ms->d[k] ? pm_dataset_nrows(ms->d[k]) : 0;
		size_t r = pm__plan_find(ms->x[k], n, nin, x);

		if (r < n) {
			*where = k ? PM_PLAN_IN_TEST : PM_PLAN_IN_DATA;
			*line = pm_dataset_cell_line(ms->d[k], r, 0);
			return 1;
		}
	}
	return 0;
}

/* Targets must be unmeasured (their time is known: nothing to plan for);
 * candidates measured already, or equal to an earlier candidate, are left
 * out, with the row they repeat. */
static pm_status match_measured(pm_plan *p, const struct measured *ms, const double *xc,
				const double *xt, int *excluded, pm_error *err)
{
	size_t nin = pm_model_ninputs(p->model), nc = pm_dataset_nrows(p->candidates), line;
	pm_plan_repeats where;

	for (size_t t = 0; t < pm_dataset_nrows(p->targets); t++)
		if (find_measured(ms, nin, &xt[t * nin], &where, &line))
			return pm__fail_at(err, PM_EINVAL, pm_dataset_name(p->targets),
					   pm_dataset_cell_line(p->targets, t, 0), 0,
					   "target %zu is a configuration already measured (%s line "
					   "%zu): its time is known; leave it out of the targets", t + 1,
					   pm_dataset_name(ms->d[where]), line);
	p->dropped = malloc((nc + 1) * sizeof(*p->dropped));
	p->dropped_match = malloc((nc + 1) * sizeof(*p->dropped_match));
	p->dropped_in = malloc((nc + 1) * sizeof(*p->dropped_in));
	if (!p->dropped || !p->dropped_match || !p->dropped_in)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t c = 0; c < nc; c++) {
		size_t first = pm__plan_find(xc, c, nin, &xc[c * nin]);

		if (first < c) {
			where = PM_PLAN_IN_CANDIDATES;
			line = pm_dataset_cell_line(p->candidates, first, 0);
		} else if (!find_measured(ms, nin, &xc[c * nin], &where, &line)) {
			continue;
		}
		excluded[c] = 1;
		p->dropped[p->ndropped] = c;
		p->dropped_in[p->ndropped] = where;
		p->dropped_match[p->ndropped++] = line;
	}
	if (p->ndropped == nc)
		return pm__fail(err, PM_EINVAL, "every candidate of %s has been measured already: "
				"nothing to plan", pm_dataset_name(p->candidates));
	return PM_OK;
}

/* The budget must buy one candidate at least. */
static pm_status check_budget(const pm_plan *p, const double *cost, const int *excluded,
			      pm_error *err)
{
	size_t cheapest = SIZE_MAX;

	if (!p->options.budget)
		return PM_OK;
	for (size_t c = 0; c < pm_dataset_nrows(p->candidates); c++)
		if (!excluded[c] && (cheapest == SIZE_MAX || cost[c] < cost[cheapest]))
			cheapest = c;
	if (pm__plan_affordable(0, cost[cheapest], p->options.budget))
		return PM_OK;
	return pm__fail(err, PM_EINVAL, "no budget left: the budget %g is less than the cheapest "
			"candidate's cost, %g (%s line %u)", p->options.budget, cost[cheapest],
			pm_dataset_name(p->candidates),
			pm_dataset_cell_line(p->candidates, cheapest, 0));
}

/* A bootstrap of one configuration draws it every time: the refits all
 * agree, whatever the model does not know. */
static pm_status check_configurations(const pm_plan *p, const pm_dataset *d,
				      const pm_plan_groups *g, pm_error *err)
{
	if (g->ngroups >= 2)
		return PM_OK;
	return pm__fail(err, PM_EINVAL, "%s holds %zu measured configuration%s: nothing to "
			"measure the predictions' uncertainty by; measure at least 2 (better as "
			"many as the model has unknowns, %zu) before planning", pm_dataset_name(d),
			g->ngroups, g->ngroups == 1 ? "" : "s", pm_model_nparams(p->model));
}

/* The forms the refits came from (kept[k]: form k's refits kept), named
 * as the model's choice names them when it records every one of its
 * ncand candidates in their order (up to PM_CHOICE_MAX), else by the
 * form of their model ("additive", "multiplicative", "formula"). */
static pm_status record_forms(pm_plan *p, const pm_plan_forms *f, size_t ncand,
			      const unsigned *kept, pm_error *err)
{
	const pm_choice *choice = &pm_model_fit_info(p->model)->choice;

	if (!(p->forms = calloc(f->n, sizeof(*p->forms))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	p->nforms = f->n;
	for (size_t k = 0; k < f->n; k++) {
		pm_plan_form *pf = &p->forms[k];
		size_t c = f->cand[k];

		snprintf(pf->form, sizeof(pf->form), "%s",
			 c < choice->n && choice->n == ncand ? choice->cand[c].form
							 : pm_model_form(f->fit[k]));
		pf->loss = pm_model_fit_info(f->fit[k])->options.loss;
		pf->members = kept[k];
	}
	return PM_OK;
}

/* Everything after the fit: r's rows (those it was fitted to, and the
 * test file's, measured too) and its choice among cand (none: r->ncand 0). */
static pm_status plan_from_fit(pm_plan *p, const pm_fit_result *r, const pm_candidate *cand,
			       const pm_spec *s, const pm_fit_options *o, pm_error *err)
{
	const pm_dataset *d = r->data, *test = r->test;
	const pm_model *own[1] = { p->model };
	size_t given[1] = { SIZE_MAX };
	unsigned all[1] = { p->options.members };
	pm_plan_forms forms = { 1, own, all, given };
	unsigned *kept = NULL;
	struct measured ms = { { d, test }, { NULL, NULL } };
	size_t nin = pm_model_ninputs(p->model), nc = pm_dataset_nrows(p->candidates);
	size_t nt = pm_dataset_nrows(p->targets);
	double *xd = NULL, *xtest = NULL, *xc = NULL, *xt = NULL, *pred = NULL, *cost = NULL;
	double *noise = NULL;
	double noise2 = 0, median = 1;
	int *excluded = calloc(nc + 1, sizeof(*excluded)), *categorical;
	pm_plan_groups g = { 0 };
	pm_plan_ensemble e = { 0 };
	pm_status st;

	categorical = calloc(nin + 1, sizeof(*categorical));
	pred = malloc((nc + nt + 1) * sizeof(*pred));
	cost = malloc((nc + 1) * sizeof(*cost));
	noise = malloc((nc + 1) * sizeof(*noise));
	kept = calloc(r->ncand + 1, sizeof(*kept));	/* a form at most per candidate */
	if (!excluded || !categorical || !pred || !cost || !noise || !kept) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nin; i++)
		categorical[i] = pm_model_input_role(p->model, i) == PM_ROLE_CATEGORICAL;
	if ((st = pm__plan_inputs(p->model, d, "the measurements", &xd, err)) ||
	    (test && (st = pm__plan_inputs(p->model, test, "the test rows", &xtest, err))) ||
	    (st = pm__plan_inputs(p->model, p->candidates, "the candidates", &xc, err)) ||
	    (st = pm__plan_inputs(p->model, p->targets, "the targets", &xt, err)))
		goto out;
	ms.x[0] = xd;
	ms.x[1] = xtest;
	if ((st = match_measured(p, &ms, xc, xt, excluded, err)) ||
	    (st = pm__plan_groups(xd, pm_dataset_nrows(d), nin, categorical, &g, err)) ||
	    (st = check_configurations(p, d, &g, err)) ||
	    (st = pm_model_predict_dataset(p->model, p->candidates, pred, err)) ||
	    (st = pm_model_predict_dataset(p->model, p->targets, pred + nc, err)) ||
	    (st = costs(p, &p->options, pred, excluded, cost, err)) ||
	    (st = check_budget(p, cost, excluded, err)) ||
	    (st = noise_variance(p->model, d, xd, &noise2, &median, err)) ||
	    (r->ncand && (st = pm__plan_forms(r, cand, s, o, p->model, p->options.members, &forms,
						 err))) ||
	    (st = pm__plan_ensemble(d, &g, s, o, &forms, kept, p->candidates, p->targets,
				    &p->options, &e, err)) ||
	    (st = record_forms(p, &forms, r->ncand, kept, err)) ||
	    (st = candidate_noise(p->model, xc, nc, noise2, median, noise, err)) ||
	    (st = pm__plan_design(&e, nc, cost, excluded, noise, &p->options, p, err)))
		goto out;
	p->members = e.nmembers;
	p->noise = sqrt(noise2);
	for (size_t k = 0; k < p->npicks; k++)
		p->picks[k].predicted = pred[p->picks[k].row];
out:
	free(xd);
	free(xtest);
	free(xc);
	free(xt);
	free(pred);
	free(cost);
	free(noise);
	free(excluded);
	free(categorical);
	pm__plan_groups_free(&g);
	pm__plan_ensemble_free(&e);
	if (forms.fit != own)
		pm__plan_forms_free(&forms);
	free(kept);
	return st;
}

pm_status pm_plan_file(const pm_source *src, const pm_spec *s, const pm_fit_options *o,
		       const pm_candidate *cand, size_t ncand, const pm_validation *v,
		       const char *candidates_path, const char *targets_path,
		       const pm_plan_options *po, pm_plan **out, pm_error *err)
{
	pm_fit_result *r = NULL;
	pm_plan *p;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_plan_file: out is NULL");
	*out = NULL;
	if (!src || !s || !o || !po || !candidates_path || !targets_path || (ncand && (!cand || !v)))
		return pm__fail(err, PM_EINVAL, "pm_plan_file: a NULL argument");
	if ((st = check_options(po, err)))
		return st;
	if (!(p = calloc(1, sizeof(*p))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	p->options = *po;	/* the costs' names are read during the call, not kept */
	st = ncand ? pm_select_file(src, s, o, cand, ncand, v, &r, err)
		   : pm_fit_file(src, s, o, 1, &r, err);
	if (!st && pm_model_fit_info(r->model)->interrupted)
		st = pm__fail(err, PM_EFIT, "interrupted during the fit: nothing was planned");
	if (!st) {
		p->model = r->model;
		r->model = NULL;
		p->data_name = strdup(pm_dataset_name(r->data));
		p->test_name = r->test ? strdup(pm_dataset_name(r->test)) : NULL;
		if (!p->data_name || (r->test && !p->test_name))
			st = pm__fail(err, PM_ENOMEM, "out of memory");
		else if (!(st = pm_dataset_read_csv(candidates_path, &p->candidates, err)) &&
			 !(st = pm_dataset_read_csv(targets_path, &p->targets, err)))
			st = plan_from_fit(p, r, cand, s, o, err);
	}
	p->options.cost_column = p->options.cost_scale = NULL;
	pm_fit_result_free(r);
	if (st) {
		pm_plan_free(p);
		return st;
	}
	*out = p;
	return PM_OK;
}
