/* model.json's "fit" and "run" records (written by model_save.c): how the
 * model was fitted, pm_fit_info. The rest of the file: model_load.c.
 * Predict library: cJSON only. */
#include "model/model_fit_read.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "model/loss.h"
#include "model/model_choice.h"
#include "model/model_impl.h"
#include "model/model_reps.h"

const char *const pm__scale_names[] = { "auto", "none", NULL };
static const char *const reg_names[] = { "none", "l1", "l2", NULL };	/* pm_reg order */
static const char *const engine_names[] = { "varpro", "de", NULL };	/* pm_engine order */

pm_status pm__model_read_flag(const pm_jctx *c, const cJSON *obj, const char *key, int *out)
{
	const cJSON *item;
	pm_status st = pm__json_item(c, obj, key, 0, &item);

	*out = 0;
	if (st || !item)
		return st;
	return pm__json_bool(c, obj, key, out);
}

static pm_status read_unsigned(const pm_jctx *c, const cJSON *obj, const char *key,
			       unsigned *out)
{
	uint64_t u;
	pm_status st = pm__json_uint(c, obj, key, UINT_MAX, &u);

	if (!st)
		*out = (unsigned)u;
	return st;
}

/* Written only by an interrupted pm_fit_seeds (then "seeds" lists the
 * seeds that completed); absent: every seed listed completed. */
static pm_status read_seed_counts(const pm_jctx *c, const cJSON *fit, const pm_model *m,
				  unsigned *asked)
{
	const cJSON *item;
	unsigned done;
	pm_status st;

	*asked = m->nseeds > 1 ? (unsigned)m->nseeds : 0;
	if ((st = pm__json_item(c, fit, "seeds_requested", 0, &item)) || !item)
		return st;
	if ((st = read_unsigned(c, fit, "seeds_requested", asked)) ||
	    (st = read_unsigned(c, fit, "seeds_completed", &done)))
		return st;
	if (done != m->nseeds || *asked < done || *asked < 2)
		return pm__json_fail(c, PM_ESCHEMA, "'seeds_completed' (%u) must be the number "
				     "of seeds listed (%zu), at most 'seeds_requested' (%u, >= 2)",
				     done, m->nseeds, *asked);
	return PM_OK;
}

/* fit.training (required) or fit.test (optional: absent leaves t->n 0). */
static pm_status read_metrics(const pm_jctx *top, const cJSON *fit, const char *key,
			      int required, pm_metrics *t)
{
	const cJSON *o, *item;
	pm_jctx c = *top;
	uint64_t rows, mape_rows;
	pm_status st;

	if ((st = pm__json_object(top, fit, key, required, &o)) || !o)
		return st;
	c.where = strcmp(key, "test") ? "fit.training" : "fit.test";
	if ((st = pm__json_uint(&c, o, "rows", SIZE_MAX, &rows)))
		return st;
	t->n = (size_t)rows;
	/* absent: MAPE is over every row */
	if ((st = pm__json_item(&c, o, "mape_rows", 0, &item)))
		return st;
	mape_rows = rows;
	if (item && (st = pm__json_uint(&c, o, "mape_rows", rows, &mape_rows)))
		return st;
	t->mape_n = (size_t)mape_rows;
	if ((st = pm__json_number_or_null(&c, o, "mae", &t->mae)) ||
	    (st = pm__json_number_or_null(&c, o, "mape", &t->mape)) ||
	    (st = pm__json_number_or_null(&c, o, "mse", &t->mse)) ||
	    (st = pm__json_number_or_null(&c, o, "rmse", &t->rmse)) ||
	    (st = pm__json_number_or_null(&c, o, "r2", &t->r2)) ||
	    (st = pm__json_number_or_null(&c, o, "smape", &t->smape)) ||
	    (st = pm__json_number_or_null(&c, o, "adj_r2", &t->adj_r2)))
		return st;
	return PM_OK;
}

