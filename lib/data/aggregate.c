/* Runs into configurations: throughput into time, repetitions grouped,
 * warm-up runs dropped, one aggregated time per configuration with its
 * repetition count and coefficient of variation (thesis §4.2.4 fits the
 * median of three runs). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset_impl.h"
#include "core/error.h"
#include "core/sort.h"
#include "data/aggregate.h"
#include "data/table.h"

struct runs {
	const pm_dataset *d;
	size_t nrows, ncols;
	size_t tcol;		/* the time, or the throughput it comes from */
	size_t pcol;		/* --per, when converting; SIZE_MAX: none (time = 1/throughput) */
	int convert;
	int zero_ok;		/* a run may be 0: an Extra-P metric may be a count */
	double *t;		/* per row */
	size_t *key, nkey;
	size_t *group, ngroups;	/* group of each row; groups by first appearance */
	size_t *start, *order;	/* group g's rows: order[start[g] .. start[g + 1]) */
};

static void runs_free(struct runs *r)
{
	free(r->t);
	free(r->key);
	free(r->group);
	free(r->start);
	free(r->order);
}

/* Every run's number must be > 0 before runs are merged: a negative or zero
 * time would otherwise vanish into a median. zero_ok lets a 0 through (a
 * count, or a region that took no time at a small scale: whether the median
 * may be 0 is the fit's to say, which knows the target kind and loss). `why`
 * ends the message. */
static pm_status positive(const pm_dataset *d, size_t row, size_t col, int zero_ok, double *v,
			  const char *why, pm_error *err)
{
	pm_status rc = pm_dataset_number(d, row, col, v, err);

	if (rc || *v > 0 || (zero_ok && *v == 0))
		return rc;
	return pm__fail_at(err, PM_ESCHEMA, pm_dataset_name(d), pm_dataset_cell_line(d, row, col),
			   pm_dataset_cell_column(d, row, col), "column '%s': %.17g must be %s 0 %s",
			   pm_dataset_col_name(d, col), *v, zero_ok ? ">=" : ">", why);
}

static pm_status row_times(struct runs *r, pm_error *err)
{
	double thr, per;
	pm_status rc;

	for (size_t i = 0; i < r->nrows; i++) {
		if (!r->convert) {
			rc = positive(r->d, i, r->tcol, r->zero_ok, &r->t[i],
				      "(a run's time, before runs are merged)", err);
		} else {
			per = 1.0;
			rc = positive(r->d, i, r->tcol, 0, &thr, "to convert throughput to time", err);
			if (!rc && r->pcol != SIZE_MAX)
				rc = positive(r->d, i, r->pcol, 0, &per, "to convert throughput to time",
					      err);
			r->t[i] = per / thr;
			/* 1e-300 / 1e300 is 0, the reverse inf: no time either */
			if (!rc && !(isfinite(r->t[i]) && r->t[i] > 0))
				rc = pm__fail_at(err, PM_ESCHEMA, pm_dataset_name(r->d),
						 pm_dataset_cell_line(r->d, i, r->tcol),
						 pm_dataset_cell_column(r->d, i, r->tcol),
						 "%g / %g is no time > 0 a run can take", per, thr);
		}
		if (rc)
			return rc;
	}
	return PM_OK;
}

static pm_status find(const pm_dataset *d, const char *name, const char *what, size_t *col,
		      pm_error *err)
{
	if (pm_dataset_col_index(d, name, col, NULL) == PM_OK)
		return PM_OK;
	return pm__fail_at(err, PM_ESCHEMA, pm_dataset_name(d), 0, 0, "%s: no column '%s'",
			   what, name);
}

static pm_status key_columns(struct runs *r, const pm_read_options *o, const char *target,
			     pm_error *err)
{
	size_t n = 0, tgt = SIZE_MAX;

	if (o->key)
		while (o->key[n])
			n++;
	r->key = malloc((o->key ? n : r->ncols) * sizeof(*r->key) + 1);
	if (!r->key)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if (o->key) {
		for (size_t i = 0; i < n; i++) {
			pm_status rc = find(r->d, o->key[i], "configuration", &r->key[i], err);

			if (rc)
				return rc;
		}
		r->nkey = n;
		return PM_OK;
	}
	if (r->convert)
		pm_dataset_col_index(r->d, target, &tgt, NULL);
	for (size_t c = 0; c < r->ncols; c++)
		if (c != r->tcol && c != tgt)
			r->key[r->nkey++] = c;
	return PM_OK;
}

