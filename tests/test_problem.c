#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fit/problem.h"
#include "leak_check.h"
#include "spec/spec_impl.h"

PM_LEAK_CHECKED_SUITE(problem);

static const char csv[] =
	"n,threads,act,time\n"
	"100,2,relu,4\n"
	"10,1,tanh,1\n"
	"100,1,relu,2\n"
	"1000,2,gelu,8\n";

static void build(pm_scale scale, pm_dataset **d, pm_spec **s, pm_problem *p)
{
	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "p.csv", d, NULL), PM_OK);
	cr_assert_eq(pm_spec_new(s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(*s, "time", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&(*s)->intrinsic, "n", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&(*s)->categorical, "act", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&(*s)->extrinsic, "threads", NULL), PM_OK);
	cr_assert_eq(pm__problem_build(*d, *s, scale, PM_LOSS_MAE, p, NULL), PM_OK);
}

Test(problem, codes_distinct_values_and_levels)
{
	pm_dataset *d;
	pm_spec *s;
	pm_problem p;

	build(PM_SCALE_NONE, &d, &s, &p);
	cr_assert_eq(p.ncols, 3);
	/* inputs in role order: intrinsic, categorical, extrinsic */
	cr_expect_str_eq(p.col[0].name, "n");
	cr_expect_eq(p.col[1].role, PM_ROLE_CATEGORICAL);
	cr_expect_str_eq(p.col[2].name, "threads");
	cr_expect_eq(p.col[0].ndistinct, 3);
	cr_expect_float_eq(p.col[0].u[0], log(10.0), 1e-15);
	cr_expect_float_eq(p.col[0].u[2], log(1000.0), 1e-15);
	cr_expect_eq(p.col[0].code[0], 1);
	cr_expect_eq(p.col[0].code[3], 2);
	/* levels sorted */
	cr_assert_eq(p.col[1].ndistinct, 3);
	cr_expect_str_eq(p.col[1].levels[0], "gelu");
	cr_expect_str_eq(p.col[1].levels[2], "tanh");
	cr_expect_eq(p.col[1].code[1], 2);
	cr_expect_eq(p.target_scale, 1.0);
	cr_expect_eq(p.t[3], 8.0);
	cr_expect_eq(p.t_raw[3], 8.0);
	pm__problem_free(&p);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(problem, auto_scaling_uses_geometric_mean_and_median)
{
	pm_dataset *d;
	pm_spec *s;
	pm_problem p;
	double logmean = (log(100) + log(10) + log(100) + log(1000)) / 4;

	build(PM_SCALE_AUTO, &d, &s, &p);
	cr_expect_float_eq(p.col[0].log_scale, logmean, 1e-15);
	cr_expect_float_eq(p.col[0].u[0], log(10.0) - logmean, 1e-15);
	cr_expect_eq(p.target_scale, 3.0);	/* median of 4, 1, 2, 8 */
	cr_expect_float_eq(p.t[3], 8.0 / 3.0, 1e-15);
	cr_expect_eq(p.t_raw[3], 8.0);
	pm__problem_free(&p);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(problem, errors_name_the_cell)
{
	const char *bad[] = {
		"n,threads,act,time\n100,2,relu,4\n-5,1,tanh,1\n",
		"n,threads,act,time\n100,2,relu,4\n5,1,,1\n",
		"n,threads,act,time\n100,2,relu,0\n",
		"n,threads,act,time\n100,x,relu,3\n",
	};
	const pm_status code[] = { PM_EDOMAIN, PM_ESCHEMA, PM_EDOMAIN, PM_ESCHEMA };
	const unsigned line[] = { 3, 3, 2, 2 }, column[] = { 1, 5, 12, 5 };
	const char *msg[] = { "column 'n': -5 must be > 0", "column 'act': empty cell",
			      "target 'time': 0 is not a time > 0 (loss mape divides by the values; "
			      "use --loss mae or mse to fit values that may be 0)", "column 'threads'" };

	for (size_t k = 0; k < 4; k++) {
		pm_dataset *d;
		pm_spec *s;
		pm_problem p;
		pm_error err = { 0 };

		cr_assert_eq(pm_dataset_parse_csv(bad[k], strlen(bad[k]), "b.csv", &d, NULL), PM_OK);
		cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
		cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
		cr_assert_eq(pm_names_add_list(&s->intrinsic, "n", NULL), PM_OK);
		cr_assert_eq(pm_names_add_list(&s->categorical, "act", NULL), PM_OK);
		cr_assert_eq(pm_names_add_list(&s->extrinsic, "threads", NULL), PM_OK);
		cr_expect_eq(pm__problem_build(d, s, PM_SCALE_AUTO, PM_LOSS_MAPE, &p, &err), code[k],
			     "case %zu", k);
		cr_expect_eq(err.line, line[k], "case %zu: line %u", k, err.line);
		cr_expect_eq(err.column, column[k], "case %zu: column %u", k, err.column);
		cr_expect(strstr(err.msg, msg[k]) != NULL, "case %zu: %s", k, err.msg);
		cr_expect_str_eq(err.file, "b.csv");
		pm_spec_free(s);
		pm_dataset_free(d);
	}
}

/* Target column "time" of text, built with loss (scale auto). */
static pm_status build_target(const char *text, pm_loss loss, pm_dataset **d, pm_spec **s,
			      pm_problem *p, pm_error *err)
{
	cr_assert_eq(pm_dataset_parse_csv(text, strlen(text), "z.csv", d, NULL), PM_OK);
	cr_assert_eq(pm_spec_new(s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(*s, "time", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&(*s)->intrinsic, "n", NULL), PM_OK);
	return pm__problem_build(*d, *s, PM_SCALE_AUTO, loss, p, err);
}

/* text's problem under loss has target_scale `scale`, and its row r the
 * scaled time t. */
static void expect_scale(const char *text, pm_loss loss, double scale, size_t r, double t)
{
	pm_dataset *d;
	pm_spec *s;
	pm_problem p;

	cr_assert_eq(build_target(text, loss, &d, &s, &p, NULL), PM_OK);
	cr_expect_eq(p.target_scale, scale, "%s: scale %g", text, p.target_scale);
	cr_expect_float_eq(p.t[r], t, 1e-15, "%s: row %zu is %g", text, r, p.t[r]);
	cr_expect_eq(p.t_raw[0], 0.0);
	pm__problem_free(&p);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* A time of 0 is a value under the absolute losses; half the rows or more
 * at 0, the scale is the median of the others (the median of all would be
 * 0). */
Test(problem, zeros_under_an_absolute_loss)
{
	static const char some[] = "n,time\n1,0\n2,4\n4,2\n8,8\n";		/* median 3 */
	static const char most[] = "n,time\n1,0\n2,0\n4,0\n8,0\n16,2\n32,6\n64,8\n"; /* median 0 */
	static const char half[] = "n,time\n1,0\n2,0\n4,6\n8,2\n";		/* median 1 */
	const pm_loss loss[2] = { PM_LOSS_MAE, PM_LOSS_MSE };

	for (int k = 0; k < 2; k++) {
		expect_scale(some, loss[k], 3.0, 0, 0.0);
		expect_scale(most, loss[k], 6.0, 6, 8.0 / 6.0);	/* median of 2, 6, 8 */
		expect_scale(most, loss[k], 6.0, 3, 0.0);
		expect_scale(half, loss[k], 1.0, 2, 6.0);	/* the median of all is > 0: kept */
	}
}

Test(problem, zeros_refused_by_a_relative_loss_and_all_zero)
{
	static const char text[] = "n,time\n1,2\n2,0\n4,2\n";
	static const char none[] = "n,time\n1,0\n2,0\n4,0\n";
	static const char neg[] = "n,time\n1,2\n2,-1\n";
	const pm_loss loss[2] = { PM_LOSS_MAPE, PM_LOSS_LOG };
	const char *why[2] = { "loss mape divides by the values", "loss log takes their log" };
	pm_dataset *d;
	pm_spec *s;
	pm_problem p;
	pm_error err = { 0 };

	for (int k = 0; k < 2; k++) {
		cr_expect_eq(build_target(text, loss[k], &d, &s, &p, &err), PM_EDOMAIN);
		cr_expect_eq(err.line, 3);
		cr_expect_eq(err.column, 3);
		cr_expect(strstr(err.msg, "target 'time': 0 is not a time > 0 (") != NULL, "%s",
			  err.msg);
		cr_expect(strstr(err.msg, why[k]) != NULL, "%s", err.msg);
		cr_expect(strstr(err.msg, "use --loss mae or mse to fit values that may be 0)") !=
			  NULL, "%s", err.msg);
		pm_spec_free(s);
		pm_dataset_free(d);
	}
	cr_expect_eq(build_target(none, PM_LOSS_MAE, &d, &s, &p, &err), PM_EDOMAIN);
	cr_expect_str_eq(err.msg, "every value of target 'time' is 0: nothing to model");
	cr_expect_str_eq(err.file, "z.csv");
	pm_spec_free(s);
	pm_dataset_free(d);
	/* a negative value stays refused; under mae the message says >= 0 */
	cr_expect_eq(build_target(neg, PM_LOSS_MAE, &d, &s, &p, &err), PM_EDOMAIN);
	cr_expect_str_eq(err.msg, "target 'time': -1 is not a time >= 0");
	cr_expect_eq(err.line, 3);
	pm_spec_free(s);
	pm_dataset_free(d);
	cr_expect_eq(build_target(neg, PM_LOSS_LOG, &d, &s, &p, &err), PM_EDOMAIN);
	cr_expect_str_eq(err.msg, "target 'time': -1 is not a time > 0");
	pm_spec_free(s);
	pm_dataset_free(d);
}
