/* Identifiability checks after the fit (afterfit.h). */
#include "fit/afterfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fit/cost.h"
#include "fit/varpro.h"

/* A term at most this share of the prediction on every row changes no
 * prediction by more than one part in a million: three orders of magnitude
 * below the run-to-run noise of any measured time (0.1 % at best), so no
 * measurement can tell the model with it from the model without it. */
#define NEGLIGIBLE 1e-6
/* A fitted value within this share of its box's width from a bound is at
 * that bound: the search samples the box uniformly and the polish projects
 * onto it, so a parameter the box stops ends on the bound or, when the
 * cost is not smooth (mae), just short of it ... */
#define NEAR_BOUND 0.01
/* ... and the box, not the data, stops it when the fit's cost is lower
 * this share of the width beyond the bound, the other parameters as
 * fitted ... */
#define BEYOND_BOUND 0.01
/* ... by more than rounding in a sum over the rows. */
#define COST_ROUNDING 1e-9

/* Term tm's value on row r, scaled as m->value (prediction = target_scale
 * * the sum of the terms): terms.h's evaluation on p's columns, with input
 * `in`'s value code replaced by `code` (in = SIZE_MAX: none). */
static double term_at(const pm_problem *p, const pm_model *m, const pm_term *tm, size_t r,
		      size_t in, uint32_t code)
{
	const pm_terms *t = &m->terms;
	double v;

	if (tm->level_input != PM_NONE &&
	    (tm->level_input == in ? code : p->col[tm->level_input].code[r]) != tm->level)
		return 0.0;
	v = m->value[tm->coef];
	for (uint32_t i = 0; i < tm->nfactors; i++) {
		const pm_factor *fa = &t->factor[t->ref[tm->first + i]];
		const pm_column *c = &p->col[fa->input];
		uint32_t d = fa->input == in ? code : c->code[r];
		double x = fa->kind == PM_FACTOR_LEVEL ? (double)d : c->x[d];

		v *= pm__factor_eval(fa, m->value, pm__factor_base(fa, x, c->log_scale));
	}
	return v;
}

/* d, a change of a prediction in scaled units, as a share of pred, the
 * prediction: 0 for no change (even of a zero prediction), NaN or inf (an
 * overflow) as INFINITY. */
static double share_of(const pm_model *m, double d, double pred)
{
	double s = d == 0.0 ? 0.0 : fabs(d * m->target_scale) / fabs(pred);

	return isnan(s) ? INFINITY : s;
}

/* The largest share |term| / |prediction| of term tm over the rows; it
 * stops at the first row above NEGLIGIBLE (a term that counts shows it at
 * once). A coefficient of 0 makes it 0 on every row without a look. */
static double term_share(const pm_problem *p, const pm_model *m, const pm_term *tm,
			 const double *pred)
{
	double most = 0.0;

	if (m->value[tm->coef] == 0.0)
		return 0.0;
	for (size_t r = 0; r < p->nrows; r++) {
		double s = share_of(m, term_at(p, m, tm, r, SIZE_MAX, 0), pred[r]);

		if (s > NEGLIGIBLE)
			return s;
		most = fmax(most, s);
	}
	return most;
}

/* A term of no factor and no level: C, or a formula's constant. */
static int is_bias(const pm_term *tm)
{
	return !tm->nfactors && tm->level_input == PM_NONE;
}

static int term_uses_input(const pm_terms *t, const pm_term *tm, size_t i)
{
	if (tm->level_input == i)
		return 1;
	for (uint32_t q = 0; q < tm->nfactors; q++)
		if (t->factor[t->ref[tm->first + q]].input == i)
			return 1;
	return 0;
}

/* Whether one of term tm's inputs is one named[] marks. */
static int uses_named(const pm_model *m, const pm_term *tm, const unsigned char *named)
{
	for (size_t i = 0; i < m->ninputs; i++)
		if (named[i] && term_uses_input(&m->terms, tm, i))
			return 1;
	return 0;
}

static int term_has_param(const pm_model *m, const pm_term *tm, size_t k)
{
	const pm_terms *t = &m->terms;

	if (tm->coef == k)
		return 1;
	for (uint32_t q = 0; q < tm->nfactors; q++)
		if (pm__model_factor_has_param(m, &t->factor[t->ref[tm->first + q]], k))
			return 1;
	return 0;
}

