/* The S-SGD phase model: eqs. 3.3, 3.5-3.8 by hand on a small table, the
 * configuration matching behind the speedups, and the bad inputs. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(ssgd);

static pm_dataset *parse(const char *csv)
{
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "p.csv", &d, &err), PM_OK, "%s",
		     err.msg);
	return d;
}

static void close_to(double got, double want)
{
	cr_assert(fabs(got - want) <= 1e-15 * fabs(want), "got %.17g, want %.17g", got, want);
}

static const char phases_csv[] =
	"cfg,t_io,t_h2d,t_md,t_u,t_f_1,t_b_1,t_c_1,t_f_2,t_b_2,t_c_2\n"
	"a,0.1,0.2,0.05,0.3,1,2,,,,\n"		/* one worker: compute 3 */
	"a,0.1,0.2,0.05,0.3,1,2,0.5,1.5,2,0.5\n"	/* compute 3.5 and 4 */
	"b,,,,,1,1,,,,\n"			/* phases absent: 0 s */
	"c,,,,,1,1,1,1,1,1\n";			/* no one-worker row of c */

/* What each row of phases_csv must give, worked out by hand. */
static const struct want {
	unsigned workers;
	double t_iter, t_pipe, lif, speedup, overlap;
} want[] = {
	/* compute 3: eq. 3.3 adds every phase, eq. 3.5 overlaps I/O; the
	 * one-worker row is as fast as itself by both speedups */
	{ 1, 0.1 + 0.2 + 0.05 + 3 + 0.3, 3 + 0.3, 1, 1, 1 },
	/* the slower worker (4 s) sets the pace; LIF = 2 * 4 / (3.5 + 4) */
	{ 2, 0.1 + 0.2 + 0.05 + 4 + 0.3, 4 + 0.3, 2 * 4 / 7.5,
	  2 * (0.1 + 0.2 + 0.05 + 3 + 0.3) / (0.1 + 0.2 + 0.05 + 4 + 0.3), 2 * 3.3 / 4.3 },
	{ 1, 2, 2, 1, 1, 1 },	/* absent phases take 0 s */
};

