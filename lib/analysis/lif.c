/* Load imbalance (thesis §3.3.2, §3.4.3): the load-imbalance factor of eq.
 * 3.8 per row and per configuration, the regression of eq. 3.9 through GSL,
 * and LIF as a derived column that eq. 4.4 can be fitted to. */
#include "perfmodel/perfmodel.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/lif_impl.h"
#include "core/error.h"
#include "core/jsonw.h"
#include "data/dataset_impl.h"
#include "model/model_impl.h"
#include "spec/spec_impl.h"

pm_status pm_lif_of(const double *t, size_t n, double *lif, pm_error *err)
{
	double max = 0, sum = 0;

	if (!lif || (n && !t))
		return pm__fail(err, PM_EINVAL, "pm_lif_of: NULL argument");
	if (n == 0)
		return pm__fail(err, PM_EDOMAIN, "no worker times: the LIF needs at least one");
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(t[i]) || t[i] < 0)
			return pm__fail(err, PM_EDOMAIN, "worker time %g is not a number >= 0",
					t[i]);
		sum += t[i];
		if (t[i] > max)
			max = t[i];
	}
	if (!(sum > 0))
		return pm__fail(err, PM_EDOMAIN, "every worker time is 0: the LIF is undefined");
	*lif = (double)n * max / sum;
	return PM_OK;
}

pm_status pm__time_cell(const pm_dataset *d, size_t row, size_t col, int *present, double *v,
			pm_error *err)
{
	pm_status st;

	*present = 0;
	if (!*pm_dataset_cell(d, row, col))
		return PM_OK;
	if ((st = pm_dataset_number(d, row, col, v, err)))
		return st;
	if (*v < 0)
		return pm__fail_at(err, PM_ESCHEMA, pm_dataset_name(d),
				   pm_dataset_cell_line(d, row, col),
				   pm_dataset_cell_column(d, row, col),
				   "column '%s': time %s is negative",
				   pm_dataset_col_name(d, col), pm_dataset_cell(d, row, col));
	*present = 1;
	return PM_OK;
}

pm_status pm__named_columns(const pm_dataset *d, const pm_names *names, size_t **cols,
			    size_t *n, pm_error *err)
{
	size_t k = names ? names->n : 0;
	size_t *c;
	pm_status st;

	*cols = NULL;
	*n = 0;
	if (k == 0)
		return PM_OK;
	c = malloc(k * sizeof(*c));
	if (!c)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t i = 0; i < k; i++)
		if ((st = pm_dataset_col_index(d, names->name[i], &c[i], err))) {
			free(c);
			return st;
		}
	*cols = c;
	*n = k;
	return PM_OK;
}

int pm__same_cells(const pm_dataset *d, size_t a, size_t b, const size_t *cols, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(pm_dataset_cell(d, a, cols[i]), pm_dataset_cell(d, b, cols[i])))
			return 0;
	return 1;
}

pm_status pm_lif_worker_columns(const pm_dataset *d, const pm_names *workers, size_t **cols,
				size_t *ncols, pm_error *err)
{
	size_t ncol, n = 0, *c;
	unsigned char *listed;
	pm_status st = PM_OK;

	if (!cols || !ncols)
		return pm__fail(err, PM_EINVAL, "pm_lif_worker_columns: NULL argument");
	*cols = NULL;
	*ncols = 0;
	if (!d)
		return pm__fail(err, PM_EINVAL, "pm_lif_worker_columns: no dataset");
	if (!workers || workers->n == 0)
		return pm__fail(err, PM_ESCHEMA,
				"no worker columns: give --workers COLS or \"workers\" in the spec");
	ncol = pm_dataset_ncols(d);
	/* each column at most once, however many names and globs match it */
	c = malloc(ncol * sizeof(*c));
	listed = calloc(ncol, 1);
	if (!c || !listed) {
		free(c);
		free(listed);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < workers->n && !st; i++) {
		const char *w = workers->name[i];
		size_t col;
		int matched = 0;

		if (!strpbrk(w, "*?[")) {
			st = pm_dataset_col_index(d, w, &col, err);
			if (!st && !listed[col]) {
				listed[col] = 1;
				c[n++] = col;
			}
			continue;
		}
		for (col = 0; col < ncol; col++) {
			if (fnmatch(w, pm_dataset_col_name(d, col), 0))
				continue;
			matched = 1;
			if (!listed[col]) {
				listed[col] = 1;
				c[n++] = col;
			}
		}
		if (!matched)
			st = pm__fail(err, PM_ESCHEMA, "worker pattern '%s' matches no column of %s",
				      w, pm_dataset_name(d));
	}
	free(listed);
	if (st) {
		free(c);
		return st;
	}
	*cols = c;
	*ncols = n;
	return PM_OK;
}

