/* The JSON documents of what the model layer answers (docs/json.md): eval's
 * accuracy, predict's predictions, advise's picks, and the version. Here
 * and not beside pm_model_advise and pm_version, which are in the predictor
 * library: that one stays free of the writer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "core/jsonw.h"
#include "model/model_impl.h"
#include "results/model_save.h"

/* "target", and "target_kind" for a kind other than time (whose numbers
 * are in that quantity), which leaves a time model's documents as they
 * were. */
static void target_members(pm_jw *w, const pm_model *m)
{
	pm__jw_key(w, "target");
	pm__jw_string(w, m->target);
	if (m->kind != PM_TARGET_TIME) {
		pm__jw_key(w, "target_kind");
		pm__jw_string(w, pm_target_kind_name(m->kind));
	}
}

pm_status pm_eval_to_json(const pm_model *m, const char *model_name, const char *data_name,
			  const pm_metrics *x, char **out, pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, m && x, "model or metrics", err)))
		return st;
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, "model");
	pm__jw_string(&w, model_name);
	pm__jw_key(&w, "file");
	pm__jw_string(&w, data_name);
	target_members(&w, m);
	pm__metrics_write_members(&w, x);
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}

/* A cell as a JSON value: a number if it is one, else its text. */
static void cell(pm_jw *w, const char *text)
{
	char *end;
	double v = pm_strtod(text, &end);

	if (*text && !*end && isfinite(v))
		pm__jw_double(w, v);
	else
		pm__jw_string(w, text);
}

pm_status pm_predictions_to_json(const pm_dataset *d, const double *pred, const char *label,
				 char **out, pm_error *err)
{
	return pm_predictions_columns_to_json(d, pred, label, NULL, out, err);
}

pm_status pm_predictions_columns_to_json(const pm_dataset *d, const double *pred,
					 const char *label, const pm_prediction_columns *x,
					 char **out, pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, d && pred && (!x || !x->ncols || (x->name && x->value)),
			       "points or predictions", err)))
		return st;
	pm__jw_array_begin(&w);
	for (size_t r = 0; r < pm_dataset_nrows(d); r++) {
		pm__jw_object_begin_line(&w);
		for (size_t c = 0; c < pm_dataset_ncols(d); c++) {
			pm__jw_key(&w, pm_dataset_col_name(d, c));
			cell(&w, pm_dataset_cell(d, r, c));
		}
		pm__jw_key(&w, label ? label : "predicted");
		pm__jw_double(&w, pred[r]);
		for (size_t c = 0; x && c < x->ncols; c++) {
			pm__jw_key(&w, x->name[c]);
			pm__jw_double(&w, x->value[r * x->ncols + c]);
		}
		if (x && x->extrapolated) {
			pm__jw_key(&w, "extrapolated");
			pm__jw_bool(&w, x->extrapolated[r]);
		}
		pm__jw_object_end(&w);
	}
	pm__jw_array_end(&w);
	return pm__jw_finish(&w, out, err);
}

/* Where a pick lies against the fitted data: "extrapolated" (null: the
 * model keeps no ranges), and when it is, "beyond": the input, the factor
 * (null: infinite) and the input's fitted range. */
static void beyond_members(pm_jw *w, const pm_model *m, int ranges, const pm_advice_pick *p)
{
	size_t i = p->beyond_input;

	pm__jw_key(w, "extrapolated");
	if (!ranges || isnan(p->beyond)) {
		pm__jw_null(w);
		return;
	}
	pm__jw_bool(w, p->beyond > 1);
	if (!(p->beyond > 1))
		return;
	pm__jw_key(w, "beyond");
	pm__jw_object_begin_line(w);
	pm__jw_key(w, "input");
	pm__jw_string(w, m->inputs[i].name);
	pm__jw_key(w, "factor");
	pm__jw_double(w, p->beyond);
	pm__jw_key(w, "fitted");
	pm__jw_array_begin(w);
	pm__jw_double(w, m->iv.lo[i]);
	pm__jw_double(w, m->iv.hi[i]);
	pm__jw_array_end(w);
	pm__jw_object_end(w);
}

/* "label": {"values": {input: value, ...}, "time", "cost", "speedup",
 * "efficiency", and for a target kind "predicted"} on one line, or null
 * when nothing qualified. */
