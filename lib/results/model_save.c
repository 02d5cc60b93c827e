/* Writing model.json, version 1 (the format is described in model_load.c,
 * which must read back everything written here). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/jsonw.h"
#include "model/interval.h"
#include "model/model_impl.h"
#include "results/model_save.h"

static const char *const role_name[] = { "intrinsic", "categorical", "extrinsic" };
static const char *const kind_name[] = { "coefficient", "power", "level", "scaling",
					 "constant", "log_multiplier" };

/* JSON numbers are read back as doubles, exact only up to 2^53; a larger
 * seed is written as a string of digits, which the loader also accepts. */
static void exact_uint(pm_jw *w, uint64_t v)
{
	char tok[24];

	if (v <= (UINT64_C(1) << 53)) {
		pm__jw_uint(w, v);
		return;
	}
	snprintf(tok, sizeof(tok), "%llu", (unsigned long long)v);
	pm__jw_string(w, tok);
}

/* A char array of the fit info, which need not be NUL-terminated. */
static void fixed_string(pm_jw *w, const char *s, size_t size)
{
	char buf[256];
	size_t n = 0;

	while (n < size && n < sizeof(buf) - 1 && s[n])
		n++;
	memcpy(buf, s, n);
	buf[n] = '\0';
	pm__jw_string(w, buf);
}

/* The loader rejects what it could not predict with, so refuse to write it:
 * a file that cannot be loaded is worse than an error now. */
static pm_status check_savable(const pm_model *m, pm_error *err)
{
	if (!(isfinite(m->target_scale) && m->target_scale > 0))
		return pm__fail(err, PM_EINVAL,
				"cannot save the model: target_scale %g is not finite and > 0",
				m->target_scale);
	for (size_t i = 0; i < m->ninputs; i++) {
		const pm_input *in = &m->inputs[i];

		if ((unsigned)in->role > PM_ROLE_EXTRINSIC)
			return pm__fail(err, PM_EINVAL, "cannot save the model: input '%s' has no role",
					in->name);
		if (in->role != PM_ROLE_CATEGORICAL && !isfinite(in->log_scale))
			return pm__fail(err, PM_EINVAL,
					"cannot save the model: input '%s' has log_scale %g", in->name,
					in->log_scale);
	}
	for (size_t k = 0; k < m->nparams; k++) {
		const pm_param *p = &m->params[k];

		if ((unsigned)p->desc.kind > PM_PARAM_LOGMULT)
			return pm__fail(err, PM_EINVAL,
					"cannot save the model: parameter '%s' has no kind", p->name);
		if (!isfinite(m->value[k]))
			return pm__fail(err, PM_EINVAL,
					"cannot save the model: parameter '%s' is %g", p->name,
					m->value[k]);
		if (!(isfinite(p->lo) && isfinite(p->hi) && p->lo <= p->hi))
			return pm__fail(err, PM_EINVAL,
					"cannot save the model: parameter '%s' has bounds [%g, %g]",
					p->name, p->lo, p->hi);
	}
	return PM_OK;
}

/* "key": [s[0], ..., s[n-1]] */
static void strings_member(pm_jw *w, const char *key, char *const *s, size_t n)
{
	pm__jw_key(w, key);
	pm__jw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		pm__jw_string(w, s[i]);
	pm__jw_array_end(w);
}

