/* perfmodel discover's inputs (discover_impl.h): the numeric and
 * categorical columns of the resolved roles, each row's configuration, the
 * target on its time scale and the folds' rows; the search's memory freed. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "discover/discover_impl.h"
#include "fit/problem.h"
#include "spec/configs.h"
#include "spec/spec_impl.h"

/* The numeric and categorical inputs of s's resolved roles. */
pm_status pm__disc_inputs(struct search *s, const pm_spec *rs, pm_error *err)
{
	const pm_names *lists[2] = { &rs->intrinsic, &rs->extrinsic };
	size_t col;
	pm_status st = PM_OK;

	s->in = calloc(rs->intrinsic.n + rs->extrinsic.n + 1, sizeof(*s->in));
	s->indicator = calloc(rs->intrinsic.n + rs->extrinsic.n + 1, sizeof(*s->indicator));
	s->cat = calloc(rs->categorical.n + 1, sizeof(*s->cat));
	s->nlev = calloc(rs->categorical.n + 1, sizeof(*s->nlev));
	s->codes = malloc((rs->categorical.n * s->n + 1) * sizeof(*s->codes));
	if (!s->in || !s->indicator || !s->cat || !s->nlev || !s->codes)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (int l = 0; l < 2 && !st; l++)
		for (size_t i = 0; i < lists[l]->n && !st; i++) {
			struct input *in = &s->in[s->nin];
			size_t second = 0, distinct = 1;	/* up to 3 */

			*in = (struct input){ .name = lists[l]->name[i] };
			if (strchr(in->name, '`'))	/* the formula cannot name it */
				continue;
			if (!(in->x = malloc(s->n * sizeof(*in->x) + 1)))
				return pm__fail(err, PM_ENOMEM, "out of memory");
			s->nin++;
			if ((st = pm_dataset_col_index(s->d, in->name, &col, err)) ||
			    (st = pm_dataset_col_numbers(s->d, col, in->x, err)))
				break;
			in->power_ok = in->log_ok = 1;
			for (size_t r = 0; r < s->n; r++) {
				if (in->x[r] > in->x[in->argmax])
					in->argmax = r;
				if (distinct == 1 && in->x[r] != in->x[0])
					second = r, distinct = 2;
				else if (distinct == 2 && in->x[r] != in->x[0] &&
					 in->x[r] != in->x[second])
					distinct = 3;
				in->power_ok &= in->x[r] > 0;
				in->log_ok &= in->x[r] >= 1;
			}
			in->max = in->x[in->argmax];
			in->log_ok &= in->max > 1;
			/* two values determine a step, not a curve: a power or log
			 * of them alone is C + c * [x > smallest], its exponent a
			 * guess the data cannot check (in a product, a power is
			 * the ratio of the two values' times, which they do
			 * determine: threads in {1, 2} halving a cost) */
			in->two_values = distinct < 3;
			in->log_ok &= !in->two_values;
			if (distinct == 1) {	/* a constant says nothing */
				free(in->x);
				s->nin--;
			}
		}
	for (size_t i = 0; i < rs->categorical.n && !st; i++) {
		if ((st = pm_dataset_col_index(s->d, rs->categorical.name[i], &col, err)))
			break;
		s->cat[s->ncat] = col;
		s->nlev[s->ncat] = pm_dataset_col_nlevels(s->d, col);
		pm_dataset_col_codes(s->d, col, s->codes + s->ncat * s->n);
		s->ncat += s->nlev[s->ncat] > 1;
	}
	if (!st && !s->nin && !s->ncat)
		st = pm__fail(err, PM_EINVAL, "discover: no input varies: nothing to search");
	return st;
}

/* Each row's configuration, for the support of terms (thin()). */
pm_status pm__disc_configurations(struct search *s, const pm_spec *rs, pm_error *err)
{
	s->config = malloc(s->n * sizeof(*s->config) + 1);
	if (!s->config)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	pm_status st = pm__config_ids(s->d, rs, s->config, &s->nconfigs, err);
	if (!st && !(s->mark = malloc(s->nconfigs + 1)))
		st = pm__fail(err, PM_ENOMEM, "out of memory");
	return st;
}

/* The target (its time scale) and its weights 1/t^2; the folds' rows in order. */
pm_status pm__disc_target_and_folds(struct search *s, const pm_spec *rs, pm_error *err)
{
	const pm_folds *f = s->folds;
	size_t col, nf = f->nfolds + 1;
	pm_status st;

	s->y = malloc(s->n * sizeof(*s->y) + 1);
	s->w = malloc(s->n * sizeof(*s->w) + 1);
	s->fold_start = calloc(nf + 1, sizeof(*s->fold_start));
	s->fold_rows = malloc(s->n * sizeof(*s->fold_rows) + 1);
	s->grp_row = malloc(s->n * sizeof(*s->grp_row) + 1);
	s->grp_start = calloc(nf + 1, sizeof(*s->grp_start));
	s->grp_of = malloc(s->nconfigs * sizeof(*s->grp_of) + 1);
	s->grp_w = malloc(s->n * sizeof(*s->grp_w) + 1);
	s->grp_wy = malloc(s->n * sizeof(*s->grp_wy) + 1);
	if (!s->y || !s->w || !s->fold_start || !s->fold_rows || !s->grp_row || !s->grp_start ||
	    !s->grp_of || !s->grp_w || !s->grp_wy)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	/* a speedup, efficiency or throughput is searched on its time scale
	 * (1/S, 1/(n E), per/X), as pm_fit fits it */
	if ((st = pm_dataset_col_index(s->d, rs->target, &col, err)) ||
	    (st = pm__target_time_scale(s->d, col, rs, PM_LOSS_MAE, s->w, s->y, err)))
		return st;
	for (size_t r = 0; r < s->n; r++) {
		/* read as an absolute loss reads it (a negative value is
		 * refused there), but the search's errors are relative */
		if (s->y[r] == 0)
			return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(s->d),
					   pm_dataset_cell_line(s->d, r, col),
					   pm_dataset_cell_column(s->d, r, col),
					   "target '%s': 0 is not a time > 0 (discover weighs each "
					   "row by 1/t^2 and ranks by MAPE, which divide by the "
					   "values; model values that may be 0 with fit --loss mae "
					   "or mse, or select --loss mae,mse --forms additive,"
					   "multiplicative)", rs->target);
		s->w[r] = 1.0 / (s->y[r] * s->y[r]);
	}
	return pm__disc_deal(s, f, err);
}

void pm__disc_search_free(struct search *s)
{
	for (size_t i = 0; i < s->nin; i++) {
		free(s->in[i].x);
		free(s->in[i].value);
	}
	for (size_t i = 0; i < s->nslab; i++)
		free(s->slab[i]);
	free(s->slab);
	free(s->in);
	free(s->indicator);
	free(s->cat);
	free(s->nlev);
	free(s->codes);
	free(s->pool);
	free(s->pool_set);
	free(s->y);
	free(s->w);
	free(s->fold_start);
	free(s->fold_rows);
	free(s->grp_row);
	free(s->grp_start);
	free(s->grp_of);
	free(s->grp_w);
	free(s->grp_wy);
	free(s->seen);
	free(s->tried);
	free(s->shapes);
	free(s->config);
	free(s->mark);
}
