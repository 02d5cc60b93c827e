/* A warm-started fit: the earlier model checked and carried over (warm.h). */
#include "fit/warm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "core/strindex.h"
#include "spec/spec_impl.h"

/* The initial population's half-width around the earlier optimum: for a
 * power or a log multiplier a fraction of its range, for a coefficient a
 * fraction of its value. More rows of the same experiment move the
 * optimum little; a box this size holds it on the bundled data, so that DE
 * refines instead of searching (docs/benchmarks.md, "Warm start"). */
#define WARM_SPREAD 0.01
#define WARM_COEF_SPREAD 0.5
/* Seeds' std to half-width: the box holds ±2 std of the earlier fits */
#define WARM_STD_WIDTH 2.0
/* DE from a warm start: a population starting that close needs fewer
 * members, and its costs agree to 1 % (scipy's tol) long before they agree
 * to the cold varpro's 0.1 %: the polish, which follows, finishes from
 * there. On the bundled data both together end within 0.2 % of the cold
 * fit's cost in under half its time (docs/benchmarks.md, "Warm start"). */
#define WARM_POPSIZE_DIV 2
#define WARM_TOL 0.01
/* The polish's budget: from a point this close, a quarter of it ends
 * within 0.2 % of the cold fit's cost on the bundled data (half: 0.1 %, in
 * half as much more time: GEMM's warm fit is then mostly polish). */
#define WARM_POLISH_DIV 4

pm_status pm__warm_form(pm_spec *s, const pm_model *warm, pm_error *err)
{
	if (s->form || warm->form == PM_FORM_ADDITIVE)
		return PM_OK;
	return pm_spec_set_form(s, warm->form == PM_FORM_MULTIPLICATIVE ? "multiplicative"
									: warm->formula, err);
}

/* The name of input i of m, or "(none)" for SIZE_MAX: a target kind's
 * resource or per. */
static const char *input_or_none(const pm_model *m, size_t i)
{
	return i < m->ninputs ? m->inputs[i].name : "(none)";
}

static const char *role_name(pm_role r)
{
	return r == PM_ROLE_CATEGORICAL ? "categorical"
	       : r == PM_ROLE_EXTRINSIC ? "extrinsic" : "intrinsic";
}

static pm_status check_inputs(const pm_model *warm, const pm_model *m, pm_error *err)
{
	for (size_t i = 0; i < m->ninputs; i++) {
		size_t j = pm__strindex_find(&warm->by_name, m->inputs[i].name);

		if (j == SIZE_MAX)
			return pm__fail(err, PM_ESCHEMA, "the warm-start model has no input '%s' "
					"(a column this fit uses): refit cold, or leave it out "
					"(--ignore %s)", m->inputs[i].name, m->inputs[i].name);
		if (warm->inputs[j].role != m->inputs[i].role)
			return pm__fail(err, PM_ESCHEMA, "input '%s' is %s in the warm-start model, "
					"%s in this fit", m->inputs[i].name,
					role_name(warm->inputs[j].role), role_name(m->inputs[i].role));
	}
	for (size_t j = 0; j < warm->ninputs; j++)
		if (pm__strindex_find(&m->by_name, warm->inputs[j].name) == SIZE_MAX)
			return pm__fail(err, PM_ESCHEMA, "the warm-start model's input '%s' is not "
					"an input of this fit (the data lacks it, or the roles "
					"leave it out)", warm->inputs[j].name);
	return PM_OK;
}