static void write_inputs(pm_jw *w, const pm_model *m)
{
	pm__jw_key(w, "inputs");
	pm__jw_array_begin(w);
	for (size_t i = 0; i < m->ninputs; i++) {
		const pm_input *in = &m->inputs[i];

		pm__jw_object_begin(w);
		pm__jw_key(w, "name");
		pm__jw_string(w, in->name);
		pm__jw_key(w, "role");
		pm__jw_string(w, role_name[in->role]);
		if (in->role == PM_ROLE_CATEGORICAL) {
			strings_member(w, "levels", in->levels, in->nlevels);
		} else {
			pm__jw_key(w, "log_scale");
			pm__jw_double(w, in->log_scale);
		}
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
}

static void write_params(pm_jw *w, const pm_model *m)
{
	pm__jw_key(w, "parameters");
	pm__jw_array_begin(w);
	for (size_t k = 0; k < m->nparams; k++) {
		const pm_param *p = &m->params[k];

		pm__jw_object_begin(w);
		pm__jw_key(w, "name");
		pm__jw_string(w, p->name);
		pm__jw_key(w, "kind");
		pm__jw_string(w, kind_name[p->desc.kind]);
		if (p->desc.kind != PM_PARAM_CONST && p->desc.input < m->ninputs) {
			const pm_input *in = &m->inputs[p->desc.input];

			pm__jw_key(w, "input");
			pm__jw_string(w, in->name);
			if ((p->desc.kind == PM_PARAM_LEVEL || p->desc.kind == PM_PARAM_LOGMULT) &&
			    p->desc.level < in->nlevels) {
				pm__jw_key(w, "level");
				pm__jw_string(w, in->levels[p->desc.level]);
			}
		}
		pm__jw_key(w, "value");
		pm__jw_double(w, m->raw[k]);
		/* for people, not read back: the exponent as it acts on t, which
		 * is −value after a formula's '/' (null: used only in log2()) */
		if (p->desc.kind == PM_PARAM_POWER || p->desc.kind == PM_PARAM_SCALING) {
			pm__jw_key(w, "power");
			pm__jw_double(w, pm_model_param_power(m, k));
		}
		pm__jw_key(w, "scaled");
		pm__jw_double(w, m->value[k]);
		pm__jw_key(w, "std");
		pm__jw_double(w, p->std);
		pm__jw_key(w, "bounds");
		pm__jw_array_begin(w);
		pm__jw_double(w, p->lo);
		pm__jw_double(w, p->hi);
		pm__jw_array_end(w);
		/* only when true: a determined parameter's entry stays as it was */
		if (p->undetermined) {
			pm__jw_key(w, "undetermined");
			pm__jw_bool(w, 1);
		}
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
}

/* "key": [v...] of a long table, 8 numbers a line. */
static void table_member(pm_jw *w, const char *key, const double *v, size_t n)
{
	pm__jw_key(w, key);
	pm__jw_array_begin_line(w);
	for (size_t j = 0; j < n; j++) {
		if (j && j % 8 == 0)
			pm__jw_break(w, 6);
		pm__jw_double(w, v[j]);
	}
	pm__jw_array_end(w);
}

/* The calibrated intervals (model/interval.h): the quantile table on one
 * line each, and every numeric input's range and widening rate by name. */
static void write_intervals(pm_jw *w, const pm_model *m)
{
	const pm_intervals *iv = &m->iv;

	pm__jw_key(w, "intervals");
	pm__jw_object_begin(w);
	pm__jw_key(w, "method");
	pm__jw_string(w, PM_INTERVAL_METHOD);
	pm__jw_key(w, "folds");
	pm__jw_uint(w, iv->folds);
	pm__jw_key(w, "residuals");
	exact_uint(w, iv->nres);
	table_member(w, "probabilities", iv->p, iv->np);
	table_member(w, "quantiles", iv->q, iv->np);
	pm__jw_key(w, "ranges");
	pm__jw_object_begin(w);
	for (size_t i = 0; i < m->ninputs; i++) {
		if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
			continue;
		pm__jw_key(w, m->inputs[i].name);
		pm__jw_array_begin(w);
		pm__jw_double(w, iv->lo[i]);
		pm__jw_double(w, iv->hi[i]);
		pm__jw_array_end(w);
	}
	pm__jw_object_end(w);
	pm__jw_key(w, "widen");
	pm__jw_object_begin(w);
	for (size_t i = 0; i < m->ninputs; i++) {
		if (m->inputs[i].role == PM_ROLE_CATEGORICAL)
			continue;
		pm__jw_key(w, m->inputs[i].name);
		pm__jw_double(w, iv->widen[i]);
	}
	pm__jw_object_end(w);
	pm__jw_object_end(w);
}

/* Every seed's fit of pm_fit_seeds: raw values, in parameter order. */
static void write_seeds(pm_jw *w, const pm_model *m)
{
	pm__jw_key(w, "seeds");
	pm__jw_array_begin(w);
	for (size_t i = 0; i < m->nseeds; i++) {
		pm__jw_object_begin(w);
		pm__jw_key(w, "seed");
		exact_uint(w, m->seed[i]);
		pm__jw_key(w, "cost");
		pm__jw_double(w, m->seed_cost[i]);
		pm__jw_key(w, "values");
		pm__jw_array_begin(w);
		for (size_t k = 0; k < m->nparams; k++)
			pm__jw_double(w, m->seed_value[i * m->nparams + k]);
		pm__jw_array_end(w);
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
}

void pm__metrics_write_members(pm_jw *w, const pm_metrics *x)
{
	static const char *const keys[] = { "mae", "mape", "mse", "rmse", "r2", "smape",
					    "adj_r2" };
	const double v[] = { x->mae, x->mape, x->mse, x->rmse, x->r2, x->smape, x->adj_r2 };

	pm__jw_key(w, "rows");
	exact_uint(w, x->n);
	/* only where rows were left out of MAPE, so that it says so */
	if (x->mape_n != x->n) {
		pm__jw_key(w, "mape_rows");
		exact_uint(w, x->mape_n);
	}
	pm__jw_doubles(w, keys, v, sizeof(v) / sizeof(v[0]));
}

static void write_metrics(pm_jw *w, const char *key, const pm_metrics *t)
{
	pm__jw_key(w, key);
	pm__jw_object_begin(w);
	pm__metrics_write_members(w, t);
	pm__jw_object_end(w);
}

/* "key": [v[0], ..., v[n-1]], or nothing when v is NULL. */
static void doubles_member(pm_jw *w, const char *key, const double *v, size_t n)
{
	if (!v)
		return;
	pm__jw_key(w, key);
	pm__jw_array_begin(w);
	for (size_t r = 0; r < n; r++)
		pm__jw_double(w, v[r]);
	pm__jw_array_end(w);
}

/* Only for aggregated runs or a weighted fit: other files stay as they were. */
static void write_repetitions(pm_jw *w, const pm_model *m)
{
	if (m->info.weights != PM_WEIGHTS_NONE) {
		pm__jw_key(w, "weights");
		pm__jw_string(w, pm_weights_name(m->info.weights));
	}
	if (!m->nrep)
		return;
	pm__jw_key(w, "repetitions");
	pm__jw_object_begin(w);
	if (m->rep_runs) {
		pm__jw_key(w, "runs");
		pm__jw_array_begin(w);
		for (size_t r = 0; r < m->nrep; r++)
			pm__jw_uint(w, m->rep_runs[r]);
		pm__jw_array_end(w);
	}
	doubles_member(w, "cv", m->rep_cv, m->nrep);	/* NaN (one run): null */
	doubles_member(w, "weight", m->rep_weight, m->nrep);
	pm__jw_object_end(w);
}

/* A fit's source, "data" or "warm_start": "key": {"file", "fingerprint",
 * left open for the caller's members. */
static void begin_source(pm_jw *w, const char *key, const char *file, size_t size,
			 const char *fingerprint)
{
	pm__jw_key(w, key);
	pm__jw_object_begin(w);
	pm__jw_key(w, "file");
	fixed_string(w, file, size);
	pm__jw_key(w, "fingerprint");
	fixed_string(w, fingerprint, sizeof(((pm_fit_info *)0)->fingerprint));
}

/* "yardstick" (when measured) and "choice" (when the form was chosen),
 * read back by model_choice.c */
static void write_choice(pm_jw *w, const pm_fit_info *f)
{
	const pm_choice *ch = &f->choice;

	/* measured: the folds it was measured on are named */
	if (f->yard_what[0]) {
		pm__jw_key(w, "yardstick");
		pm__jw_object_begin(w);
		pm__jw_key(w, "model");
		pm__jw_string(w, "log-linear");
		pm__jw_key(w, "mape");
		pm__jw_double(w, f->yard_mape);
		pm__jw_key(w, "model_mape");
		pm__jw_double(w, f->yard_model_mape);
		pm__jw_key(w, "held_out");
		pm__jw_string(w, f->yard_what);
		pm__jw_object_end(w);
	}
	if (!ch->n)
		return;
	pm__jw_key(w, "choice");
	pm__jw_object_begin(w);
	pm__jw_key(w, "validation");
	pm__jw_string(w, ch->validation);
	pm__jw_key(w, "why");
	pm__jw_string(w, ch->why);
	pm__jw_key(w, "chosen");
	pm__jw_uint(w, ch->chosen);
	pm__jw_key(w, "lowest");
	pm__jw_uint(w, ch->lowest);
	pm__jw_key(w, "noise_floor");
	pm__jw_double(w, ch->noise_floor);
	pm__jw_key(w, "yardstick");
	pm__jw_double(w, ch->yardstick);
	pm__jw_key(w, "candidates");
	pm__jw_array_begin(w);
	for (size_t i = 0; i < ch->n; i++) {
		const pm_choice_candidate *k = &ch->cand[i];

		pm__jw_object_begin_line(w);
		pm__jw_key(w, "form");
		fixed_string(w, k->form, sizeof(k->form));
		pm__jw_key(w, "loss");
		pm__jw_string(w, pm_loss_name(k->loss));
		pm__jw_key(w, "params");
		pm__jw_uint(w, k->nparams);
		pm__jw_key(w, "mape");
		pm__jw_double(w, k->mape);
		pm__jw_key(w, "mape_se");
		pm__jw_double(w, k->mape_se);
		pm__jw_key(w, "note");
		pm__jw_string(w, k->note);
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
	pm__jw_object_end(w);
}

static void write_fit(pm_jw *w, const pm_model *m, int run)
{
	const pm_fit_info *f = &m->info;
	static const char *const reg_name[] = { "none", "l1", "l2" };
	const pm_fit_options *o = &f->options;

	pm__jw_key(w, "fit");
	pm__jw_object_begin(w);
	pm__jw_key(w, "engine");
	pm__jw_string(w, o->engine == PM_ENGINE_DE ? "de" : "varpro");
	pm__jw_key(w, "seed");
	exact_uint(w, o->seed);
	pm__jw_key(w, "maxiter");
	pm__jw_uint(w, o->maxiter);
	pm__jw_key(w, "popsize");
	pm__jw_uint(w, o->popsize);
	pm__jw_key(w, "tol");
	pm__jw_double(w, o->tol);
	pm__jw_key(w, "atol");
	pm__jw_double(w, o->atol);
	pm__jw_key(w, "mutation");
	pm__jw_array_begin(w);
	pm__jw_double(w, o->mutation_lo);
	pm__jw_double(w, o->mutation_hi);
	pm__jw_array_end(w);
	pm__jw_key(w, "recombination");
	pm__jw_double(w, o->recombination);
	pm__jw_key(w, "polish");
	pm__jw_bool(w, o->polish);
	pm__jw_key(w, "scale");
	pm__jw_string(w, o->scale == PM_SCALE_NONE ? "none" : "auto");
	pm__jw_key(w, "loss");
	pm__jw_string(w, pm_loss_name(o->loss) ? pm_loss_name(o->loss) : "mae");
	pm__jw_key(w, "reg");
	pm__jw_string(w, (unsigned)o->reg <= PM_REG_L2 ? reg_name[o->reg] : "none");
	pm__jw_key(w, "lambda");
	pm__jw_double(w, o->lambda_coef);
	pm__jw_key(w, "lambda_power");
	pm__jw_double(w, o->lambda_power);
	pm__jw_key(w, "generations");
	pm__jw_uint(w, f->generations);
	pm__jw_key(w, "evaluations");
	exact_uint(w, f->evaluations);
	pm__jw_key(w, "stop");
	fixed_string(w, f->stop, sizeof(f->stop));
	pm__jw_key(w, "polished");
	pm__jw_bool(w, f->polished);
	/* only when true: a finished fit's file stays as it always was */
	if (f->interrupted) {
		pm__jw_key(w, "interrupted");
		pm__jw_bool(w, 1);
		/* then "seeds" lists only the seeds that completed */
		if (f->seeds_asked > 1) {
			pm__jw_key(w, "seeds_requested");
			pm__jw_uint(w, f->seeds_asked);
			pm__jw_key(w, "seeds_completed");
			pm__jw_uint(w, m->nseeds);
		}
	}
	/* only when true, as "interrupted" */
	if (f->constant) {
		pm__jw_key(w, "constant");
		pm__jw_bool(w, 1);
	}
	pm__jw_key(w, "cost");
	pm__jw_double(w, f->cost);
	/* only for a warm-started fit, as "interrupted": what it started from */
	if (f->warm_started) {
		begin_source(w, "warm_start", f->warm_data, sizeof(f->warm_data),
			     f->warm_fingerprint);
		pm__jw_key(w, "cost");
		pm__jw_double(w, f->warm_cost);
		pm__jw_object_end(w);
	}
	write_repetitions(w, m);
	write_choice(w, f);

	write_metrics(w, "training", &f->training);
	/* only with held-out rows: a plain fit's file stays as it always was */
	if (f->test.n) {
		write_metrics(w, "test", &f->test);
		pm__jw_key(w, "test_data");
		pm__jw_object_begin(w);
		pm__jw_key(w, "file");
		fixed_string(w, f->test_name, sizeof(f->test_name));
		pm__jw_key(w, "fraction");
		pm__jw_double(w, o->test_fraction);
		pm__jw_key(w, "split_seed");
		exact_uint(w, o->split_seed);
		/* only with a scheme: other files stay as they always were */
		if (o->validate.scheme) {
			char text[320];

			pm_validation_text(&o->validate, text, sizeof(text));
			pm__jw_key(w, "validation");
			pm__jw_string(w, text);
			pm__jw_key(w, "description");
			fixed_string(w, f->validation, sizeof(f->validation));
		}
		pm__jw_object_end(w);
	}

	begin_source(w, "data", f->data_name, sizeof(f->data_name), f->fingerprint);
	pm__jw_object_end(w);
	pm__jw_object_end(w);

	/* Apart, so that two runs that should agree can be compared without it. */
	if (!run)
		return;
	pm__jw_key(w, "run");
	pm__jw_object_begin(w);
	pm__jw_key(w, "threads");
	pm__jw_uint(w, o->threads);
	pm__jw_key(w, "threads_used");
	pm__jw_uint(w, f->threads_used);
	pm__jw_key(w, "wall_time_s");
	pm__jw_double(w, f->wall_time_s);
	pm__jw_object_end(w);
}

pm_status pm_model_to_json(const pm_model *m, char **out, pm_error *err)
{
	pm_jw w;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_model_to_json: out is NULL");
	*out = NULL;
	if (!m)
		return pm__fail(err, PM_EINVAL, "pm_model_to_json: no model");
	pm__jw_init(&w);
	pm__jw_object_begin(&w);
	if ((st = pm__model_write_members(&w, m, err))) {
		free(w.buf);
		return st;
	}
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}

pm_status pm__model_write_members(pm_jw *w, const pm_model *m, pm_error *err)
{
	return pm__model_write_members_run(w, m, 1, err);
}

pm_status pm__model_write_members_run(pm_jw *w, const pm_model *m, int run, pm_error *err)
{
	pm_status st;

	if ((st = check_savable(m, err)))
		return st;
	pm__jw_key(w, "format");
	pm__jw_string(w, PM_MODEL_FORMAT);
	/* version 2 only for what version 1 readers would misread (a target
	 * kind: they would take its time scale for the target), so that every
	 * other model stays readable by them */
	pm__jw_key(w, "version");
	pm__jw_int(w, m->kind == PM_TARGET_TIME ? 1 : PM_MODEL_VERSION);
	pm__jw_key(w, "library_version");
	pm__jw_string(w, pm_version());
	pm__jw_key(w, "form");
	pm__jw_string(w, pm_model_form(m));
	if (m->formula) {
		pm__jw_key(w, "formula");
		pm__jw_string(w, m->formula);
	}
	pm__jw_key(w, "target");
	pm__jw_string(w, m->target);
	if (m->nworkers)
		strings_member(w, "workers", m->workers, m->nworkers);
	if (m->kind != PM_TARGET_TIME) {
		pm__jw_key(w, "target_kind");
		pm__jw_string(w, pm_target_kind_name(m->kind));
	}
	if (m->resource != SIZE_MAX) {
		pm__jw_key(w, "resource");
		pm__jw_string(w, m->inputs[m->resource].name);
	}
	if (m->per != SIZE_MAX) {
		pm__jw_key(w, "per");
		pm__jw_string(w, m->inputs[m->per].name);
	}
	pm__jw_key(w, "scale");
	pm__jw_string(w, m->scale == PM_SCALE_NONE ? "none" : "auto");
	pm__jw_key(w, "target_scale");
	pm__jw_double(w, m->target_scale);
	write_inputs(w, m);
	write_params(w, m);
	if (m->nseeds)
		write_seeds(w, m);
	/* only when there are some: a clean fit's file stays as it always was */
	if (m->nwarnings)
		strings_member(w, "warnings", m->warnings, m->nwarnings);
	/* only when calibrated: other files stay as they were */
	if (m->iv.nres)
		write_intervals(w, m);
	if (m->has_fit_info)
		write_fit(w, m, run);
	return PM_OK;
}

pm_status pm_model_save_file(const pm_model *m, const char *path, pm_error *err)
{
	char *json;
	pm_status st = pm_model_to_json(m, &json, err);

	if (st)
		return st;
	st = pm_write_file_atomic(path, json, strlen(json), err);
	free(json);
	return st;
}
