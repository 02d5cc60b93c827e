/* Validation schemes (--validate, issue 20): the rows each fold holds out:
 * stratified K folds, leave-one-out, and extrapolation along a column, the
 * question a scheduler asks ("how does the model do at scales it never
 * saw?"). The schemes' text is lib/model/validation.c's. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "core/sort.h"
#include "fit/holdout.h"
#include "spec/configs.h"
#include "spec/spec_impl.h"

/* fold[r] of a row no fold holds out, until the folds are numbered */
#define KEPT UINT_MAX

void pm_folds_free(pm_folds *f)
{
	if (f) {
		free(f->fold);
		f->fold = NULL;
	}
}

/* The categorical inputs of s's model over d: column indices into *cat,
 * and each row's level of each into (*codes)[c * nrows + r]. */
static pm_status categoricals(const pm_dataset *d, const pm_spec *s, size_t **cat,
			      uint32_t **codes, size_t *ncat, pm_error *err)
{
	size_t n = pm_dataset_nrows(d);
	pm_spec *rs = NULL;
	pm_status st;

	*cat = NULL;
	*codes = NULL;
	*ncat = 0;
	if (!s)
		return PM_OK;
	if ((st = pm__spec_copy(s, &rs, err)) || (st = pm__spec_formula_roles(rs, d, err)) ||
	    (st = pm_spec_resolve(rs, d, err)))
		goto out;
	*cat = malloc((rs->categorical.n + 1) * sizeof(**cat));
	*codes = malloc((rs->categorical.n * n + 1) * sizeof(**codes));
	if (!*cat || !*codes) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < rs->categorical.n && !st; i++)
		if (!(st = pm_dataset_col_index(d, rs->categorical.name[i], &(*cat)[*ncat], err))) {
			pm_dataset_col_codes(d, (*cat)[*ncat], *codes + *ncat * n);
			(*ncat)++;
		}
out:
	pm_spec_free(rs);
	return st;
}

struct keyed {
	uint64_t key;
	size_t row;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key ? 1 : (x->row > y->row) - (x->row < y->row);
}

/* id[r]: the stratum of row r, 0..*nstrata-1, one per combination of the
 * categorical inputs' levels. */
static pm_status strata(const pm_dataset *d, const size_t *cat, const uint32_t *codes, size_t ncat, size_t *id,
			size_t *nstrata, pm_error *err)
{
	size_t n = pm_dataset_nrows(d);
	struct keyed *k = malloc(n * sizeof(*k) + 1);

	if (!k)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	memset(id, 0, n * sizeof(*id));
	*nstrata = n > 0;
	for (size_t c = 0; c < ncat; c++) {
		uint64_t nl = pm_dataset_col_nlevels(d, cat[c]);
		const uint32_t *code = codes + c * n;

		/* id < 2^32 and nl <= 2^32 (rows are): the pair fits in 64 bits */
		for (size_t r = 0; r < n; r++)
			k[r] = (struct keyed){ .key = (uint64_t)id[r] * nl + code[r], .row = r };
		qsort(k, n, sizeof(*k), by_key);
		*nstrata = 0;
		for (size_t i = 0; i < n; i++) {
			if (i > 0 && k[i].key != k[i - 1].key)
				(*nstrata)++;
			id[k[i].row] = *nstrata;
		}
		*nstrata += n > 0;
	}
	free(k);
	return PM_OK;
}

/* Deal the seeded shuffle of the rows, stratum after stratum (a stable
 * counting sort keeps the shuffle's order within one), round-robin over k
 * folds: a stratum of m rows lands in min(m, k) folds, and one stratum is
 * pm_kfold_assign exactly. order[] gets the dealing order. */
