#include <math.h>

#include "error.h"
#include "model_impl.h"

struct point {
	const pm_model *m;
	const double *x;
};

static double point_factor(const void *ctx, uint32_t f)
{
	const struct point *p = ctx;
	const pm_factor *fa = &p->m->terms.factor[f];

	return pm__factor_value(p->m->value[fa->power],
				log(p->x[fa->input]) - p->m->inputs[fa->input].log_scale);
}

static uint32_t point_level(const void *ctx, uint32_t i)
{
	const struct point *p = ctx;

	return (uint32_t)p->x[i];
}

pm_status pm_model_predict(const pm_model *m, const double *x, double *out, pm_error *err)
{
	struct point p = { m, x };

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
	*out = m->target_scale * pm__terms_combine(&m->terms, m->value, point_factor,
						   point_level, &p);
	return PM_OK;
}
