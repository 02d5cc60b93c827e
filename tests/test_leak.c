/* Leaks (lib/spec/leak.c) and gaps (lib/spec/incomplete.c): a part or a copy
 * of the target is never an inferred input, and a column of numbers with
 * an empty or nan cell is numbers, never categories. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pcg32.h"
#include "leak_check.h"
#include "perfmodel/perfmodel.h"
#include "spec/leak.h"
#include "spec/spec_impl.h"

PM_LEAK_CHECKED_SUITE(leak);
PM_LEAK_CHECKED_SUITE(gaps);

enum { N = 200 };

static pm__leak check(const double *x, const double *t, size_t n)
{
	pm__leak l;
	pm_error e = { 0 };

	cr_assert_eq(pm__leak_check(x, t, n, &l, &e), PM_OK, "%s", e.msg);
	return l;
}

/* A run time of a parameter grid with 5 % noise: the measured target. */
static void grid_times(double *grid, double *t, pm_pcg32 *r)
{
	static const double n[] = { 64, 128, 256, 512, 1024 };

	for (size_t i = 0; i < N; i++) {
		grid[i] = n[i % 5];
		t[i] = 1e-9 * pow(grid[i], 2) * (1 + 0.05 * (pm__pcg32_uniform(r) - 0.5));
	}
}

Test(leak, copy_in_other_units_is_a_leak)
{
	double n[N], t[N], ms[N], per[N];
	char why[256];
	pm_pcg32 r;
	pm__leak l;

	pm__pcg32_seed(&r, 1, 0);
	grid_times(n, t, &r);
	for (size_t i = 0; i < N; i++) {
		ms[i] = 1000 * t[i];
		per[i] = t[i] * 1000 / (8 << (i % 4));	/* per 1000 samples of a batch */
	}
	l = check(ms, t, N);
	cr_expect_eq(l.kind, PM__LEAK_UNITS);
	cr_expect_eq(l.ratios, 1);
	cr_expect_gt(l.r2, 0.999);
	cr_expect(fabs(l.factor - 1000) < 1e-9, "%.17g", l.factor);
	pm__leak_why(&l, why, sizeof(why));
	cr_expect(strstr(why, "it is the target times 1000 (the target in other units"), "%s",
		  why);
	l = check(per, t, N);
	cr_expect_eq(l.kind, PM__LEAK_UNITS, "the target over a batch size: 4 ratios");
	cr_expect_eq(l.ratios, 4);
}

Test(leak, a_worker_of_a_max_is_a_leak)
{
	double w1[N], w2[N], t[N];
	pm_pcg32 r;
	pm__leak l;

	pm__pcg32_seed(&r, 2, 0);
	for (size_t i = 0; i < N; i++) {
		double base = 1e-3 * (1 + 9 * pm__pcg32_uniform(&r));

		w1[i] = base * (1 + 0.02 * pm__pcg32_uniform(&r));
		w2[i] = i % 2 ? NAN : base * (1 + 0.02 * pm__pcg32_uniform(&r));	/* one worker */
		t[i] = isnan(w2[i]) ? w1[i] : fmax(w1[i], w2[i]);
	}
	l = check(w1, t, N);
	cr_expect_eq(l.kind, PM__LEAK_PART);
	cr_expect_gt(l.r2, 0.98);
	cr_expect(l.slope > 0.9 && l.slope < 1.1, "slope %g", l.slope);
	l = check(w2, t, N);
	cr_expect_eq(l.kind, PM__LEAK_PART, "where it is present");
	cr_expect_eq(l.pairs, N / 2);
}

Test(leak, a_clean_power_law_input_is_not)
{
	double n[N], t[N], x[N], tx[N];
	pm_pcg32 r;

	pm__pcg32_seed(&r, 3, 0);
	for (size_t i = 0; i < N; i++) {
		n[i] = 64 << (i % 6);			/* GEMM's n: t = n^3 exactly */
		t[i] = 4e-11 * n[i] * n[i] * n[i];
		x[i] = 1 + 99 * pm__pcg32_uniform(&r);	/* a value of its own each row */
		tx[i] = 1e-6 * x[i] * x[i] * x[i];
	}
	cr_expect_eq(check(n, t, N).kind, PM__LEAK_NONE, "a grid of whole numbers");
	cr_expect_gt(check(n, t, N).r2, 0.999, "though it explains the time alone");
	cr_expect_eq(check(x, tx, N).kind, PM__LEAK_NONE, "a cube, not a part: slope 3");
}