static pm_status deal(const pm_dataset *d, const size_t *cat, const uint32_t *codes, size_t ncat, unsigned k,
		      uint64_t seed, const size_t *config, size_t nconfigs, unsigned *fold,
		      size_t *order, pm_error *err)
{
	size_t n = pm_dataset_nrows(d), ns = 0;
	size_t *perm = NULL, *id = malloc(n * sizeof(*id) + 1), *start = NULL;
	unsigned *cfold = NULL;
	pm_status st;

	if (!id)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if ((st = strata(d, cat, codes, ncat, id, &ns, err)) ||
	    (st = pm__kfold_order(n, seed, &perm, err)))
		goto out;
	if (!(start = calloc(ns + 1, sizeof(*start)))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t r = 0; r < n; r++)
		start[id[r] + 1]++;
	for (size_t i = 0; i < ns; i++)
		start[i + 1] += start[i];
	for (size_t i = 0; i < n; i++)
		order[start[id[perm[i]]]++] = perm[i];
	/* a configuration's runs all go where its first is dealt: a run held
	 * out while another run of it is fitted would measure the noise of
	 * repetition, not the model (issue 33); without repeats, row by row */
	if (!(cfold = malloc((nconfigs + 1) * sizeof(*cfold)))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t c = 0; c < nconfigs; c++)
		cfold[c] = KEPT;
	for (size_t i = 0, next = 0; i < n; i++) {
		size_t c = config[order[i]];

		if (cfold[c] == KEPT)
			cfold[c] = (unsigned)(next++ % k);
		fold[order[i]] = cfold[c];
	}
out:
	free(cfold);
	free(start);
	free(perm);
	free(id);
	return st;
}

/* A level whose rows all sit in one fold would be missing from that fold's
 * training rows (the fit could not predict it): the first of its rows in
 * dealing order, and the other runs of its configuration, are held out of
 * no fold. Returns the rows kept; *why names the first such level. */
static pm_status keep_rare_levels(const pm_dataset *d, const size_t *cat, const uint32_t *codes, size_t ncat,
				  const size_t *order, const size_t *config, unsigned *fold,
				  size_t *kept, char *why, size_t whysize, pm_error *err)
{
	size_t n = pm_dataset_nrows(d);
	pm_status st = PM_OK;

	for (size_t c = 0; c < ncat && !st; c++) {
		size_t nl = pm_dataset_col_nlevels(d, cat[c]);
		const uint32_t *code = codes + c * n;
		/* per level: the fold of its first row, that row, and whether
		 * it reaches a second fold or has a kept row already */
		unsigned *first = malloc((nl + 1) * sizeof(*first));
		size_t *row = malloc((nl + 1) * sizeof(*row));
		unsigned char *ok = calloc(nl + 1, 1);

		if (!first || !row || !ok)
			st = pm__fail(err, PM_ENOMEM, "out of memory");
		for (size_t l = 0; !st && l < nl; l++)
			first[l] = KEPT;
		for (size_t i = 0; !st && i < n; i++) {
			size_t r = order[i];
			uint32_t l = code[r];

			if (fold[r] == KEPT)
				ok[l] = 1;
			else if (first[l] == KEPT) {
				first[l] = fold[r];
				row[l] = r;
			} else if (fold[r] != first[l])
				ok[l] = 1;
		}
		for (size_t l = 0; !st && l < nl; l++) {
			if (ok[l] || first[l] == KEPT)
				continue;
			/* with every other run of its configuration: a run held
			 * out while its twin trains measures repetition */
			size_t before = *kept;

			for (size_t r = 0; r < n; r++)
				if (config[r] == config[row[l]] && fold[r] != KEPT) {
					fold[r] = KEPT;
					(*kept)++;
				}
			if (before == 0)
				snprintf(why, whysize, "level '%s' of %s has too few rows to be in "
					 "every fold's training rows", pm_dataset_level_name(d, cat[c], l),
					 pm_dataset_col_name(d, cat[c]));
		}
		free(first);
		free(row);
		free(ok);
	}
	return st;
}

/* Number the folds that hold rows out 0..nfolds-1 in their order; kept
 * rows get nfolds. */
static unsigned number_folds(unsigned *fold, size_t n, unsigned k, pm_error *err, pm_status *st)
{
	unsigned *to = malloc(((size_t)k + 1) * sizeof(*to)), nf = 0;

	if (!to) {
		*st = pm__fail(err, PM_ENOMEM, "out of memory");
		return 0;
	}
	for (unsigned f = 0; f < k; f++)
		to[f] = KEPT;
	for (size_t r = 0; r < n; r++)
		if (fold[r] != KEPT)
			to[fold[r]] = 0;
	for (unsigned f = 0; f < k; f++)
		if (to[f] == 0)
			to[f] = nf++;
	for (size_t r = 0; r < n; r++)
		fold[r] = fold[r] == KEPT ? nf : to[fold[r]];
	free(to);
	return nf;
}

static void names_of(const pm_dataset *d, const size_t *cat, size_t ncat, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t c = 0; c < ncat && len < size; c++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", c ? "," : "",
					pm_dataset_col_name(d, cat[c]));
}