/* How far input i moves a prediction: the largest |S(r; v) - S(r)| /
 * |prediction| over the rows r and the values v, S the sum of its terms
 * (term[0 .. n)) on row r and S(r; v) the same with the input's value
 * replaced by v: every level of a categorical, the smallest and largest
 * value of a number (in eq. 4.4 and the multiplicative form each of its
 * terms has it under one power, x^p, so the two bound the change). Stops
 * at the first change above NEGLIGIBLE. */
static double column_move(const pm_problem *p, const pm_model *m, size_t i,
			  const size_t *term, size_t n, const double *pred)
{
	const pm_column *c = &p->col[i];
	int levels = c->role == PM_ROLE_CATEGORICAL;
	uint32_t nv = levels ? (uint32_t)c->ndistinct : 2, last = (uint32_t)c->ndistinct - 1;
	double most = 0.0;

	for (size_t r = 0; r < p->nrows; r++) {
		double here = 0.0;

		for (size_t j = 0; j < n; j++)
			here += term_at(p, m, &m->terms.term[term[j]], r, SIZE_MAX, 0);
		for (uint32_t v = 0; v < nv; v++) {
			uint32_t code = levels ? v : v ? last : 0;
			double there = 0.0, s;

			for (size_t j = 0; j < n; j++)
				there += term_at(p, m, &m->terms.term[term[j]], r, i, code);
			if ((s = share_of(m, there - here, pred[r])) > NEGLIGIBLE)
				return s;
			most = fmax(most, s);
		}
	}
	return most;
}

/* eq. 4.4 and the multiplicative form: an input that moves no prediction
 * by more than NEGLIGIBLE (column_move) has no effect, and the action is
 * to drop the column: its terms are 0 (their coefficients are), or tiny,
 * or its levels' coefficients are one, or its power is 0. A formula's
 * column cannot be dropped (spec.c): a formula's term that is NEGLIGIBLE
 * of every prediction is named by its coefficient, to be written out of
 * it. A term no row has is left out (its coefficient is undetermined, and
 * identify.c has said why), a column named[] marks to its warning from
 * before the fit, and so is a formula's term of one. */
static pm_status warn_no_effect(const pm_problem *p, pm_model *m, const double *share,
				const unsigned char *absent, const unsigned char *named,
				const double *pred, pm_error *err)
{
	const pm_terms *t = &m->terms;
	size_t *term = malloc((t->nterms + 1) * sizeof(*term));
	pm_status st = PM_OK;

	if (!term)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t j = 0; m->form == PM_FORM_FORMULA && j < t->nterms && !st; j++) {
		if (absent[j] || is_bias(&t->term[j]) || share[j] > NEGLIGIBLE ||
		    uses_named(m, &t->term[j], named))
			continue;
		if (share[j] == 0.0)
			st = pm__model_add_warning(m, err, "the formula's term of coefficient '%s' "
						   "has no effect: it is 0 on every row%s; write the "
						   "formula without it",
						   m->params[t->term[j].coef].name,
						   m->value[t->term[j].coef] == 0.0
							   ? " (its coefficient was fitted to 0)" : "");
		else
			st = pm__model_add_warning(m, err, "the formula's term of coefficient '%s' "
						   "has no effect: it is at most %.3g of any "
						   "prediction (below 1e-06); write the formula "
						   "without it", m->params[t->term[j].coef].name,
						   share[j]);
	}
	for (size_t i = 0; m->form != PM_FORM_FORMULA && i < m->ninputs && !st; i++) {
		size_t n = 0, zero = 0;
		double move = 0.0;

		for (size_t j = 0; j < t->nterms; j++)
			if (!absent[j] && term_uses_input(t, &t->term[j], i)) {
				zero += m->value[t->term[j].coef] == 0.0;
				term[n++] = j;
			}
		if (!n || named[i] || (zero < n && (move = column_move(p, m, i, term, n, pred)) >
							  NEGLIGIBLE))
			continue;
		if (zero == n)
			st = pm__model_add_warning(m, err, "column '%s' has no effect on the fit: %s "
						   "0 on every row; drop it with --ignore %s",
						   m->inputs[i].name,
						   n == 1 ? "its term is" : "its terms are",
						   m->inputs[i].name);
		else
			st = pm__model_add_warning(m, err, "column '%s' has no effect on the fit: no "
						   "prediction changes by more than %.3g of itself "
						   "when it takes another of its values (below "
						   "1e-06); drop it with --ignore %s", m->inputs[i].name, move,
						   m->inputs[i].name);
	}
	free(term);
	return st;
}

