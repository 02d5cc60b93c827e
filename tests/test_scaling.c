#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "model/model_impl.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(scaling);

static pm_model *quick_fit(const pm_dataset *d)
{
	return syn_fit(d, 1, 30);
}

/* The report of m with C and q_threads set (scaled values; a power is not
 * scaled). */
static pm_scaling_report *report_with(pm_model *m, const pm_dataset *d, double c, double q)
{
	pm_scaling_report *r = NULL;
	pm_error err = { 0 };

	m->value[m->nparams - 1] = c;
	for (size_t k = 0; k < m->nparams; k++)
		if (!strcmp(pm_model_param_name(m, k), "q_threads"))
			m->value[k] = q;
	pm__model_raw(m);
	cr_assert_eq(pm_scaling_report_new(m, d, &r, &err), PM_OK, "%s", err.msg);
	return r;
}

Test(scaling, report_follows_the_model)
{
	pm_dataset *d = syn_dataset(200, 0.05, 41);
	pm_model *m = quick_fit(d);
	/* with C = 0, t = I * E^q exactly: speedup = (E/E0)^-q */
	pm_scaling_report *r = report_with(m, d, 0.0, -0.7);
	size_t ith = 0;

	cr_assert_eq(r->n, 2);
	while (strcmp(pm_model_input_name(m, ith), "threads"))
		ith++;
	const pm_scaling *s = &r->scaling[0];
	cr_assert_eq(s->input, ith);
	cr_assert_eq(s->npoints, 4, "threads 1, 2, 4, 8");
	cr_assert_eq(s->q, pm_model_param_value(m, s->param));
	cr_assert_eq(pm_model_param_kind(m, s->param), PM_PARAM_SCALING);
	cr_assert_float_eq(s->doubling, pow(2, s->q), 1e-15);
	for (size_t k = 0; k < s->npoints; k++) {
		double v = s->value[k], want = pow(v / s->value[0], -s->q);

		cr_assert_eq(v, (double)(1u << k));
		cr_assert_float_eq(s->speedup[k], want, 1e-12 * want);
		cr_assert_float_eq(s->efficiency[k], want / v, 1e-12 * want);
	}
	/* baseline: medians of the numbers; threads = 1, 2, 4, 8 in equal parts
	 * roughly, so its median is one of them or a midpoint */
	cr_assert(r->baseline[ith] >= 1 && r->baseline[ith] <= 8);
	pm_scaling_report_free(r);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(scaling, constant_holds_speedup_below_the_power_law)
{
	pm_dataset *d = syn_dataset(200, 0, 42);
	pm_model *m = quick_fit(d);
	pm_scaling_report *r = report_with(m, d, 1.0, -0.8);	/* a large C */
	const pm_scaling *s = &r->scaling[0];
	double t0 = s->time[0];

	cr_assert_eq(s->q, -0.8);
	for (size_t k = 1; k < s->npoints; k++) {
		cr_assert_lt(s->speedup[k], pow(s->value[k], -s->q));
		cr_assert_float_eq(s->speedup[k], t0 / s->time[k], 1e-15);
	}
	pm_scaling_report_free(r);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(scaling, categorical_baseline_is_the_most_frequent_level_and_json)
{
	pm_dataset *d = syn_dataset(200, 0, 43);
	pm_model *m = quick_fit(d);
	pm_scaling_report *r = NULL;
	pm_error err = { 0 };
	size_t ia = 0, c, count[3] = { 0 }, best = 0;
	char *json = NULL;

	cr_assert_eq(pm_scaling_report_new(m, d, &r, &err), PM_OK, "%s", err.msg);
	while (strcmp(pm_model_input_name(m, ia), "act"))
		ia++;
	cr_assert_eq(pm_dataset_col_index(d, "act", &c, NULL), PM_OK);
	for (size_t row = 0; row < pm_dataset_nrows(d); row++) {
		size_t v;

		cr_assert_eq(pm_model_level_index(m, ia, pm_dataset_cell(d, row, c), &v, NULL), PM_OK);
		count[v]++;
	}
	for (size_t v = 1; v < 3; v++)
		best = count[v] > count[best] ? v : best;
	cr_assert_eq(r->baseline[ia], (double)best);
	cr_assert_eq(pm_fit_report_to_json(m, r, &json, &err), PM_OK, "%s", err.msg);
	cr_assert_not_null(strstr(json, "\"scaling\": ["));
	cr_assert_not_null(strstr(json, "\"format\": \"perfmodel-model\""));
	free(json);
	pm_scaling_report_free(r);
	pm_model_free(m);
	pm_dataset_free(d);
}