/* The validation scheme of the held-out rows, when there was one. */
static pm_status read_validation(const pm_jctx *c, const cJSON *o, pm_fit_info *f)
{
	const cJSON *item;
	char text[320];
	pm_error e;
	pm_status st;

	if ((st = pm__json_item(c, o, "validation", 0, &item)) || !item ||
	    (st = pm__json_fixed(c, o, "validation", text, sizeof(text))))
		return st;
	if (pm_validation_parse(text, &f->options.validate, &e))
		return pm__json_fail(c, PM_ESCHEMA, "'validation': %s", e.msg);
	/* the folds' seed, which the text does not hold (pm_fit records it) */
	if (f->options.validate.scheme == PM_SCHEME_KFOLD)
		f->options.validate.seed = f->options.split_seed;
	return pm__json_fixed(c, o, "description", f->validation, sizeof(f->validation));
}

/* Where the held-out rows came from; written with fit.test only. */
static pm_status read_test_data(const pm_jctx *top, const cJSON *fit, pm_fit_info *f)
{
	const cJSON *o;
	pm_jctx c = *top;
	pm_status st;

	if ((st = pm__json_object(top, fit, "test_data", 0, &o)) || !o)
		return st;
	c.where = "fit.test_data";
	if ((st = pm__json_fixed(&c, o, "file", f->test_name, sizeof(f->test_name))) ||
	    (st = pm__json_number(&c, o, "fraction", &f->options.test_fraction)) ||
	    (st = pm__json_uint(&c, o, "split_seed", UINT64_MAX, &f->options.split_seed)))
		return st;
	if (!(f->options.test_fraction >= 0 && f->options.test_fraction < 1))
		return pm__json_fail(&c, PM_ESCHEMA, "'fraction' must be in [0, 1)");
	return read_validation(&c, o, f);
}

/* A fit's source, "data" or "warm_start": its file and its fingerprint. */
static pm_status read_source(const pm_jctx *c, const cJSON *o, char *file, size_t size,
			     char *fingerprint)
{
	pm_status st = pm__json_fixed(c, o, "file", file, size);

	return st ? st : pm__json_fixed(c, o, "fingerprint", fingerprint,
				    sizeof(((pm_fit_info *)0)->fingerprint));
}

/* "warm_start": the model a warm-started fit began from (optional). */
static pm_status read_warm_start(const pm_jctx *top, const cJSON *fit, pm_fit_info *f)
{
	const cJSON *o;
	pm_jctx c = *top;
	pm_status st = pm__json_object(top, fit, "warm_start", 0, &o);

	if (st || !o)
		return st;
	c.where = "fit.warm_start";
	f->warm_started = 1;
	st = read_source(&c, o, f->warm_data, sizeof(f->warm_data), f->warm_fingerprint);
	return st ? st : pm__json_number_or_null(&c, o, "cost", &f->warm_cost);
}