Test(leak, a_noisy_true_input_is_not)
{
	double n[N], t[N], lr[N];
	pm_pcg32 r;

	pm__pcg32_seed(&r, 4, 0);
	grid_times(n, t, &r);
	for (size_t i = 0; i < N; i++)
		lr[i] = 1e-5 * (1 + pm__pcg32_uniform(&r));	/* continuous, unrelated */
	cr_expect_eq(check(n, t, N).kind, PM__LEAK_NONE);
	cr_expect_eq(check(lr, t, N).kind, PM__LEAK_NONE);
	cr_expect_lt(check(lr, t, N).r2, 0.5);
}

Test(leak, many_rows_of_an_unrelated_value_are_not)
{
	/* 50 000 rows: unrelated values crowd within the ratios' tolerance,
	 * so their ratios are few against the rows, not against the target's
	 * own values (a false leak before the fix) */
	enum { M = 50000 };
	double *x = malloc(2 * M * sizeof(*x)), *t = x + M;
	pm_pcg32 r;

	cr_assert_not_null(x);
	pm__pcg32_seed(&r, 5, 0);
	for (size_t i = 0; i < M; i++) {
		x[i] = 1 + 0.05 * pm__pcg32_uniform(&r);	/* 881 ratios in Python's draw */
		t[i] = 1e-9 * pow(64 << (i % 4), 2) / (1 << (i % 3)) *
		       (1 + 0.05 * pm__pcg32_uniform(&r));
	}
	cr_expect_eq(check(x, t, M).kind, PM__LEAK_NONE);
	free(x);
}

Test(leak, too_few_rows_say_nothing)
{
	double t[] = { 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5 }, x[7];

	for (size_t i = 0; i < 7; i++)
		x[i] = 1000 * t[i];
	cr_expect_eq(check(x, t, 7).kind, PM__LEAK_NONE);
	cr_expect_eq(check(x, t, 7).pairs, 7);
}

/* ---- datasets: inference, notes, gaps -------------------------------------- */

static pm_dataset *csv(const char *text)
{
	pm_dataset *d = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(text, strlen(text), "g.csv", &d, &e), PM_OK, "%s",
		     e.msg);
	return d;
}

/* 12 rows of n (a grid), w (a worker's time: a part of t), x (with a gap
 * in row 3, line 5, unless full), t. */
static pm_dataset *table(const char *gap)
{
	char text[2048];
	size_t used = (size_t)snprintf(text, sizeof(text), "n,w,x,t\n");

	for (int i = 0; i < 12; i++) {
		double t = 0.001 * (i + 1) * (1 + 0.01 * (i % 3));

		used += (size_t)snprintf(text + used, sizeof(text) - used, "%d,%.6g,%s,%.6g\n",
					 1 + i % 4, t * (0.98 + 0.001 * i),
					 i == 3 ? gap : (const char *[]){ "1", "2", "3" }[i % 3], t);
	}
	return csv(text);
}

Test(gaps, a_column_of_numbers_with_gaps)
{
	pm_dataset *d = csv("a,b,c,e,f\n1,1,1,x,\n,nan,-inf,2,\n3,NaN,3,3,\n");
	double v[3];

	cr_expect_eq(pm_dataset_col_has_gaps(d, 0), 1, "empty");
	cr_expect_eq(pm_dataset_col_has_gaps(d, 1), 1, "nan, any case");
	cr_expect_eq(pm_dataset_col_has_gaps(d, 2), 1, "inf");
	cr_expect_eq(pm_dataset_col_has_gaps(d, 3), 0, "text: a categorical");
	cr_expect_eq(pm_dataset_col_has_gaps(d, 4), 0, "no number at all");
	cr_expect_eq(pm_dataset_col_has_gaps(d, 9), 0);
	cr_expect_eq(pm_dataset_col_present(d, 2, v), 2);
	cr_expect(v[0] == 1 && isnan(v[1]) && v[2] == 3);
	cr_expect_eq(pm_dataset_col_present(d, 3, v), 2);
	cr_expect(isnan(v[0]) && v[1] == 2);
	cr_expect_eq(pm_dataset_col_present(NULL, 0, v), 0);
	pm_dataset_free(d);
}

