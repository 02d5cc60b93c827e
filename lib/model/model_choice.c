/* model.json's "fit.yardstick" and "fit.choice" (written by model_save.c):
 * what a model was measured against and how its form was chosen (issue
 * 33). Predict library: cJSON only. */
#include "model/model_choice.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/loss.h"

static pm_status index_of(const pm_jctx *c, const cJSON *o, const char *key, size_t n,
			  size_t *out)
{
	uint64_t v;
	pm_status st = pm__json_uint(c, o, key, n ? n - 1 : 0, &v);

	*out = (size_t)v;
	return st;
}

static pm_status read_yardstick(const pm_jctx *top, const cJSON *fit, pm_fit_info *f)
{
	const cJSON *o;
	const char *model;
	pm_jctx c = *top;
	pm_status st = pm__json_object(top, fit, "yardstick", 0, &o);

	if (st || !o)
		return st;
	c.where = "fit.yardstick";
	if ((st = pm__json_string(&c, o, "model", &model)))
		return st;
	if (strcmp(model, "log-linear") != 0)
		return pm__json_fail(&c, PM_ESCHEMA, "'model' must be \"log-linear\"");
	if ((st = pm__json_number_or_null(&c, o, "mape", &f->yard_mape)) ||
	    (st = pm__json_number_or_null(&c, o, "model_mape", &f->yard_model_mape)))
		return st;
	return pm__json_fixed(&c, o, "held_out", f->yard_what, sizeof(f->yard_what));
}

static pm_status read_candidate(const pm_jctx *c, const cJSON *o, pm_choice_candidate *k)
{
	uint64_t params;
	int loss;
	pm_status st;

	if ((st = pm__json_fixed(c, o, "form", k->form, sizeof(k->form))) ||
	    (st = pm__json_enum(c, o, "loss", pm__loss_names, &loss)) ||
	    (st = pm__json_uint(c, o, "params", SIZE_MAX, &params)) ||
	    (st = pm__json_number_or_null(c, o, "mape", &k->mape)) ||
	    (st = pm__json_number_or_null(c, o, "mape_se", &k->mape_se)))
		return st;
	k->loss = (pm_loss)loss;
	k->nparams = (size_t)params;
	return pm__json_fixed(c, o, "note", k->note, sizeof(k->note));
}

pm_status pm__model_read_choice(const pm_jctx *top, const cJSON *fit, pm_fit_info *f)
{
	const cJSON *o, *list, *item;
	pm_choice *ch = &f->choice;
	pm_jctx c = *top;
	char where[64];
	size_t n, i = 0;
	pm_status st;

	f->yard_mape = f->yard_model_mape = NAN;
	*ch = (pm_choice){ .noise_floor = NAN, .yardstick = NAN };
	if ((st = read_yardstick(top, fit, f)) || (st = pm__json_object(top, fit, "choice", 0, &o)) ||
	    !o)
		return st;
	c.where = "fit.choice";
	if ((st = pm__json_array(&c, o, "candidates", 1, &list, &n)))
		return st;
	if (n == 0 || n > PM_CHOICE_MAX)
		return pm__json_fail(&c, PM_ESCHEMA, "'candidates' must hold 1 to %d candidates",
				     PM_CHOICE_MAX);
	if ((st = pm__json_fixed(&c, o, "validation", ch->validation, sizeof(ch->validation))) ||
	    (st = pm__json_fixed(&c, o, "why", ch->why, sizeof(ch->why))) ||
	    (st = index_of(&c, o, "chosen", n, &ch->chosen)) ||
	    (st = index_of(&c, o, "lowest", n, &ch->lowest)) ||
	    (st = pm__json_number_or_null(&c, o, "noise_floor", &ch->noise_floor)) ||
	    (st = pm__json_number_or_null(&c, o, "yardstick", &ch->yardstick)))
		return st;
	cJSON_ArrayForEach(item, list) {
		pm_jctx ic = c;

		snprintf(where, sizeof(where), "fit.choice.candidates[%zu]", i);
		ic.where = where;
		if (!cJSON_IsObject(item))
			return pm__json_fail(&ic, PM_ESCHEMA, "must be an object");
		if ((st = read_candidate(&ic, item, &ch->cand[i++])))
			return st;
	}
	ch->n = n;
	return PM_OK;
}