/* The spec's key of a kind's bounds; NULL: the model's own box (a formula's
 * level multipliers), which no spec changes. */
static const char *bounds_key(pm_param_kind kind)
{
	switch (kind) {
	case PM_PARAM_COEF:
	case PM_PARAM_LEVEL: return "coefficient";
	case PM_PARAM_POWER:
	case PM_PARAM_SCALING: return "power";
	case PM_PARAM_CONST: return "constant";
	default: return NULL;
	}
}

/* Which bound of its box parameter k is near, as a direction: -1 lower,
 * +1 upper, 0 neither (or only a bound that is the model's own: 0 for a
 * coefficient or C, which keeps each part of a time from being negative, is
 * where a part the data does not need belongs). */
static int near_bound(const pm_param *pa, double x)
{
	double w = pa->hi - pa->lo;
	int coef = pa->desc.kind == PM_PARAM_COEF || pa->desc.kind == PM_PARAM_LEVEL ||
		   pa->desc.kind == PM_PARAM_CONST;

	if (!(w > 0))
		return 0;	/* fixed by the caller */
	if (x - pa->lo <= NEAR_BOUND * w && !(coef && pa->lo == 0.0))
		return -1;
	if (pa->hi - x <= NEAR_BOUND * w && !(coef && pa->hi == 0.0))
		return 1;
	return 0;
}

static pm_status warn_held(pm_model *m, size_t k, int dir, pm_error *err)
{
	const pm_param *pa = &m->params[k];
	const char *key = bounds_key(pa->desc.kind);
	double w = pa->hi - pa->lo, b = dir < 0 ? pa->lo : pa->hi;
	/* the held side moved out by its own size or half the width */
	double wider = b + dir * fmax(fabs(b), 0.5 * w);
	const char *scaled = m->scale == PM_SCALE_AUTO && pa->desc.kind != PM_PARAM_POWER &&
					     pa->desc.kind != PM_PARAM_SCALING
				     ? " (scaled)"
				     : "";

	if (!key)
		return pm__model_add_warning(
			m, err, "parameter '%s' = %.6g is held by the %s bound %.6g of its "
			"search box [%.6g, %.6g] (a level's multiplier between 1/100 and "
			"100, which no spec changes): the fit's cost still falls beyond it, "
			"so the level's effect is more than the formula can express; check "
			"that level's rows", pa->name, m->value[k], dir < 0 ? "lower" : "upper",
			b, pa->lo, pa->hi);
	/* a power of eq. 4.4 or the power law pushing at its box is often the
	 * form failing to follow the data (kernel_size^9.93 where the time is a
	 * product of the inputs): a wider box alone does not mend that */
	const char *form = m->form != PM_FORM_FORMULA && (pa->desc.kind == PM_PARAM_POWER ||
							   pa->desc.kind == PM_PARAM_SCALING)
				   ? "; if it goes on to the new bound, the form cannot follow "
				     "the data: fit with no --form to compare it with the other "
				     "forms and discovered terms"
				   : "";

	return pm__model_add_warning(
		m, err, "parameter '%s'%s = %.6g is held by the %s bound %.6g of its search "
		"box [%.6g, %.6g]: the fit's cost still falls beyond it, so the value is the "
		"box's, not the data's; widen the box in the spec: \"bounds\": {\"%s\": "
		"[%.6g, %.6g]}%s", pa->name, scaled, m->value[k], dir < 0 ? "lower" : "upper", b,
		pa->lo, pa->hi, key, dir < 0 ? wider : pa->lo, dir < 0 ? pa->hi : wider, form);
}

/* Whether a probe's cost f is below the fit's, base, by more than rounding. */
static int lower(double f, double base)
{
	return f < base - COST_ROUNDING * fabs(base);
}

/* Where parameter k is probed: a step beyond the bound it is near. */
static double beyond(const pm_param *pa, int dir)
{
	return (dir < 0 ? pa->lo : pa->hi) + dir * BEYOND_BOUND * (pa->hi - pa->lo);
}

