/* The S-SGD phase model (thesis §3.2.4): iteration time from per-phase
 * timings (eq. 3.3), its pipelined variant (eq. 3.5), the load imbalance of
 * the workers' compute (eq. 3.8) and the speedup over one worker (eqs. 3.6,
 * 3.7). */
#include "perfmodel/perfmodel.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "analysis/lif_impl.h"

enum { IO, H2D, MD, U, NFIXED };
static const char *const fixed_name[NFIXED] = { "t_io", "t_h2d", "t_md", "t_u" };

/* Per-worker phases: t_f_i, t_b_i, t_c_i. */
enum { FWD, BWD, AGG, NPHASE };
static const char phase_letter[NPHASE] = { 'f', 'b', 'c' };

/* Worker numbers above this are taken for a typo, not a machine. */
#define MAX_WORKERS 65536u

struct layout {
	size_t fixed[NFIXED];	/* column or SIZE_MAX */
	size_t (*worker)[NPHASE];	/* [max_workers + 1]: column or SIZE_MAX */
	unsigned max_workers;
};

/* 1-based worker number of "t_X_<i>" for phase letter X, else 0. */
static unsigned worker_number(const char *name, char letter)
{
	unsigned long v;
	char *end;

	if (strncmp(name, "t_", 2) || name[2] != letter || name[3] != '_' ||
	    name[4] < '1' || name[4] > '9')
		return 0;
	errno = 0;
	v = strtoul(name + 4, &end, 10);
	if (*end || errno || v > MAX_WORKERS)
		return 0;
	return (unsigned)v;
}

/* Which phase each column holds: 1 if column c is a phase column. */
static int phase_column(const char *name, int *fixed, unsigned *worker, int *phase)
{
	*fixed = -1;
	*worker = 0;
	for (int k = 0; k < NFIXED; k++)
		if (!strcmp(name, fixed_name[k]))
			return *fixed = k, 1;
	for (int p = 0; p < NPHASE; p++)
		if ((*worker = worker_number(name, phase_letter[p])))
			return *phase = p, 1;
	return 0;
}

static pm_status find_layout(const pm_dataset *d, struct layout *L, pm_error *err)
{
	size_t nc = pm_dataset_ncols(d);
	unsigned w;
	int f, p;

	for (int k = 0; k < NFIXED; k++)
		L->fixed[k] = SIZE_MAX;
	L->max_workers = 0;
	for (size_t c = 0; c < nc; c++)
		if (phase_column(pm_dataset_col_name(d, c), &f, &w, &p) && w > L->max_workers)
			L->max_workers = w;
	if (L->max_workers == 0)
		return pm__fail(err, PM_ESCHEMA,
				"no per-worker phase column (t_f_1, t_b_1, t_c_1, ...) in %s",
				pm_dataset_name(d));
	L->worker = malloc((L->max_workers + 1) * sizeof(*L->worker));
	if (!L->worker)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (unsigned i = 0; i <= L->max_workers; i++)
		for (int q = 0; q < NPHASE; q++)
			L->worker[i][q] = SIZE_MAX;
	for (size_t c = 0; c < nc; c++) {
		if (!phase_column(pm_dataset_col_name(d, c), &f, &w, &p))
			continue;
		if (f >= 0)
			L->fixed[f] = c;
		else
			L->worker[w][p] = c;
	}
	return PM_OK;
}

/* A phase cell's time, 0 when the column is absent or the cell empty. */
static pm_status phase_time(const pm_dataset *d, size_t r, size_t col, int *present, double *v,
			    pm_error *err)
{
	pm_status st = PM_OK;

	*present = 0;
	if (col != SIZE_MAX)
		st = pm__time_cell(d, r, col, present, v, err);
	if (!*present)
		*v = 0;
	return st;
}

/* One row: eqs. 3.3, 3.5, 3.8, and what the speedups need. */
struct row_times {
	double t[NFIXED];
	double compute;	/* max_i (t_f_i + t_b_i + t_c_i) */
};

static pm_status row_phases(const pm_dataset *d, size_t r, const struct layout *L, double *buf,
			    pm_ssgd_row *out, struct row_times *rt, pm_error *err)
{
	unsigned n = 0;
	int present;
	pm_status st;

	for (int k = 0; k < NFIXED; k++)
		if ((st = phase_time(d, r, L->fixed[k], &present, &rt->t[k], err)))
			return st;
	rt->compute = 0;
	for (unsigned i = 1; i <= L->max_workers; i++) {
		double sum = 0, v;
		int any = 0;

		for (int p = 0; p < NPHASE; p++) {
			if ((st = phase_time(d, r, L->worker[i][p], &present, &v, err)))
				return st;
			sum += v;
			any |= present;
		}
		if (!any)
			continue;
		buf[n++] = sum;
		if (sum > rt->compute)
			rt->compute = sum;
	}
	if (n == 0 || !(rt->compute > 0))
		return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(d),
				   pm_dataset_cell_line(d, r, 0), 0,
				   n ? "every worker's compute time (t_f + t_b + t_c) is 0 in this row"
				     : "no worker phase time (t_f_i, t_b_i, t_c_i) in this row");
	out->workers = n;
	out->t_iter = rt->t[IO] + rt->t[H2D] + rt->t[MD] + rt->compute + rt->t[U];
	out->t_pipe = fmax(rt->t[IO] + rt->t[H2D], rt->compute + rt->t[U]);
	return pm_lif_of(buf, n, &out->lif, err);
}

/* Each row's one-worker row of the same configuration, and the speedups.
 * Eq. 3.7 as printed leaves t_u out of its denominator (but not out of its
 * numerator), which would make a one-worker row up to 5x faster than
 * itself; we keep t_u there, as eq. 3.5 does (docs/maths.md). */
