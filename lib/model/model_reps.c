/* The runs behind a model's fitted rows, and the weights it was fitted
 * with: kept, read from model.json's "fit.repetitions" (written by
 * model_save.c). Predict library: cJSON only. */
#include "model/model_reps.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/loss.h"

pm_status pm__model_set_repetitions(pm_model *m, size_t n, const unsigned *runs,
				    const double *cv, const double *weight, pm_error *err)
{
	unsigned *r = runs ? malloc(n * sizeof(*r) + 1) : NULL;
	double *c = cv ? malloc(n * sizeof(*c) + 1) : NULL;
	double *w = weight ? malloc(n * sizeof(*w) + 1) : NULL;

	if ((runs && !r) || (cv && !c) || (weight && !w)) {
		free(r);
		free(c);
		free(w);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	if (r)
		memcpy(r, runs, n * sizeof(*r));
	if (c)
		memcpy(c, cv, n * sizeof(*c));
	if (w)
		memcpy(w, weight, n * sizeof(*w));
	free(m->rep_runs);
	free(m->rep_cv);
	free(m->rep_weight);
	m->nrep = r || c || w ? n : 0;
	m->rep_runs = r;
	m->rep_cv = c;
	m->rep_weight = w;
	return PM_OK;
}

size_t pm_model_repetitions(const pm_model *m, const unsigned **reps, const double **cv,
			    const double **weight)
{
	if (reps)
		*reps = m ? m->rep_runs : NULL;
	if (cv)
		*cv = m ? m->rep_cv : NULL;
	if (weight)
		*weight = m ? m->rep_weight : NULL;
	return m ? m->nrep : 0;
}

/* One of the arrays: n >= 1 entries (n == *len, or sets it when *len is 0) of
 * finite numbers, each a whole number >= 1 (runs), or > 0 (weight), or any
 * number or null (cv: NaN). */
enum kind { RUNS, CV, WEIGHT };

static pm_status read_array(const pm_jctx *c, const cJSON *o, const char *key, enum kind k,
			    size_t *len, void **out)
{
	const cJSON *arr, *x;
	size_t n, i = 0;
	unsigned *u;
	double *d;
	pm_status st;

	*out = NULL;
	if ((st = pm__json_array(c, o, key, 0, &arr, &n)) || !arr)
		return st;
	/* *len == 0 means "not set yet": an empty array must not set it */
	if (n == 0)
		return pm__json_fail(c, PM_ESCHEMA, "'%s' is empty", key);
	if (*len && n != *len)
		return pm__json_fail(c, PM_ESCHEMA, "'%s' has %zu entries, not %zu", key, n,
				     *len);
	*len = n;
	*out = malloc(n * (k == RUNS ? sizeof(*u) : sizeof(*d)) + 1);
	if (!*out)
		return pm__fail(c->err, PM_ENOMEM, "out of memory");
	u = *out;
	d = *out;
	for (x = arr->child; x; x = x->next, i++) {
		double v = cJSON_IsNumber(x) ? x->valuedouble : NAN;

		if (k == CV && (cJSON_IsNull(x) || isfinite(v))) {
			d[i] = v;
			continue;
		}
		if (k == RUNS && v >= 1 && v <= UINT_MAX && v == floor(v)) {
			u[i] = (unsigned)v;
			continue;
		}
		if (k == WEIGHT && v > 0 && isfinite(v)) {
			d[i] = v;
			continue;
		}
		return pm__json_fail(c, PM_ESCHEMA, "'%s'[%zu] must be %s", key, i,
				     k == RUNS ? "a whole number >= 1" :
				     k == CV ? "a number or null" : "a finite number > 0");
	}
	return PM_OK;
}

pm_status pm__model_read_repetitions(const pm_jctx *top, const cJSON *fit, pm_model *m,
				     pm_weights *weights)
{
	const cJSON *o, *item;
	pm_jctx c = *top;
	void *runs = NULL, *cv = NULL, *w = NULL;
	size_t n = 0;
	int e;
	pm_status st;

	/* both absent in models fitted before there were weights */
	*weights = PM_WEIGHTS_NONE;
	if ((st = pm__json_item(top, fit, "weights", 0, &item)))
		return st;
	if (item && (st = pm__json_enum(top, fit, "weights", pm__weights_names, &e)))
		return st;
	if (item)
		*weights = (pm_weights)e;
	if ((st = pm__json_object(top, fit, "repetitions", 0, &o)) || !o)
		return st;
	c.where = "fit.repetitions";
	if (!(st = read_array(&c, o, "runs", RUNS, &n, &runs)) &&
	    !(st = read_array(&c, o, "cv", CV, &n, &cv)) &&
	    !(st = read_array(&c, o, "weight", WEIGHT, &n, &w)))
		st = pm__model_set_repetitions(m, n, runs, cv, w, top->err);
	free(runs);
	free(cv);
	free(w);
	return st;
}
