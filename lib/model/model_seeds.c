/* A repeated fit's seeds, read from a model (predict library: no GSL). */
#include "model/model_seeds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Checked like model.c's accessors: out of range gives 0 or NaN. */
static int has_seed(const pm_model *m, size_t i) { return m && i < m->nseeds; }

size_t pm_model_nseeds(const pm_model *m) { return m ? m->nseeds : 0; }
uint64_t pm_model_seed(const pm_model *m, size_t i) { return has_seed(m, i) ? m->seed[i] : 0; }

double pm_model_seed_cost(const pm_model *m, size_t i)
{
	return has_seed(m, i) ? m->seed_cost[i] : NAN;
}

double pm_model_seed_value(const pm_model *m, size_t i, size_t k)
{
	if (!has_seed(m, i) || k >= m->nparams)
		return NAN;
	return m->seed_value[i * m->nparams + k];
}

double pm_model_param_mean(const pm_model *m, size_t k)
{
	double sum = 0.0;

	if (!m || k >= m->nparams)
		return NAN;
	if (!m->nseeds)
		return m->raw[k];
	for (size_t i = 0; i < m->nseeds; i++)
		sum += m->seed_value[i * m->nparams + k];
	return sum / (double)m->nseeds;
}

pm_status pm__model_read_seeds(const pm_jctx *top, const cJSON *root, pm_model *m)
{
	const cJSON *arr, *v, *vals, *x;
	pm_jctx c = *top;
	char where[32];
	size_t n, nv, i = 0, k;
	pm_status st;

	if ((st = pm__json_array(top, root, "seeds", 0, &arr, &n)) || !arr || !n)
		return st;
	m->seed = malloc(n * sizeof(*m->seed));
	m->seed_cost = malloc(n * sizeof(*m->seed_cost));
	/* nparams >= 1 (C is always there) */
	m->seed_value = n <= SIZE_MAX / sizeof(double) / m->nparams
				? malloc(n * m->nparams * sizeof(*m->seed_value))
				: NULL;
	if (!m->seed || !m->seed_cost || !m->seed_value)
		return pm__fail(top->err, PM_ENOMEM, "out of memory");
	c.where = where;
	for (v = arr->child; v; v = v->next, i++) {
		snprintf(where, sizeof(where), "seeds[%zu]", i);
		if (!cJSON_IsObject(v))
			return pm__json_fail(&c, PM_ESCHEMA, "must be an object");
		if ((st = pm__json_uint(&c, v, "seed", UINT64_MAX, &m->seed[i])) ||
		    (st = pm__json_number_or_null(&c, v, "cost", &m->seed_cost[i])) ||
		    (st = pm__json_array(&c, v, "values", 1, &vals, &nv)))
			return st;
		if (nv != m->nparams)
			return pm__json_fail(&c, PM_ESCHEMA, "'values' has %zu entries for %zu parameters",
					     nv, m->nparams);
		for (x = vals->child, k = 0; x; x = x->next, k++) {
			if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
				return pm__json_fail(&c, PM_ESCHEMA, "'values' must hold finite numbers");
			m->seed_value[i * m->nparams + k] = x->valuedouble;
		}
	}
	m->nseeds = n;
	return PM_OK;
}
