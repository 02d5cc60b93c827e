#include "fit/problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detmath.h"
#include "core/error.h"
#include "model/formula.h"
#include "model/model_impl.h"
#include "results/evaluate.h"
#include "spec/spec_impl.h"

void pm__problem_free(pm_problem *p)
{
	if (!p)
		return;
	for (size_t j = 0; p->col && j < p->ncols; j++) {
		free(p->col[j].u);
		free(p->col[j].x);
		for (size_t v = 0; p->col[j].levels && v < p->col[j].ndistinct; v++)
			free(p->col[j].levels[v]);
		free(p->col[j].levels);
		free(p->col[j].code);
	}
	free(p->col);
	free(p->t);
	free(p->t_raw);
	free(p->w);
	*p = (pm_problem){ 0 };
}

/* -0 and +0 alike, unlike core/sort.h's: the bsearch below must find a
 * value at the one zero the de-duplication kept (either zero: both are
 * read only through comparisons, in which they are equal). */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A value raised to a fitted power must be > 0. */
static pm_status positive(const pm_dataset *d, size_t row, size_t c, double v, pm_error *err)
{
	if (v > 0)
		return PM_OK;
	return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(d), pm_dataset_cell_line(d, row, c),
			   pm_dataset_cell_column(d, row, c),
			   "column '%s': %g must be > 0 (it is raised to a fitted power); "
			   "if it is a category, declare it categorical",
			   pm_dataset_col_name(d, c), v);
}

/* Column c's numbers into v[nrows], each a value > 0 of the target kind
 * (or a time of 0 the loss takes: pm__times_check); else the error of the
 * column's first wrong cell in row order: one that is no number, or one
 * that is out of range. */
static pm_status target_numbers(const pm_dataset *d, size_t c, pm_target_kind kind, pm_loss loss,
				double *v, pm_error *err)
{
	pm_status st = PM_OK;

	if (pm_dataset_col_numbers(d, c, v, NULL) == PM_OK)
		return pm__times_check(d, c, kind, loss, v, err);
	/* some cell is no number: the loop ends there at the latest */
	for (size_t r = 0; !st; r++)
		if (!(st = pm_dataset_number(d, r, c, &v[r], err)))
			st = pm__time_at(d, r, c, kind, loss, v[r], err);
	return st;
}

/* A target whose every value is 0 (an absolute loss's, which takes 0s) has
 * nothing in it to model, and no scale to fit it in. */
static pm_status not_all_zero(const pm_dataset *d, size_t c, const double *t, pm_error *err)
{
	size_t n = pm_dataset_nrows(d);

	for (size_t r = 0; r < n; r++)
		if (t[r] != 0)
			return PM_OK;
	if (!n)	/* no rows: a fit says so, with how many it needs */
		return PM_OK;
	return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(d), 0, 0,
			   "every value of target '%s' is 0: nothing to model",
			   pm_dataset_col_name(d, c));
}

/* powered: the column is under a power or log2, so its values must be > 0
 * and are scaled; one only in indicators may take any finite value and
 * has no scale (log_scale 0, u NaN). The distinct values come from the
 * dataset's levels (a row's number is its level's), so that nothing a row
 * long is held but the codes. */
static pm_status numeric_column(const pm_dataset *d, size_t c, pm_scale scale, int powered,
				pm_column *col, pm_error *err)
{
	size_t n = pm_dataset_nrows(d), nl = pm_dataset_col_nlevels(d, c), nd = 0, seen = 0;
	double logsum = 0.0, *level = malloc((nl + 1) * sizeof(*level)), *shrunk;
	uint32_t *rank = malloc((nl + 1) * sizeof(*rank));
	pm_status st = PM_OK;

	if (!level || !rank)
		goto oom;
	pm_dataset_col_codes(d, c, col->code);
	/* Levels are numbered as they first appear: row r's is either the
	 * next one or seen before. So each level is read (and checked) at its
	 * first row, and the first wrong cell in row order is found first. */
	for (size_t r = 0; r < n; r++) {
		uint32_t v = col->code[r];

		if (v == seen) {
			if ((st = pm_dataset_number(d, r, c, &level[v], err)) ||
			    (powered && (st = positive(d, r, c, level[v], err))))
				goto out;
			seen++;
		}
		if (powered)
			logsum += pm__log(level[v]);
	}
	col->log_scale = powered && scale == PM_SCALE_AUTO ? logsum / (double)n : 0.0;
	col->u = malloc((nl + 1) * sizeof(*col->u));
	if (!col->u)
		goto oom;
	memcpy(col->u, level, nl * sizeof(*col->u));
	qsort(col->u, nl, sizeof(*col->u), cmp_double);
	for (size_t v = 0; v < nl; v++)
		if (nd == 0 || col->u[v] != col->u[nd - 1])
			col->u[nd++] = col->u[v];
	col->ndistinct = nd;
	if ((shrunk = realloc(col->u, (nd ? nd : 1) * sizeof(*col->u))))
		col->u = shrunk;
	for (size_t v = 0; v < nl; v++) {
		const double *hit = bsearch(&level[v], col->u, nd, sizeof(*col->u), cmp_double);
		rank[v] = (uint32_t)(hit - col->u);
	}
	for (size_t r = 0; r < n; r++)
		col->code[r] = rank[col->code[r]];
	col->x = malloc(nd * sizeof(*col->x));
	if (!col->x)
		goto oom;
	memcpy(col->x, col->u, nd * sizeof(*col->x));
	/* Last, so that the codes were found on the raw values. */
	for (size_t k = 0; k < nd; k++)
		col->u[k] = powered ? pm__log(col->u[k]) - col->log_scale : NAN;
	goto out;
oom:
	st = pm__fail(err, PM_ENOMEM, "out of memory");
out:
	free(level);
	free(rank);
	return st;
}