Test(ssgd, phase_model_by_hand)
{
	pm_dataset *d = parse(phases_csv);
	pm_ssgd_report *R = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_ssgd_report_new(d, NULL, &R, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(R->nrows, 4);
	cr_assert_eq(R->max_workers, 2);
	cr_assert_eq(R->nby, 1, "every non-phase column: cfg");
	for (size_t r = 0; r < sizeof(want) / sizeof(want[0]); r++) {
		const pm_ssgd_row *x = &R->row[r];

		cr_assert_eq(x->workers, want[r].workers, "row %zu", r);
		close_to(x->t_iter, want[r].t_iter);
		close_to(x->t_pipe, want[r].t_pipe);
		close_to(x->lif, want[r].lif);
		cr_assert(x->has_speedup, "row %zu", r);
		cr_assert_eq(x->base_row, r == 1 ? 0 : r);
		close_to(x->speedup, want[r].speedup);
		close_to(x->speedup_overlap, want[r].overlap);
	}
	cr_assert_not(R->row[3].has_speedup, "configuration c never ran on one worker");
	cr_assert_eq(R->row[3].lif, 1);
	pm_ssgd_report_free(R);
	pm_dataset_free(d);
}

Test(ssgd, by_columns_choose_the_baseline)
{
	pm_dataset *d = parse("net,run,t_f_1,t_b_1,t_f_2,t_b_2\n"
			      "x,1,2,2,,\n"
			      "x,2,1,1,3,1\n");
	char *by[] = { "net" };
	pm_names bn = { .n = 1, .name = by };
	pm_ssgd_report *R = NULL;
	pm_error err = { 0 };

	/* by default "run" is part of the configuration: no baseline */
	cr_assert_eq(pm_ssgd_report_new(d, NULL, &R, &err), PM_OK, "%s", err.msg);
	cr_assert_not(R->row[1].has_speedup);
	pm_ssgd_report_free(R);
	cr_assert_eq(pm_ssgd_report_new(d, &bn, &R, &err), PM_OK, "%s", err.msg);
	cr_assert(R->row[1].has_speedup);
	close_to(R->row[1].speedup, 2.0 * 4 / 4);
	close_to(R->row[1].lif, 2.0 * 4 / 6);
	pm_ssgd_report_free(R);
	pm_dataset_free(d);
}

static pm_error fails(const char *csv, pm_status want)
{
	pm_dataset *d = parse(csv);
	pm_ssgd_report *R = (pm_ssgd_report *)1;
	pm_error err = { 0 };

	cr_assert_eq(pm_ssgd_report_new(d, NULL, &R, &err), want, "%s", err.msg);
	cr_assert_null(R);
	pm_dataset_free(d);
	return err;
}

Test(ssgd, bad_inputs_are_placed)
{
	pm_error e;

	e = fails("cfg,t_io,t_f_1\na,-0.1,1\n", PM_ESCHEMA);
	cr_assert_eq(e.line, 2);
	cr_assert_eq(e.column, 3);
	cr_assert(strstr(e.msg, "'t_io'") && strstr(e.msg, "negative"), "%s", e.msg);

	e = fails("cfg,t_io,t_f_1\na,0.1,slow\n", PM_ESCHEMA);
	cr_assert_eq(e.line, 2);
	cr_assert_eq(e.column, 7);

	e = fails("cfg,t_io,t_f_1\na,0.1,1\nb,0.1,\n", PM_EDOMAIN);
	cr_assert_eq(e.line, 3);
	cr_assert(strstr(e.msg, "no worker phase"), "%s", e.msg);

	e = fails("cfg,t_f_1\na,1\na,2\n", PM_EDOMAIN);
	cr_assert_eq(e.line, 3);
	cr_assert(strstr(e.msg, "second one-worker row") && strstr(e.msg, "line 2"), "%s",
		  e.msg);

	e = fails("cfg,t_io,t_f_0,t_x_1\na,1,1,1\n", PM_ESCHEMA);
	cr_assert(strstr(e.msg, "no per-worker phase column"), "%s", e.msg);

	e = fails("cfg,t_f_1,t_b_1\na,0,0\n", PM_EDOMAIN);
	cr_assert(strstr(e.msg, "is 0"), "%s", e.msg);
}

/* ssgd --json to the byte: a row per line, null speedups without a
 * one-worker row, cells escaped. */
Test(ssgd, json_document)
{
	pm_dataset *d = parse("c\\fg,t_io,t_f_1,t_b_1,t_f_2,t_b_2\n"
			      "\"a\"\"\xc3\xa9\",0.5,1,2,,\n"
			      "\"a\"\"\xc3\xa9\",0.5,1,2,3,1\n"
			      "b,,1,1,1,1\n");
	pm_ssgd_report *R = NULL;
	pm_error err = { 0 };
	char *doc = NULL;

	cr_assert_eq(pm_ssgd_report_new(d, NULL, &R, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_ssgd_report_to_json(d, R, &doc, &err), PM_OK, "%s", err.msg);
	cr_assert_str_eq(doc,
		"{\"file\": \"p.csv\", \"max_workers\": 2, \"by\": [\"c\\\\fg\"],\n"
		" \"rows\": [{\"line\": 2, \"config\": [\"a\\\"\xc3\xa9\"], \"workers\": 1, "
		"\"t_iter\": 3.5, \"t_pipe\": 3, \"lif\": 1, \"base_line\": 2, \"speedup\": 1, "
		"\"speedup_overlap\": 1},\n"
		"  {\"line\": 3, \"config\": [\"a\\\"\xc3\xa9\"], \"workers\": 2, \"t_iter\": 4.5, "
		"\"t_pipe\": 4, \"lif\": 1.1428571428571428, \"base_line\": 2, "
		"\"speedup\": 1.5555555555555556, "
		"\"speedup_overlap\": 1.5},\n"
		"  {\"line\": 4, \"config\": [\"b\"], \"workers\": 2, \"t_iter\": 2, \"t_pipe\": 2, "
		"\"lif\": 1, \"base_line\": null, \"speedup\": null, \"speedup_overlap\": null}]}\n",
		"got:\n%s", doc);
	free(doc);
	doc = (char *)R;
	cr_assert_eq(pm_ssgd_report_to_json(NULL, R, &doc, &err), PM_EINVAL);
	cr_assert_null(doc);
	cr_assert_str_eq(err.msg, "no dataset or report");
	cr_assert_eq(pm_ssgd_report_to_json(d, NULL, &doc, NULL), PM_EINVAL);
	cr_assert_eq(pm_ssgd_report_to_json(d, R, NULL, NULL), PM_EINVAL);
	pm_ssgd_report_free(R);
	pm_dataset_free(d);
}