static pm_status cross_folds(const pm_dataset *d, const pm_spec *s, const size_t *cat,
			     const uint32_t *codes, size_t ncat, const pm_validation *v,
			     pm_folds *out, pm_error *err)
{
	size_t n = out->nrows, nc = n;
	size_t *order = malloc(n * sizeof(*order) + 1), *config = malloc(n * sizeof(*config) + 1);
	unsigned k;
	char how[320], why[160] = "", by[128], runs[128] = "";
	pm_status st = PM_OK;

	if (!order || !config) {
		free(order);
		free(config);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	/* folds of configurations, not rows: n counts them from here */
	if ((st = pm__config_ids(d, s, config, &nc, err)))
		goto out;
	if (nc < n)
		snprintf(runs, sizeof(runs), " of %zu configurations (%zu rows; the runs of "
			 "one are held out together)", nc, n);
	n = nc;
	k = v->scheme == PM_SCHEME_KFOLD && v->folds <= n ? v->folds : (unsigned)n;
	if (v->scheme == PM_SCHEME_KFOLD && v->folds < 2)
		st = pm__fail(err, PM_EINVAL, "%u folds: cross-validation needs 2 or more", v->folds);
	else if (n < 2 && out->nrows >= 2)
		st = pm__fail(err, PM_EINVAL, "cross-validation needs 2 or more configurations: "
			      "no input varies over the %zu rows", out->nrows);
	else if (n < 2)
		st = pm__fail(err, PM_EINVAL, "cross-validation needs 2 or more rows (%zu)", n);
	else if (n > UINT_MAX - 1)
		st = pm__fail(err, PM_EINVAL, "%zu rows are too many to split", n);
	else if (v->scheme == PM_SCHEME_LOO || v->folds > n) {
		/* every configuration its own fold: no shuffle to draw */
		for (size_t r = 0; r < out->nrows; r++)
			out->fold[r] = (unsigned)config[order[r] = r];
		if (v->scheme == PM_SCHEME_LOO)
			snprintf(how, sizeof(how), "leave-one-out (%zu folds)%s", n, runs);
		else
			snprintf(how, sizeof(how), "leave-one-out (%zu %s are fewer than %u folds)%s",
				 n, runs[0] ? "configurations" : "rows", v->folds, runs);
	} else if (!(st = deal(d, cat, codes, ncat, k, v->seed, config, nc, out->fold, order,
			       err))) {
		names_of(d, cat, ncat, by, sizeof(by));
		snprintf(how, sizeof(how), "%u-fold cross-validation%s%s%s", k, runs,
			 ncat ? ", stratified by " : "", by);
	}
	if (!st)
		st = keep_rare_levels(d, cat, codes, ncat, order, config, out->fold, &out->kept, why,
				      sizeof(why), err);
	if (!st)
		out->nfolds = number_folds(out->fold, out->nrows, k, err, &st);
	if (!st && out->nfolds < 2)
		st = pm__fail(err, PM_EINVAL, "cross-validation cannot hold rows out: %s", why);
	if (!st && out->kept)
		snprintf(out->what, sizeof(out->what), "%s; %zu row%s never held out (%s)", how,
			 out->kept, out->kept == 1 ? "" : "s", why);
	else if (!st)
		snprintf(out->what, sizeof(out->what), "%s", how);
out:
	free(order);
	free(config);
	return st;
}

/* A level of the rows extrapolated to that no training row has: the model
 * could not predict it. */
static pm_status levels_trained(const pm_dataset *d, const size_t *cat, const uint32_t *codes, size_t ncat,
				const unsigned *fold, const pm_validation *v, const char *thr,
				pm_error *err)
{
	size_t n = pm_dataset_nrows(d);
	pm_status st = PM_OK;

	for (size_t c = 0; c < ncat && !st; c++) {
		size_t nl = pm_dataset_col_nlevels(d, cat[c]);
		const uint32_t *code = codes + c * n;
		unsigned char *seen = calloc(nl + 1, 1);

		if (!seen) {
			st = pm__fail(err, PM_ENOMEM, "out of memory");
			break;
		}
		for (size_t r = 0; r < n; r++)
			seen[code[r]] |= fold[r] == 1;
		for (size_t r = 0; r < n && !st; r++)
			if (!seen[code[r]])
				st = pm__fail(err, PM_EINVAL,
					      "extrapolation along %s: level '%s' of %s is only in rows "
					      "with %s > %s, which the model never sees; extrapolate "
					      "along another column, or leave those rows out",
					      v->column, pm_dataset_cell(d, r, cat[c]),
					      pm_dataset_col_name(d, cat[c]), v->column, thr);
		free(seen);
	}
	return st;
}

static pm_status extrapolation_folds(const pm_dataset *d, const size_t *cat, const uint32_t *codes, size_t ncat,
				     const pm_validation *v, pm_folds *out, pm_error *err)
{
	size_t n = out->nrows, col, nd = 0, ntrain = 0, ntv;
	double *x = malloc(n * sizeof(*x) + 1), *u = malloc(n * sizeof(*u) + 1);
	char thr[PM_NUM_MAX], lo[PM_NUM_MAX], hi[PM_NUM_MAX];
	pm_status st;

	if (!x || !u) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = pm_dataset_col_index(d, v->column, &col, err))) {
		pm__err_append(err, " to extrapolate along");
		goto out;
	}
	if (!pm_dataset_col_is_numeric(d, col)) {
		st = pm__fail(err, PM_ESCHEMA, "extrapolation along %s: the column is not numeric",
			      v->column);
		goto out;
	}
	if ((st = pm_dataset_col_numbers(d, col, x, err)))
		goto out;
	memcpy(u, x, n * sizeof(*x));
	qsort(u, n, sizeof(*u), pm__cmp_double);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || u[i] != u[nd - 1])
			u[nd++] = u[i];
	if (nd < 2) {
		st = pm__fail(err, PM_EINVAL, "extrapolation along %s needs two or more distinct "
			      "values; it has %zu", v->column, nd);
		goto out;
	}
	if (!(v->fraction > 0 && v->fraction < 1)) {
		st = pm__fail(err, PM_EINVAL, "extrapolate: the fraction trained on must be "
			      "between 0 and 1");
		goto out;
	}
	ntv = (size_t)floor(v->fraction * (double)nd + 0.5);
	ntv = ntv < 1 ? 1 : ntv > nd - 1 ? nd - 1 : ntv;
	/* fold 0 is measured; the rows of "fold 1" train and are never held out */
	for (size_t r = 0; r < n; r++) {
		out->fold[r] = x[r] <= u[ntv - 1];
		ntrain += out->fold[r];
	}
	pm__num_format(thr, u[ntv - 1]);
	if ((st = levels_trained(d, cat, codes, ncat, out->fold, v, thr, err)))
		goto out;
	out->nfolds = 1;
	out->kept = ntrain;
	pm__num_format(lo, u[ntv]);
	pm__num_format(hi, u[nd - 1]);
	snprintf(out->what, sizeof(out->what), "extrapolation along %s: fitted to values <= %s (%zu "
		 "of %zu values, %zu rows), measured on %s to %s (%zu rows)", v->column, thr, ntv, nd,
		 ntrain, lo, hi, n - ntrain);
