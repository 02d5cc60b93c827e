/* A model's inputs over a dataset, and the configurations they make: the
 * noise floor of repeated runs (select/yardstick.c) and folds that keep the
 * runs of one configuration together (fit/validate.c) both need them. */
#include "spec/configs.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "spec/spec_impl.h"

void pm__inputs_free(pm_inputs *in)
{
	free(in->col);
	free(in->cat);
	*in = (pm_inputs){ 0 };
}

pm_status pm__inputs_of(const pm_dataset *d, const pm_spec *s, pm_inputs *in, pm_error *err)
{
	static const pm_spec_list role[] = { PM_SPEC_INTRINSIC, PM_SPEC_EXTRINSIC,
					     PM_SPEC_CATEGORICAL };
	pm_spec *rs = NULL;
	size_t total = 0;
	pm_status st;

	*in = (pm_inputs){ 0 };
	if ((st = pm__spec_copy(s, &rs, err)) || (st = pm__spec_formula_roles(rs, d, err)) ||
	    (st = pm_spec_resolve(rs, d, err)) ||
	    (st = pm_dataset_col_index(d, pm_spec_target(rs), &in->target, err)))
		goto out;
	for (size_t k = 0; k < 3; k++)
		total += pm_spec_names(rs, role[k])->n;
	in->col = malloc((total + 1) * sizeof(*in->col));
	in->cat = malloc((total + 1) * sizeof(*in->cat));
	if (!in->col || !in->cat) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < 3 && !st; k++) {
		const pm_names *names = pm_spec_names(rs, role[k]);

		for (size_t i = 0; i < names->n && !st; i++) {
			in->cat[in->n] = role[k] == PM_SPEC_CATEGORICAL;
			st = pm_dataset_col_index(d, names->name[i], &in->col[in->n++], err);
		}
	}
out:
	pm_spec_free(rs);
	if (st)
		pm__inputs_free(in);
	return st;
}

struct keyed_row {
	size_t row;
	const double *x;	/* the row's inputs, n of them */
	size_t n;
};

static int same_inputs(const struct keyed_row *p, const struct keyed_row *q)
{
	return memcmp(p->x, q->x, p->n * sizeof(*p->x)) == 0;
}

/* by the inputs' bits, then in file order: one order on every machine */
static int by_inputs(const void *a, const void *b)
{
	const struct keyed_row *p = a, *q = b;
	int c = memcmp(p->x, q->x, p->n * sizeof(*p->x));

	return c ? c : (p->row > q->row) - (p->row < q->row);
}

pm_status pm__config_ids(const pm_dataset *d, const pm_spec *s, size_t *id, size_t *nconfigs,
			 pm_error *err)
{
	size_t nr = pm_dataset_nrows(d), *first = NULL;
	pm_inputs in = { 0 };
	double *x = NULL;
	struct keyed_row *k = NULL;
	uint32_t *codes = NULL;
	pm_status st = PM_OK;

	*nconfigs = nr;
	for (size_t r = 0; r < nr; r++)
		id[r] = r;
	if (!s || nr == 0)
		return PM_OK;
	if ((st = pm__inputs_of(d, s, &in, err)))
		return st;
	x = malloc((in.n * nr + 1) * sizeof(*x));
	k = malloc((nr + 1) * sizeof(*k));
	codes = malloc((nr + 1) * sizeof(*codes));
	first = malloc((nr + 1) * sizeof(*first));
	if (!x || !k || !codes || !first) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	/* row-major: a row's inputs side by side, compared as one key (a
	 * level as its code, exact in a double) */
	for (size_t i = 0; i < in.n && !st; i++) {
		if (in.cat[i]) {
			pm_dataset_col_codes(d, in.col[i], codes);
			for (size_t r = 0; r < nr; r++)
				x[r * in.n + i] = codes[r];
			continue;
		}
		for (size_t r = 0; r < nr && !st; r++)
			st = pm_dataset_number(d, r, in.col[i], &x[r * in.n + i], err);
	}
	if (st)
		goto out;
	for (size_t r = 0; r < nr; r++)
		k[r] = (struct keyed_row){ r, x + r * in.n, in.n };
	qsort(k, nr, sizeof(*k), by_inputs);
	/* each group's id is its first row's for now, then renumbered in
	 * file order */
	for (size_t a = 0, b; a < nr; a = b)
		for (b = a; b < nr && same_inputs(&k[a], &k[b]); b++)
			id[k[b].row] = k[a].row;
	*nconfigs = 0;
	for (size_t r = 0; r < nr; r++)
		first[r] = SIZE_MAX;
	for (size_t r = 0; r < nr; r++) {
		if (first[id[r]] == SIZE_MAX)
			first[id[r]] = (*nconfigs)++;
		id[r] = first[id[r]];
	}
out:
	free(x);
	free(k);
	free(codes);
	free(first);
	pm__inputs_free(&in);
	return st;
}
