/* The configurations of a file's rows, and the measured rows grouped by
 * them (plan_impl.h). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "plan/plan_impl.h"

/* Give an error from the model or the dataset the cell's place. */
static pm_status at_cell(const pm_dataset *d, size_t r, size_t col, pm_status st, pm_error *err)
{
	if (err && err->line == 0) {
		err->line = pm_dataset_cell_line(d, r, col);
		err->column = pm_dataset_cell_column(d, r, col);
		pm__err_set_file(err, pm_dataset_name(d));
	}
	return st;
}

pm_status pm__plan_inputs(const pm_model *m, const pm_dataset *d, const char *what, double **x,
			  pm_error *err)
{
	size_t nin = pm_model_ninputs(m), nrows = pm_dataset_nrows(d), *col;
	pm_status st = PM_OK;

	*x = NULL;
	col = malloc((nin + 1) * sizeof(*col));
	*x = malloc((nrows * nin + 1) * sizeof(**x));
	if (!col || !*x) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nin; i++)
		if (pm_dataset_col_index(d, pm_model_input_name(m, i), &col[i], NULL)) {
			st = pm__fail(err, PM_ESCHEMA, "%s (%s) have no column '%s', an input of "
				      "the model", what, pm_dataset_name(d), pm_model_input_name(m, i));
			goto out;
		}
	for (size_t r = 0; r < nrows && !st; r++)
		for (size_t i = 0; i < nin && !st; i++) {
			double *v = &(*x)[r * nin + i];
			size_t level;

			if (pm_model_input_role(m, i) == PM_ROLE_CATEGORICAL) {
				st = pm_model_level_index(m, i, pm_dataset_cell(d, r, col[i]), &level,
							  err);
				if (!st)
					*v = (double)level;
			} else {
				st = pm_dataset_number(d, r, col[i], v, err);
			}
			if (st)
				st = at_cell(d, r, col[i], st, err);
		}
out:
	free(col);
	if (st) {
		free(*x);
		*x = NULL;
	}
	return st;
}

/* Values, not bits: 0.0 and -0.0 are one configuration. */
static int same(const double *a, const double *b, size_t nin)
{
	for (size_t i = 0; i < nin; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

size_t pm__plan_find(const double *xs, size_t n, size_t nin, const double *x)
{
	size_t r = 0;

	while (r < n && !same(&xs[r * nin], x, nin))
		r++;
	return r;
}

/* The same categorical levels: one stratum. */
static int same_levels(const double *a, const double *b, size_t nin, const int *categorical)
{
	for (size_t i = 0; i < nin; i++)
		if (categorical[i] && a[i] != b[i])
			return 0;
	return 1;
}

/* Items 0..n with labels of[0..n) < nlabels, listed by label: label k's
 * items are items[start[k] .. start[k + 1]), in order. */
static pm_status bucket(const size_t *of, size_t n, size_t nlabels, size_t **start,
			size_t **items, pm_error *err)
{
	size_t *fill;

	*start = calloc(nlabels + 1, sizeof(**start));
	*items = malloc((n + 1) * sizeof(**items));
	fill = calloc(nlabels + 1, sizeof(*fill));
	if (!*start || !*items || !fill) {
		free(fill);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	for (size_t r = 0; r < n; r++)
		(*start)[of[r] + 1]++;
	for (size_t k = 0; k < nlabels; k++)
		(*start)[k + 1] += (*start)[k];
	for (size_t r = 0; r < n; r++)
		(*items)[(*start)[of[r]] + fill[of[r]]++] = r;
	free(fill);
	return PM_OK;
}

pm_status pm__plan_groups(const double *x, size_t n, size_t nin, const int *categorical,
			  pm_plan_groups *g, pm_error *err)
{
	/* first[k]: the first row of group k; of[r]: row r's group, then
	 * stratum_of[k]: group k's stratum */
	size_t *first = malloc((n + 1) * sizeof(*first)), *of = malloc((n + 1) * sizeof(*of));
	size_t *stratum_of = malloc((n + 1) * sizeof(*stratum_of));
	size_t *sfirst = malloc((n + 1) * sizeof(*sfirst));
	pm_status st = PM_OK;

	memset(g, 0, sizeof(*g));
	if (!first || !of || !stratum_of || !sfirst) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t r = 0; r < n; r++) {
		size_t k = 0;

		while (k < g->ngroups && !same(&x[first[k] * nin], &x[r * nin], nin))
			k++;
		if (k == g->ngroups)
			first[g->ngroups++] = r;
		of[r] = k;
	}
	for (size_t k = 0; k < g->ngroups; k++) {
		size_t j = 0;

		while (j < g->nstrata &&
		       !same_levels(&x[first[sfirst[j]] * nin], &x[first[k] * nin], nin, categorical))
			j++;
		if (j == g->nstrata)
			sfirst[g->nstrata++] = k;
		stratum_of[k] = j;
	}
	if ((st = bucket(of, n, g->ngroups, &g->start, &g->rows, err)) ||
	    (st = bucket(stratum_of, g->ngroups, g->nstrata, &g->sstart, &g->sgroups, err)))
		pm__plan_groups_free(g);
out:
	free(first);
	free(of);
	free(stratum_of);
	free(sfirst);
	return st;
}

void pm__plan_groups_free(pm_plan_groups *g)
{
	free(g->start);
	free(g->rows);
	free(g->sstart);
	free(g->sgroups);
	memset(g, 0, sizeof(*g));
}