/* The dataset's levels (in order of first appearance) sorted by their
 * text: the fit numbers a category's levels in that order. */
static pm_status categorical_column(const pm_dataset *d, size_t c, pm_column *col,
				    pm_error *err)
{
	size_t n = pm_dataset_nrows(d), nd = pm_dataset_col_nlevels(d, c);
	const char **name = malloc((nd + 1) * sizeof(*name));
	uint32_t *rank = malloc((nd + 1) * sizeof(*rank));

	if (!name || !rank)
		goto oom;
	pm_dataset_col_codes(d, c, col->code);
	for (size_t v = 0; v < nd; v++) {
		name[v] = pm_dataset_level_name(d, c, v);
		if (name[v][0] != '\0')
			continue;
		/* the first empty cell: the first row of this level */
		for (size_t r = 0;; r++) {
			if (col->code[r] == v) {
				free(name);
				free(rank);
				return pm__fail_at(err, PM_ESCHEMA, pm_dataset_name(d),
						   pm_dataset_cell_line(d, r, c),
						   pm_dataset_cell_column(d, r, c),
						   "column '%s': empty cell", pm_dataset_col_name(d, c));
			}
		}
	}
	qsort(name, nd, sizeof(*name), cmp_str);
	col->levels = calloc(nd + 1, sizeof(*col->levels));
	if (!col->levels)
		goto oom;
	col->ndistinct = nd;
	for (size_t v = 0; v < nd; v++) {
		size_t len = strlen(name[v]) + 1;

		if (!(col->levels[v] = malloc(len)))
			goto oom;
		memcpy(col->levels[v], name[v], len);
	}
	for (size_t v = 0; v < nd; v++) {
		const char *text = pm_dataset_level_name(d, c, v);
		const char **hit = bsearch(&text, name, nd, sizeof(*name), cmp_str);

		rank[v] = (uint32_t)(hit - name);
	}
	for (size_t r = 0; r < n; r++)
		col->code[r] = rank[col->code[r]];
	free(name);
	free(rank);
	return PM_OK;
oom:
	free(name);
	free(rank);
	return pm__fail(err, PM_ENOMEM, "out of memory");
}

/* The w of row r (pm__target_w) from the kind's columns (SIZE_MAX: none),
 * each checked > 0: a resource or per of 0 makes no time scale. */
static pm_status target_w(const pm_dataset *d, size_t r, pm_target_kind kind, const size_t *wc,
			  double *w, pm_error *err)
{
	static const char *const what[2] = { "resource", "per" };
	double v[2] = { 1.0, 1.0 };
	pm_status st;

	for (int k = 0; k < 2; k++) {
		if (wc[k] == SIZE_MAX)
			continue;
		if ((st = pm_dataset_number(d, r, wc[k], &v[k], err)))
			return st;
		if (!(v[k] > 0 && isfinite(v[k])))
			return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(d),
					   pm_dataset_cell_line(d, r, wc[k]),
					   pm_dataset_cell_column(d, r, wc[k]),
					   "%s '%s': %g is not > 0 (the %s is fitted on the time "
					   "scale it gives)", what[k], pm_dataset_col_name(d, wc[k]),
					   v[k], pm_target_kind_name(kind));
	}
	*w = pm__target_w(kind, v[0], v[1]);
	return PM_OK;
}

pm_status pm__target_time_scale(const pm_dataset *d, size_t c, const pm_spec *s, pm_loss loss,
				double *t_raw, double *t, pm_error *err)
{
	const char *wname[2] = { s->kind == PM_TARGET_EFFICIENCY ? s->resource : NULL, s->per };
	size_t n = pm_dataset_nrows(d), wc[2] = { SIZE_MAX, SIZE_MAX };
	double w = 1.0;
	pm_status st;

	if ((st = target_numbers(d, c, s->kind, loss, t_raw, err)) ||
	    (st = not_all_zero(d, c, t_raw, err)))
		return st;
	for (int k = 0; k < 2; k++)
		if (wname[k] && (st = pm_dataset_col_index(d, wname[k], &wc[k], err)))
			return st;
	for (size_t r = 0; r < n; r++) {
		if (s->kind != PM_TARGET_TIME && (st = target_w(d, r, s->kind, wc, &w, err)))
			return st;
		t[r] = pm__target_swap(s->kind, t_raw[r], w);
		if (s->kind != PM_TARGET_TIME &&	/* w / y out of range */
		    !(t[r] > 0 && isfinite(t[r])))
			return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(d),
					   pm_dataset_cell_line(d, r, c),
					   pm_dataset_cell_column(d, r, c),
					   "target '%s': %g gives the time scale %g, which is not "
					   "a finite number > 0", pm_dataset_col_name(d, c),
					   t_raw[r], t[r]);
	}
	return PM_OK;
}

