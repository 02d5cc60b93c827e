/* The cost of the additive model on a CSV text, built the way the fit
 * builds it, for the tests of the cost (test_cost.c) and of its row blocks
 * (test_blocks.c). */
#ifndef PM_TEST_COST_FIXTURE_H
#define PM_TEST_COST_FIXTURE_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fit/cost.h"
#include "spec/spec_impl.h"

struct fixture {
	pm_dataset *d;
	pm_spec *s;
	pm_problem p;
	pm_model *m;
	pm_cost c;
	double *scratch;
};

/* The fixture on a CSV text (taken) with the given role columns, in that
 * order: intrinsic, categorical, extrinsic. */
static void setup_csv(struct fixture *f, pm_fit_options o, char *csv, const char *intr,
		      const char *cat, const char *ext)
{
	const char *names[16];
	pm_role role[16];
	size_t nlevels[16];
	const char *const *levels[16];

	memset(f, 0, sizeof(*f));
	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "syn.csv", &f->d, NULL), PM_OK);
	free(csv);
	cr_assert_eq(pm_spec_new(&f->s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(f->s, "time", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&f->s->intrinsic, intr, NULL), PM_OK);
	if (*cat)
		cr_assert_eq(pm_names_add_list(&f->s->categorical, cat, NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&f->s->extrinsic, ext, NULL), PM_OK);
	f->s->infer_roles = 0;
	cr_assert_eq(pm__problem_build(f->d, f->s, o.scale, o.loss, &f->p, NULL), PM_OK);
	cr_assert_leq(f->p.ncols, 16);
	for (size_t j = 0; j < f->p.ncols; j++) {
		names[j] = f->p.col[j].name;
		role[j] = f->p.col[j].role;
		nlevels[j] = f->p.col[j].ndistinct;
		levels[j] = (const char *const *)f->p.col[j].levels;
	}
	cr_assert_eq(pm__model_new("time", f->p.ncols, names, role, nlevels, levels, NULL,
				   &f->m, NULL),
		     PM_OK);
	cr_assert_eq(pm__cost_init(&f->c, &f->p, f->m, &o, NULL), PM_OK);
	f->scratch = malloc(f->c.scratch_bytes);
	cr_assert(f->scratch);
}

static void teardown(struct fixture *f)
{
	free(f->scratch);
	pm__cost_free(&f->c);
	pm_model_free(f->m);
	pm__problem_free(&f->p);
	pm_spec_free(f->s);
	pm_dataset_free(f->d);
}

#endif
