/* Rows with a gap: an empty or nan cell in a column of numbers that the
 * model uses. Such a column is numbers, never categories; a gap is an
 * error naming its cell, or, asked for, the row is dropped and counted. */
#include "perfmodel/perfmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "spec/spec_impl.h"

/* The numeric columns of the resolved spec s: the target, then the
 * inputs under a power; *n of them, in d's numbering (at most 1 + the
 * inputs: the caller's array). */
static pm_status used_columns(const pm_spec *s, const pm_dataset *d, size_t *col, size_t *n,
			      pm_error *err)
{
	const pm_names *in[] = { &s->intrinsic, &s->extrinsic };
	pm_status st = pm_dataset_col_index(d, s->target, &col[0], err);

	*n = 1;
	for (size_t g = 0; g < 2 && !st; g++)
		for (size_t i = 0; i < in[g]->n && !st; i++)
			st = pm_dataset_col_index(d, in[g]->name[i], &col[(*n)++], err);
	return st;
}

/* *d without the rows that have a gap in col[0, n): refused at the first
 * (drop 0), or dropped with a note on s. */
static pm_status complete_rows(pm_spec *s, pm_dataset **d, const size_t *col, size_t n,
			       int drop, pm_error *err)
{
	size_t nrows = pm_dataset_nrows(*d), kept = 0, *rows = NULL;
	unsigned char *gap = calloc(nrows + 1, 1);
	double *v = malloc((nrows + 1) * sizeof(*v));
	char names[256] = "";
	size_t used = 0;
	pm_dataset *x = NULL;
	pm_status st = PM_OK;

	if (!gap || !v)
		goto oom;
	for (size_t k = 0; k < n; k++) {
		if (!pm_dataset_col_has_gaps(*d, col[k]))
			continue;
		pm_dataset_col_present(*d, col[k], v);
		for (size_t r = 0; r < nrows; r++) {
			if (!isnan(v[r]))
				continue;
			if (!drop) {
				/* the cell's own message: FILE:LINE:COL, what it holds */
				pm_dataset_number(*d, r, col[k], &v[r], err);
				pm__err_append(err, " (in a column of numbers: "
					       "--drop-incomplete drops the rows with such a cell)");
				st = PM_ESCHEMA;
				goto out;
			}
			gap[r] = 1;
		}
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 used ? ", " : "", pm_dataset_col_name(*d, col[k]));
	}
	if (!used)
		goto out;
	if (!(rows = malloc(nrows * sizeof(*rows))))
		goto oom;
	for (size_t r = 0; r < nrows; r++)
		if (!gap[r])
			rows[kept++] = r;
	if (!kept) {
		st = pm__fail(err, PM_ESCHEMA, "every row of %s has an empty or nan cell in %s: "
			      "none is left to fit", pm_dataset_name(*d), names);
		goto out;
	}
	if ((st = pm_dataset_subset(*d, rows, kept, &x, err)) ||
	    (st = pm__spec_note(s, err, "dropped %zu incomplete row%s of %s (empty or nan in "
				"%s); %zu left", nrows - kept, nrows - kept == 1 ? "" : "s",
				pm_dataset_name(*d), names, kept)))
		goto out;
	pm_dataset_free(*d);
	*d = x;
	x = NULL;
	goto out;
oom:
	st = pm__fail(err, PM_ENOMEM, "out of memory");
out:
	pm_dataset_free(x);
	free(rows);
	free(gap);
	free(v);
	return st;
}

pm_status pm__spec_complete(pm_spec *s, pm_dataset **d, pm_dataset **test, int drop,
			    pm_error *err)
{
	pm_spec *rs = NULL;
	size_t *col = NULL, n;
	pm_status st;

	/* A spec the data do not fit (a column missing) is left to the fits,
	 * whose errors say which form failed (select); a formula's roles on a
	 * copy, as the form may change (select, discover). */
	if ((st = pm__spec_copy(s, &rs, err)))
		return st;
	if (pm__spec_formula_roles(rs, *d, NULL) || pm_spec_resolve(rs, *d, NULL))
		goto out;
	/* inference once, here, so that what it left out reaches every fit
	 * (a discovered formula's too) as a note */
	if (s->infer_roles && !pm__spec_formula_text(s) && (st = pm_spec_resolve(s, *d, err)))
		goto out;
	if (!(col = malloc((1 + rs->intrinsic.n + rs->extrinsic.n) * sizeof(*col)))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = used_columns(rs, *d, col, &n, err)) ||
	    (st = complete_rows(s, d, col, n, drop, err)))
		goto out;
	if (test && *test && !(st = used_columns(rs, *test, col, &n, err)))
		st = complete_rows(s, test, col, n, drop, err);
out:
	free(col);
	pm_spec_free(rs);
	return st;
}
