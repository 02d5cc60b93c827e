#include <math.h>

#include "error.h"
#include "model_impl.h"

/* Eq. 4.4 repeats every extrinsic factor in every term: a point's factor
 * values are computed once, before the terms are combined, in a stack
 * array of up to FACTOR_CACHE (predict stays allocation-free); a model
 * with more factors computes them where the terms use them. */
#define FACTOR_CACHE 64

struct point {
	const pm_model *m;
	const double *x;
	const double *fv;	/* factor values, or NULL */
};

static double factor_at(const pm_model *m, const double *x, uint32_t f)
{
	const pm_factor *fa = &m->terms.factor[f];

	return pm__factor_eval(fa, m->value,
			       pm__factor_base(fa, x[fa->input], m->inputs[fa->input].log_scale));
}

static double point_factor(const void *ctx, uint32_t f)
{
	const struct point *p = ctx;

	return p->fv ? p->fv[f] : factor_at(p->m, p->x, f);
}

static uint32_t point_level(const void *ctx, uint32_t i)
{
	const struct point *p = ctx;

	return (uint32_t)p->x[i];
}

pm_status pm_model_predict(const pm_model *m, const double *x, double *out, pm_error *err)
{
	double fv[FACTOR_CACHE];
	struct point p = { m, x, NULL };

	for (size_t i = 0; i < m->ninputs; i++) {
		const pm_input *in = &m->inputs[i];

		if (in->role == PM_ROLE_CATEGORICAL) {
			if (!(x[i] >= 0 && x[i] < (double)in->nlevels && x[i] == floor(x[i])))
				return pm__fail(err, PM_EDOMAIN,
						"input '%s': level index %g is not one of 0..%zu",
						in->name, x[i], in->nlevels - 1);
		} else if (!(x[i] > 0 && isfinite(x[i]))) {
			return pm__fail(err, PM_EDOMAIN,
					"input '%s': %g is not a finite number > 0, as a power needs",
					in->name, x[i]);
		}
	}
	for (size_t f = 0; f < m->terms.nfactors; f++) {
		const pm_factor *fa = &m->terms.factor[f];

		if (fa->kind == PM_FACTOR_LOG2 && !(x[fa->input] >= 1))
			return pm__fail(err, PM_EDOMAIN, "input '%s': %g is below 1, as log2() needs",
					m->inputs[fa->input].name, x[fa->input]);
	}
	if (m->terms.nfactors <= FACTOR_CACHE) {
		for (uint32_t f = 0; f < m->terms.nfactors; f++)
			fv[f] = factor_at(m, x, f);
		p.fv = fv;
	}
	*out = m->target_scale * pm__terms_combine(&m->terms, m->value, point_factor,
						   point_level, &p);
	return PM_OK;
}
