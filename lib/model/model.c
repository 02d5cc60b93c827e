#include "model/model_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "model/formula.h"

const char *pm_version(void)
{
	return PM_VERSION;
}

static void free_workers(pm_model *m)
{
	for (size_t i = 0; m->workers && i < m->nworkers; i++)
		free(m->workers[i]);
	free(m->workers);
	m->workers = NULL;
	m->nworkers = 0;
}

void pm_model_free(pm_model *m)
{
	if (!m)
		return;
	free(m->target);
	free_workers(m);
	free(m->formula);
	for (size_t i = 0; m->inputs && i < m->ninputs; i++) {
		free(m->inputs[i].name);
		for (size_t v = 0; m->inputs[i].levels && v < m->inputs[i].nlevels; v++)
			free(m->inputs[i].levels[v]);
		free(m->inputs[i].levels);
		pm__strindex_free(&m->inputs[i].by_level);
	}
	free(m->inputs);
	pm__strindex_free(&m->by_name);
	for (size_t k = 0; m->params && k < m->nparams; k++)
		free(m->params[k].name);
	free(m->params);
	free(m->value);
	free(m->raw);
	free(m->exp_value);
	pm__point_plan_free(&m->point);
	pm__terms_free(&m->terms);
	free(m->seed);
	free(m->seed_cost);
	free(m->seed_value);
	free(m->rep_runs);
	free(m->rep_cv);
	free(m->rep_weight);
	for (size_t i = 0; m->warnings && i < m->nwarnings; i++)
		free(m->warnings[i]);
	free(m->warnings);
	free(m->iv.p);
	free(m->iv.q);
	free(m->iv.lo);
	free(m->iv.hi);
	free(m->iv.widen);
	free(m);
}

const char pm__form_additive_no_base[] = "additive";

/* "a_kernel_size", "p_kernel_size", "b_activation=relu", "q_threads", "C",
 * and "a0" for the base coefficient, which has no input. */
static char *param_name(const pm_param_desc *d, const pm_input *in)
{
	static const char prefix[] = { 'a', 'p', 'b', 'q' };
	const char *name, *level;
	size_t n;
	char *s;

	if (d->kind == PM_PARAM_CONST)
		return strdup("C");
	if (d->input == PM_NONE)
		return strdup("a0");
	name = in[d->input].name;
	level = d->kind == PM_PARAM_LEVEL ? in[d->input].levels[d->level] : "";
	n = strlen(name) + strlen(level) + 4;
	s = malloc(n);
	if (!s)
		return NULL;
	if (d->kind == PM_PARAM_LEVEL)
		snprintf(s, n, "b_%s=%s", name, level);
	else
		snprintf(s, n, "%c_%s", prefix[d->kind], name);
	return s;
}

/* A level's multiplier is fitted as its logarithm: effects ×2 and ×½ are
 * equally far from "no effect" (0), and DE, which samples uniformly inside
 * the bounds, explores ×0.01..×1 as much as ×1..×100; positive by
 * construction. */
#define LOGMULT_BOUND 4.605170185988091	/* log(100) */

static void default_bounds(pm_param *p, const pm_bounds *b)
{
	switch (p->desc.kind) {
	case PM_PARAM_LOGMULT:
		p->lo = -LOGMULT_BOUND;
		p->hi = LOGMULT_BOUND;
		break;
	case PM_PARAM_COEF:
	case PM_PARAM_LEVEL:
		p->lo = b->coef_lo;
		p->hi = b->coef_hi;
		break;
	case PM_PARAM_POWER:
	case PM_PARAM_SCALING:
		p->lo = b->power_lo;
		p->hi = b->power_hi;
		break;
	case PM_PARAM_CONST:
		p->lo = b->const_lo;
		p->hi = b->const_hi;
		break;
	case PM_PARAM_INVALID:	/* not a kind a parameter has */
		break;
	}
}

/* The terms and named parameters of the form (pm__model_new); *pname
 * stays NULL for the additive form, whose names param_name() makes. */
