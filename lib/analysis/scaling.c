/* The scaling report: each extrinsic input's own power and the model's
 * effective exponent at a baseline, and its predicted speedup and parallel
 * efficiency over the values seen, the rest held at that baseline. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/sort.h"
#include "model/model_impl.h"
#include "results/model_save.h"
#include "model/predict_impl.h"

void pm_scaling_report_free(pm_scaling_report *r)
{
	if (!r)
		return;
	for (size_t j = 0; r->scaling && j < r->n; j++) {
		free(r->scaling[j].value);
		free(r->scaling[j].time);
		free(r->scaling[j].speedup);
		free(r->scaling[j].efficiency);
	}
	free(r->scaling);
	free(r->baseline);
	free(r);
}

/* Column i of the model in d: sorted numbers into x[n] (numeric input), or
 * the most frequent level (categorical), into r->baseline[i]. */
static pm_status baseline(const pm_model *m, const pm_dataset *d, size_t i, double *x,
			  size_t *count, double *out, pm_error *err)
{
	const pm_input *in = &m->inputs[i];
	size_t n = pm_dataset_nrows(d), c, best = 0;
	pm_status st;

	if ((st = pm_dataset_col_index(d, in->name, &c, err)))
		return st;
	if (in->role == PM_ROLE_CATEGORICAL) {
		memset(count, 0, in->nlevels * sizeof(*count));
		for (size_t r = 0; r < n; r++) {
			size_t v;

			if (pm_model_level_index(m, i, pm_dataset_cell(d, r, c), &v, NULL))
				return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(d),
						   pm_dataset_cell_line(d, r, c),
						   pm_dataset_cell_column(d, r, c),
						   "column '%s': unknown level '%.64s'", in->name,
						   pm_dataset_cell(d, r, c));
			count[v]++;
		}
		for (size_t v = 1; v < in->nlevels; v++)
			best = count[v] > count[best] ? v : best;
		*out = (double)best;
		return PM_OK;
	}
	if ((st = pm_dataset_col_numbers(d, c, x, err)))
		return st;
	qsort(x, n, sizeof(*x), pm__cmp_double);
	*out = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
	return PM_OK;
}

/* Input i's row of the report, from its sorted values x[n]. */
static pm_status scale_input(const pm_model *m, size_t i, const double *x, size_t n,
			     const double *base, pm_scaling *s, pm_error *err)
{
	double *pt = malloc(m->ninputs * sizeof(*pt) + 1);
	size_t k = 0;
	pm_status st = PM_OK;

	s->input = i;
	s->param = 0;
	while (s->param < m->nparams && !(m->params[s->param].desc.kind == PM_PARAM_SCALING &&
					  m->params[s->param].desc.input == i))
		s->param++;
	/* a formula's extrinsic input may have no power of its own (NaN) or
	 * divide by it (power −q) */
	s->q = s->param < m->nparams ? m->raw[s->param] : NAN;
	s->q_std = s->param < m->nparams ? m->params[s->param].std : NAN;
	s->power = pm_model_param_power(m, s->param);
	s->doubling = pm__exp2(s->power);
	/* no derivative at the baseline (a step there) is a NaN the report
	 * shows (pm_model_effective_exponent says why), not a failure of the
	 * report; a point the model cannot take fails the table below */
	if (pm_model_effective_exponent(m, base, i, &s->effective, NULL))
		s->effective = NAN;
	s->value = malloc(n * sizeof(double));
	s->time = malloc(n * sizeof(double));
	s->speedup = malloc(n * sizeof(double));
	s->efficiency = malloc(n * sizeof(double));
	if (!pt || !s->value || !s->time || !s->speedup || !s->efficiency) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(pt, base, m->ninputs * sizeof(*pt));
	for (size_t r = 0; r < n; r++) {
		if (k && x[r] == s->value[k - 1])
			continue;
		s->value[k] = x[r];
		if ((st = pm__scaling_at(m, pt, i, s->value[0], x[r], &s->time[k], &s->speedup[k],
					 &s->efficiency[k], err)))
			goto out;
		k++;
	}
	s->npoints = k;
out:
	free(pt);
	return st;
}

