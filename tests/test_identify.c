/* The identifiability checks before the fit (lib/fit/identify.c),
 * pm_spec_ignore and the spec file's "ignore": each finding is a warning
 * naming its columns; --ignore takes a column out. Small tables: 24 rows
 * over a 4 × 3 grid of x and y. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(identify);

/* x, y on a grid; z = x*y; w = 2x; c constant; k: level "b" in rare_b
 * rows, else "a"; t grows with x and y. */
static pm_dataset *grid(int rare_b)
{
	char csv[2048];
	size_t n = (size_t)snprintf(csv, sizeof(csv), "x,y,z,w,c,k,t\n");
	pm_dataset *d = NULL;

	for (int i = 0; i < 24; i++) {
		int x = 1 << (i % 4), y = (int[]){ 1, 3, 9 }[(i / 4) % 3];
		const char *k = rare_b ? (i >= 24 - rare_b ? "b" : "a") : (i % 2 ? "a" : "b");

		n += (size_t)snprintf(csv + n, sizeof(csv) - n, "%d,%d,%d,%d,4,%s,%g\n", x, y,
				      x * y, 2 * x, k, 0.5 * x * y + 1 + 0.01 * i);
	}
	cr_assert_eq(pm_dataset_parse_csv(csv, n, "grid.csv", &d, NULL), PM_OK);
	return d;
}

/* A spec of target t with these intrinsic and categorical columns, a form
 * (NULL: additive) and ignored columns (NULL: none). */
static pm_spec *spec(const char *intrinsic, const char *categorical, const char *form,
		     const char *ignore)
{
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "t", NULL), PM_OK);
	if (intrinsic)
		cr_assert_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, intrinsic, NULL), PM_OK);
	if (categorical)
		cr_assert_eq(pm_spec_add_names(s, PM_SPEC_CATEGORICAL, categorical, NULL), PM_OK);
	if (form)
		cr_assert_eq(pm_spec_set_form(s, form, NULL), PM_OK);
	if (ignore)
		cr_assert_eq(pm_spec_ignore(s, ignore, NULL), PM_OK);
	return s;
}

/* The model of a short fit of d under s (the checks run before the search,
 * so a few generations do). */
static pm_model *fit(const pm_dataset *d, pm_spec *s)
{
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error err = { 0 };

	o.threads = 1;
	o.maxiter = 5;
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	pm_spec_free(s);
	return m;
}

/* The number of m's warnings that contain text. */
static size_t warned(const pm_model *m, const char *text)
{
	size_t n = 0;

	for (size_t i = 0; i < pm_model_nwarnings(m); i++)
		n += strstr(pm_model_warning(m, i), text) != NULL;
	return n;
}

Test(identify, independent_columns_are_no_warning)
{
	pm_dataset *d = grid(0);
	pm_model *m = fit(d, spec("x,y", "k", NULL, NULL));

	cr_expect_eq(pm_model_nwarnings(m), 0, "%s",
		     pm_model_nwarnings(m) ? pm_model_warning(m, 0) : "");
	pm_model_free(m);
	pm_dataset_free(d);
}

/* The fit of the grid's intrinsic columns gives one warning, and it
 * contains text. */
