/* Identifiability checks before the fit (identify.h). */
#include "fit/identify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* |corr| of two powered columns' logs at or above this: their powers trade
 * against each other along a ridge the data cannot resolve. */
#define COLLINEAR_CORR 0.999
/* 1 - R² of one column's log regressed on two others' at or below this:
 * an exact product or ratio (total = inter × intra), up to rounding. */
#define COMBINATION_RESIDUAL 1e-9
/* A level's multiplier from fewer rows than this fits them exactly. */
#define MIN_LEVEL_ROWS 2

/* Whether input i is under a power whose exponent is a parameter: the
 * columns whose log-space geometry decides what the fit can tell apart. */
static int powered(const pm_model *m, size_t i)
{
	for (size_t f = 0; f < m->terms.nfactors; f++) {
		const pm_factor *fa = &m->terms.factor[f];

		if (fa->input == i && fa->kind == PM_FACTOR_POWER && fa->power != PM_NONE)
			return 1;
	}
	return 0;
}

static double col_u(const pm_column *c, size_t r)
{
	return c->u[c->code[r]];
}

/* Centred cross product Σ (a - ā)(b - b̄) of two columns' logs. */
static double cross(const pm_problem *p, const pm_column *a, const pm_column *b,
		    double ma, double mb)
{
	double s = 0.0;

	for (size_t r = 0; r < p->nrows; r++)
		s += (col_u(a, r) - ma) * (col_u(b, r) - mb);
	return s;
}

/* Pairs with |corr| >= COLLINEAR_CORR, then triples where one log is a
 * linear combination of two others (R² of the regression on both, from the
 * 3×3 correlation matrix), among the powered non-constant columns idx[]. */
static pm_status check_collinear(const pm_problem *p, pm_model *m, const size_t *idx, size_t n,
				 unsigned char *named, pm_error *err)
{
	double *mean = malloc((n + 1) * sizeof(*mean)), *cor = malloc((n * n + 1) * sizeof(*cor));
	unsigned char *paired = calloc(n + 1, 1);	/* to drop for a collinear pair */
	pm_status st = PM_OK;

	if (!mean || !cor || !paired) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		mean[i] = 0.0;
		for (size_t r = 0; r < p->nrows; r++)
			mean[i] += col_u(&p->col[idx[i]], r);
		mean[i] /= (double)p->nrows;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			cor[i * n + j] = cross(p, &p->col[idx[i]], &p->col[idx[j]], mean[i], mean[j]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j)
				cor[i * n + j] /= sqrt(cor[i * n + i] * cor[j * n + j]);
	for (size_t i = 0; i < n; i++)
		cor[i * n + i] = 1.0;
	for (size_t i = 0; i < n && !st; i++)
		for (size_t j = i + 1; j < n && !st; j++)
			if (fabs(cor[i * n + j]) >= COLLINEAR_CORR) {
				paired[j] = 1;
				named[idx[i]] = named[idx[j]] = 1;
				st = pm__model_add_warning(
					m, err, "columns '%s' and '%s' are collinear in log space "
					"(correlation %.4f over the rows): their powers cannot be "
					"told apart; drop one with --ignore %s",
					p->col[idx[i]].name, p->col[idx[j]].name, cor[i * n + j],
					p->col[idx[j]].name);
			}
	/* k on i and j, R² = (r_ki² + r_kj² - 2 r_ki r_kj r_ij) / (1 - r_ij²);
	 * a column already named to drop is left out */
	for (size_t k = 0; k < n && !st; k++)
		for (size_t i = 0; i < n && !st; i++)
			for (size_t j = i + 1; j < n && !st; j++) {
				double rki = cor[k * n + i], rkj = cor[k * n + j], rij = cor[i * n + j];
				double r2;

				/* each triple once, from its last column */
				if (k <= j || paired[i] || paired[j] || paired[k])
					continue;
				r2 = (rki * rki + rkj * rkj - 2.0 * rki * rkj * rij) / (1.0 - rij * rij);
				if (1.0 - r2 > COMBINATION_RESIDUAL)
					continue;
				named[idx[i]] = named[idx[j]] = named[idx[k]] = 1;
				st = pm__model_add_warning(
					m, err, "column '%s' is a product or ratio of powers "
					"of '%s' and '%s' (its log is a linear combination "
					"of theirs): the three powers cannot be told apart; "
					"drop one with --ignore %s", p->col[idx[k]].name,
					p->col[idx[i]].name, p->col[idx[j]].name,
					p->col[idx[k]].name);
			}
out:
	free(mean);
	free(cor);
	free(paired);
	return st;
}

/* Powered columns: constant ones, then collinear ones; named[] marks each
 * column a warning names. */
static pm_status check_powered(const pm_problem *p, pm_model *m, unsigned char *named,
			       pm_error *err)
{
	size_t *idx = malloc((p->ncols + 1) * sizeof(*idx)), n = 0;
	pm_status st = PM_OK;

	if (!idx)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t i = 0; i < p->ncols && !st; i++) {
		const pm_column *c = &p->col[i];

		if (c->role == PM_ROLE_CATEGORICAL || !powered(m, i))
			continue;
		if (c->ndistinct > 1) {
			idx[n++] = i;
			continue;
		}
		named[i] = 1;
		st = pm__model_add_warning(m, err, "column '%s' is constant (every row %.6g): "
					   "its power cannot be determined; drop it with "
					   "--ignore %s", c->name, c->x[0], c->name);
	}
	if (!st && n > 1)
		st = check_collinear(p, m, idx, n, named, err);
	free(idx);
	return st;
}