void pm_lif_report_free(pm_lif_report *r)
{
	if (!r)
		return;
	free(r->lif);
	free(r->n);
	free(r->t);
	free(r->group);
	free(r->by_col);
	free(r->worker_col);
	free(r);
}

/* Eq. 3.8 over row r's non-empty worker cells; *count is how many there were. */
static pm_status row_lif(const pm_dataset *d, size_t r, const size_t *wc, size_t nw,
			 double *buf, double *lif, double *tmax, size_t *count, pm_error *err)
{
	size_t k = 0;
	pm_status st;

	for (size_t i = 0; i < nw; i++) {
		int present;

		if ((st = pm__time_cell(d, r, wc[i], &present, &buf[k], err)))
			return st;
		k += (size_t)present;
	}
	*count = k;
	*tmax = 0;
	for (size_t i = 0; i < k; i++)
		if (buf[i] > *tmax)
			*tmax = buf[i];
	if (k == 0 || !(*tmax > 0))
		return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(d),
				   pm_dataset_cell_line(d, r, wc[0]), 0,
				   k ? "every worker time of this row is 0: its LIF is undefined"
				     : "no worker time in this row (every worker cell is empty)");
	return pm_lif_of(buf, k, lif, err);
}

/* N_g from the n column: a whole number of workers >= 1. */
static pm_status row_n(const pm_dataset *d, size_t r, size_t col, double *n, pm_error *err)
{
	pm_status st = pm_dataset_number(d, r, col, n, err);

	if (!st && !(*n >= 1 && *n == floor(*n)))
		return pm__fail_at(err, PM_ESCHEMA, pm_dataset_name(d),
				   pm_dataset_cell_line(d, r, col), pm_dataset_cell_column(d, r, col),
				   "column '%s': %.17g is not a whole number of workers >= 1",
				   pm_dataset_col_name(d, col), *n);
	return st;
}

/* The configuration of each row into gid[], then mean and sample std per
 * configuration in row order (two passes: no cancellation in the std). */
static void group_rows(pm_lif_report *r, const pm_dataset *d, size_t *gid)
{
	for (size_t i = 0; i < r->nrows; i++) {
		size_t g;

		for (g = 0; g < r->ngroups; g++) {
			size_t f = r->group[g].first_row;

			if (r->nby ? pm__same_cells(d, f, i, r->by_col, r->nby) : r->n[f] == r->n[i])
				break;
		}
		if (g == r->ngroups)
			r->group[r->ngroups++] = (pm_lif_group){ .first_row = i };
		r->group[g].count++;
		r->group[g].mean += r->lif[i];
		gid[i] = g;
	}
	for (size_t g = 0; g < r->ngroups; g++)
		r->group[g].mean /= (double)r->group[g].count;
	for (size_t i = 0; i < r->nrows; i++) {
		pm_lif_group *G = &r->group[gid[i]];

		G->std += (r->lif[i] - G->mean) * (r->lif[i] - G->mean);
	}
	for (size_t g = 0; g < r->ngroups; g++) {
		pm_lif_group *G = &r->group[g];

		G->std = G->count > 1 ? sqrt(G->std / (double)(G->count - 1)) : 0;
	}
}

/* Per-row LIF, N_g and t into r (already sized). */
static pm_status fill_rows(pm_lif_report *r, const pm_dataset *d, const size_t *wc, size_t nw,
			   const pm_lif_options *o, double *buf, pm_error *err)
{
	size_t ncol = SIZE_MAX, tcol = SIZE_MAX;
	pm_status st;

	if (o && o->n_col && (st = pm_dataset_col_index(d, o->n_col, &ncol, err)))
		return st;
	if (o && o->time_col && (st = pm_dataset_col_index(d, o->time_col, &tcol, err)))
		return st;
	for (size_t i = 0; i < r->nrows; i++) {
		size_t count;
		double tmax;

		if ((st = row_lif(d, i, wc, nw, buf, &r->lif[i], &tmax, &count, err)))
			return st;
		r->n[i] = (double)count;
		r->t[i] = tmax;
		if (ncol != SIZE_MAX && (st = row_n(d, i, ncol, &r->n[i], err)))
			return st;
		if (tcol != SIZE_MAX && (st = pm_dataset_number(d, i, tcol, &r->t[i], err)))
			return st;
	}
	return PM_OK;
}