static pm_status check_model(const pm_model *warm, const pm_model *m, pm_error *err)
{
	pm_status st;

	if (strcmp(warm->target, m->target))
		return pm__fail(err, PM_ESCHEMA, "the warm-start model predicts '%s', this fit "
				"'%s'", warm->target, m->target);
	if (warm->kind != m->kind)
		return pm__fail(err, PM_ESCHEMA, "the warm-start model's target kind is %s, this "
				"fit's %s", pm_target_kind_name(warm->kind),
				pm_target_kind_name(m->kind));
	if (strcmp(input_or_none(warm, warm->resource), input_or_none(m, m->resource)))
		return pm__fail(err, PM_ESCHEMA, "the warm-start model's %s is over '%s', this "
				"fit's over '%s'", pm_target_kind_name(m->kind),
				input_or_none(warm, warm->resource), input_or_none(m, m->resource));
	if (strcmp(input_or_none(warm, warm->per), input_or_none(m, m->per)))
		return pm__fail(err, PM_ESCHEMA, "the warm-start model's throughput is per '%s', "
				"this fit's per '%s'", input_or_none(warm, warm->per),
				input_or_none(m, m->per));
	if ((st = check_inputs(warm, m, err)))
		return st;
	/* a multiplicative model's formula is its roles': the same when they are */
	if (warm->form != m->form ||
	    (m->form == PM_FORM_FORMULA && strcmp(warm->formula, m->formula)))
		return pm__fail(err, PM_ESCHEMA, "the warm-start model's form is %s%s%s, this "
				"fit's %s%s%s (give no --form or --formula to take the model's)",
				pm_model_form(warm), warm->form == PM_FORM_FORMULA ? " " : "",
				warm->form == PM_FORM_FORMULA ? warm->formula : "", pm_model_form(m),
				m->form == PM_FORM_FORMULA ? " " : "",
				m->form == PM_FORM_FORMULA ? m->formula : "");
	return PM_OK;
}

static const char *param_key(const void *ctx, size_t i)
{
	return ((const pm_param *)ctx)[i].name;
}

/* Parameter k of m as a term's coefficient: the term, or SIZE_MAX. */
static size_t coef_term(const pm_model *m, size_t k)
{
	for (size_t t = 0; t < m->terms.nterms; t++)
		if (m->terms.term[t].coef == k)
			return t;
	return SIZE_MAX;
}

/* warm's parameter for m's parameter k, or SIZE_MAX for none: not there by
 * name, or a log multiplier relative to another reference level. */
static size_t warm_param(const pm_model *warm, const pm__strindex *names, const pm_model *m,
			 size_t k)
{
	const pm_param *p = &m->params[k];
	size_t j = pm__strindex_find(names, p->name), i;

	if (j == SIZE_MAX || p->desc.kind != PM_PARAM_LOGMULT)
		return j;
	i = pm__strindex_find(&warm->by_name, m->inputs[p->desc.input].name);
	return strcmp(warm->inputs[i].levels[0], m->inputs[p->desc.input].levels[0]) ? SIZE_MAX
										   : j;
}

/* The raw coefficient c of warm in m's scaled space, as pm__model_raw
 * inverted: its term's power factors at the start's exponents and m's
 * column scales, and m's target scale. */
static double scaled_coef(const pm_model *m, size_t term, const double *start, double raw)
{
	const pm_term *tm = &m->terms.term[term];
	double e = 0.0;

	for (uint32_t j = 0; j < tm->nfactors; j++) {
		const pm_factor *f = &m->terms.factor[m->terms.ref[tm->first + j]];

		if (f->kind == PM_FACTOR_POWER)
			e -= pm__factor_exponent(f, start) * m->inputs[f->input].log_scale;
	}
	return raw / (m->target_scale * pm__exp(e));
}

/* 1 if p's value in warm is not in the data's units: a coefficient or C
 * under --scale auto (powers and log multipliers have no units). */
static int scaled_space(const pm_model *warm, const pm_param *p)
{
	return warm->scale == PM_SCALE_AUTO &&
	       (p->desc.kind == PM_PARAM_COEF || p->desc.kind == PM_PARAM_LEVEL ||
		p->desc.kind == PM_PARAM_CONST);
}

/* Each earlier parameter this fit takes over lies within this fit's bounds
 * for it, as model.json's "scaled" value (the space both searches' bounds
 * apply in). A fit keeps its parameters within its bounds and model.json
 * writes them back bit for bit, so a value outside was not made by a fit
 * with these bounds: a hand-edited model (a power of 1e300 started the
 * search at the bound and ended it at 21 times the cold cost), or a spec
 * whose "bounds" changed since. Refused rather than clamped: a start on
 * the bound is no earlier optimum, and the user should know the two
 * disagree (docs/cli.md, "--warm-start"). */