static const char *cmp_text(pm_cmp op)
{
	static const char *const text[] = { ">", ">=", "<", "<=", "==", "!=" };

	return text[op];
}

/* An indicator true on no row leaves its term's coefficient free; true on
 * every row, the term is a constant beside C. */
static pm_status check_indicators(const pm_problem *p, pm_model *m, pm_error *err)
{
	for (size_t f = 0; f < m->terms.nfactors; f++) {
		const pm_factor *fa = &m->terms.factor[f];
		const pm_column *c = &p->col[fa->input];
		size_t on = 0;
		pm_status st;

		if (fa->kind != PM_FACTOR_INDICATOR)
			continue;
		for (size_t r = 0; r < p->nrows; r++)
			on += pm__factor_base(fa, c->x[c->code[r]], c->log_scale) != 0.0;
		if (on && on < p->nrows)
			continue;
		if ((st = pm__model_add_warning(
			     m, err, "indicator [%s %s %.6g] is %s: its term %s; change the "
			     "threshold or drop the indicator", c->name, cmp_text(fa->op),
			     fa->threshold, on ? "true on every row" : "true on no row",
			     on ? "cannot be told apart from the constant"
				: "is zero on every row and its coefficient cannot be determined")))
			return st;
	}
	return PM_OK;
}

/* A level of one row: its multiplier fits that row exactly. */
static pm_status check_levels(const pm_problem *p, pm_model *m, pm_error *err)
{
	for (size_t i = 0; i < p->ncols; i++) {
		const pm_column *c = &p->col[i];
		size_t *count;
		pm_status st = PM_OK;

		if (c->role != PM_ROLE_CATEGORICAL)
			continue;
		if (!(count = calloc(c->ndistinct + 1, sizeof(*count))))
			return pm__fail(err, PM_ENOMEM, "out of memory");
		for (size_t r = 0; r < p->nrows; r++)
			count[c->code[r]]++;
		for (size_t v = 0; v < c->ndistinct && !st; v++)
			if (count[v] < MIN_LEVEL_ROWS)
				st = pm__model_add_warning(
					m, err, "level '%s' of column '%s' occurs in %zu row%s: "
					"its multiplier fits %s exactly and cannot be estimated; "
					"add rows or merge the level", c->levels[v], c->name,
					count[v], count[v] == 1 ? "" : "s",
					count[v] == 1 ? "that row" : "those rows");
		free(count);
		if (st)
			return st;
	}
	return PM_OK;
}

/* A row's configuration so far: a key and the row it belongs to. */
typedef struct row_key {
	uint64_t key;
	size_t row;
} row_key;

static int cmp_keys(const void *a, const void *b)
{
	uint64_t ka = ((const row_key *)a)->key, kb = ((const row_key *)b)->key;

	return ka < kb ? -1 : ka > kb;
}

/* The number of distinct rows of the input codes, or a number above `most`
 * once they are more: the rows are grouped by the first column, each group
 * split by the next, and so on (group ids stay below nrows, so a key group
 * * ndistinct + code fits 64 bits). The groups only split, so the count
 * stops at the first column where it passes `most`: a sort of the rows for
 * each column was half a percent of an eq. 4.4 fit on LeNet-5's 600 rows,
 * its calibration's five fold fits included (perf, issue 38). */
static pm_status count_configurations(const pm_problem *p, size_t most, size_t *out,
				      pm_error *err)
{
	row_key *k = malloc((p->nrows + 1) * sizeof(*k));
	size_t *group = calloc(p->nrows + 1, sizeof(*group)), ngroups = p->nrows ? 1 : 0;

	if (!k || !group) {
		free(k);
		free(group);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < p->ncols && ngroups <= most; i++) {
		for (size_t r = 0; r < p->nrows; r++)
			k[r] = (row_key){ (uint64_t)group[r] * p->col[i].ndistinct + p->col[i].code[r], r };
		qsort(k, p->nrows, sizeof(*k), cmp_keys);
		ngroups = 0;
		for (size_t r = 0; r < p->nrows; r++) {
			if (r && k[r].key != k[r - 1].key)
				ngroups++;
			group[k[r].row] = ngroups;
		}
		ngroups += p->nrows > 0;
	}
	free(k);
	free(group);
	*out = ngroups;
	return PM_OK;
}

/* As many unknowns as configurations: the fit can pass through each
 * configuration's mean time, whatever the form, so it is no test of it. A
 * model of no inputs is left to the constant-fit warning (fit.c), which
 * says more. */
static pm_status check_configurations(const pm_problem *p, pm_model *m, pm_error *err)
{
	size_t n = 0;
	pm_status st;

	if (!p->ncols)
		return PM_OK;
	if ((st = count_configurations(p, m->nparams, &n, err)) || m->nparams < n)
		return st;
	return pm__model_add_warning(m, err, "%zu unknowns but %zu distinct input "
				     "configurations in %zu rows: the fit can pass through "
				     "every configuration and tells nothing about the form; "
				     "measure more configurations, choose a form with fewer "
				     "unknowns or drop columns with --ignore",
				     m->nparams, n, p->nrows);
}

pm_status pm__fit_identify(const pm_problem *p, pm_model *m, unsigned char *named,
			   pm_error *err)
{
	pm_status st;

	if ((st = check_powered(p, m, named, err)) || (st = check_indicators(p, m, err)) ||
	    (st = check_levels(p, m, err)))
		return st;
	return check_configurations(p, m, err);
}