static void pick(pm_jw *w, const char *label, const pm_model *m, const pm_vary *vary,
		 size_t nvary, const pm_advise_options *o, int ranges, const pm_advice_pick *p)
{
	static const char *const keys[] = { "time", "cost", "speedup", "efficiency" };
	const double v[] = { p->time, p->cost, p->speedup, p->efficiency };

	pm__jw_key(w, label);
	if (!p->found) {
		pm__jw_null(w);
		return;
	}
	pm__jw_object_begin_line(w);
	pm__jw_key(w, "values");
	pm__jw_object_begin_line(w);
	for (size_t j = 0; j < nvary; j++) {
		pm__jw_key(w, m->inputs[vary[j].input].name);
		pm__jw_double(w, p->value[j]);
	}
	pm__jw_object_end(w);
	pm__jw_doubles(w, keys, v, sizeof(v) / sizeof(v[0]));
	if (o->quantile > 0) {	/* what ranked it (advise --quantile) */
		pm__jw_key(w, "quantile_time");
		pm__jw_double(w, p->quantile_time);
	}
	if (m->kind != PM_TARGET_TIME) {	/* the target's own quantity */
		pm__jw_key(w, "predicted");
		pm__jw_double(w, p->predicted);
	}
	beyond_members(w, m, ranges, p);
	pm__jw_object_end(w);
}

/* The advice document's start and members, after checking its arguments
 * (w started); the caller ends the object. */
static pm_status advice_members(pm_jw *w, const pm_model *m, const char *model_name,
				const pm_vary *vary, size_t nvary, const pm_advise_options *o,
				const pm_advice *a, pm_error *err)
{
	if (nvary == 0 || nvary > PM_ADVISE_MAX_VARY || o->resource >= nvary)
		return pm__fail(err, PM_EINVAL, "%zu varied inputs, resource %zu: not a vary list "
				"pm_model_advise takes", nvary, o->resource);
	for (size_t j = 0; j < nvary; j++)
		if (vary[j].input >= m->ninputs)
			return pm__fail(err, PM_EINVAL, "varied input %zu: the model has %zu inputs",
					vary[j].input, m->ninputs);
	pm__jw_object_begin(w);
	pm__jw_key(w, "model");
	pm__jw_string(w, model_name);
	target_members(w, m);
	pm__jw_key(w, "resource");
	pm__jw_string(w, m->inputs[vary[o->resource].input].name);
	pm__jw_key(w, "min_efficiency");
	pm__jw_double(w, o->min_efficiency);
	if (o->quantile > 0) {
		pm__jw_key(w, "quantile");
		pm__jw_double(w, o->quantile);
	}
	if (o->job.iterations != 1 || o->job.setup != 0) {	/* advise --iterations */
		pm__jw_key(w, "job");
		pm__jw_object_begin_line(w);
		pm__jw_key(w, "iterations");
		pm__jw_double(w, o->job.iterations);
		pm__jw_key(w, "setup");
		pm__jw_double(w, o->job.setup);
		pm__jw_object_end(w);
	}
	pm__jw_key(w, "combinations");
	pm__jw_uint(w, a->combinations);
	/* the limit (null: none, or a model without ranges) and what it left */
	pm__jw_key(w, "max_extrapolation");
	if (o->max_extrapolation > 0 && a->ranges)
		pm__jw_double(w, o->max_extrapolation);
	else
		pm__jw_null(w);
	pm__jw_key(w, "left_beyond");
	pm__jw_uint(w, a->left_beyond);
	pick(w, "fastest", m, vary, nvary, o, a->ranges, &a->fastest);
	pick(w, "cheapest", m, vary, nvary, o, a->ranges, &a->cheapest);
	pick(w, "largest", m, vary, nvary, o, a->ranges, &a->largest);
	return PM_OK;
}

pm_status pm_advice_to_json(const pm_model *m, const char *model_name, const pm_vary *vary,
			    size_t nvary, const pm_advise_options *o, const pm_advice *a,
			    char **out, pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, m && vary && o && a, "model, vary list, options or advice",
			       err)) ||
	    (st = advice_members(&w, m, model_name, vary, nvary, o, a, err)))
		return st;
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}