static pm_status speedups(const pm_dataset *d, pm_ssgd_report *R, const struct row_times *rt,
			  pm_error *err)
{
	for (size_t r = 0; r < R->nrows; r++) {
		pm_ssgd_row *x = &R->row[r];

		for (size_t b = 0; b < R->nrows; b++) {
			if (R->row[b].workers != 1 ||
			    !pm__same_cells(d, b, r, R->by_col, R->nby))
				continue;
			if (x->has_speedup)
				return pm__fail_at(err, PM_EDOMAIN, pm_dataset_name(d),
						   pm_dataset_cell_line(d, b, 0), 0,
						   "a second one-worker row of the configuration of "
						   "line %u: the speedup needs one",
						   pm_dataset_cell_line(d, x->base_row, 0));
			x->has_speedup = 1;
			x->base_row = b;
		}
		if (!x->has_speedup)
			continue;
		const pm_ssgd_row *base = &R->row[x->base_row];
		const struct row_times *q = &rt[r];

		x->speedup = x->workers * base->t_iter / x->t_iter;
		x->speedup_overlap = x->workers * base->t_pipe /
				     fmax(q->t[IO] + q->t[H2D] + q->t[MD], q->compute + q->t[U]);
	}
	return PM_OK;
}

/* The configuration columns: `by`, or every column that is not a phase. */
static pm_status config_columns(const pm_dataset *d, const pm_names *by, pm_ssgd_report *R,
				pm_error *err)
{
	size_t nc = pm_dataset_ncols(d);
	unsigned w;
	int f, p;

	if (by && by->n)
		return pm__named_columns(d, by, &R->by_col, &R->nby, err);
	R->by_col = malloc(nc * sizeof(*R->by_col));
	if (!R->by_col)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t c = 0; c < nc; c++)
		if (!phase_column(pm_dataset_col_name(d, c), &f, &w, &p))
			R->by_col[R->nby++] = c;
	return PM_OK;
}

void pm_ssgd_report_free(pm_ssgd_report *r)
{
	if (!r)
		return;
	free(r->row);
	free(r->by_col);
	free(r);
}

pm_status pm_ssgd_report_new(const pm_dataset *d, const pm_names *by, pm_ssgd_report **out,
			     pm_error *err)
{
	struct layout L = { .worker = NULL };
	struct row_times *rt = NULL;
	pm_ssgd_report *R = NULL;
	double *buf = NULL;
	size_t n;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_ssgd_report_new: out is NULL");
	*out = NULL;
	if (!d)
		return pm__fail(err, PM_EINVAL, "pm_ssgd_report_new: no dataset");
	if ((st = find_layout(d, &L, err)))
		return st;
	n = pm_dataset_nrows(d);
	R = calloc(1, sizeof(*R));
	buf = malloc(L.max_workers * sizeof(*buf));
	rt = malloc(n * sizeof(*rt) + 1);
	if (!R || !buf || !rt || !(R->row = calloc(n + 1, sizeof(*R->row)))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	R->nrows = n;
	R->max_workers = L.max_workers;
	if ((st = config_columns(d, by, R, err)))
		goto out;
	for (size_t r = 0; r < n; r++)
		if ((st = row_phases(d, r, &L, buf, &R->row[r], &rt[r], err)))
			goto out;
	if ((st = speedups(d, R, rt, err)))
		goto out;
	*out = R;
	R = NULL;
out:
	pm_ssgd_report_free(R);
	free(L.worker);
	free(buf);
	free(rt);
	return st;
}

static void ssgd_row(pm_jw *w, const pm_dataset *d, const pm_ssgd_report *R, size_t r)
{
	static const char *const keys[] = { "t_iter", "t_pipe", "lif" };
	static const char *const speedup_keys[] = { "speedup", "speedup_overlap" };
	const pm_ssgd_row *x = &R->row[r];
	const double v[] = { x->t_iter, x->t_pipe, x->lif };
	/* no one-worker row to compare with: null, as JSON writes NaN */
	const double s[] = { x->has_speedup ? x->speedup : NAN,
			     x->has_speedup ? x->speedup_overlap : NAN };

	pm__json_record(w, r);
	pm__jw_key(w, "line");
	pm__jw_uint(w, pm_dataset_cell_line(d, r, 0));
	pm__jw_key(w, "config");
	pm__jw_array_begin_line(w);
	for (size_t j = 0; j < R->nby; j++)
		pm__jw_string(w, pm_dataset_cell(d, r, R->by_col[j]));
	pm__jw_array_end(w);
	pm__jw_key(w, "workers");
	pm__jw_uint(w, x->workers);
	pm__jw_doubles(w, keys, v, sizeof(v) / sizeof(v[0]));
	pm__jw_key(w, "base_line");
	if (x->has_speedup)
		pm__jw_uint(w, pm_dataset_cell_line(d, x->base_row, 0));
	else
		pm__jw_null(w);
	pm__jw_doubles(w, speedup_keys, s, sizeof(s) / sizeof(s[0]));
	pm__jw_object_end(w);
}

pm_status pm_ssgd_report_to_json(const pm_dataset *d, const pm_ssgd_report *R, char **out,
				 pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, d && R, "dataset or report", err)))
		return st;
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, "file");
	pm__jw_string(&w, pm_dataset_name(d));
	pm__jw_key(&w, "max_workers");
	pm__jw_uint(&w, R->max_workers);
	pm__jw_key(&w, "by");
	pm__json_names(&w, d, R->by_col, R->nby);
	pm__json_records(&w, "rows");
	for (size_t r = 0; r < R->nrows; r++)
		ssgd_row(&w, d, R, r);
	pm__jw_array_end(&w);
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}
