/* Parameters the fitted rows leave free (undetermined.h). */
#include "fit/undetermined.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"

/* Whether term tm is nonzero on some row: its level occurs there with
 * every indicator true and every log2 input above 1 (x^p and a level's
 * multiplier are never 0). */
static int term_occurs(const pm_problem *p, const pm_model *m, const pm_term *tm)
{
	const pm_terms *t = &m->terms;

	for (size_t r = 0; r < p->nrows; r++) {
		int on = tm->level_input == PM_NONE || p->col[tm->level_input].code[r] == tm->level;

		for (uint32_t i = 0; on && i < tm->nfactors; i++) {
			const pm_factor *fa = &t->factor[t->ref[tm->first + i]];
			const pm_column *col = &p->col[fa->input];
			double base;

			if (fa->kind != PM_FACTOR_INDICATOR && fa->kind != PM_FACTOR_LOG2)
				continue;
			base = pm__factor_base(fa, col->x[col->code[r]], col->log_scale);
			on = fa->kind == PM_FACTOR_INDICATOR ? base != 0 : base != -INFINITY;
		}
		if (on)
			return 1;
	}
	return 0;
}

pm_status pm__fit_undetermined(const pm_problem *p, pm_model *m, pm_error *err)
{
	const pm_terms *t = &m->terms;
	unsigned char *occurs = malloc(t->nterms + 1);

	if (!occurs)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t i = 0; i < t->nterms; i++)
		occurs[i] = (unsigned char)term_occurs(p, m, &t->term[i]);
	for (size_t k = 0; k < m->nparams; k++) {
		int determined = 0;

		for (size_t i = 0; i < t->nterms && !determined; i++) {
			const pm_term *tm = &t->term[i];

			if (tm->coef == k) {
				/* a coefficient: some row has its term */
				determined = occurs[i];
				continue;
			}
			/* a power or multiplier: some row has a term of it with a
			 * coefficient that is not 0 */
			if (!occurs[i] || m->value[tm->coef] == 0.0)
				continue;
			for (uint32_t q = 0; q < tm->nfactors && !determined; q++)
				determined = pm__model_factor_has_param(
					m, &t->factor[t->ref[tm->first + q]], k);
		}
		m->params[k].undetermined = !determined;
	}
	free(occurs);
	return PM_OK;
}