pm_status pm__model_read_fit(const pm_jctx *top, const cJSON *root, pm_model *m)
{
	const cJSON *fit, *run, *mut, *data, *item;
	pm_fit_info f;
	pm_fit_options *o = &f.options;
	pm_jctx c = *top;
	size_t n;
	int e;
	pm_status st;

	if ((st = pm__json_object(top, root, "fit", 0, &fit)) || !fit)
		return st;
	memset(&f, 0, sizeof(f));
	c.where = "fit";
	/* absent in models saved before there was a choice: DE's */
	if ((st = pm__json_item(&c, fit, "engine", 0, &item)))
		return st;
	if (item && (st = pm__json_enum(&c, fit, "engine", engine_names, &e)))
		return st;
	o->engine = item ? (pm_engine)e : PM_ENGINE_DE;
	if ((st = pm__json_uint(&c, fit, "seed", UINT64_MAX, &o->seed)) ||
	    (st = read_unsigned(&c, fit, "maxiter", &o->maxiter)) ||
	    (st = read_unsigned(&c, fit, "popsize", &o->popsize)) ||
	    (st = pm__json_number(&c, fit, "tol", &o->tol)) ||
	    (st = pm__json_number(&c, fit, "atol", &o->atol)) ||
	    (st = pm__json_array(&c, fit, "mutation", 1, &mut, &n)))
		return st;
	if (n != 2 || !cJSON_IsNumber(mut->child) || !cJSON_IsNumber(mut->child->next) ||
	    !isfinite(mut->child->valuedouble) || !isfinite(mut->child->next->valuedouble))
		return pm__json_fail(&c, PM_ESCHEMA, "'mutation' must be [lo, hi], two finite numbers");
	o->mutation_lo = mut->child->valuedouble;
	o->mutation_hi = mut->child->next->valuedouble;
	if ((st = pm__json_number(&c, fit, "recombination", &o->recombination)) ||
	    (st = pm__json_bool(&c, fit, "polish", &o->polish)))
		return st;
	if ((st = pm__json_enum(&c, fit, "scale", pm__scale_names, &e)))
		return st;
	o->scale = (pm_scale)e;
	/* absent in models saved before there was a choice: the thesis's MAE */
	if ((st = pm__json_item(&c, fit, "loss", 0, &item)))
		return st;
	if (item && (st = pm__json_enum(&c, fit, "loss", pm__loss_names, &e)))
		return st;
	o->loss = item ? (pm_loss)e : PM_LOSS_MAE;
	if ((st = pm__json_enum(&c, fit, "reg", reg_names, &e)))
		return st;
	o->reg = (pm_reg)e;
	if ((st = pm__json_number(&c, fit, "lambda", &o->lambda_coef)) ||
	    (st = pm__json_number(&c, fit, "lambda_power", &o->lambda_power)) ||
	    (st = read_unsigned(&c, fit, "generations", &f.generations)) ||
	    (st = pm__json_uint(&c, fit, "evaluations", UINT64_MAX, &f.evaluations)) ||
	    (st = pm__json_fixed(&c, fit, "stop", f.stop, sizeof(f.stop))) ||
	    (st = pm__json_bool(&c, fit, "polished", &f.polished)) ||
	    (st = pm__model_read_flag(&c, fit, "interrupted", &f.interrupted)) ||
	    (st = pm__model_read_flag(&c, fit, "constant", &f.constant)) ||
	    (st = read_seed_counts(&c, fit, m, &f.seeds_asked)) ||
	    (st = pm__json_number_or_null(&c, fit, "cost", &f.cost)) ||
	    (st = read_warm_start(&c, fit, &f)) || (st = pm__model_read_choice(&c, fit, &f)) ||
	    (st = read_metrics(&c, fit, "training", 1, &f.training)) ||
	    (st = read_metrics(&c, fit, "test", 0, &f.test)) ||
	    (st = read_test_data(&c, fit, &f)) ||
	    (st = pm__model_read_repetitions(&c, fit, m, &f.weights)) ||
	    (st = pm__json_object(&c, fit, "data", 1, &data)))
		return st;
	c.where = "fit.data";
	if ((st = read_source(&c, data, f.data_name, sizeof(f.data_name), f.fingerprint)))
		return st;
	/* "run" holds what differs between two identical runs; a file may
	 * have had it removed to compare models, so it is optional. */
	if ((st = pm__json_object(top, root, "run", 0, &run)))
		return st;
	if (run) {
		c.where = "run";
		if ((st = read_unsigned(&c, run, "threads", &o->threads)) ||
		    (st = read_unsigned(&c, run, "threads_used", &f.threads_used)) ||
		    (st = pm__json_number_or_null(&c, run, "wall_time_s", &f.wall_time_s)))
			return st;
	}
	m->info = f;
	m->has_fit_info = 1;
	return PM_OK;
}