static pm_status make_terms(pm_model *m, const char **names, const pm_role *role,
			    const size_t *nlevels, const char *form, pm_param_desc **desc,
			    char ***pname, pm_error *err)
{
	pm_formula *f = NULL;
	pm_status st;

	*pname = NULL;
	if (!form || form == pm__form_additive_no_base || strcmp(form, "additive") == 0)
		return pm__terms_additive(m->ninputs, role, nlevels,
					  form != pm__form_additive_no_base, &m->terms, desc,
					  &m->nparams, err);
	if (strcmp(form, "multiplicative") == 0) {
		m->form = PM_FORM_MULTIPLICATIVE;
		if ((st = pm__formula_multiplicative(m->ninputs, names, role, &m->formula, err)))
			return st;
	} else {
		m->form = PM_FORM_FORMULA;
		if (!(m->formula = strdup(form)))
			return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	if ((st = pm__formula_parse(m->formula, &f, err)))
		return st;
	st = pm__formula_compile(f, m->ninputs, m->inputs, &m->terms, desc, pname, &m->nparams,
				 err);
	pm__formula_free(f);
	return st;
}

static const char *input_name(const void *inputs, size_t i)
{
	return ((const pm_input *)inputs)[i].name;
}

pm_status pm__model_new(const char *target, size_t ninputs, const char **names,
			const pm_role *role, const size_t *nlevels,
			const char *const *const *levels, const char *form, pm_model **out,
			pm_error *err)
{
	pm_model *m;
	pm_param_desc *desc = NULL;
	char **pname = NULL;
	pm_bounds b = pm__bounds_thesis();
	pm_status st;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	m->target_scale = 1.0;
	m->resource = m->per = SIZE_MAX;	/* kind: PM_TARGET_TIME, 0 */
	/* not measured until a fit measures them */
	m->info.yard_mape = m->info.yard_model_mape = NAN;
	m->info.choice.noise_floor = m->info.choice.yardstick = NAN;
	m->target = strdup(target);
	m->inputs = calloc(ninputs ? ninputs : 1, sizeof(*m->inputs));
	if (!m->target || !m->inputs)
		goto oom;
	m->ninputs = ninputs;
	for (size_t i = 0; i < ninputs; i++) {
		pm_input *in = &m->inputs[i];

		in->role = role[i];
		in->name = strdup(names[i]);
		if (!in->name)
			goto oom;
		if (role[i] != PM_ROLE_CATEGORICAL)
			continue;
		in->levels = calloc(nlevels[i] ? nlevels[i] : 1, sizeof(*in->levels));
		if (!in->levels)
			goto oom;
		in->nlevels = nlevels[i];
		for (size_t v = 0; v < nlevels[i]; v++)
			if (!(in->levels[v] = strdup(levels[i][v])))
				goto oom;
		if (pm__strindex_all(&in->by_level, in->nlevels, pm__key_of_array, in->levels))
			goto oom;
	}
	if (pm__strindex_all(&m->by_name, ninputs, input_name, m->inputs) != 0)
		goto oom;
	if ((st = make_terms(m, names, role, nlevels, form, &desc, &pname, err))) {
		pm_model_free(m);
		return st;
	}
	for (size_t f = 0; f < m->terms.nfactors; f++)
		if (m->terms.factor[f].kind == PM_FACTOR_POWER ||
		    m->terms.factor[f].kind == PM_FACTOR_LOG2)
			m->inputs[m->terms.factor[f].input].powered = 1;
	m->params = calloc(m->nparams + 1, sizeof(*m->params));
	m->value = calloc(m->nparams + 1, sizeof(*m->value));
	m->raw = calloc(m->nparams + 1, sizeof(*m->raw));
	m->exp_value = calloc(m->nparams + 1, sizeof(*m->exp_value));
	if (!m->params || !m->value || !m->raw || !m->exp_value || pm__point_plan_new(m))
		goto oom;
	for (size_t k = 0; k < m->nparams; k++) {
		m->params[k].desc = desc[k];
		m->params[k].std = NAN;
		default_bounds(&m->params[k], &b);
		/* the formula's names move into the model */
		m->params[k].name = pname ? pname[k] : param_name(&desc[k], m->inputs);
		if (pname)
			pname[k] = NULL;
		if (!m->params[k].name)
			goto oom;
	}
	free(desc);
	free(pname);
	*out = m;
	return PM_OK;
oom:
	for (size_t k = 0; pname && k < m->nparams; k++)
		free(pname[k]);
	free(pname);
	free(desc);
	pm_model_free(m);
	return pm__fail(err, PM_ENOMEM, "out of memory");
}

pm_status pm__input_check(const pm_input *in, double v, pm_error *err)
{
	if (in->powered && !(v > 0 && isfinite(v)))
		return pm__fail(err, PM_EDOMAIN,
				"input '%s': %g is not a finite number > 0, as a power needs",
				in->name, v);
	if (!isfinite(v))
		return pm__fail(err, PM_EDOMAIN, "input '%s': %g is not a finite number",
				in->name, v);
	return PM_OK;
}

/* Undo the scaling (DESIGN.md §3): with x = s*u and t = T*t', a term
 * c' Π u_f^e_f (times factors of no scaled input: log2, levels,
 * indicators) becomes c' T Π s_f^-e_f Π x_f^e_f, so
 *   c = c' T exp(-Σ_f e_f log s_f)
 * over the term's power factors (eq. 4.4: a = a' T s_i^-p_i Π_j s_j^-q_j,
 * b = b' T Π_j s_j^-q_j, C = C' T); powers and multipliers are unchanged. */
void pm__model_raw(pm_model *m)
{
	const pm_terms *t = &m->terms;

	memcpy(m->raw, m->value, m->nparams * sizeof(*m->raw));
	for (size_t k = 0; k < m->nparams; k++)
		m->exp_value[k] = pm__exp(m->value[k]);
	pm__point_plan_fill(m);
	for (size_t k = 0; k < t->nterms; k++) {
		const pm_term *tm = &t->term[k];
		double e = 0.0;

		for (uint32_t j = 0; j < tm->nfactors; j++) {
			const pm_factor *f = &t->factor[t->ref[tm->first + j]];

			if (f->kind == PM_FACTOR_POWER)
				e -= pm__factor_exponent(f, m->value) *
				     m->inputs[f->input].log_scale;
		}
		m->raw[tm->coef] = m->value[tm->coef] * m->target_scale * pm__exp(e);
	}
}

/* The accessors check their indices: a caller's mistake gets NULL, NaN,
 * (size_t)-1 or an _INVALID kind back, never a read past the model. */
static int has_input(const pm_model *m, size_t i) { return m && i < m->ninputs; }
static int has_param(const pm_model *m, size_t k) { return m && k < m->nparams; }

size_t pm_model_ninputs(const pm_model *m) { return m ? m->ninputs : 0; }
const char *pm_model_target(const pm_model *m) { return m ? m->target : NULL; }
size_t pm_model_nparams(const pm_model *m) { return m ? m->nparams : 0; }

const char *pm_model_input_name(const pm_model *m, size_t i)
{
	return has_input(m, i) ? m->inputs[i].name : NULL;
}

pm_role pm_model_input_role(const pm_model *m, size_t i)
{
	return has_input(m, i) ? m->inputs[i].role : PM_ROLE_INVALID;
}

size_t pm_model_nlevels(const pm_model *m, size_t i)
{
	return has_input(m, i) ? m->inputs[i].nlevels : 0;
}

const char *pm_model_param_name(const pm_model *m, size_t k)
{
	return has_param(m, k) ? m->params[k].name : NULL;
}

double pm_model_param_value(const pm_model *m, size_t k)
{
	return has_param(m, k) ? m->raw[k] : NAN;
}

double pm_model_param_scaled(const pm_model *m, size_t k)
{
	return has_param(m, k) ? m->value[k] : NAN;
}

double pm_model_param_std(const pm_model *m, size_t k)
{
	return has_param(m, k) ? m->params[k].std : NAN;
}

int pm__model_factor_has_param(const pm_model *m, const pm_factor *f, size_t k)
{
	size_t span = 1;

	if (f->power == PM_NONE)
		return 0;
	if (f->kind == PM_FACTOR_LEVEL)
		span = m->inputs[f->input].nlevels ? m->inputs[f->input].nlevels - 1 : 0;
	return k >= f->power && k - f->power < span;
}

int pm_model_param_undetermined(const pm_model *m, size_t k)
{
	return has_param(m, k) && m->params[k].undetermined;
}

pm_param_kind pm_model_param_kind(const pm_model *m, size_t k)
{
	return has_param(m, k) ? m->params[k].desc.kind : PM_PARAM_INVALID;
}

size_t pm_model_param_level(const pm_model *m, size_t k)
{
	return has_param(m, k) ? m->params[k].desc.level : (size_t)-1;
}

size_t pm_model_param_input(const pm_model *m, size_t k)
{
	uint32_t i = has_param(m, k) ? m->params[k].desc.input : PM_NONE;

	return i == PM_NONE ? (size_t)-1 : i;
}

const char *pm_model_form(const pm_model *m)
{
	static const char *const name[] = { "additive", "multiplicative", "formula" };

	return m ? name[m->form] : NULL;
}

const char *pm_model_formula(const pm_model *m)
{
	return m ? m->formula : NULL;
}

double pm_model_param_power(const pm_model *m, size_t k)
{
	for (size_t f = 0; has_param(m, k) && f < m->terms.nfactors; f++) {
		const pm_factor *fa = &m->terms.factor[f];

		if (fa->kind == PM_FACTOR_POWER && fa->power == k)
			return pm__factor_exponent(fa, m->value);
	}
	return NAN;
}

double pm_model_param_doubling(const pm_model *m, size_t k)
{
	return pm__exp2(pm_model_param_power(m, k));
}

const char *pm_model_scale_name(const pm_model *m)
{
	if (!m)
		return NULL;
	return m->scale == PM_SCALE_NONE ? "none" : "auto";
}

const char *pm_model_level_name(const pm_model *m, size_t i, size_t level)
{
	return has_input(m, i) && level < m->inputs[i].nlevels ? m->inputs[i].levels[level] : NULL;
}

pm_status pm_model_input_index(const pm_model *m, const char *name, size_t *index,
			       pm_error *err)
{
	size_t i;

	if (!m || !name || !index)
		return pm__fail(err, PM_EINVAL, "pm_model_input_index: a NULL argument");
	if ((i = pm__strindex_find(&m->by_name, name)) == SIZE_MAX)
		return pm__fail(err, PM_EINVAL, "the model has no input '%s'", name);
	*index = i;
	return PM_OK;
}

pm_status pm_model_level_index(const pm_model *m, size_t i, const char *name, size_t *level,
			       pm_error *err)
{
	const pm_input *in;
	size_t v;

	if (!m || !name || !level)
		return pm__fail(err, PM_EINVAL, "pm_model_level_index: a NULL argument");
	if (!has_input(m, i))
		return pm__fail(err, PM_EINVAL, "the model has no input %zu", i);
	in = &m->inputs[i];
	if ((v = pm__strindex_find(&in->by_level, name)) != SIZE_MAX) {
		*level = v;
		return PM_OK;
	}
	{
		char known[200] = "";
		size_t used = 0;

		for (size_t v = 0; v < in->nlevels && used < sizeof(known); v++)
			used += (size_t)snprintf(known + used, sizeof(known) - used, "%s%s",
						 v ? ", " : "", in->levels[v]);
		return pm__fail(err, PM_EDOMAIN, "column '%s': unknown level '%s' (known: %s)",
				in->name, name, known);
	}
}

pm_status pm__model_set_workers(pm_model *m, size_t n, const char *const *names,
				pm_error *err)
{
	char **w = calloc(n + 1, sizeof(*w));

	for (size_t i = 0; w && i < n; i++)
		if (!(w[i] = strdup(names[i]))) {
			while (i--)
				free(w[i]);
			free(w);
			w = NULL;
		}
	if (!w)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	free_workers(m);
	m->workers = w;
	m->nworkers = n;
	return PM_OK;
}

pm_status pm__model_add_warning(pm_model *m, pm_error *err, const char *fmt, ...)
{
	char text[PM_WARNING_MAX], visible[PM_WARNING_MAX];
	char **w = realloc(m->warnings, (m->nwarnings + 1) * sizeof(*w));
	va_list ap;

	if (!w)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	m->warnings = w;
	va_start(ap, fmt);
	pm_vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	pm__copy_visible(visible, sizeof(visible), text);
	if (!(w[m->nwarnings] = strdup(visible)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	m->nwarnings++;
	return PM_OK;
}

size_t pm_model_nwarnings(const pm_model *m)
{
	return m ? m->nwarnings : 0;
}

const char *pm_model_warning(const pm_model *m, size_t i)
{
	return m && i < m->nwarnings ? m->warnings[i] : NULL;
}
