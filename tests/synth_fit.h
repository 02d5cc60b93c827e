/* The synthetic data of synth.h as a dataset and a spec, for fit tests. */
#ifndef PM_TEST_SYNTH_FIT_H
#define PM_TEST_SYNTH_FIT_H

#include <criterion/criterion.h>
#include <string.h>

#include "perfmodel/perfmodel.h"
#include "synth.h"

static pm_dataset *syn_dataset(size_t n, double noise, uint64_t seed)
{
	char *csv = syn_csv(n, noise, seed);
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "syn.csv", &d, &err), PM_OK, "%s",
		     err.msg);
	free(csv);
	return d;
}

/* k, f, h numeric intrinsic; act, opt categorical; threads, batch extrinsic. */
static pm_spec *syn_spec(void)
{
	pm_spec *s = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_new(&s, &err), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->intrinsic, "k,f,h", &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->categorical, "act,opt", &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->extrinsic, "threads,batch", &err), PM_OK);
	s->infer_roles = 0;
	return s;
}

/* pm_fit_seeds of syn_spec() on d (nseeds 1: pm_fit), short: maxiter
 * generations on one thread. inline: not every test that includes this uses it. */
static inline pm_model *syn_fit(const pm_dataset *d, unsigned nseeds, unsigned maxiter)
{
	pm_spec *s = syn_spec();
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error err = { 0 };

	o.maxiter = maxiter;
	o.threads = 1;
	cr_assert_eq(pm_fit_seeds(d, s, &o, nseeds, &m, &err), PM_OK, "%s", err.msg);
	pm_spec_free(s);
	return m;
}

#endif