static pm_spec *spec_of(const char *json)
{
	pm_spec *s = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_parse(json, "s.json", &s, &e), PM_OK, "%s", e.msg);
	return s;
}

Test(gaps, inference_leaves_a_part_out_and_makes_gaps_numeric)
{
	pm_dataset *d = table("nan");
	pm_spec *s = spec_of("{\"target\": \"t\"}");
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_resolve(s, d, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(s->intrinsic.n, 2);
	cr_expect_str_eq(s->intrinsic.name[0], "n");
	cr_expect_str_eq(s->intrinsic.name[1], "x", "a nan keeps x numeric");
	cr_expect_eq(s->categorical.n, 0);
	cr_assert_eq(s->notes.n, 1);
	cr_expect(strstr(s->notes.name[0], "column 'w' is left out of the inputs inferred") &&
		  strstr(s->notes.name[0], "R² = "), "%s", s->notes.name[0]);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(gaps, a_gap_is_an_error_at_its_cell)
{
	pm_dataset *d = table("");
	pm_spec *s = spec_of("{\"target\": \"t\"}");
	pm_error e = { 0 };

	cr_assert_eq(pm__spec_complete(s, &d, NULL, 0, &e), PM_ESCHEMA);
	cr_expect_eq(e.line, 5);
	cr_expect_gt(e.column, 1);
	cr_expect(strstr(e.msg, "column 'x': empty cell") && strstr(e.msg, "--drop-incomplete"),
		  "%s", e.msg);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(gaps, drop_incomplete_drops_and_counts)
{
	pm_dataset *d = table("NaN"), *test = table("");
	pm_spec *s = spec_of("{\"target\": \"t\", \"intrinsic\": [\"n\", \"x\"]}");
	pm_error e = { 0 };

	cr_assert_eq(pm__spec_complete(s, &d, &test, 1, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(pm_dataset_nrows(d), 11);
	cr_expect_eq(pm_dataset_nrows(test), 11);
	cr_expect_eq(pm_dataset_cell_line(d, 3, 0), 6, "rows keep their places");
	cr_assert_eq(s->notes.n, 2);
	cr_expect(strstr(s->notes.name[0], "dropped 1 incomplete row of g.csv (empty or nan "
			 "in x); 11 left"), "%s", s->notes.name[0]);
	pm_spec_free(s);
	pm_dataset_free(d);
	pm_dataset_free(test);
}

Test(gaps, every_row_dropped_is_an_error)
{
	pm_dataset *d = csv("n,t\n1,\n2,nan\n3,\n4,\n5,2\n");
	pm_spec *s = spec_of("{\"target\": \"n\", \"intrinsic\": [\"t\"]}");
	pm_error e = { 0 };

	cr_assert_eq(pm__spec_complete(s, &d, NULL, 1, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(pm_dataset_nrows(d), 1);
	pm_dataset_free(d);
	d = csv("n,t,u\n1,,1\n2,nan,\n3,,\n4,,2\n5,2,\n");
	pm_spec_free(s);
	s = spec_of("{\"target\": \"n\", \"intrinsic\": [\"t\", \"u\"]}");
	cr_assert_eq(pm__spec_complete(s, &d, NULL, 1, &e), PM_ESCHEMA);
	cr_expect(strstr(e.msg, "every row of g.csv has an empty or nan cell in t, u"), "%s",
		  e.msg);
	cr_expect_eq(pm_dataset_nrows(d), 5, "unchanged on failure");
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(gaps, a_named_leak_is_a_warning_of_the_fit)
{
	pm_dataset *d = table("1");
	pm_spec *s = spec_of("{\"target\": \"t\", \"intrinsic\": [\"n\", \"w\"]}");
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error e = { 0 };
	int found = 0;

	o.threads = 1;
	o.maxiter = 20;
	o.intervals = 0;
	cr_assert_eq(pm_fit(d, s, &o, &m, &e), PM_OK, "%s", e.msg);
	for (size_t i = 0; i < pm_model_nwarnings(m); i++)
		found += strstr(pm_model_warning(m, i), "column 'w' looks like a part or a copy "
				"of the target 't'") != NULL &&
			 strstr(pm_model_warning(m, i), "R² = ") != NULL;
	cr_expect_eq(found, 1);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}