/* 1 - q as a fraction people read (0.05, not 0.050000000000000044): the
 * quantiles are given with far fewer than 12 digits. */
static double kill_risk(double q)
{
	return round((1.0 - q) * 1e12) / 1e12;
}

/* "key": {"limit", "minutes", "quantile", "seconds", "kill_risk"} */
static void limit_member(pm_jw *w, const char *key, const char *limit, uint64_t minutes,
			 double q, double seconds)
{
	pm__jw_key(w, key);
	pm__jw_object_begin_line(w);
	pm__jw_key(w, "limit");
	pm__jw_string(w, limit);
	pm__jw_key(w, "minutes");
	pm__jw_uint(w, minutes);
	pm__jw_key(w, "quantile");
	pm__jw_double(w, q);
	pm__jw_key(w, "seconds");
	pm__jw_double(w, seconds);
	pm__jw_key(w, "kill_risk");
	pm__jw_double(w, kill_risk(q));
	pm__jw_object_end(w);
}

pm_status pm_advice_slurm_to_json(const pm_model *m, const char *model_name, const pm_vary *vary,
				  size_t nvary, const pm_advise_options *o, const pm_advice *a,
				  const pm_slurm_pick *s, char **out, pm_error *err)
{
	const pm_advice_pick *p = NULL;
	const pm_slurm_limits *l;
	char text[PM_SLURM_TIME_CHARS + 64];
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, m && vary && o && a && s && s->pick && s->limits,
			       "model, vary list, options, advice or Slurm pick", err)))
		return st;
	l = s->limits;
	p = !strcmp(s->pick, "fastest")	   ? &a->fastest
	    : !strcmp(s->pick, "cheapest") ? &a->cheapest
	    : !strcmp(s->pick, "largest")  ? &a->largest
					   : NULL;
	if (!p || !p->found)
		return pm__fail(err, PM_EINVAL, p ? "the %s pick found no combination"
						  : "no pick '%s': fastest, cheapest or largest",
				s->pick);
	if ((st = advice_members(&w, m, model_name, vary, nvary, o, a, err)))
		return st;
	pm__jw_key(&w, "slurm");
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "pick");
	pm__jw_string(&w, s->pick);
	limit_member(&w, "time", l->time, l->time_minutes, s->time_quantile, l->time_s);
	limit_member(&w, "time_min", l->time_min, l->time_min_minutes, s->time_min_quantile,
		     l->time_min_s);
	pm__jw_key(&w, "options");
	pm__jw_array_begin(&w);
	for (size_t j = 0; j < nvary; j++) {
		pm__jw_object_begin_line(&w);
		pm__jw_key(&w, "input");
		pm__jw_string(&w, m->inputs[vary[j].input].name);
		pm__jw_key(&w, "option");
		pm__jw_string(&w, s->option ? s->option[j] : NULL);	/* none: null */
		pm__jw_key(&w, "value");
		pm__jw_double(&w, p->value[j]);
		pm__jw_object_end(&w);
	}
	pm__jw_array_end(&w);
	/* the lines' text, ready for sbatch's command line or an #SBATCH line */
	pm__jw_key(&w, "sbatch");
	pm__jw_array_begin_line(&w);
	pm_snprintf(text, sizeof(text), "--time=%s", l->time);
	pm__jw_string(&w, text);
	pm_snprintf(text, sizeof(text), "--time-min=%s", l->time_min);
	pm__jw_string(&w, text);
	for (size_t j = 0; j < nvary; j++)
		if (s->option && s->option[j]) {
			pm_snprintf(text, sizeof(text), "%s=%.0f", s->option[j], p->value[j]);
			pm__jw_string(&w, text);
		}
	pm__jw_array_end(&w);
	pm__jw_key(&w, "extrapolated");
	pm__jw_bool(&w, l->extrapolated);
	pm__jw_key(&w, "distance");
	pm__jw_double(&w, l->distance);
	pm__jw_object_end(&w);
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}

pm_status pm_version_to_json(char **out, pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, 1, "", err)))
		return st;
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, "name");
	pm__jw_string(&w, "perfmodel");
	pm__jw_key(&w, "version");
	pm__jw_string(&w, pm_version());
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}