/* The parameters near a bound that is a search limit (near_bound), in a
 * term that counts (live), each probed a step beyond its bound: with the
 * fit's own cost, the other parameters as fitted; and, for a power or log
 * multiplier of a model varpro can search, with the coefficients solved
 * again (varpro.h): a power moves its term's scale with it, and its
 * coefficient would follow. The solved probe is compared with the same
 * solve at the fitted point, not with the fit's polished cost: so that
 * what it gains is the step's alone (on the bundled LeNet-5 and LIF fits
 * it finds p_pool_size and q_world_size, which a fit in a box twice as
 * wide takes to -7.9 and 8.6; the first probe alone finds neither). Either
 * probe's cost lower, the box holds the parameter back. The costs are
 * compiled only when some parameter is near. */
static pm_status warn_bounds(const pm_problem *p, pm_model *m, const pm_fit_options *o,
			     const unsigned char *live, pm_error *err)
{
	size_t n = m->nparams, near = 0, bytes;
	int *dir = calloc(n + 1, sizeof(*dir)), solve = pm__varpro_applies(m);
	double *x = malloc(2 * n * sizeof(*x) + 1), *theta = x ? x + n : NULL, base, vbase = 0;
	pm_cost c = { 0 };
	pm_varpro v = { 0 };
	void *scratch = NULL;
	pm_status st = PM_OK;

	if (!dir || !x) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		dir[k] = live[k] && !m->params[k].undetermined ? near_bound(&m->params[k], m->value[k])
							       : 0;
		near += dir[k] != 0;
	}
	if (!near || (st = pm__cost_init(&c, p, m, o, err)) ||
	    (solve && (st = pm__varpro_init(&v, &c, o, err))))
		goto out;
	/* varpro's scratch starts with the cost's, 64-byte aligned */
	bytes = ((solve ? v.scratch_bytes : c.scratch_bytes) + 63) / 64 * 64;
	if (!(scratch = aligned_alloc(64, bytes ? bytes : 64))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	base = pm__cost_value(m->value, &c, scratch);
	for (size_t j = 0; solve && j < v.nnon; j++)
		theta[j] = m->value[v.non[j]];
	if (solve)
		vbase = pm__varpro_value(theta, &v, scratch);
	for (size_t k = 0; k < n && !st; k++) {
		int held;

		if (!dir[k])
			continue;
		memcpy(x, m->value, n * sizeof(*x));
		x[k] = beyond(&m->params[k], dir[k]);
		held = lower(pm__cost_value(x, &c, scratch), base);
		for (size_t j = 0; solve && !held && j < v.nnon; j++)
			if (v.non[j] == k) {
				double keep = theta[j];

				theta[j] = x[k];
				held = lower(pm__varpro_value(theta, &v, scratch), vbase);
				theta[j] = keep;
			}
		if (held)
			st = warn_held(m, k, dir[k], err);
	}
out:
	pm__varpro_free(&v);
	pm__cost_free(&c);
	free(scratch);
	free(x);
	free(dir);
	return st;
}

pm_status pm__fit_after(const pm_problem *p, pm_model *m, const pm_fit_options *o,
			const double *pred, const unsigned char *named, pm_error *err)
{
	const pm_terms *t = &m->terms;
	double *share = malloc((t->nterms + 1) * sizeof(*share));
	unsigned char *absent = malloc(t->nterms + 1), *live = calloc(m->nparams + 1, 1);
	pm_status st = PM_OK;

	/* a search cut short stopped where it was: its values are no finding
	 * (and a stop request wants no more work) */
	if (m->info.interrupted)
		goto out;
	if (!share || !absent || !live) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t j = 0; j < t->nterms; j++) {
		const pm_term *tm = &t->term[j];

		/* no row has it: its coefficient is undetermined */
		absent[j] = m->params[tm->coef].undetermined != 0;
		share[j] = absent[j] ? 0.0 : term_share(p, m, tm, pred);
		for (size_t k = 0; k < m->nparams && share[j] > NEGLIGIBLE; k++)
			live[k] |= term_has_param(m, tm, k);
	}
	if (!m->info.constant && (st = warn_no_effect(p, m, share, absent, named, pred, err)))
		goto out;
	st = warn_bounds(p, m, o, live, err);
out:
	free(share);
	free(absent);
	free(live);
	return st;
}
