#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(split);

/* Row r has "r" in column a and "x<r>" in b, so a subset shows its rows. */
static pm_dataset *numbered(size_t n)
{
	size_t cap = 16 + n * 24, len = 0;
	char *s = malloc(cap);
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	len += (size_t)snprintf(s + len, cap - len, "a,\"b\"\r\n");
	for (size_t r = 0; r < n; r++)
		len += (size_t)snprintf(s + len, cap - len, "%zu,\"x%zu\"\r\n", r, r);
	cr_assert_eq(pm_dataset_parse_csv(s, len, "n.csv", &d, &err), PM_OK, "%s", err.msg);
	free(s);
	return d;
}

Test(split, subset_keeps_cells_order_and_places)
{
	pm_dataset *d = numbered(10), *s = NULL;
	pm_error err = { 0 };
	const size_t rows[] = { 7, 2, 2, 9 };
	double v;

	cr_assert_eq(pm_dataset_subset(d, rows, 4, &s, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(s), 4);
	cr_assert_eq(pm_dataset_ncols(s), 2);
	cr_assert_str_eq(pm_dataset_name(s), "n.csv");
	cr_assert_str_eq(pm_dataset_col_name(s, 1), "b");
	for (size_t i = 0; i < 4; i++) {
		char want[16];

		snprintf(want, sizeof(want), "x%zu", rows[i]);
		cr_assert_str_eq(pm_dataset_cell(s, i, 1), want);
		for (size_t c = 0; c < 2; c++) {
			cr_assert_eq(pm_dataset_cell_line(s, i, c), pm_dataset_cell_line(d, rows[i], c));
			cr_assert_eq(pm_dataset_cell_column(s, i, c),
				     pm_dataset_cell_column(d, rows[i], c));
		}
	}
	/* row 7 of the file is line 9 (header on line 1) */
	cr_assert_eq(pm_dataset_cell_line(s, 0, 0), 9);
	cr_assert_eq(pm_dataset_cell_column(s, 0, 1), 3);
	/* an error in the subset names the original file and place */
	cr_assert_eq(pm_dataset_number(s, 3, 1, &v, &err), PM_ESCHEMA);
	cr_assert_str_eq(err.file, "n.csv");
	cr_assert_eq(err.line, 11);
	cr_assert_eq(err.column, 3);
	pm_dataset_free(s);
	pm_dataset_free(d);
}

Test(split, subset_of_no_rows_and_bad_arguments)
{
	pm_dataset *d = numbered(3), *s = NULL;
	pm_error err = { 0 };
	const size_t bad[] = { 0, 3 };

	cr_assert_eq(pm_dataset_subset(d, NULL, 0, &s, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(s), 0);
	cr_assert_eq(pm_dataset_ncols(s), 2);
	pm_dataset_free(s);
	s = (pm_dataset *)d;	/* must be reset on failure */
	cr_assert_eq(pm_dataset_subset(d, bad, 2, &s, &err), PM_EINVAL);
	cr_assert_null(s);
	cr_assert(strstr(err.msg, "row 3"), "%s", err.msg);
	cr_assert_eq(pm_dataset_subset(NULL, bad, 1, &s, &err), PM_EINVAL);
	cr_assert_eq(pm_dataset_subset(d, NULL, 1, &s, &err), PM_EINVAL);
	pm_dataset_free(d);
}

/* The lists partition 0..n-1, each ascending. */
static void check_partition(size_t n, const size_t *tr, size_t ntr, const size_t *te,
			    size_t nte)
{
	unsigned char *seen = calloc(n, 1);

	cr_assert_eq(ntr + nte, n);
	for (size_t i = 0; i < ntr; i++) {
		cr_assert(tr[i] < n);
		cr_assert(i == 0 || tr[i - 1] < tr[i]);
		seen[tr[i]]++;
	}
	for (size_t i = 0; i < nte; i++) {
		cr_assert(te[i] < n);
		cr_assert(i == 0 || te[i - 1] < te[i]);
		seen[te[i]]++;
	}
	for (size_t r = 0; r < n; r++)
		cr_assert_eq(seen[r], 1, "row %zu seen %d times", r, seen[r]);
	free(seen);
}

Test(split, split_sizes_partition_and_repeatability)
{
	static const struct { size_t n; double f; size_t nte; } cases[] = {
		{ 1500, 1.0 / 3.0, 500 }, { 10, 0.25, 3 }, { 10, 0.24, 2 },
		{ 2, 0.5, 1 }, { 7, 0.9, 6 }, { 100, 0.001 + 0.5 / 100, 1 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t *tr, *te, *tr2, *te2, ntr, nte, ntr2, nte2;
		pm_error err = { 0 };

		cr_assert_eq(pm_split_rows(cases[c].n, cases[c].f, 42, &tr, &ntr, &te, &nte, &err),
			     PM_OK, "case %zu: %s", c, err.msg);
		cr_assert_eq(nte, cases[c].nte, "case %zu: %zu test rows", c, nte);
		check_partition(cases[c].n, tr, ntr, te, nte);
		cr_assert_eq(pm_split_rows(cases[c].n, cases[c].f, 42, &tr2, &ntr2, &te2, &nte2,
					   &err), PM_OK);
		cr_assert_eq(memcmp(te, te2, nte * sizeof(*te)), 0, "same seed, same split");
		free(tr);
		free(te);
		free(tr2);
		free(te2);
	}
}

Test(split, split_depends_on_seed_and_is_fair)
{
	const size_t n = 60, trials = 3000;
	size_t count[60] = { 0 };
	size_t *tr, *te, *te1 = NULL, nte1 = 0, ntr, nte;
	int differs = 0;

	for (uint64_t seed = 0; seed < trials; seed++) {
		cr_assert_eq(pm_split_rows(n, 0.2, seed, &tr, &ntr, &te, &nte, NULL), PM_OK);
		for (size_t i = 0; i < nte; i++)
			count[te[i]]++;
		if (seed == 0) {
			te1 = te;
			nte1 = nte;
		} else {
			differs |= memcmp(te, te1, nte1 * sizeof(*te)) != 0;
			free(te);
		}
		free(tr);
	}
	free(te1);
	cr_assert(differs, "every seed gave the same split");
	/* each row is held out with probability 0.2: 600 of 3000 expected,
	 * sd about 22; 120 is over five sd */
	for (size_t r = 0; r < n; r++)
		cr_assert(count[r] > 480 && count[r] < 720, "row %zu held out %zu times", r,
			  count[r]);
}

Test(split, split_refuses_empty_sides)
{
	size_t *tr = (size_t *)1, *te = (size_t *)1, ntr = 9, nte = 9;
	pm_error err = { 0 };

	cr_assert_eq(pm_split_rows(10, 0.0, 1, &tr, &ntr, &te, &nte, &err), PM_EINVAL);
	cr_assert_null(tr);
	cr_assert_null(te);
	cr_assert_eq(ntr + nte, 0);
	cr_assert_eq(pm_split_rows(10, 1.0, 1, &tr, &ntr, &te, &nte, &err), PM_EINVAL);
	cr_assert_eq(pm_split_rows(10, 0.04, 1, &tr, &ntr, &te, &nte, &err), PM_EINVAL);
	cr_assert(strstr(err.msg, "test set"), "%s", err.msg);
	cr_assert_eq(pm_split_rows(10, 0.96, 1, &tr, &ntr, &te, &nte, &err), PM_EINVAL);
	cr_assert(strstr(err.msg, "training"), "%s", err.msg);
	cr_assert_eq(pm_split_rows(1, 0.5, 1, &tr, &ntr, &te, &nte, &err), PM_EINVAL);
	cr_assert_eq(pm_split_rows(10, 0.0 / 0.0, 1, &tr, &ntr, &te, &nte, &err), PM_EINVAL);
	cr_assert_eq(pm_split_rows(10, 0.5, 1, NULL, &ntr, &te, &nte, &err), PM_EINVAL);
}

Test(split, kfold_sizes_and_repeatability)
{
	static const struct { size_t n; unsigned k; } cases[] = {
		{ 10, 2 }, { 10, 3 }, { 11, 5 }, { 5, 5 }, { 1500, 10 }, { 97, 7 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = cases[c].n;
		unsigned k = cases[c].k, *f = malloc(n * sizeof(*f)), *g = malloc(n * sizeof(*g));
		size_t size[10] = { 0 }, lo = n, hi = 0;

		cr_assert_eq(pm_kfold_assign(n, k, 5, f, NULL), PM_OK);
		cr_assert_eq(pm_kfold_assign(n, k, 5, g, NULL), PM_OK);
		cr_assert_eq(memcmp(f, g, n * sizeof(*f)), 0, "same seed, same folds");
		for (size_t r = 0; r < n; r++) {
			cr_assert(f[r] < k);
			size[f[r]]++;
		}
		for (unsigned j = 0; j < k; j++) {
			lo = size[j] < lo ? size[j] : lo;
			hi = size[j] > hi ? size[j] : hi;
		}
		cr_assert(hi - lo <= 1, "case %zu: fold sizes %zu..%zu", c, lo, hi);
		cr_assert(lo >= 1);
		cr_assert_eq(pm_kfold_assign(n, k, 6, g, NULL), PM_OK);
		if (n > 5)
			cr_assert_neq(memcmp(f, g, n * sizeof(*f)), 0, "seed 6 gave seed 5's folds");
		free(f);
		free(g);
	}
}

Test(split, kfold_refuses_bad_k)
{
	unsigned f[4];
	pm_error err = { 0 };

	cr_assert_eq(pm_kfold_assign(4, 1, 1, f, &err), PM_EINVAL);
	cr_assert_eq(pm_kfold_assign(4, 5, 1, f, &err), PM_EINVAL);
	cr_assert(strstr(err.msg, "folds"), "%s", err.msg);
	cr_assert_eq(pm_kfold_assign(4, 2, 1, NULL, &err), PM_EINVAL);
	cr_assert_eq(pm_kfold_assign(4, 4, 1, f, &err), PM_OK);
}