pm_status pm_lif_report_new(const pm_dataset *d, const pm_names *workers,
			    const pm_lif_options *o, pm_lif_report **out, pm_error *err)
{
	pm_lif_report *r;
	size_t *wc = NULL, nw, n, *gid = NULL;
	double *buf = NULL;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_lif_report_new: out is NULL");
	*out = NULL;
	if (!d)
		return pm__fail(err, PM_EINVAL, "pm_lif_report_new: no dataset");
	if ((st = pm_lif_worker_columns(d, workers, &wc, &nw, err)))
		return st;
	r = calloc(1, sizeof(*r));
	if (!r) {
		free(wc);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	n = r->nrows = pm_dataset_nrows(d);
	/* +1: malloc(0) may answer NULL, which would read as out of memory */
	r->lif = malloc(n * sizeof(double) + 1);
	r->n = malloc(n * sizeof(double) + 1);
	r->t = malloc(n * sizeof(double) + 1);
	r->group = calloc(n + 1, sizeof(*r->group));
	gid = malloc(n * sizeof(*gid) + 1);
	buf = malloc(nw * sizeof(*buf));
	if (!r->lif || !r->n || !r->t || !r->group || !gid || !buf) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = pm__named_columns(d, o ? o->by : NULL, &r->by_col, &r->nby, err)) ||
	    (st = fill_rows(r, d, wc, nw, o, buf, err)))
		goto out;
	group_rows(r, d, gid);
	r->worker_col = wc;
	r->nworkers = nw;
	wc = NULL;
	*out = r;
	r = NULL;
out:
	pm_lif_report_free(r);
	free(wc);
	free(gid);
	free(buf);
	return st;
}

/* Replace the worker names of s by the columns they match. */
static pm_status set_workers(pm_spec *s, const pm_dataset *d, const size_t *wc, size_t nw,
			     pm_error *err)
{
	char **v = calloc(nw, sizeof(*v));

	if (!v)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t i = 0; i < nw; i++) {
		const char *name = pm_dataset_col_name(d, wc[i]);

		v[i] = malloc(strlen(name) + 1);
		if (!v[i]) {
			while (i--)
				free(v[i]);
			free(v);
			return pm__fail(err, PM_ENOMEM, "out of memory");
		}
		strcpy(v[i], name);
	}
	for (size_t i = 0; i < s->workers.n; i++)
		free(s->workers.name[i]);
	free(s->workers.name);
	s->workers.name = v;
	s->workers.n = nw;
	return PM_OK;
}

/* *out: d with the LIF of the columns `workers` names, in a column
 * PM_LIF_COLUMN whose cells are placed at their row's first worker cell so
 * that errors about them point at the data; *r (the caller frees it, also
 * on failure) says which columns those were. */
static pm_status derive(const pm_dataset *d, const pm_names *workers, pm_lif_report **r,
			pm_dataset **out, pm_error *err)
{
	pm_status st = pm_lif_report_new(d, workers, NULL, r, err);

	return st ? st : pm__dataset_add_column(d, PM_LIF_COLUMN, (*r)->lif, (*r)->worker_col[0],
						out, err);
}

pm_status pm_spec_derive_lif(pm_spec *s, const pm_dataset *d, pm_dataset **out,
			     pm_error *err)
{
	pm_lif_report *r = NULL;
	size_t col;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_spec_derive_lif: out is NULL");
	*out = NULL;
	if (!s || !d)
		return pm__fail(err, PM_EINVAL, "pm_spec_derive_lif: NULL argument");
	if (!s->target || strcmp(s->target, PM_LIF_COLUMN) ||
	    pm_dataset_col_index(d, PM_LIF_COLUMN, &col, NULL) == PM_OK)
		return PM_OK;
	if (s->workers.n == 0)
		return pm__fail(err, PM_ESCHEMA,
				"target 'lif' is derived from the worker times: give --workers "
				"COLS or \"workers\" in the spec");
	if ((st = derive(d, &s->workers, &r, out, err)) ||
	    (st = set_workers(s, d, r->worker_col, r->nworkers, err))) {
		pm_dataset_free(*out);
		*out = NULL;
	}
	pm_lif_report_free(r);
	return st;
}

pm_status pm_model_derive_lif(const pm_model *m, const pm_dataset *d, pm_dataset **out,
			      pm_error *err)
{
	/* the model's own copy, only read: pm_lif_report_new takes names so */
	const pm_names workers = { m ? m->nworkers : 0, m ? m->workers : NULL };
	pm_lif_report *r = NULL;
	size_t col;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_model_derive_lif: out is NULL");
	*out = NULL;
	if (!m || !d)
		return pm__fail(err, PM_EINVAL, "pm_model_derive_lif: NULL argument");
	if (!workers.n || pm_dataset_col_index(d, m->target, &col, NULL) == PM_OK)
		return PM_OK;
	st = derive(d, &workers, &r, out, err);
	pm_lif_report_free(r);
	return st;
}

