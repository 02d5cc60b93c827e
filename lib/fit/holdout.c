/* Held-out accuracy (thesis §4.2: 1000 rows fitted, 500 held out). */
#include "fit/holdout.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "model/model_impl.h"

/* The rows of d split by o's fraction and seed, as two new datasets. */
static pm_status split(const pm_dataset *d, const pm_fit_options *o, pm_dataset **train,
		       pm_dataset **test, pm_error *err)
{
	size_t *tr = NULL, *te = NULL, ntr, nte;
	pm_status st;

	if (!(st = pm_split_rows(pm_dataset_nrows(d), o->test_fraction, o->split_seed, &tr, &ntr,
				 &te, &nte, err)) &&
	    !(st = pm_dataset_subset(d, tr, ntr, train, err)))
		st = pm_dataset_subset(d, te, nte, test, err);
	free(tr);
	free(te);
	return st;
}

pm_status pm__fit_holdout(const pm_dataset *d, const pm_spec *s, const pm_fit_options *o,
			  pm_model **out, pm_error *err)
{
	pm_fit_options inner = *o;
	pm_dataset *train = NULL, *test = NULL;
	const pm_dataset *fit_rows = d, *test_rows = o->test;
	pm_model *m = NULL;
	pm_status st;

	*out = NULL;
	if (o->test && o->test_fraction > 0)
		return pm__fail(err, PM_EINVAL, "a test fraction and a test file exclude each other");
	if (o->test_fraction > 0) {
		if ((st = split(d, o, &train, &test, err)))
			goto out;
		fit_rows = train;
		test_rows = test;
	}
	inner.test_fraction = 0;
	inner.test = NULL;
	if ((st = pm_fit(fit_rows, s, &inner, &m, err)) ||
	    (st = pm_model_evaluate(m, test_rows, &m->info.test, err)))
		goto out;
	m->info.options.test_fraction = o->test_fraction;
	m->info.options.split_seed = o->split_seed;
	snprintf(m->info.test_name, sizeof(m->info.test_name), "%s", pm_dataset_name(test_rows));
	pm_dataset_fingerprint(d, m->info.fingerprint);
	*out = m;
	m = NULL;
out:
	pm_model_free(m);
	pm_dataset_free(train);
	pm_dataset_free(test);
	return st;
}