pm_status pm_scaling_report_new(const pm_model *m, const pm_dataset *d,
				pm_scaling_report **out, pm_error *err)
{
	size_t n = pm_dataset_nrows(d), maxlev = 1;
	pm_scaling_report *r = NULL;
	double *x = NULL;
	size_t *count = NULL;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the report");
	*out = NULL;
	if (!m || !d || n == 0)
		return pm__fail(err, PM_EINVAL, "a scaling report needs a model and rows");
	for (size_t i = 0; i < m->ninputs; i++)
		maxlev = m->inputs[i].nlevels > maxlev ? m->inputs[i].nlevels : maxlev;
	r = calloc(1, sizeof(*r));
	x = malloc(n * sizeof(*x));
	count = malloc(maxlev * sizeof(*count));
	if (!r || !x || !count ||
	    !(r->baseline = malloc(m->ninputs * sizeof(*r->baseline) + 1)) ||
	    !(r->scaling = calloc(m->ninputs + 1, sizeof(*r->scaling)))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < m->ninputs; i++)
		if ((st = baseline(m, d, i, x, count, &r->baseline[i], err)))
			goto out;
	/* again per extrinsic: x must hold that input's own sorted values */
	for (size_t i = 0; i < m->ninputs; i++) {
		double ignored;

		if (m->inputs[i].role != PM_ROLE_EXTRINSIC)
			continue;
		if ((st = baseline(m, d, i, x, count, &ignored, err)) ||
		    (st = scale_input(m, i, x, n, r->baseline, &r->scaling[r->n++], err)))
			goto out;
	}
	*out = r;
	r = NULL;
	st = PM_OK;
out:
	pm_scaling_report_free(r);
	free(x);
	free(count);
	return st;
}

/* fit --json's members (pm_fit_report_to_json) into the open object of w;
 * PM_EINVAL, writing nothing, for a model that cannot be saved. */
static pm_status write_fit_report(pm_jw *w, const pm_model *m, const pm_scaling_report *r,
				  pm_error *err)
{
	pm_status st;

	if ((st = pm__model_write_members(w, m, err)))
		return st;
	pm__jw_key(w, "scaling");
	pm__jw_array_begin(w);
	for (size_t j = 0; j < r->n; j++) {
		const pm_scaling *s = &r->scaling[j];

		static const char *const keys[] = { "q", "q_std", "power", "doubling",
						    "effective_exponent" };
		const double v[] = { s->q, s->q_std, s->power, s->doubling, s->effective };

		pm__jw_object_begin(w);
		pm__jw_key(w, "input");
		pm__jw_string(w, m->inputs[s->input].name);
		pm__jw_key(w, "parameter");
		if (s->param < m->nparams)
			pm__jw_string(w, m->params[s->param].name);
		else
			pm__jw_null(w);
		pm__jw_doubles(w, keys, v, sizeof(v) / sizeof(v[0]));
		pm__jw_key(w, "points");
		pm__jw_array_begin(w);
		for (size_t k = 0; k < s->npoints; k++) {
			static const char *const keys[] = { "value", "time", "speedup", "efficiency" };
			const double v[] = { s->value[k], s->time[k], s->speedup[k], s->efficiency[k] };

			pm__jw_object_begin(w);
			pm__jw_doubles(w, keys, v, 4);
			pm__jw_object_end(w);
		}
		pm__jw_array_end(w);
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
	pm__jw_key(w, "baseline");
	pm__jw_object_begin(w);
	for (size_t i = 0; i < m->ninputs; i++) {
		pm__jw_key(w, m->inputs[i].name);
		if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
			pm__jw_string(w, m->inputs[i].levels[(size_t)r->baseline[i]]);
		else
			pm__jw_double(w, r->baseline[i]);
	}
	pm__jw_object_end(w);
	return PM_OK;
}

pm_status pm_fit_report_to_json(const pm_model *m, const pm_scaling_report *r, char **out,
				pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, m && r, "model or report", err)))
		return st;
	pm__jw_object_begin(&w);
	if ((st = write_fit_report(&w, m, r, err))) {
		free(w.buf);
		return st;
	}
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}

/* "key": {"mape", "smape", "mae", "mse", "rmse", "r2"} of x: the held-out
 * metrics a cross-validation gives a mean and a std of. */
static void cv_metrics(pm_jw *w, const char *key, const pm_metrics *x)
{
	static const char *const keys[] = { "mape", "smape", "mae", "mse", "rmse", "r2" };
	const double v[] = { x->mape, x->smape, x->mae, x->mse, x->rmse, x->r2 };

	pm__jw_key(w, key);
	pm__jw_object_begin_line(w);
	pm__jw_doubles(w, keys, v, sizeof(v) / sizeof(v[0]));
	pm__jw_object_end(w);
}

