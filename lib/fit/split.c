/* Splitting rows: a seeded train/test split and seeded K-fold assignment,
 * and the folds as subsets of a dataset (pm_dataset_subset, lib/data/dataset_derive.c) (thesis §4.2: fit on some rows, measure on the others). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/error.h"
#include "fit/holdout.h"
#include "core/pcg32.h"

/* DE seeds member i with stream i (i < 2^32), and the split usually shares
 * the fit's seed: streams far above those keep the shuffles independent of
 * every member's draws. */
#define SPLIT_STREAM UINT64_C(0x73706c6974000000)	/* "split" */
#define KFOLD_STREAM UINT64_C(0x6b666f6c64000000)	/* "kfold" */

/* perm[0..n) = a uniform random permutation of 0..n-1 (Fisher-Yates);
 * only its first `len` entries are drawn, which is all a split needs. */
static void shuffle(size_t *perm, size_t n, size_t len, pm_pcg32 *rng)
{
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = 0; i < len && i + 1 < n; i++) {
		size_t j = i + pm__pcg32_below(rng, (uint32_t)(n - i));
		size_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
}

pm_status pm_split_rows(size_t nrows, double test_fraction, uint64_t seed, size_t **train,
			size_t *ntrain, size_t **test, size_t *ntest, pm_error *err)
{
	size_t nt, *perm, *tr, *te, a = 0, b = 0;
	unsigned char *is_test;
	pm_pcg32 rng;

	if (!train || !ntrain || !test || !ntest)
		return pm__fail(err, PM_EINVAL, "no place for the split");
	*train = *test = NULL;
	*ntrain = *ntest = 0;
	if (!(test_fraction > 0.0 && test_fraction < 1.0))
		return pm__fail(err, PM_EINVAL, "test fraction %g is not between 0 and 1",
				test_fraction);
	if (nrows > UINT32_MAX)
		return pm__fail(err, PM_EINVAL, "%zu rows are too many to split", nrows);
	nt = (size_t)floor(test_fraction * (double)nrows + 0.5);
	if (nt == 0 || nt >= nrows)
		return pm__fail(err, PM_EINVAL,
				"a test fraction of %g of %zu rows leaves %s empty",
				test_fraction, nrows, nt == 0 ? "the test set" : "no training rows");
	perm = malloc(nrows * sizeof(*perm));
	is_test = calloc(nrows, 1);
	tr = malloc((nrows - nt) * sizeof(*tr));
	te = malloc(nt * sizeof(*te));
	if (!perm || !is_test || !tr || !te) {
		free(perm);
		free(is_test);
		free(tr);
		free(te);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	pm__pcg32_seed(&rng, seed, SPLIT_STREAM);
	shuffle(perm, nrows, nt, &rng);
	for (size_t i = 0; i < nt; i++)
		is_test[perm[i]] = 1;
	/* ascending lists whatever the shuffle's order, so that a subset keeps
	 * the file's row order */
	for (size_t r = 0; r < nrows; r++) {
		if (is_test[r])
			te[b++] = r;
		else
			tr[a++] = r;
	}
	free(perm);
	free(is_test);
	*train = tr;
	*ntrain = a;
	*test = te;
	*ntest = b;
	return PM_OK;
}

pm_status pm__fold_subsets(const pm_dataset *d, const unsigned *fold, unsigned f,
			   pm_dataset **train, pm_dataset **test, pm_error *err)
{
	size_t n = pm_dataset_nrows(d), ntrain = 0, ntest = 0;
	size_t *rows = malloc(n * sizeof(*rows) + 1);
	pm_status st;

	*train = *test = NULL;
	if (!rows)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	/* training rows first, held-out rows after them, both in file order */
	for (size_t r = 0; r < n; r++)
		if (fold[r] != f)
			rows[ntrain++] = r;
	for (size_t r = 0; r < n; r++)
		if (fold[r] == f)
			rows[ntrain + ntest++] = r;
	if ((st = pm_dataset_subset(d, rows, ntrain, train, err)) ||
	    (st = pm_dataset_subset(d, rows + ntrain, ntest, test, err))) {
		pm_dataset_free(*train);
		*train = NULL;
	}
	free(rows);
	return st;
}

pm_status pm__kfold_order(size_t nrows, uint64_t seed, size_t **perm, pm_error *err)
{
	pm_pcg32 rng;

	if (nrows > UINT32_MAX)
		return pm__fail(err, PM_EINVAL, "%zu rows are too many to split", nrows);
	if (!(*perm = malloc(nrows * sizeof(**perm) + 1)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	pm__pcg32_seed(&rng, seed, KFOLD_STREAM);
	shuffle(*perm, nrows, nrows, &rng);
	return PM_OK;
}

pm_status pm_kfold_assign(size_t nrows, unsigned k, uint64_t seed, unsigned *fold,
			  pm_error *err)
{
	size_t *perm;
	pm_status st;

	if (!fold)
		return pm__fail(err, PM_EINVAL, "no place for the folds");
	if (k < 2 || k > nrows)
		return pm__fail(err, PM_EINVAL, "%u folds need 2 <= folds <= rows (%zu rows)", k,
				nrows);
	if ((st = pm__kfold_order(nrows, seed, &perm, err)))
		return st;
	/* dealing the shuffled rows round-robin makes sizes differ by at most 1 */
	for (size_t i = 0; i < nrows; i++)
		fold[perm[i]] = (unsigned)(i % k);
	free(perm);
	return PM_OK;
}