/* ---- lif --json (and ssgd's layout) ------------------------------------- */

void pm__json_names(pm_jw *w, const pm_dataset *d, const size_t *cols, size_t n)
{
	pm__jw_array_begin_line(w);
	for (size_t j = 0; j < n; j++)
		pm__jw_string(w, pm_dataset_col_name(d, cols[j]));
	pm__jw_array_end(w);
}

void pm__json_records(pm_jw *w, const char *key)
{
	pm__jw_break(w, 1);
	pm__jw_key(w, key);
	pm__jw_array_begin_line(w);
}

void pm__json_record(pm_jw *w, size_t i)
{
	if (i)
		pm__jw_break(w, 2);
	pm__jw_object_begin_line(w);
}

static void lif_rows(pm_jw *w, const pm_dataset *d, const pm_lif_report *r)
{
	static const char *const keys[] = { "n", "lif", "t" };

	pm__json_records(w, "rows");
	for (size_t i = 0; i < r->nrows; i++) {
		const double v[] = { r->n[i], r->lif[i], r->t[i] };

		pm__json_record(w, i);
		pm__jw_key(w, "line");
		pm__jw_uint(w, pm_dataset_cell_line(d, i, 0));
		pm__jw_doubles(w, keys, v, sizeof(v) / sizeof(v[0]));
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
}

/* A group's configuration: its `by` cells, or its N_g when there are none. */
static void lif_groups(pm_jw *w, const pm_dataset *d, const pm_lif_report *r)
{
	static const char *const keys[] = { "mean", "std" };

	pm__json_records(w, "groups");
	for (size_t g = 0; g < r->ngroups; g++) {
		const pm_lif_group *G = &r->group[g];
		const double v[] = { G->mean, G->std };

		pm__json_record(w, g);
		pm__jw_key(w, "config");
		pm__jw_object_begin_line(w);
		for (size_t j = 0; j < r->nby; j++) {
			pm__jw_key(w, pm_dataset_col_name(d, r->by_col[j]));
			pm__jw_string(w, pm_dataset_cell(d, G->first_row, r->by_col[j]));
		}
		if (!r->nby) {
			pm__jw_key(w, "n");
			pm__jw_double(w, r->n[G->first_row]);
		}
		pm__jw_object_end(w);
		pm__jw_key(w, "count");
		pm__jw_uint(w, G->count);
		pm__jw_doubles(w, keys, v, sizeof(v) / sizeof(v[0]));
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
}

static void triple(pm_jw *w, const char *key, const double *v)
{
	pm__jw_key(w, key);
	pm__jw_array_begin_line(w);
	for (int j = 0; j < 3; j++)
		pm__jw_double(w, v[j]);
	pm__jw_array_end(w);
}

/* Eq. 3.9's fit, or null and why it failed. */
static void lif_regression(pm_jw *w, const pm_lif_regression *reg, const char *reg_error)
{
	static const char *const keys[] = { "r2", "adj_r2", "ss_res", "ss_tot" };

	pm__jw_break(w, 1);
	pm__jw_key(w, "regression");
	if (!reg) {
		pm__jw_null(w);
		pm__jw_key(w, "regression_error");
		pm__jw_string(w, reg_error);
		return;
	}
	pm__jw_object_begin_line(w);
	pm__jw_key(w, "rows");
	pm__jw_uint(w, reg->rows);
	triple(w, "beta", reg->beta);
	triple(w, "se", reg->se);
	pm__jw_doubles(w, keys, (const double[]){ reg->r2, reg->adj_r2, reg->ss_res, reg->ss_tot },
		       sizeof(keys) / sizeof(keys[0]));
	pm__jw_object_end(w);
}

pm_status pm_lif_report_to_json(const pm_dataset *d, const pm_lif_report *r,
				const char *time_col, const pm_lif_regression *reg,
				const char *reg_error, char **out, pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, d && r, "dataset or report", err)))
		return st;
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, "file");
	pm__jw_string(&w, pm_dataset_name(d));
	pm__jw_key(&w, "workers");
	pm__json_names(&w, d, r->worker_col, r->nworkers);
	pm__jw_key(&w, "t");
	pm__jw_string(&w, time_col);
	lif_rows(&w, d, r);
	lif_groups(&w, d, r);
	lif_regression(&w, reg, reg_error);
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}
