#include "model/terms.h"

#include <stdlib.h>

#include "core/error.h"

int pm__terms_additive_has_base(size_t ninputs, const pm_role *role)
{
	size_t next = 0;

	for (size_t i = 0; i < ninputs; i++) {
		if (role[i] != PM_ROLE_EXTRINSIC)
			return 0;
		next++;
	}
	return next > 0;
}

void pm__terms_free(pm_terms *t)
{
	if (!t)
		return;
	free(t->factor);
	free(t->term);
	free(t->ref);
	t->factor = NULL;
	t->term = NULL;
	t->ref = NULL;
	t->nfactors = t->nterms = 0;
}

/* Eq. 4.4 as terms: a_i * I_i^p_i * prod_j E_j^q_j for each numeric
 * intrinsic, b_{c,v} * [c == v] * prod_j E_j^q_j for each level, the base
 * a0 * prod_j E_j^q_j when there is neither, and C alone. Factors: one per
 * intrinsic (I_i, p_i), one per extrinsic (E_j, q_j), the latter shared by
 * every term. */
pm_status pm__terms_additive(size_t ninputs, const pm_role *role, const size_t *nlevels,
			     int base, pm_terms *t, pm_param_desc **desc, size_t *nparams,
			     pm_error *err)
{
	size_t nintr = 0, next = 0, nlev = 0, np = 0, nt, nref, nbase;
	uint32_t *ext_factor = NULL;
	pm_param_desc *d = NULL;
	size_t f = 0, k = 0, r = 0, p = 0;

	*t = (pm_terms){ 0 };
	*desc = NULL;
	*nparams = 0;
	for (size_t i = 0; i < ninputs; i++) {
		if (role[i] == PM_ROLE_INTRINSIC)
			nintr++;
		else if (role[i] == PM_ROLE_EXTRINSIC)
			next++;
		else
			nlev += nlevels[i];
	}
	nbase = base && pm__terms_additive_has_base(ninputs, role);
	np = nbase + 2 * nintr + nlev + next + 1;
	nt = nbase + nintr + nlev + 1;
	nref = nintr * (1 + next) + (nbase + nlev) * next;
	t->factor = malloc((nintr + next + 1) * sizeof(*t->factor));
	t->term = malloc(nt * sizeof(*t->term));
	t->ref = malloc((nref + 1) * sizeof(*t->ref));
	d = malloc(np * sizeof(*d));
	ext_factor = malloc((next + 1) * sizeof(*ext_factor));
	if (!t->factor || !t->term || !t->ref || !d || !ext_factor)
		goto oom;

	/* Parameter numbering first, so factors can name their powers. The
	 * extrinsic factors come first among factors: every term uses them. */
	if (nbase)
		d[p++] = (pm_param_desc){ PM_PARAM_COEF, PM_NONE, 0 };
	for (size_t i = 0; i < ninputs; i++) {
		if (role[i] == PM_ROLE_INTRINSIC) {
			d[p++] = (pm_param_desc){ PM_PARAM_COEF, (uint32_t)i, 0 };
			d[p++] = (pm_param_desc){ PM_PARAM_POWER, (uint32_t)i, 0 };
		} else if (role[i] == PM_ROLE_CATEGORICAL) {
			for (size_t v = 0; v < nlevels[i]; v++)
				d[p++] = (pm_param_desc){ PM_PARAM_LEVEL, (uint32_t)i, (uint32_t)v };
		} else {
			ext_factor[f] = (uint32_t)f;
			t->factor[f++] = (pm_factor){ .input = (uint32_t)i, .power = (uint32_t)p };
			d[p++] = (pm_param_desc){ PM_PARAM_SCALING, (uint32_t)i, 0 };
		}
	}
	d[p++] = (pm_param_desc){ PM_PARAM_CONST, PM_NONE, 0 };

	p = 0;
	if (nbase) {
		t->term[k++] = (pm_term){ (uint32_t)p++, PM_NONE, 0, (uint32_t)r, (uint32_t)next };
		for (size_t j = 0; j < next; j++)
			t->ref[r++] = ext_factor[j];
	}
	for (size_t i = 0; i < ninputs; i++) {
		if (role[i] == PM_ROLE_INTRINSIC) {
			t->factor[f] = (pm_factor){ .input = (uint32_t)i, .power = (uint32_t)(p + 1) };
			t->term[k] = (pm_term){ (uint32_t)p, PM_NONE, 0, (uint32_t)r,
						(uint32_t)(1 + next) };
			t->ref[r++] = (uint32_t)f++;
			for (size_t j = 0; j < next; j++)
				t->ref[r++] = ext_factor[j];
			k++;
			p += 2;
		} else if (role[i] == PM_ROLE_CATEGORICAL) {
			for (size_t v = 0; v < nlevels[i]; v++) {
				t->term[k++] = (pm_term){ (uint32_t)p++, (uint32_t)i, (uint32_t)v,
							  (uint32_t)r, (uint32_t)next };
				for (size_t j = 0; j < next; j++)
					t->ref[r++] = ext_factor[j];
			}
		} else {
			p++;
		}
	}
	t->term[k++] = (pm_term){ (uint32_t)p, PM_NONE, 0, (uint32_t)r, 0 };
	t->nfactors = f;
	t->nterms = k;
	free(ext_factor);
	*desc = d;
	*nparams = np;
	return PM_OK;
oom:
	free(ext_factor);
	free(d);
	pm__terms_free(t);
	return pm__fail(err, PM_ENOMEM, "out of memory");
}