/* Key cell k of a row as a number, when its column is one: a run of "1",
 * "1.0" and "1e0" is one configuration, as it is to the fit. -0 is 0 and
 * every NaN one value, so that equal keys hash alike. */
static int key_number(const struct runs *r, size_t row, size_t k, double *v)
{
	if (!pm_dataset_col_is_numeric(r->d, r->key[k]) ||
	    pm_dataset_number(r->d, row, r->key[k], v, NULL))
		return 0;
	*v = *v == 0 ? 0.0 : isnan(*v) ? NAN : *v;
	return 1;
}

static uint64_t key_hash(const struct runs *r, size_t row)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t k = 0; k < r->nkey; k++) {
		const char *cell = pm_dataset_cell(r->d, row, r->key[k]);
		const unsigned char *s = (const unsigned char *)cell;
		size_t n = strlen(cell) + 1;	/* with its NUL: "a","bc" and "ab","c" differ */
		double v;

		/* a column is numbers on every row or on none: its value's 8
		 * bytes need no end */
		if (key_number(r, row, k, &v)) {
			s = (const unsigned char *)&v;
			n = sizeof(v);
		}
		for (size_t i = 0; i < n; i++) {
			h ^= s[i];
			h *= UINT64_C(0x100000001b3);
		}
	}
	return h;
}

static int same_key(const struct runs *r, size_t a, size_t b)
{
	for (size_t k = 0; k < r->nkey; k++) {
		double va, vb;

		if (key_number(r, a, k, &va) && key_number(r, b, k, &vb)) {
			if (!(va == vb || (isnan(va) && isnan(vb))))
				return 0;
		} else if (strcmp(pm_dataset_cell(r->d, a, r->key[k]),
				  pm_dataset_cell(r->d, b, r->key[k]))) {
			return 0;
		}
	}
	return 1;
}

/* Open addressing over the rows' keys: linear in the rows, so a million
 * runs group as fast as they read. */
static pm_status group_rows(struct runs *r, pm_error *err)
{
	size_t nslot = 16, *slot, *first;

	while (nslot < 2 * r->nrows)
		nslot *= 2;
	slot = calloc(nslot, sizeof(*slot));
	first = malloc(r->nrows * sizeof(*first) + 1);
	r->group = malloc(r->nrows * sizeof(*r->group) + 1);
	if (!slot || !first || !r->group) {
		free(slot);
		free(first);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < r->nrows; i++) {
		size_t h = (size_t)key_hash(r, i) & (nslot - 1);

		for (; slot[h]; h = (h + 1) & (nslot - 1))
			if (same_key(r, first[slot[h] - 1], i))
				break;
		if (!slot[h]) {
			first[r->ngroups] = i;
			slot[h] = ++r->ngroups;
		}
		r->group[i] = slot[h] - 1;
	}
	free(slot);
	/* a counting sort keeps each group's runs in file order; `first` is
	 * done with and becomes each group's fill cursor */
	r->start = calloc(r->ngroups + 1, sizeof(*r->start));
	r->order = malloc(r->nrows * sizeof(*r->order) + 1);
	if (!r->start || !r->order) {
		free(first);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < r->nrows; i++)
		r->start[r->group[i] + 1]++;
	for (size_t g = 0; g < r->ngroups; g++) {
		r->start[g + 1] += r->start[g];
		first[g] = r->start[g];
	}
	for (size_t i = 0; i < r->nrows; i++)
		r->order[first[r->group[i]]++] = i;
	free(first);
	return PM_OK;
}