/* "selection": the table select prints, whole (docs/json.md). */
static void write_selection(pm_jw *w, const pm_selection *sel)
{
	char text[320];

	pm_validation_text(sel->validation, text, sizeof(text));
	pm__jw_key(w, "selection");
	pm__jw_object_begin(w);
	pm__jw_key(w, "validation");
	pm__jw_string(w, text);
	pm__jw_key(w, "description");
	pm__jw_string(w, sel->cv[0].what);
	pm__jw_key(w, "folds");
	pm__jw_uint(w, sel->cv[0].folds);
	if (sel->validation && sel->validation->scheme == PM_SCHEME_KFOLD) {
		pm__jw_key(w, "fold_seed");
		pm__jw_uint(w, sel->validation->seed);
	}
	pm__jw_key(w, "kept");
	pm__jw_uint(w, sel->cv[0].kept);
	pm__jw_key(w, "rows");
	pm__jw_uint(w, sel->cv[0].mean.n);
	pm__jw_key(w, "chosen");
	pm__jw_uint(w, sel->best);
	pm__jw_key(w, "candidates");
	pm__jw_array_begin(w);
	for (size_t i = 0; i < sel->n; i++) {
		const pm_cv_result *cv = &sel->cv[i];

		pm__jw_object_begin(w);
		pm__jw_key(w, "form");
		pm__jw_string(w, sel->cand[i].form);
		if (sel->discovery && strcmp(sel->cand[i].form, "discover") == 0) {
			pm__jw_key(w, "formula");
			pm__jw_string(w, sel->discovery->cand[sel->discovery->chosen].formula);
		}
		pm__jw_key(w, "loss");
		pm__jw_string(w, pm_loss_name(sel->cand[i].loss));
		pm__jw_key(w, "params");
		pm__jw_uint(w, cv->nparams);
		pm__jw_key(w, "chosen");
		pm__jw_bool(w, i == sel->best);
		pm__jw_key(w, "constant_folds");
		pm__jw_uint(w, cv->constant_folds);
		cv_metrics(w, "mean", &cv->mean);
		cv_metrics(w, "std", &cv->std);
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
	pm__jw_object_end(w);
}

pm_status pm_select_report_to_json(const pm_model *m, const pm_scaling_report *r,
				   const pm_selection *sel, char **out, pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, m && r && sel && sel->n && sel->cand && sel->cv &&
					     sel->best < sel->n,
			       "model, report or selection", err)))
		return st;
	pm__jw_object_begin(&w);
	if ((st = write_fit_report(&w, m, r, err))) {
		free(w.buf);
		return st;
	}
	write_selection(&w, sel);
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}

/* "discovery": what discover searched and the candidates it reports. */
static void write_discovery(pm_jw *w, const pm_discovery *x, const pm_validation *v)
{
	static const char *const keys[] = { "mape", "mape_se" };
	char text[320];

	pm_validation_text(v, text, sizeof(text));
	pm__jw_key(w, "discovery");
	pm__jw_object_begin(w);
	pm__jw_key(w, "validation");
	pm__jw_string(w, text);
	pm__jw_key(w, "description");
	pm__jw_string(w, x->what);
	pm__jw_key(w, "folds");
	pm__jw_uint(w, x->folds);
	pm__jw_key(w, "hypotheses");
	pm__jw_uint(w, x->hypotheses);
	pm__jw_key(w, "rejected");
	pm__jw_uint(w, x->rejected);
	pm__jw_key(w, "chosen");
	pm__jw_uint(w, x->chosen);
	pm__jw_key(w, "refined");
	pm__jw_string(w, x->refined);
	pm__jw_key(w, "candidates");
	pm__jw_array_begin(w);
	for (size_t i = 0; i < x->n; i++) {
		const double val[] = { x->cand[i].mape, x->cand[i].mape_se };

		pm__jw_object_begin_line(w);
		pm__jw_key(w, "formula");
		pm__jw_string(w, x->cand[i].formula);
		pm__jw_key(w, "terms");
		pm__jw_uint(w, x->cand[i].terms);
		pm__jw_doubles(w, keys, val, 2);
		pm__jw_key(w, "chosen");
		pm__jw_bool(w, i == x->chosen);
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
	pm__jw_object_end(w);
}

pm_status pm_discover_report_to_json(const pm_model *m, const pm_scaling_report *r,
				     const pm_discovery *x, const pm_validation *v, char **out,
				     pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, m && r && x && v && x->n && x->chosen < x->n,
			       "model, report or discovery", err)))
		return st;
	pm__jw_object_begin(&w);
	if ((st = write_fit_report(&w, m, r, err))) {
		free(w.buf);
		return st;
	}
	write_discovery(&w, x, v);
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}
