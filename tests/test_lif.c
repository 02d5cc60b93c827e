/* Load imbalance: eq. 3.8 by hand, eq. 3.9 on exact and on hand-solved data,
 * the degenerate regressions, the worker-column errors and LIF as a derived
 * column. */
#include <criterion/criterion.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"
#include "spec/spec_impl.h"

PM_LEAK_CHECKED_SUITE(lif);

static pm_dataset *parse(const char *csv)
{
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "w.csv", &d, &err), PM_OK, "%s",
		     err.msg);
	return d;
}

static pm_names names(char **v, size_t n)
{
	return (pm_names){ .n = n, .name = v };
}

static void close_to(double got, double want, double rel)
{
	cr_assert(fabs(got - want) <= rel * fabs(want), "got %.17g, want %.17g", got, want);
}

Test(lif, eq_3_8_by_hand)
{
	const double a[] = { 1, 2, 3 }, b[] = { 2, 2 }, c[] = { 0.25 }, z[] = { 0, 4 };
	double lif;

	cr_assert_eq(pm_lif_of(a, 3, &lif, NULL), PM_OK);
	cr_assert_eq(lif, 1.5);	/* 3 * 3 / 6 */
	cr_assert_eq(pm_lif_of(b, 2, &lif, NULL), PM_OK);
	cr_assert_eq(lif, 1.0);
	cr_assert_eq(pm_lif_of(c, 1, &lif, NULL), PM_OK);
	cr_assert_eq(lif, 1.0);
	cr_assert_eq(pm_lif_of(z, 2, &lif, NULL), PM_OK);
	cr_assert_eq(lif, 2.0);	/* one idle worker: the worst a pair can be */
}

Test(lif, eq_3_8_domain_errors)
{
	const double neg[] = { 1, -1 }, zero[] = { 0, 0 }, nan_[] = { 1, NAN };
	double lif = 7;
	pm_error err = { 0 };

	cr_assert_eq(pm_lif_of(neg, 2, &lif, &err), PM_EDOMAIN);
	cr_assert(strstr(err.msg, "-1"), "%s", err.msg);
	cr_assert_eq(pm_lif_of(zero, 2, &lif, &err), PM_EDOMAIN);
	cr_assert(strstr(err.msg, "undefined"), "%s", err.msg);
	cr_assert_eq(pm_lif_of(nan_, 2, &lif, &err), PM_EDOMAIN);
	cr_assert_eq(pm_lif_of(neg, 0, &lif, &err), PM_EDOMAIN);
	cr_assert_eq(lif, 7, "a failure must leave the output alone");
}

static const char rows_csv[] =
	"t1,t2,t3,g,n\n"
	"1,3,,a,4\n"	/* LIF 2*3/4 = 1.5 */
	"2,2,2,a,4\n"	/* 1 */
	"4,,,b,1\n";	/* one worker: 1 */