static pm_status check_values(const pm_model *warm, const pm__strindex *names,
			      const pm_model *m, pm_error *err)
{
	for (size_t k = 0; k < m->nparams; k++) {
		const pm_param *p = &m->params[k];
		size_t j = warm_param(warm, names, m, k);
		char v[PM_NUM_MAX], lo[PM_NUM_MAX], hi[PM_NUM_MAX];

		if (j == SIZE_MAX || (warm->value[j] >= p->lo && warm->value[j] <= p->hi))
			continue;
		pm__num_format(v, warm->value[j]);
		pm__num_format(lo, p->lo);
		pm__num_format(hi, p->hi);
		return pm__fail(err, PM_ESCHEMA, "the warm-start model's %s%s = %s is outside this "
				"fit's bounds for it, [%s, %s]: no fit with these bounds makes it (a "
				"hand-edited model, or other \"bounds\" in the spec); refit cold, or "
				"widen the bounds", p->name, scaled_space(warm, p) ? " (scaled)" : "",
				v, lo, hi);
	}
	return PM_OK;
}

void pm__warm_free(pm_warm *w)
{
	free(w->start);
	free(w->radius);
	*w = (pm_warm){ 0 };
}

/* Start and radius: nonlinear parameters first, as the coefficients'
 * conversion reads their exponents. */
static void fill(const pm_model *warm, const pm__strindex *names, const pm_model *m,
		 pm_warm *w)
{
	size_t np = m->nparams;

	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < np; k++) {
			const pm_param *p = &m->params[k];
			size_t t = coef_term(m, k), j = warm_param(warm, names, m, k);
			double range = p->hi - p->lo, s, r;

			if ((t != SIZE_MAX) != pass)
				continue;
			if (j == SIZE_MAX) {
				w->start[k] = 0.5 * (p->lo + p->hi);
				w->radius[k] = INFINITY;
				continue;
			}
			s = t == SIZE_MAX ? warm->value[j]
					  : scaled_coef(m, t, w->start, warm->raw[j]);
			r = t == SIZE_MAX ? WARM_SPREAD * range
			    : s != 0.0    ? WARM_COEF_SPREAD * fabs(s)
					  : WARM_SPREAD * range;
			/* a coefficient's std scales with it: raw to scaled */
			if (warm->nseeds > 1 && isfinite(warm->params[j].std))
				r = fmax(r, WARM_STD_WIDTH * warm->params[j].std *
						    (t == SIZE_MAX || warm->raw[j] == 0.0
							     ? 1.0
							     : fabs(s / warm->raw[j])));
			w->start[k] = !(s >= p->lo) ? p->lo : s > p->hi ? p->hi : s;
			w->radius[k] = isfinite(r) ? r : INFINITY;
		}
}

pm_status pm__warm_init(const pm_model *warm, const pm_model *m, pm_warm *w, pm_error *err)
{
	pm__strindex names;
	pm_status st;

	*w = (pm_warm){ 0 };
	if ((st = check_model(warm, m, err)))
		return st;
	w->start = malloc(m->nparams * sizeof(*w->start));
	w->radius = malloc(m->nparams * sizeof(*w->radius));
	if (!w->start || !w->radius ||
	    pm__strindex_all(&names, warm->nparams, param_key, warm->params)) {
		pm__warm_free(w);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	if ((st = check_values(warm, &names, m, err)))
		pm__warm_free(w);
	else
		fill(warm, &names, m, w);
	pm__strindex_free(&names);
	return st;
}

void pm__warm_settings(const pm_warm *w, pm_de_settings *ds)
{
	if (!w->start)
		return;
	ds->start = w->start;
	ds->radius = w->radius;
	ds->popsize = (ds->popsize + WARM_POPSIZE_DIV - 1) / WARM_POPSIZE_DIV;
	ds->tol = fmax(ds->tol, WARM_TOL);
}

size_t pm__warm_polish(const pm_warm *w, size_t per_param)
{
	return w->start ? (per_param + WARM_POLISH_DIV - 1) / WARM_POLISH_DIV : per_param;
}

void pm__warm_record(pm_model *m, const pm_model *warm)
{
	pm_fit_info *f = &m->info;

	f->warm_started = 1;
	f->warm_cost = warm->has_fit_info ? warm->info.cost : NAN;
	snprintf(f->warm_data, sizeof(f->warm_data), "%s",
		 warm->has_fit_info ? warm->info.data_name : "");
	snprintf(f->warm_fingerprint, sizeof(f->warm_fingerprint), "%s",
		 warm->has_fit_info ? warm->info.fingerprint : "");
}