static void one_warning(const char *intrinsic, const char *text)
{
	pm_dataset *d = grid(0);
	pm_model *m = fit(d, spec(intrinsic, NULL, NULL, NULL));

	cr_expect_eq(pm_model_nwarnings(m), 1, "%s: %zu warnings", intrinsic,
		     pm_model_nwarnings(m));
	cr_expect_eq(warned(m, text), 1, "%s: %s", intrinsic,
		     pm_model_nwarnings(m) ? pm_model_warning(m, 0) : "none");
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(identify, a_constant_powered_column_is_named)
{
	one_warning("x,y,c", "column 'c' is constant (every row 4): its power cannot be "
			     "determined; drop it with --ignore c");
}

Test(identify, collinear_columns_in_log_space_are_named)
{
	one_warning("x,w,y", "columns 'x' and 'w' are collinear in log space (correlation "
			     "1.0000 over the rows): their powers cannot be told apart; drop "
			     "one with --ignore w");
}

/* z = x*y: no pair is collinear (corr < 0.999), the three are (and only
 * that is said) */
Test(identify, a_product_of_two_columns_is_named)
{
	one_warning("x,y,z", "column 'z' is a product or ratio of powers of 'x' and 'y'");
}

Test(identify, indicators_never_or_always_true_are_named)
{
	pm_dataset *d = grid(0);
	pm_model *m = fit(d, spec(NULL, NULL, "a * x^p + b * [x > 100] + e * [y >= 1] + "
						"f * [y == 3] + C", NULL));

	cr_expect_eq(warned(m, "indicator [x > 100] is true on no row"), 1);
	cr_expect_eq(warned(m, "indicator [y >= 1] is true on every row"), 1);
	cr_expect_eq(warned(m, "[y == 3]"), 0);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(identify, a_level_of_one_row_is_named)
{
	pm_dataset *d = grid(1), *two = grid(2);
	pm_model *m = fit(d, spec("x,y", "k", NULL, NULL));

	cr_expect_eq(warned(m, "level 'b' of column 'k' occurs in 1 row: its multiplier fits "
			       "that row exactly"), 1);
	cr_expect_eq(pm_model_nwarnings(m), 1);
	pm_model_free(m);
	m = fit(two, spec("x,y", "k", NULL, NULL));
	cr_expect_eq(warned(m, "level"), 0);
	pm_model_free(m);
	pm_dataset_free(d);
	pm_dataset_free(two);
}

/* x alone has 4 configurations: 5 unknowns warn, 3 (eq. 4.4) do not */
Test(identify, unknowns_as_many_as_configurations_are_counted)
{
	pm_dataset *d = grid(0);
	pm_model *m = fit(d, spec(NULL, NULL, "a * x^p + b * x^r + C", NULL));

	cr_expect_eq(warned(m, "5 unknowns but 4 distinct input configurations in 24 rows"), 1);
	pm_model_free(m);
	m = fit(d, spec("x", NULL, NULL, NULL));
	cr_expect_eq(warned(m, "configurations"), 0);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* x and y make 12 configurations, counted through both columns (the count
 * stops early only once it passes the unknowns): 14 unknowns warn with 12;
 * 4 unknowns, as many as x's 4 configurations, do not warn. */
Test(identify, configurations_of_two_columns_are_counted_through_both)
{
	pm_dataset *d = grid(0);
	pm_model *m = fit(d, spec(NULL, NULL,
				  "a * x^p * y^q + b * x^r * y^s + c * x^u + e * y^v + "
				  "f * x^g * y^h + C", NULL));

	cr_expect_eq(warned(m, "14 unknowns but 12 distinct input configurations in 24 rows"), 1);
	pm_model_free(m);
	m = fit(d, spec(NULL, NULL, "a * x^p * y^q + C", NULL));
	cr_expect_eq(warned(m, "configurations"), 0);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* --ignore takes the columns out of the named roles and of inference */
Test(identify, ignored_columns_leave_the_model)
{
	pm_dataset *d = grid(0);
	pm_model *m = fit(d, spec("x,y,c", NULL, NULL, "c"));

	cr_expect_eq(pm_model_ninputs(m), 2);
	cr_expect_str_eq(pm_model_input_name(m, 0), "x");
	cr_expect_eq(pm_model_nwarnings(m), 0);
	pm_model_free(m);
	/* inferred roles: every column but t, then all but the ignored ones */
	m = fit(d, spec(NULL, NULL, NULL, "z,w,c,k"));
	cr_assert_eq(pm_model_ninputs(m), 2);
	cr_expect_str_eq(pm_model_input_name(m, 0), "x");
	cr_expect_str_eq(pm_model_input_name(m, 1), "y");
	cr_expect_eq(pm_model_nwarnings(m), 0);
	pm_model_free(m);
	pm_dataset_free(d);
}

static void resolve_fails(pm_spec *s, const pm_dataset *d, const char *want)
{
	pm_error err = { 0 };

	cr_expect_eq(pm_spec_resolve(s, d, &err), PM_ESCHEMA);
	cr_expect_not_null(strstr(err.msg, want), "%s", err.msg);
	pm_spec_free(s);
}

Test(identify, ignoring_what_cannot_be_ignored_is_an_error)
{
	pm_dataset *d = grid(0);
	pm_error err = { 0 };

	resolve_fails(spec("x", NULL, NULL, "x,nosuch"), d, "no column 'nosuch'");
	resolve_fails(spec("x", NULL, NULL, "t"), d, "column 't' is the target");
	cr_expect_eq(pm_spec_ignore(NULL, "x", &err), PM_EINVAL);
	pm_dataset_free(d);
}

/* The fit of d under s (a formula of x, x ignored; freed) fails. */
static void formula_column_refused(const pm_dataset *d, pm_spec *s)
{
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error err = { 0 };

	o.threads = 1;
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_ESCHEMA);
	cr_expect_not_null(strstr(err.msg, "column 'x' is in the formula"), "%s", err.msg);
	cr_expect_null(m);
	pm_spec_free(s);
}

/* a formula's column: pm_fit puts the formula's columns in the roles first */
Test(identify, a_formula_column_cannot_be_ignored)
{
	pm_dataset *d = grid(0);

	formula_column_refused(d, spec(NULL, NULL, "a * x^p + C", "x"));
	pm_dataset_free(d);
}

/* ---- the spec file's "ignore": what pm_spec_ignore (--ignore) takes ------- */

static pm_spec *parsed(const char *json)
{
	pm_spec *s = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_parse(json, "s.json", &s, &err), PM_OK, "%s", err.msg);
	return s;
}

static void parse_fails(const char *json, const char *want)
{
	pm_spec *s = NULL;
	pm_error err = { 0 };

	cr_expect_eq(pm_spec_parse(json, "s.json", &s, &err), PM_ESCHEMA, "%s", json);
	cr_expect_null(s);
	cr_expect_not_null(strstr(err.msg, want), "%s: %s", json, err.msg);
	cr_expect_str_eq(err.file, "s.json");
}

/* a column named in a role and in "ignore" is left out, as with --ignore */
Test(identify, the_spec_file_ignores_columns)
{
	pm_dataset *d = grid(0);
	pm_model *m = fit(d, parsed("{\"target\": \"t\", \"intrinsic\": [\"x\", \"y\", \"c\"], "
				    "\"ignore\": [\"c\"]}"));

	cr_assert_eq(pm_model_ninputs(m), 2);
	cr_expect_str_eq(pm_model_input_name(m, 1), "y");
	cr_expect_eq(pm_model_nwarnings(m), 0);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* pm_spec_ignore adds to the file's list; a column in both is an error,
 * as a column given a role twice is */
Test(identify, ignore_adds_to_the_spec_files_list)
{
	pm_dataset *d = grid(0);
	pm_spec *s = parsed("{\"target\": \"t\", \"ignore\": [\"z\", \"w\"]}");
	pm_error err = { 0 };
	pm_model *m;

	cr_expect_eq(pm_spec_ignore(s, "c,z", &err), PM_ESCHEMA);
	cr_expect_str_eq(err.msg, "column 'z' is already listed");
	cr_assert_eq(pm_spec_ignore(s, "c,k", &err), PM_OK, "%s", err.msg);
	m = fit(d, s);
	cr_assert_eq(pm_model_ninputs(m), 2);
	cr_expect_str_eq(pm_model_input_name(m, 0), "x");
	cr_expect_str_eq(pm_model_input_name(m, 1), "y");
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(identify, a_bad_ignore_key_is_an_error_naming_the_file)
{
	parse_fails("{\"target\": \"t\", \"ignore\": \"c\"}", "'ignore' must be an array of column "
							   "names");
	parse_fails("{\"target\": \"t\", \"ignore\": [\"c\", 2]}", "'ignore' must be an array");
	parse_fails("{\"target\": \"t\", \"ignore\": [\"c\", \"\"]}", "empty column name in "
								    "'ignore'");
	parse_fails("{\"target\": \"t\", \"ignore\": [\"c\", \"c\"]}", "column 'c' appears twice "
								     "in 'ignore'");
	parse_fails("{\"target\": \"t\", \"ignore\": [], \"ignore\": []}", "duplicate key 'ignore'");
	parse_fails("{\"target\": \"t\", \"ignor\": [\"c\"]}", "did you mean 'ignore'?");
}

/* the data decide the rest, as for pm_spec_ignore */
Test(identify, the_spec_files_ignore_is_checked_against_the_data)
{
	pm_dataset *d = grid(0);

	resolve_fails(parsed("{\"target\": \"t\", \"ignore\": [\"x\", \"nosuch\"]}"), d,
		      "no column 'nosuch'");
	resolve_fails(parsed("{\"target\": \"t\", \"ignore\": [\"t\"]}"), d,
		      "column 't' is the target");
	formula_column_refused(d, parsed("{\"target\": \"t\", \"formula\": \"a * x^p + C\", "
					 "\"ignore\": [\"x\"]}"));
	pm_dataset_free(d);
}