Test(lif, report_rows_and_groups)
{
	pm_dataset *d = parse(rows_csv);
	char *w[] = { "t*" }, *g[] = { "g" };
	pm_names wn = names(w, 1), gn = names(g, 1);
	pm_lif_report *r = NULL;
	pm_error err = { 0 };
	const pm_lif_options o = { .by = &gn };

	cr_assert_eq(pm_lif_report_new(d, &wn, &o, &r, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(r->nworkers, 3, "the glob takes t1, t2, t3");
	cr_assert_eq(r->nrows, 3);
	cr_assert_eq(r->lif[0], 1.5);
	cr_assert_eq(r->lif[1], 1.0);
	cr_assert_eq(r->lif[2], 1.0);
	cr_assert_eq(r->n[0], 2);
	cr_assert_eq(r->n[1], 3);
	cr_assert_eq(r->n[2], 1);
	cr_assert_eq(r->t[0], 3, "t defaults to the slowest worker");
	cr_assert_eq(r->t[2], 4);
	cr_assert_eq(r->ngroups, 2);
	cr_assert_eq(r->group[0].count, 2);
	cr_assert_eq(r->group[0].mean, 1.25);
	close_to(r->group[0].std, sqrt(0.125), 1e-15);	/* sample std of {1.5, 1} */
	cr_assert_eq(r->group[1].first_row, 2);
	cr_assert_eq(r->group[1].std, 0);
	pm_lif_report_free(r);
	pm_dataset_free(d);
}

Test(lif, report_n_col_time_col_and_default_groups)
{
	pm_dataset *d = parse(rows_csv);
	char *w[] = { "t1", "t2", "t3" };
	pm_names wn = names(w, 3);
	pm_lif_report *r = NULL;
	pm_error err = { 0 };
	const pm_lif_options o = { .n_col = "n", .time_col = "t1" };

	cr_assert_eq(pm_lif_report_new(d, &wn, &o, &r, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(r->n[0], 4);
	cr_assert_eq(r->lif[0], 1.5, "--n-col changes N of eq. 3.9, not the LIF");
	cr_assert_eq(r->t[1], 2);
	cr_assert_eq(r->ngroups, 2, "no configuration columns: grouped by N");
	cr_assert_eq(r->group[0].count, 2);
	pm_lif_report_free(r);
	pm_dataset_free(d);
}

/* The report's error for csv with worker columns t1,t2. */
static pm_error report_error_of(const char *csv, const char *n_col)
{
	pm_dataset *d = parse(csv);
	char *w[] = { "t1", "t2" };
	pm_names wn = names(w, 2);
	pm_lif_report *r = (pm_lif_report *)1;
	pm_error err = { 0 };
	const pm_lif_options o = { .n_col = n_col };

	cr_assert_neq(pm_lif_report_new(d, &wn, &o, &r, &err), PM_OK);
	cr_assert_null(r);
	pm_dataset_free(d);
	return err;
}

Test(lif, bad_worker_cells_are_placed)
{
	pm_error e;

	e = report_error_of("t1,t2\n1,2\n1,-2\n", NULL);
	cr_assert_eq(e.code, PM_ESCHEMA);
	cr_assert_str_eq(e.file, "w.csv");
	cr_assert_eq(e.line, 3);
	cr_assert_eq(e.column, 3);
	cr_assert(strstr(e.msg, "negative"), "%s", e.msg);

	e = report_error_of("t1,t2\nfast,2\n", NULL);
	cr_assert_eq(e.code, PM_ESCHEMA);
	cr_assert_eq(e.line, 2);
	cr_assert_eq(e.column, 1);
	cr_assert(strstr(e.msg, "'fast' is not a number"), "%s", e.msg);

	e = report_error_of("t1,t2\n1,2\n,\n", NULL);
	cr_assert_eq(e.code, PM_EDOMAIN);
	cr_assert_eq(e.line, 3);
	cr_assert(strstr(e.msg, "no worker time"), "%s", e.msg);

	e = report_error_of("t1,t2\n0,0\n", NULL);
	cr_assert_eq(e.code, PM_EDOMAIN);
	cr_assert(strstr(e.msg, "is 0"), "%s", e.msg);

	e = report_error_of("t1,t2,n\n1,2,1.5\n", "n");
	cr_assert_eq(e.code, PM_ESCHEMA);
	cr_assert_eq(e.column, 5);
	cr_assert(strstr(e.msg, "whole number of workers"), "%s", e.msg);
}

Test(lif, worker_columns_errors_and_dedup)
{
	pm_dataset *d = parse(rows_csv);
	char *none[] = { "x_*" }, *missing[] = { "t9" }, *twice[] = { "t1", "t?" };
	pm_names a = names(none, 1), b = names(missing, 1), c = names(twice, 2), e = { 0 };
	size_t *cols = NULL, n = 0;
	pm_error err = { 0 };

	cr_assert_eq(pm_lif_worker_columns(d, &a, &cols, &n, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "'x_*' matches no column"), "%s", err.msg);
	cr_assert_eq(pm_lif_worker_columns(d, &b, &cols, &n, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "t9"), "%s", err.msg);
	cr_assert_eq(pm_lif_worker_columns(d, &e, &cols, &n, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "--workers"), "%s", err.msg);
	cr_assert_null(cols);
	cr_assert_eq(pm_lif_worker_columns(d, &c, &cols, &n, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(n, 3, "t1 is listed and matched, but counted once");
	cr_assert_eq(cols[0], 0);
	cr_assert_eq(cols[1], 1);
	cr_assert_eq(cols[2], 2);
	free(cols);
	pm_dataset_free(d);
}

Test(lif, eq_3_9_exact_linear_relation)
{
	/* t = 0.5 + 0.25 N + 2 LIF exactly: the fit must find it with R^2 = 1 */
	double n[8], lif[8], t[8];
	pm_lif_regression g;
	pm_error err = { 0 };

	for (int k = 0; k < 8; k++) {
		n[k] = 1 + k % 4;
		lif[k] = 1 + 0.05 * (k * k % 7);
		t[k] = 0.5 + 0.25 * n[k] + 2 * lif[k];
	}
	cr_assert_eq(pm_lif_regress(n, lif, t, 8, &g, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(g.rows, 8);
	cr_assert(fabs(g.beta[0] - 0.5) < 1e-12, "%.17g", g.beta[0]);
	cr_assert(fabs(g.beta[1] - 0.25) < 1e-12, "%.17g", g.beta[1]);
	cr_assert(fabs(g.beta[2] - 2) < 1e-12, "%.17g", g.beta[2]);
	cr_assert(fabs(g.r2 - 1) < 1e-12, "%.17g", g.r2);
	for (int j = 0; j < 3; j++)
		cr_assert(g.se[j] < 1e-10, "se[%d] = %g", j, g.se[j]);
}

Test(lif, eq_3_9_matches_an_exact_rational_solution)
{
	/* expected values: the normal equations solved in exact rational
	 * arithmetic (Python fractions), then rounded once to double */
	const double n[] = { 1, 1, 2, 2, 3, 3 }, lif[] = { 1, 1.2, 1, 1.3, 1.1, 1.5 };
	const double t[] = { 2, 2.5, 3, 3.7, 4, 5.2 };
	const double beta[] = { -1.601685393258427, 0.9053370786516854, 2.696629213483146 };
	const double se[] = { 0.21973977792786495, 0.044657032094702634, 0.20580515824735057 };
	pm_lif_regression g;
	pm_error err = { 0 };

	cr_assert_eq(pm_lif_regress(n, lif, t, 6, &g, &err), PM_OK, "%s", err.msg);
	for (int j = 0; j < 3; j++) {
		close_to(g.beta[j], beta[j], 1e-12);
		close_to(g.se[j], se[j], 1e-10);
	}
	close_to(g.r2, 0.9971528225669575, 1e-12);
	close_to(g.ss_res, 0.01884831460674157, 1e-9);
	close_to(g.ss_tot, 6.62, 1e-12);
	close_to(g.adj_r2, 1 - (1 - g.r2) * 5 / 3, 1e-15);
}

/* The message of a failed eq. 3.9, after checking nothing was written. */
static pm_error regress_fails(const double *n, const double *lif, const double *t, size_t rows,
			      pm_status want)
{
	pm_lif_regression g = { .r2 = 42 };
	pm_error err = { 0 };

	cr_assert_eq(pm_lif_regress(n, lif, t, rows, &g, &err), want, "%s", err.msg);
	cr_assert_eq(g.r2, 42, "no NaN or half result on failure");
	return err;
}

Test(lif, eq_3_9_degenerate_cases_say_why)
{
	const double same_n[] = { 2, 2, 2, 2 }, n[] = { 1, 2, 3, 4 };
	const double lif[] = { 1, 1.1, 1.3, 1.2 }, flat[] = { 1, 1, 1, 1 };
	const double line[] = { 1.1, 1.2, 1.3, 1.4 };	/* 1 + 0.1 N */
	const double t[] = { 1, 2, 3, 5 }, tflat[] = { 3, 3, 3, 3 };
	pm_error e;

	e = regress_fails(same_n, lif, t, 4, PM_EDOMAIN);
	cr_assert(strstr(e.msg, "b1 (N_g) is not identifiable"), "%s", e.msg);
	cr_assert(strstr(e.msg, "N_g = 2"), "%s", e.msg);
	e = regress_fails(n, flat, t, 4, PM_EDOMAIN);
	cr_assert(strstr(e.msg, "b2 (LIF) is not identifiable"), "%s", e.msg);
	e = regress_fails(n, line, t, 4, PM_EDOMAIN);
	cr_assert(strstr(e.msg, "collinear"), "%s", e.msg);
	e = regress_fails(n, lif, tflat, 4, PM_EDOMAIN);
	cr_assert(strstr(e.msg, "R^2 is undefined"), "%s", e.msg);
	e = regress_fails(n, lif, t, 3, PM_EINVAL);
	cr_assert(strstr(e.msg, "at least 4 rows"), "%s", e.msg);
}

Test(lif, derived_column_for_fit)
{
	pm_dataset *d = parse(rows_csv), *x = NULL;
	pm_spec *s = NULL;
	pm_error err = { 0 };
	size_t col;
	double v;

	cr_assert_eq(pm_spec_new(&s, &err), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "n", &err), PM_OK);
	cr_assert_eq(pm_spec_derive_lif(s, d, &x, &err), PM_OK);
	cr_assert_null(x, "another target: nothing to derive");

	cr_assert_eq(pm_spec_set_target(s, PM_LIF_COLUMN, &err), PM_OK);
	cr_assert_eq(pm_spec_derive_lif(s, d, &x, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "--workers"), "%s", err.msg);

	cr_assert_eq(pm_names_add_list(&s->workers, "t*", &err), PM_OK);
	cr_assert_eq(pm_spec_derive_lif(s, d, &x, &err), PM_OK, "%s", err.msg);
	cr_assert_not_null(x);
	cr_assert_eq(pm_dataset_ncols(x), pm_dataset_ncols(d) + 1);
	cr_assert_eq(pm_dataset_col_index(x, "lif", &col, &err), PM_OK);
	cr_assert_eq(pm_dataset_number(x, 0, col, &v, &err), PM_OK);
	cr_assert_eq(v, 1.5);
	cr_assert_eq(pm_dataset_cell_line(x, 2, col), 4, "placed on its row");
	cr_assert_str_eq(pm_dataset_cell(x, 1, 3), "a", "the other cells are kept");
	cr_assert_eq(s->workers.n, 3, "the glob is replaced by the columns it matched");
	cr_assert_str_eq(s->workers.name[2], "t3");
	cr_assert_eq(pm_spec_resolve(s, x, &err), PM_OK, "%s", err.msg);
	pm_dataset_free(x);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* fit --target lif, then eval on the raw data: the model recorded its worker
 * columns, survives a save and load, and derives the same column again. */
Test(lif, model_derives_its_target_from_new_data)
{
	static const char csv[] =
		"h,n,t1,t2\n"
		"1,1,1.0,\n" "2,1,2.1,\n" "4,1,3.9,\n" "8,1,8.2,\n"
		"1,2,0.6,0.5\n" "2,2,1.2,1.0\n" "4,2,2.0,2.6\n" "8,2,4.4,4.0\n";
	pm_dataset *d = parse(csv), *x = NULL, *y = NULL;
	pm_spec *s = NULL;
	pm_model *m = NULL, *back = NULL;
	pm_fit_options o = pm_fit_options_default();
	pm_metrics got;
	pm_error err = { 0 };
	char *json = NULL;

	o.maxiter = 30;
	o.threads = 1;
	cr_assert_eq(pm_spec_new(&s, &err), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, PM_LIF_COLUMN, &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->intrinsic, "h", &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->extrinsic, "n", &err), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->workers, "t*", &err), PM_OK);
	cr_assert_eq(pm_spec_derive_lif(s, d, &x, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_fit(x, s, &o, &m, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_to_json(m, &json, &err), PM_OK);
	cr_assert(strstr(json, "\"workers\": [\n    \"t1\",\n    \"t2\"\n  ]"), "%s", json);
	cr_assert_eq(pm_model_load_string(json, "m.json", &back, &err), PM_OK, "%s", err.msg);

	cr_assert_eq(pm_model_derive_lif(back, d, &y, &err), PM_OK, "%s", err.msg);
	cr_assert_not_null(y, "d has no lif column: derived");
	for (size_t r = 0; r < pm_dataset_nrows(d); r++)
		cr_assert_str_eq(pm_dataset_cell(y, r, 4), pm_dataset_cell(x, r, 4));
	cr_assert_eq(pm_model_evaluate(back, y, &got, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(got.mape, pm_model_fit_info(m)->training.mape, "eval = the fit's accuracy");
	pm_dataset_free(y);

	cr_assert_eq(pm_model_derive_lif(back, x, &y, &err), PM_OK);
	cr_assert_null(y, "the data has the column: kept as it is");
	pm_dataset_free(d);
	d = parse("h,n,t1\n1,1,1.0\n");
	cr_assert_eq(pm_model_derive_lif(back, d, &y, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "t2"), "names the missing worker column: %s", err.msg);
	cr_assert_null(y);
	free(json);
	pm_model_free(back);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(x);
	pm_dataset_free(d);
}

Test(lif, model_of_a_measured_target_derives_nothing)
{
	pm_dataset *d = parse(rows_csv), *y = (pm_dataset *)1;
	pm_model *m = NULL;
	pm_error err = { 0 };
	static const char model[] =
		"{\"format\": \"perfmodel-model\", \"version\": 1, \"form\": \"additive\","
		" \"target\": \"n\", \"scale\": \"none\", \"target_scale\": 1,"
		" \"inputs\": [], \"parameters\": [{\"name\": \"C\", \"kind\": \"constant\","
		" \"value\": 1, \"scaled\": 1, \"std\": null, \"bounds\": [0, 1000]}]}";

	cr_assert_eq(pm_model_load_string(model, "m.json", &m, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_derive_lif(m, d, &y, &err), PM_OK);
	cr_assert_null(y);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* lif --json to the byte: a record per line, the regression's members, or
 * null and why; names and cells escaped. */
Test(lif, json_document)
{
	pm_dataset *d = parse("t1,t2,t3,\"g\"\"\xc3\xa9\",n\n"
			      "1,3,,\"a\tb\",4\n"
			      "2,2,2,\"a\tb\",4\n"
			      "4,,,b,1\n");
	char *w[] = { "t*" }, *g[] = { "g\"\xc3\xa9" };
	pm_names wn = names(w, 1), gn = names(g, 1);
	pm_lif_report *r = NULL;
	pm_error err = { 0 };
	const pm_lif_options o = { .by = &gn };
	const pm_lif_regression reg = { .rows = 4, .beta = { 1, 2, 3 }, .se = { 0.5, 0.25, NAN },
					.ss_res = 1, .ss_tot = 2, .r2 = 0.5, .adj_r2 = -1e-300 };
	char *doc = NULL;

	cr_assert_eq(pm_lif_report_new(d, &wn, &o, &r, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_lif_report_to_json(d, r, NULL, &reg, NULL, &doc, &err), PM_OK, "%s",
		     err.msg);
	cr_assert_str_eq(doc,
		"{\"file\": \"w.csv\", \"workers\": [\"t1\", \"t2\", \"t3\"], \"t\": null,\n"
		" \"rows\": [{\"line\": 2, \"n\": 2, \"lif\": 1.5, \"t\": 3},\n"
		"  {\"line\": 3, \"n\": 3, \"lif\": 1, \"t\": 2},\n"
		"  {\"line\": 4, \"n\": 1, \"lif\": 1, \"t\": 4}],\n"
		" \"groups\": [{\"config\": {\"g\\\"\xc3\xa9\": \"a\\tb\"}, \"count\": 2, "
		"\"mean\": 1.25, \"std\": 0.3535533905932738},\n"
		"  {\"config\": {\"g\\\"\xc3\xa9\": \"b\"}, \"count\": 1, \"mean\": 1, "
		"\"std\": 0}],\n"
		" \"regression\": {\"rows\": 4, \"beta\": [1, 2, 3], \"se\": [0.5, 0.25, null], "
		"\"r2\": 0.5, \"adj_r2\": -1e-300, \"ss_res\": 1, \"ss_tot\": 2}}\n",
		"got:\n%s", doc);
	free(doc);
	pm_lif_report_free(r);

	/* no configuration columns: groups by N; eq. 3.9 failed */
	cr_assert_eq(pm_lif_report_new(d, &wn, &(pm_lif_options){ .time_col = "t1" }, &r, &err),
		     PM_OK, "%s", err.msg);
	cr_assert_eq(pm_lif_report_to_json(d, r, "t1", NULL, "b1 \"N\" fails", &doc, &err), PM_OK,
		     "%s", err.msg);
	cr_assert_str_eq(doc,
		"{\"file\": \"w.csv\", \"workers\": [\"t1\", \"t2\", \"t3\"], \"t\": \"t1\",\n"
		" \"rows\": [{\"line\": 2, \"n\": 2, \"lif\": 1.5, \"t\": 1},\n"
		"  {\"line\": 3, \"n\": 3, \"lif\": 1, \"t\": 2},\n"
		"  {\"line\": 4, \"n\": 1, \"lif\": 1, \"t\": 4}],\n"
		" \"groups\": [{\"config\": {\"n\": 2}, \"count\": 1, \"mean\": 1.5, \"std\": 0},\n"
		"  {\"config\": {\"n\": 3}, \"count\": 1, \"mean\": 1, \"std\": 0},\n"
		"  {\"config\": {\"n\": 1}, \"count\": 1, \"mean\": 1, \"std\": 0}],\n"
		" \"regression\": null, \"regression_error\": \"b1 \\\"N\\\" fails\"}\n",
		"got:\n%s", doc);
	free(doc);

	doc = (char *)r;
	cr_assert_eq(pm_lif_report_to_json(NULL, r, NULL, NULL, NULL, &doc, &err), PM_EINVAL);
	cr_assert_null(doc);
	cr_assert_str_eq(err.msg, "no dataset or report");
	cr_assert_eq(pm_lif_report_to_json(d, NULL, NULL, NULL, NULL, &doc, NULL), PM_EINVAL);
	cr_assert_eq(pm_lif_report_to_json(d, r, NULL, NULL, NULL, NULL, &err), PM_EINVAL);
	pm_lif_report_free(r);
	pm_dataset_free(d);
}

/* The guard (tests/gsl_guard.c) is in place: GSL's handler fails the test
 * that reaches it. Reached here on purpose, in a child, to see it can. */
Test(lif, gsl_error_handler_fails_the_test_that_reaches_it, .signal = SIGABRT)
{
	double a[2] = { 1, 2 }, v[4], s[2], w[2];
	gsl_matrix_view A = gsl_matrix_view_array(a, 1, 2), V = gsl_matrix_view_array(v, 2, 2);
	gsl_vector_view S = gsl_vector_view_array(s, 2), W = gsl_vector_view_array(w, 2);

	/* GSL_EUNIMPL: "svd of MxN matrix, M<N, is not implemented" */
	gsl_linalg_SV_decomp(&A.matrix, &V.matrix, &S.vector, &W.vector);
}
