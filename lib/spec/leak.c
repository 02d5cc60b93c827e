/* Leaks: a column that is a part or a copy of the target. Such a column
 * "predicts" the time only because it was measured with it, so a model of
 * it says nothing about a run not yet made; role inference leaves it out
 * and a fit that is given it warns. The signals and why each is needed are
 * docs/formats.md's "Leaks". */
#include "spec/leak.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/detmath.h"
#include "core/error.h"
#include "core/sort.h"
#include "model/model_impl.h"
#include "spec/spec_impl.h"

enum { MIN_PAIRS = 8 };
/* A measurement has a value of its own on (nearly) every row; a parameter
 * repeats a few values of its grid. */
#define MIN_DISTINCT 0.5
/* "Explains the target alone": a true input of a clean power law can
 * reach it too (GEMM's n, t ∝ n³), which the other signals rule out. */
#define MIN_R2 0.98
/* A part or a copy of a time grows as the time does, t^1: a genuine
 * input proportional to the time is a grid, or whole numbers. */
#define SLOPE_LO 0.5
#define SLOPE_HI 2.0
/* The CSV's rounding (6 or more significant digits) moves a ratio by
 * about 1e-6 of itself: ratios closer than this are one. */
#define RATIO_TOL 1e-4
/* At most this share of the target's distinct values (at RATIO_TOL) in
 * distinct ratios: the factor is a function of a few levels (1000 /
 * batch_size), not noise. */
#define MAX_RATIOS 0.1

/* Sorted v[0, n): the runs of values within tol of the previous one. */
static size_t clusters(double *v, size_t n, double tol)
{
	size_t k = n ? 1 : 0;

	qsort(v, n, sizeof(*v), pm__cmp_double);
	for (size_t i = 1; i < n; i++)
		k += v[i] - v[i - 1] > tol;
	return k;
}

/* R² of the least-squares line of y on x, and its slope. */
static double line_r2(const double *x, const double *y, size_t n, double *slope)
{
	double mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0;

	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	*slope = sxx > 0 ? sxy / sxx : NAN;
	return sxx > 0 && syy > 0 ? sxy * sxy / (sxx * syy) : 0;
}

pm_status pm__leak_check(const double *x, const double *t, size_t n, pm__leak *out,
			 pm_error *err)
{
	double *w = malloc(4 * (n ? n : 1) * sizeof(*w)), *px = w, *pt, *lx, *lt, slope, lin;
	size_t m = 0, tvalues;
	int whole = 1;

	*out = (pm__leak){ .slope = NAN, .factor = NAN };
	if (!w)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	pt = px + n;
	lx = pt + n;
	lt = lx + n;
	for (size_t r = 0; r < n; r++) {
		if (!(x[r] > 0 && t[r] > 0 && isfinite(x[r]) && isfinite(t[r])))
			continue;
		px[m] = x[r];
		pt[m] = t[r];
		lx[m] = pm__log(x[r]);
		lt[m] = pm__log(t[r]);
		whole &= x[r] == floor(x[r]);
		m++;
	}
	out->pairs = m;
	if (m < MIN_PAIRS)
		goto out;
	lin = line_r2(px, pt, m, &slope);
	out->r2 = fmax(lin, line_r2(lx, lt, m, &out->slope));
	/* whole numbers are a grid's (threads, n, a batch size) */
	if (whole)
		goto out;
	out->distinct = clusters(px, m, 0);
	if ((double)out->distinct < MIN_DISTINCT * (double)m)
		goto out;
	for (size_t i = 0; i < m; i++) {
		pt[i] = lt[i];
		lt[i] = lx[i] - lt[i];	/* log(x / t) */
	}
	out->ratios = clusters(lt, m, RATIO_TOL);
	out->factor = pm__exp(lt[m / 2]);	/* sorted: the median ratio */
	/* "Few" against the target's own values at the same resolution: on
	 * many rows, unrelated values crowd within RATIO_TOL too, and then
	 * their ratios are as many as the target's values, not a tenth. */
	tvalues = clusters(pt, m, RATIO_TOL);
	if ((double)out->ratios <= MAX_RATIOS * (double)tvalues)
		out->kind = PM__LEAK_UNITS;
	else if (out->r2 >= MIN_R2 && out->slope >= SLOPE_LO && out->slope <= SLOPE_HI)
		out->kind = PM__LEAK_PART;
out:
	free(w);
	return PM_OK;
}

pm_status pm__leak_of(const pm_dataset *d, size_t col, size_t target, pm__leak *out,
		      pm_error *err)
{
	size_t n = pm_dataset_nrows(d), nx, nt;
	double *x = malloc(2 * (n ? n : 1) * sizeof(*x));
	pm_status st;

	if (!x) {
		*out = (pm__leak){ .slope = NAN, .factor = NAN };
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	nx = pm_dataset_col_present(d, col, x);
	nt = pm_dataset_col_present(d, target, x + n);
	/* A grid's few levels rule it out before any sort: the pairs are at
	 * least nx + nt - n, its distinct values at most its levels. What
	 * keeps the check cheap on a million rows of parameters. */
	if (nx + nt > n &&
	    (double)pm_dataset_col_nlevels(d, col) < MIN_DISTINCT * (double)(nx + nt - n)) {
		*out = (pm__leak){ .slope = NAN, .factor = NAN };
		st = PM_OK;
	} else {
		st = pm__leak_check(x, x + n, n, out, err);
	}
	free(x);
	return st;
}

void pm__leak_why(const pm__leak *l, char *buf, size_t size)
{
	if (l->kind == PM__LEAK_UNITS && l->ratios == 1)
		pm_snprintf(buf, size, "it is the target times %.6g (the target in other units; "
			 "alone it explains R² = %.4f of it)", l->factor, l->r2);
	else if (l->kind == PM__LEAK_UNITS)
		pm_snprintf(buf, size, "it is the target times a factor of %zu values (the target "
			 "in other units; alone it explains R² = %.4f of it)", l->ratios, l->r2);
	else
		pm_snprintf(buf, size, "alone it explains R² = %.4f of the target, in proportion "
			 "(log-log slope %.2f), with a value of its own on %zu of %zu rows",
			 l->r2, l->slope, l->distinct, l->pairs);
}

pm_status pm__leak_warnings(const pm_dataset *d, const pm_spec *s, pm_model *m, pm_error *err)
{
	const pm_names *in[] = { &s->intrinsic, &s->extrinsic };
	size_t target, col;
	pm_status st = PM_OK;

	for (size_t i = 0; i < s->notes.n && !st; i++)
		st = pm__model_add_warning(m, err, "%s", s->notes.name[i]);
	if (st || pm_dataset_col_index(d, s->target, &target, NULL))
		return st;
	for (size_t g = 0; g < 2 && !st; g++) {
		for (size_t i = 0; i < in[g]->n && !st; i++) {
			const char *name = in[g]->name[i];
			char why[256];
			pm__leak l;

			if (pm_dataset_col_index(d, name, &col, NULL) ||
			    (st = pm__leak_of(d, col, target, &l, err)) || l.kind == PM__LEAK_NONE)
				continue;
			pm__leak_why(&l, why, sizeof(why));
			st = pm__model_add_warning(m, err, "column '%s' looks like a part or a copy "
						   "of the target '%s', not a parameter of the run: "
						   "%s; a model of it predicts no run before it is "
						   "measured (drop it with --ignore %s)", name,
						   s->target, why, name);
		}
	}
	return st;
}