out:
	free(x);
	free(u);
	return st;
}

pm_status pm_validation_folds(const pm_dataset *d, const pm_spec *s, const pm_validation *v,
			      pm_folds *out, pm_error *err)
{
	size_t *cat = NULL, ncat = 0;
	uint32_t *codes = NULL;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the folds");
	*out = (pm_folds){ 0 };
	if (!d || !v)
		return pm__fail(err, PM_EINVAL, "folds need data and a validation scheme");
	if (v->scheme != PM_SCHEME_KFOLD && v->scheme != PM_SCHEME_LOO &&
	    v->scheme != PM_SCHEME_EXTRAPOLATE)
		return pm__fail(err, PM_EINVAL, "no validation scheme to make folds by");
	out->nrows = pm_dataset_nrows(d);
	if (!(out->fold = malloc(out->nrows * sizeof(*out->fold) + 1)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if (!(st = categoricals(d, s, &cat, &codes, &ncat, err)))
		st = v->scheme == PM_SCHEME_EXTRAPOLATE
			     ? extrapolation_folds(d, cat, codes, ncat, v, out, err)
			     : cross_folds(d, s, cat, codes, ncat, v, out, err);
	free(cat);
	free(codes);
	if (st) {
		pm_folds_free(out);
		*out = (pm_folds){ 0 };
	}
	return st;
}