/* v[0..n) (n >= 1) is scratch: median sorts it */
static double aggregate(pm_aggregate method, double *v, size_t n)
{
	double s = 0, m = v[0];

	switch (method) {
	case PM_AGG_MIN:
		for (size_t i = 1; i < n; i++)
			m = v[i] < m ? v[i] : m;
		return m;
	case PM_AGG_MEAN:
		for (size_t i = 0; i < n; i++)
			s += v[i];
		return s / (double)n;
	default:
		qsort(v, n, sizeof(*v), pm__cmp_double);
		return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
}

/* The runs' sample variance s² into *var (NaN for one run); returns the
 * coefficient of variation s / mean (NaN for one run or a zero mean). */
static double coef_var(const double *v, size_t n, double *var)
{
	double mean = 0, ss = 0;

	*var = NAN;
	if (n < 2)
		return NAN;
	for (size_t i = 0; i < n; i++)
		mean += v[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	*var = ss / (double)(n - 1);
	return mean != 0 ? sqrt(*var) / fabs(mean) : NAN;
}

/* The fraction of the median variance below which a variance counts as
 * that much: a configuration whose runs agree to the timer's last digit
 * would otherwise outweigh all the others. */
#define VAR_FLOOR 0.01

/*
 * Inverse-variance weights, in place: v[g] holds configuration g's s²/runs
 * (the variance of its aggregated time; NaN with one run) and becomes
 * 1/that, scaled to mean 1. A configuration with one run has no variance of
 * its own and gets the median one (no evidence either way: a typical
 * weight); a variance below VAR_FLOOR times the median is raised to it.
 * Computed as median/variance, at most 1/VAR_FLOOR, so that no time scale
 * overflows; a variance so large (or overflowed) that the ratio is 0 still
 * gets the smallest weight > 0. With no configuration of two runs that
 * differ there is nothing to weigh by: PM_ESCHEMA. scratch has n doubles.
 */
static pm_status inverse_variance(double *v, size_t n, double *scratch, const char *name,
				  pm_error *err)
{
	size_t k = 0;
	double med, sum = 0;

	for (size_t g = 0; g < n; g++)
		if (v[g] > 0 && isfinite(v[g]))
			scratch[k++] = v[g];
	if (!k)
		return pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "--weights inverse-variance: no "
				   "configuration has two runs that differ, so there is no "
				   "variance to weigh by");
	med = aggregate(PM_AGG_MEDIAN, scratch, k);
	for (size_t g = 0; g < n; g++) {
		double var = isnan(v[g]) ? med : v[g];

		v[g] = var > VAR_FLOOR * med && var > 0 ? med / var : 1.0 / VAR_FLOOR;
		if (!(v[g] >= DBL_MIN))
			v[g] = DBL_MIN;
		sum += v[g];
	}
	for (size_t g = 0; g < n; g++)
		v[g] *= (double)n / sum;
	return PM_OK;
}

static void cv_summary(pm_read_info *info)
{
	double *s = malloc(info->nrows * sizeof(*s) + 1);
	size_t n = 0;

	info->cv_median = info->cv_max = NAN;
	for (size_t g = 0; g < info->nrows; g++) {
		if (isnan(info->cv[g]))
			continue;
		if (!(info->cv[g] <= info->cv_max)) {
			info->cv_max = info->cv[g];
			info->cv_max_row = g;
		}
		if (s)
			s[n++] = info->cv[g];
	}
	if (n)
		info->cv_median = aggregate(PM_AGG_MEDIAN, s, n);
	free(s);
}

/* One row per configuration: key cells from its first kept run, then the
 * aggregated time, placed where that run's time (or throughput) was. */
static pm_status build_groups(const struct runs *r, const pm_read_options *o,
			      const char *target, pm_aggregate method, pm_dataset **out,
			      pm_read_info *info, pm_error *err)
{
	size_t nc = r->nkey + 1, skip = o->drop_first, maxn = 0;
	double *v = NULL, *w = NULL;
	pm_grid g;
	pm_status rc;

	if ((rc = pm__grid_alloc(&g, r->ngroups, nc, err)))
		return rc;
	for (size_t k = 0; k < r->ngroups; k++)
		if (r->start[k + 1] - r->start[k] > maxn)
			maxn = r->start[k + 1] - r->start[k];
	/* v: one group's runs, then the weights' scratch */
	v = malloc((maxn > r->ngroups ? maxn : r->ngroups) * sizeof(*v) + 1);
	w = malloc(r->ngroups * sizeof(*w) + 1);
	info->reps = malloc(r->ngroups * sizeof(*info->reps) + 1);
	info->cv = malloc(r->ngroups * sizeof(*info->cv) + 1);
	if (!v || !w || !info->reps || !info->cv) {
		rc = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < r->nkey; k++)
		g.names[k] = pm_dataset_col_name(r->d, r->key[k]);
	g.names[r->nkey] = target;
	for (size_t k = 0; k < r->ngroups; k++) {
		size_t n = r->start[k + 1] - r->start[k], first = r->order[r->start[k]], kept;

		if (n <= skip) {
			rc = pm__fail_at(err, PM_ESCHEMA, pm_dataset_name(r->d),
					 pm_dataset_cell_line(r->d, first, r->tcol), 0,
					 "the configuration of this row has %zu run%s: "
					 "--drop-first %zu leaves none", n, n == 1 ? "" : "s", skip);
			goto out;
		}
		kept = r->order[r->start[k] + skip];
		for (size_t i = skip; i < n; i++)
			v[i - skip] = r->t[r->order[r->start[k] + i]];
		info->reps[k] = (unsigned)(n - skip);
		info->cv[k] = coef_var(v, n - skip, &w[k]);
		w[k] /= (double)(n - skip);
		for (size_t c = 0; c < nc; c++)
			pm__grid_copy(&g, k, c, r->d, kept, c < r->nkey ? r->key[c] : r->tcol);
		pm__grid_number(&g, k, r->nkey, aggregate(method, v, n - skip));
	}
	info->aggregated = 1;
	info->dropped = r->ngroups * skip;
	info->runs = r->nrows - info->dropped;
	info->nrows = r->ngroups;
	cv_summary(info);
	if ((o->weights && (rc = inverse_variance(w, r->ngroups, v, pm_dataset_name(r->d), err))) ||
	    (rc = pm__grid_build(&g, pm_dataset_name(r->d), out, err)))
		goto out;
	/* the runs behind each row go with it, to the fit and its model.json */
	if ((rc = pm__dataset_set_rows(*out, info->reps, info->cv, o->weights ? w : NULL,
				       o->weights, NULL, err))) {
		pm_dataset_free(*out);
		*out = NULL;
	}
out:
	pm__grid_free(&g);
	free(v);
	free(w);
	return rc;
}

/* Every run, the throughput column now the time. */
static pm_status build_converted(const struct runs *r, const char *target, pm_dataset **out,
				 pm_error *err)
{
	pm_grid g;
	pm_status rc;

	if ((rc = pm__grid_alloc(&g, r->nrows, r->ncols, err)))
		return rc;
	for (size_t c = 0; c < r->ncols; c++)
		g.names[c] = c == r->tcol ? target : pm_dataset_col_name(r->d, c);
	for (size_t i = 0; i < r->nrows; i++) {
		for (size_t c = 0; c < r->ncols; c++)
			pm__grid_copy(&g, i, c, r->d, i, c);
		pm__grid_number(&g, i, r->tcol, r->t[i]);
	}
	rc = pm__grid_build(&g, pm_dataset_name(r->d), out, err);
	pm__grid_free(&g);
	return rc;
}

pm_status pm__dataset_aggregate(const pm_dataset *d, const pm_read_options *o,
				const char *target, pm_aggregate method, int zero_ok,
				pm_dataset **out, pm_read_info *info, pm_error *err)
{
	struct runs r = { .d = d, .nrows = pm_dataset_nrows(d), .ncols = pm_dataset_ncols(d),
			  .pcol = SIZE_MAX, .convert = o->throughput != NULL, .zero_ok = zero_ok };
	size_t unused;
	pm_status rc;

	*out = NULL;
	info->aggregated = 0;
	info->runs = info->nrows = r.nrows;
	info->dropped = 0;
	if (method == PM_AGG_NONE && !r.convert)
		return PM_OK;
	if (r.convert) {
		if ((rc = find(d, o->throughput, "--throughput", &r.tcol, err)) ||
		    (o->per && (rc = find(d, o->per, "--per", &r.pcol, err))))
			return rc;
		if (pm_dataset_col_index(d, target, &unused, NULL) == PM_OK)
			return pm__fail_at(err, PM_ESCHEMA, pm_dataset_name(d), 0, 0,
					   "--throughput: column '%s' already exists; name the "
					   "time it makes with --target", target);
	} else if ((rc = find(d, target, "the target", &r.tcol, err))) {
		return rc;
	}
	r.t = malloc(r.nrows * sizeof(*r.t) + 1);
	if (!r.t) {
		rc = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = row_times(&r, err)))
		goto out;
	if (method == PM_AGG_NONE) {
		rc = build_converted(&r, target, out, err);
		goto out;
	}
	if ((rc = key_columns(&r, o, target, err)) || (rc = group_rows(&r, err)))
		goto out;
	rc = build_groups(&r, o, target, method, out, info, err);
out:
	runs_free(&r);
	return rc;
}