/* The median of sorted v[0..n), n >= 1. */
static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The target as measured into t_raw, and its time scale (the target kind's,
 * docs/maths.md) over the median into t. */
static pm_status target_column(const pm_dataset *d, size_t c, const pm_spec *s, pm_scale scale,
			       pm_loss loss, pm_problem *p, double *sorted, pm_error *err)
{
	size_t n = p->nrows, zeros = 0;
	pm_status st;

	if ((st = pm__target_time_scale(d, c, s, loss, p->t_raw, p->t, err)))
		return st;
	p->target_scale = 1.0;
	if (scale == PM_SCALE_AUTO) {
		memcpy(sorted, p->t, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_double);
		p->target_scale = median_sorted(sorted, n);
		/* Half the values or more are 0 (a count, under an absolute
		 * loss): the median is no magnitude to divide by. The median of
		 * the values that are not 0 is the typical size of what was
		 * measured, as robust to a few large values as the median is;
		 * the mean would let them set the scale. (Not all are 0: that
		 * is refused above.) */
		if (!(p->target_scale > 0)) {
			while (zeros < n - 1 && sorted[zeros] == 0)
				zeros++;
			p->target_scale = median_sorted(sorted + zeros, n - zeros);
		}
		for (size_t r = 0; r < n; r++)
			p->t[r] /= p->target_scale;
	}
	return PM_OK;
}

/* w_r·n/Σw (equal whole-number weights become exactly 1: such a fit is
 * the unweighted one bit for bit). */
static pm_status row_weights(const pm_dataset *d, pm_problem *p, pm_error *err)
{
	const double *w = pm_dataset_weights(d, NULL);
	double sum = 0.0;

	if (!w)
		return PM_OK;
	p->w = malloc(p->nrows * sizeof(*p->w) + 1);
	if (!p->w)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t r = 0; r < p->nrows; r++)
		sum += w[r];
	for (size_t r = 0; r < p->nrows; r++)
		p->w[r] = w[r] * (double)p->nrows / sum;
	return PM_OK;
}

pm_status pm__problem_build(const pm_dataset *d, const pm_spec *s, pm_scale scale,
			    pm_loss loss, pm_problem *p, pm_error *err)
{
	const pm_names *group[3] = { &s->intrinsic, &s->categorical, &s->extrinsic };
	const pm_role role[3] = { PM_ROLE_INTRINSIC, PM_ROLE_CATEGORICAL, PM_ROLE_EXTRINSIC };
	const char *text = pm__spec_formula_text(s);
	pm_formula *f = NULL;	/* the formula; none: every numeric column is powered */
	double *scratch = NULL;
	size_t c, j = 0;
	pm_status st;

	*p = (pm_problem){ 0 };
	if (text && (st = pm__formula_parse(text, &f, err)))
		return st;
	p->nrows = pm_dataset_nrows(d);
	p->ncols = s->intrinsic.n + s->categorical.n + s->extrinsic.n;
	p->target = s->target;
	p->col = calloc(p->ncols ? p->ncols : 1, sizeof(*p->col));
	p->t = malloc(p->nrows * sizeof(*p->t));
	p->t_raw = malloc(p->nrows * sizeof(*p->t_raw));
	scratch = malloc(p->nrows * sizeof(*scratch));
	if (!p->col || !p->t || !p->t_raw || !scratch) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto fail;
	}
	for (int g = 0; g < 3; g++) {
		for (size_t k = 0; k < group[g]->n; k++, j++) {
			pm_column *col = &p->col[j];

			if ((st = pm_dataset_col_index(d, group[g]->name[k], &c, err)))
				goto fail;
			col->name = pm_dataset_col_name(d, c);
			col->role = role[g];
			col->code = malloc(p->nrows * sizeof(*col->code));
			if (!col->code) {
				st = pm__fail(err, PM_ENOMEM, "out of memory");
				goto fail;
			}
			st = role[g] == PM_ROLE_CATEGORICAL
				     ? categorical_column(d, c, col, err)
				     : numeric_column(d, c, scale,
						      !f || pm__formula_powered(f, col->name), col,
						      err);
			if (st)
				goto fail;
		}
	}
	if ((st = pm_dataset_col_index(d, s->target, &c, err)) ||
	    (st = target_column(d, c, s, scale, loss, p, scratch, err)) ||
	    (st = row_weights(d, p, err)))
		goto fail;
	pm__formula_free(f);
	free(scratch);
	return PM_OK;
fail:
	pm__formula_free(f);
	free(scratch);
	pm__problem_free(p);
	return st;
}
