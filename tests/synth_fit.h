/* The synthetic data of synth.h as a dataset and a spec, for fit tests. */
#ifndef PM_TEST_SYNTH_FIT_H
#define PM_TEST_SYNTH_FIT_H

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "perfmodel/perfmodel.h"
#include "spec/spec_impl.h"
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

/* syn_spec() fitted to d with o, which must succeed: pm_fit_seeds with
 * nseeds seeds, and for nseeds 1 pm_fit itself, which the fit tests test.
 * inline: not every test that includes this uses it. */
static inline pm_model *syn_fit_with(const pm_dataset *d, pm_fit_options o, unsigned nseeds)
{
	pm_spec *s = syn_spec();
	pm_model *m = NULL;
	pm_error err = { 0 };
	pm_status st = nseeds == 1 ? pm_fit(d, s, &o, &m, &err)
				   : pm_fit_seeds(d, s, &o, nseeds, &m, &err);

	cr_assert_eq(st, PM_OK, "%s", err.msg);
	pm_spec_free(s);
	return m;
}

/* syn_fit_with, short: maxiter generations on one thread. */
static inline pm_model *syn_fit(const pm_dataset *d, unsigned nseeds, unsigned maxiter)
{
	pm_fit_options o = pm_fit_options_default();

	o.maxiter = maxiter;
	o.threads = 1;
	return syn_fit_with(d, o, nseeds);
}

/* m written as model.json and read back: the model read, and in *json
 * (the caller frees it) the text. */
static inline pm_model *json_round_trip(const pm_model *m, char **json)
{
	pm_model *back = NULL;
	pm_error err = { 0 };

	*json = NULL;
	cr_assert_eq(pm_model_to_json(m, json, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_load_string(*json, "m.json", &back, &err), PM_OK, "%s", err.msg);
	return back;
}

/* Scaling columns alone (issue 20): threads 1, 2, ... max_threads by
 * doubling times nodes 1, 2, 4, and a time 10·threads^-0.8·nodes^-0.5 + 0.5,
 * or with flat 2.5 in every row (a time that depends on nothing). */
static inline pm_dataset *scaling_dataset(int max_threads, int flat)
{
	char csv[4096];
	size_t len = (size_t)snprintf(csv, sizeof(csv), "threads,nodes,time\n");
	pm_dataset *d = NULL;

	for (int t = 1; t <= max_threads; t *= 2)
		for (int n = 1; n <= 4; n *= 2)
			len += (size_t)pm_snprintf(csv + len, sizeof(csv) - len, "%d,%d,%.17g\n", t, n,
						   flat ? 2.5 : 10 * pow(t, -0.8) * pow(n, -0.5) + 0.5);
	cr_assert_eq(pm_dataset_parse_csv(csv, len, "scaling.csv", &d, NULL), PM_OK);
	return d;
}

/* Target time, the given extrinsic columns and no other: intrinsic "". */
static inline pm_spec *scaling_spec(const char *extrinsic)
{
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_EXTRINSIC, extrinsic, NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, "", NULL), PM_OK);
	return s;
}

#endif
