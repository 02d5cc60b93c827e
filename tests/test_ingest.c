/* Reading other formats and runs into configurations: hyperfine, Google
 * Benchmark, tidy CSV with repetitions, throughput; the numbers survive
 * the trip, and every bad input is an error that says where. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest_impl.h"
#include "leak_check.h"

PM_LEAK_CHECKED_SUITE(ingest);

static const char *data_path(const char *name)
{
	static char path[1024];
	const char *dir = getenv("PM_TEST_DATA");

	cr_assert_not_null(dir, "PM_TEST_DATA is not set");
	snprintf(path, sizeof(path), "%s/ingest/%s", dir, name);
	return path;
}

static void read_ok(const char *file, const pm_read_options *o, pm_dataset **d,
		    pm_read_info *info)
{
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_read(data_path(file), o, d, info, &err), PM_OK, "%s: %s", file,
		     err.msg);
}

static double num(const pm_dataset *d, size_t row, const char *col)
{
	size_t c;
	double v;

	cr_assert_eq(pm_dataset_col_index(d, col, &c, NULL), PM_OK, "no column %s", col);
	cr_assert_eq(pm_dataset_number(d, row, c, &v, NULL), PM_OK);
	return v;
}

static const char *cell(const pm_dataset *d, size_t row, const char *col)
{
	size_t c;

	cr_assert_eq(pm_dataset_col_index(d, col, &c, NULL), PM_OK, "no column %s", col);
	return pm_dataset_cell(d, row, c);
}

static pm_status parse(const char *text, const pm_read_options *o, pm_dataset **d,
		       pm_read_info *info, pm_error *err)
{
	memset(err, 0, sizeof(*err));
	return pm_dataset_parse(text, strlen(text), "t", o, d, info, err);
}

/* the times of hyperfine.json, as written there */
static const double hf_times[4][3] = {
	{ 0.013812174, 0.013390121, 0.013176904 },
	{ 0.007999797, 0.007341052, 0.007185283 },
	{ 0.106812683, 0.104326412, 0.105193464 },
	{ 0.057448091, 0.056076127, 0.055731389 },
};

Test(ingest, hyperfine_runs_round_trip)
{
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d;

	o.aggregate = PM_AGG_NONE;
	read_ok("hyperfine.json", &o, &d, &info);
	cr_assert_eq(info.format, PM_FORMAT_HYPERFINE);
	cr_assert_eq(info.aggregated, 0);
	cr_assert_eq(pm_dataset_nrows(d), 12);
	cr_assert_eq(pm_dataset_ncols(d), 3);
	cr_assert_str_eq(pm_dataset_col_name(d, 0), "n");
	cr_assert_str_eq(pm_dataset_col_name(d, 1), "threads");
	cr_assert_str_eq(pm_dataset_col_name(d, 2), "time_s");
	for (size_t r = 0; r < 12; r++)
		cr_assert_eq(num(d, r, "time_s"), hf_times[r / 3][r % 3], "row %zu", r);
	cr_assert_str_eq(cell(d, 3, "threads"), "2");
	cr_assert_str_eq(cell(d, 11, "n"), "1024");
	pm_dataset_free(d);
	pm_read_info_clear(&info);
}

static double median3(const double *v)
{
	double a = v[0], b = v[1], c = v[2];

	return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

Test(ingest, hyperfine_median_and_cv_by_default)
{
	pm_read_info info;
	pm_dataset *d;

	read_ok("hyperfine.json", NULL, &d, &info);
	cr_assert_eq(info.aggregated, 1);
	cr_assert_eq(info.runs, 12);
	cr_assert_eq(pm_dataset_nrows(d), 4);
	for (size_t g = 0; g < 4; g++) {
		const double *t = hf_times[g];
		double mean = (t[0] + t[1] + t[2]) / 3, ss = 0;

		for (int i = 0; i < 3; i++)
			ss += (t[i] - mean) * (t[i] - mean);
		cr_assert_eq(num(d, g, "time_s"), median3(t));
		cr_assert_eq(info.reps[g], 3);
		cr_assert_float_eq(info.cv[g], sqrt(ss / 2) / mean, 1e-12);
	}
	cr_assert_eq(info.cv_max_row, 1, "n=512, threads=2 varies most");
	pm_dataset_free(d);
	pm_read_info_clear(&info);
}

/* The same numbers as hyperfine.json in tidy CSV give the same table: the
 * same fit, bit for bit. */
Test(ingest, hyperfine_equals_tidy_csv)
{
	char csv[2048];
	size_t pos = snprintf(csv, sizeof(csv), "n,threads,time_s\n");
	const char *cfg[4] = { "512,1", "512,2", "1024,1", "1024,2" };
	pm_read_options o = pm_read_options_default();
	pm_dataset *a, *b;
	pm_error err;
	char fa[17], fb[17];

	for (int g = 0; g < 4; g++)
		for (int i = 0; i < 3; i++)
			pos += snprintf(csv + pos, sizeof(csv) - pos, "%s,%.17g\n", cfg[g],
					hf_times[g][i]);
	o.target = "time_s";
	o.aggregate = PM_AGG_MEDIAN;
	cr_assert_eq(parse(csv, &o, &a, NULL, &err), PM_OK, "%s", err.msg);
	read_ok("hyperfine.json", NULL, &b, NULL);
	pm_dataset_fingerprint(a, fa);
	pm_dataset_fingerprint(b, fb);
	cr_assert_str_eq(fa, fb);
	pm_dataset_free(a);
	pm_dataset_free(b);
}

Test(ingest, hyperfine_without_parameters_has_the_command)
{
	const char *j = "{\"results\": [{\"command\": \"sleep 0.1\", \"times\": [0.1, 0.12]},"
			"{\"command\": \"sleep 0.2\", \"times\": [0.2, 0.21, 0.22]}]}";
	pm_read_info info;
	pm_dataset *d;
	pm_error err;

	cr_assert_eq(parse(j, NULL, &d, &info, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(d), 2);
	cr_assert_str_eq(cell(d, 1, "command"), "sleep 0.2");
	cr_assert_eq(num(d, 0, "time_s"), (0.1 + 0.12) / 2);
	cr_assert_eq(num(d, 1, "time_s"), 0.21);
	cr_assert_eq(info.reps[1], 3);
	pm_dataset_free(d);
	pm_read_info_clear(&info);
}

static void expect_error(const char *text, const pm_read_options *o, pm_status code,
			 const char *msg, unsigned line, unsigned column)
{
	pm_dataset *d = (pm_dataset *)1;
	pm_error err;

	cr_assert_eq(parse(text, o, &d, NULL, &err), code, "got %d: %s", err.code, err.msg);
	cr_assert_null(d);
	cr_assert(strstr(err.msg, msg), "'%s' does not say '%s'", err.msg, msg);
	cr_assert_eq(err.line, line, "line %u: %s", err.line, err.msg);
	cr_assert_eq(err.column, column, "column %u: %s", err.column, err.msg);
}

Test(ingest, hyperfine_errors)
{
	expect_error("{\"results\": [{\"command\": \"x\",\n \"times\": [0.1,]}]}", NULL,
		     PM_EPARSE, "invalid JSON", 2, 16);
	expect_error("{\"results\": []}", NULL, PM_ESCHEMA, "'results' is empty", 0, 0);
	expect_error("{\"results\": [{\"command\": \"x\"}]}", NULL, PM_ESCHEMA,
		     "results[0]: missing 'times'", 0, 0);
	expect_error("{\"results\": [{\"command\": \"x\", \"times\": [0.1, -1]}]}", NULL,
		     PM_ESCHEMA, "results[0]: times[1] must be a number > 0", 0, 0);
	expect_error("{\"results\": [{\"times\": [1], \"parameters\": {\"n\": \"1\"}},"
		     "{\"times\": [1], \"parameters\": {\"m\": \"1\"}}]}", NULL, PM_ESCHEMA,
		     "results[1]: no parameter 'n'", 0, 0);
	expect_error("{\"results\": [{\"times\": [1], \"parameters\": {\"n\": 1}}]}", NULL,
		     PM_ESCHEMA, "parameter 'n' must be a string", 0, 0);
	expect_error("{\"other\": 1}", NULL, PM_ESCHEMA, "neither 'benchmarks'", 0, 0);
}

/* Every run of text as a row (no aggregation). */
static pm_dataset *runs_of(const char *text)
{
	pm_read_options o = pm_read_options_default();
	pm_dataset *d;
	pm_error err;

	o.aggregate = PM_AGG_NONE;
	cr_assert_eq(parse(text, &o, &d, NULL, &err), PM_OK, "%s", err.msg);
	return d;
}

/* hyperfine >= 1.12 keeps failed runs (--ignore-failure) with their exit
 * codes: a time whose code is not 0 is no measurement. */
Test(ingest, hyperfine_skips_failed_runs)
{
	const char *text = "{\"results\": [{\"command\": \"a\", \"times\": [0.1, 0.2, 0.3],"
			   " \"exit_codes\": [0, 1, null], \"parameters\": {\"n\": \"1\"}},"
			   " {\"command\": \"b\", \"times\": [0.4], \"exit_codes\": [0],"
			   " \"parameters\": {\"n\": \"2\"}}]}";
	pm_dataset *d = runs_of(text);

	cr_assert_eq(pm_dataset_nrows(d), 2);
	cr_assert_eq(num(d, 0, "time_s"), 0.1);
	cr_assert_eq(num(d, 1, "time_s"), 0.4);
	pm_dataset_free(d);
	expect_error("{\"results\": [{\"command\": \"x\", \"times\": [0.1, 0.2],"
		     " \"exit_codes\": [0]}]}", NULL, PM_ESCHEMA,
		     "results[0]: 1 exit_codes for 2 times", 0, 0);
	expect_error("{\"results\": [{\"command\": \"x\", \"times\": [0.1],"
		     " \"exit_codes\": [\"0\"]}]}", NULL, PM_ESCHEMA,
		     "results[0]: exit_codes[0] must be a number or null", 0, 0);
	expect_error("{\"results\": [{\"command\": \"x\", \"times\": [0.1],"
		     " \"exit_codes\": [2]}]}", NULL, PM_ESCHEMA,
		     "results[0]: every run failed (exit_codes)", 0, 0);
}

Test(ingest, gbench_runs_skip_aggregates)
{
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d;

	o.aggregate = PM_AGG_NONE;
	read_ok("gbench.json", &o, &d, &info);
	cr_assert_eq(info.format, PM_FORMAT_GBENCH);
	cr_assert_eq(pm_dataset_nrows(d), 12, "the 16 aggregate rows are skipped");
	cr_assert_eq(pm_dataset_ncols(d), 4);
	cr_assert_str_eq(pm_dataset_col_name(d, 0), "benchmark");
	cr_assert_str_eq(pm_dataset_col_name(d, 1), "arg1");
	cr_assert_str_eq(pm_dataset_col_name(d, 2), "threads");
	cr_assert_str_eq(cell(d, 0, "benchmark"), "BM_gemm");
	cr_assert_str_eq(cell(d, 11, "arg1"), "256");
	cr_assert_str_eq(cell(d, 11, "threads"), "2");
	/* real_time 412345.6 ns */
	cr_assert_eq(num(d, 0, "time_s"), 412345.6 * 1e-9);
	cr_assert_eq(num(d, 11, "time_s"), 1676543.2 * 1e-9);
	pm_dataset_free(d);
	pm_read_info_clear(&info);
}

Test(ingest, gbench_name_pattern)
{
	pm_read_options o = pm_read_options_default();
	pm_dataset *d;

	o.name_pattern = "BM_gemm/{n}/real_time/threads:{t}";
	read_ok("gbench.json", &o, &d, NULL);
	cr_assert_eq(pm_dataset_nrows(d), 4);
	cr_assert_str_eq(pm_dataset_col_name(d, 0), "n");
	cr_assert_str_eq(pm_dataset_col_name(d, 1), "t");
	cr_assert_eq(num(d, 0, "time_s"), 0.0004012349);	/* median of the three */
	pm_dataset_free(d);
}

Test(ingest, gbench_errors)
{
	pm_read_options o = pm_read_options_default();

	o.name_pattern = "BM_other/{n}";
	cr_assert_eq(pm_dataset_read(data_path("gbench.json"), &o, &(pm_dataset *){ NULL },
				     NULL, NULL), PM_ESCHEMA);
	expect_error("{\"benchmarks\": [{\"name\": \"BM_a/1\", \"real_time\": 5, "
		     "\"time_unit\": \"h\"}]}", NULL, PM_ESCHEMA,
		     "benchmarks[0]: 'time_unit' 'h' is not ns, us, ms or s", 0, 0);
	expect_error("{\"benchmarks\": [{\"name\": \"BM_a/1\", \"real_time\": 5, "
		     "\"time_unit\": \"ns\"}, {\"name\": \"BM_b\", \"real_time\": 5, "
		     "\"time_unit\": \"ns\"}]}", NULL, PM_ESCHEMA,
		     "benchmarks[1]: name 'BM_b' does not have the parameters of 'BM_a/1'", 0, 0);
	expect_error("{\"benchmarks\": [{\"name\": \"BM_a/1\", \"error_occurred\": true, "
		     "\"error_message\": \"out of memory\"}]}", NULL, PM_ESCHEMA,
		     "benchmarks[0]: the benchmark failed: out of memory", 0, 0);
	expect_error("{\"benchmarks\": [{\"name\": \"BM_a/1_mean\", \"run_type\": "
		     "\"aggregate\"}]}", NULL, PM_ESCHEMA, "no benchmark runs", 0, 0);
	o.name_pattern = "BM_a/{n}{m}";
	expect_error("{\"benchmarks\": [{\"name\": \"BM_a/1\", \"real_time\": 5, "
		     "\"time_unit\": \"ns\"}]}", &o, PM_EINVAL, "two columns need text", 0, 0);
}

static const char reps_csv[] =
	"n,threads,time_s,loadavg\n"
	"10,1,9.0,0.1\n"		/* warm-up */
	"10,1,4.0,0.2\n"
	"20,1,7.0,0.1\n"
	"10,1,2.0,0.3\n"
	"20,1,8.0,0.2\n"
	"10,1,3.0,0.1\n"
	"20,1,9.5,0.4\n";

Test(ingest, csv_is_not_aggregated_unless_asked)
{
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d;
	pm_error err;

	o.target = "time_s";
	cr_assert_eq(parse(reps_csv, &o, &d, &info, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(d), 7);
	cr_assert_eq(info.aggregated, 0);
	cr_assert_null(info.reps);
	pm_dataset_free(d);
}

Test(ingest, csv_aggregates_by_key_in_order_of_appearance)
{
	pm_read_options o = pm_read_options_default();
	const char *key[] = { "n", "threads", NULL };
	const struct { pm_aggregate m; double a, b; } want[] = {
		{ PM_AGG_MEDIAN, 3.5, 8.0 }, { PM_AGG_MEAN, 4.5, 24.5 / 3 }, { PM_AGG_MIN, 2, 7 },
	};
	pm_read_info info;
	pm_dataset *d;
	pm_error err;

	o.target = "time_s";
	o.key = key;
	for (size_t k = 0; k < 3; k++) {
		o.aggregate = want[k].m;
		cr_assert_eq(parse(reps_csv, &o, &d, &info, &err), PM_OK, "%s", err.msg);
		cr_assert_eq(pm_dataset_nrows(d), 2);
		cr_assert_eq(pm_dataset_ncols(d), 3, "loadavg, outside the key, is dropped");
		cr_assert_str_eq(cell(d, 0, "n"), "10");
		cr_assert_str_eq(cell(d, 1, "n"), "20");
		cr_assert_eq(num(d, 0, "time_s"), want[k].a, "method %zu", k);
		cr_assert_float_eq(num(d, 1, "time_s"), want[k].b, 1e-15);
		cr_assert_eq(info.reps[0], 4);
		cr_assert_eq(info.reps[1], 3);
		/* the aggregated cell stands where the configuration's first run was */
		cr_assert_eq(pm_dataset_cell_line(d, 1, 2), 4);
		cr_assert_eq(pm_dataset_cell_column(d, 1, 2), 6);
		pm_dataset_free(d);
		pm_read_info_clear(&info);
	}
}

/* A configuration is its inputs' values, not their spelling: "10", "10.0",
 * "1e1" and "+10" are one n, -0 and 0 one x (as the fit's folds and
 * repetitions see them); a column of words still groups by its text. */
Test(ingest, csv_aggregates_numbers_by_value_not_spelling)
{
	static const char csv[] = "n,x,dev,time_s\n"
				  "10,0,cpu,2.0\n"
				  "10.0,-0,cpu,4.0\n"
				  "1e1,0.0,cpu,3.0\n"
				  "+10,0,gpu,1.0\n"
				  "20,0,cpu,8.0\n"
				  "2e1,-0.0,cpu,9.0\n";
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d;
	pm_error err;

	o.target = "time_s";
	o.aggregate = PM_AGG_MEDIAN;
	cr_assert_eq(parse(csv, &o, &d, &info, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(d), 3);
	cr_assert_str_eq(cell(d, 0, "n"), "10", "the first run's spelling");
	cr_assert_eq(num(d, 0, "time_s"), 3.0);
	cr_assert_eq(info.reps[0], 3);
	cr_assert_str_eq(cell(d, 1, "dev"), "gpu");
	cr_assert_eq(info.reps[1], 1);
	cr_assert_eq(num(d, 2, "time_s"), 8.5);
	cr_assert_eq(info.reps[2], 2);
	pm_dataset_free(d);
	pm_read_info_clear(&info);
}

Test(ingest, csv_without_key_groups_on_every_other_column)
{
	pm_read_options o = pm_read_options_default();
	pm_dataset *d;
	pm_error err;

	o.target = "time_s";
	o.aggregate = PM_AGG_MEDIAN;
	cr_assert_eq(parse(reps_csv, &o, &d, NULL, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(d), 6, "loadavg tells (10,1,0.1) twice apart from the rest");
	cr_assert_eq(num(d, 0, "time_s"), 6.0);
	pm_dataset_free(d);
}

Test(ingest, drop_first)
{
	pm_read_options o = pm_read_options_default();
	const char *key[] = { "n", NULL };
	pm_read_info info;
	pm_dataset *d;
	pm_error err;

	o.target = "time_s";
	o.key = key;
	o.drop_first = 1;	/* implies the median */
	cr_assert_eq(parse(reps_csv, &o, &d, &info, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(num(d, 0, "time_s"), 3.0, "9.0 is dropped: median of 4, 2, 3");
	cr_assert_eq(num(d, 1, "time_s"), (8.0 + 9.5) / 2);
	cr_assert_eq(info.dropped, 2);
	cr_assert_eq(info.runs, 5);
	cr_assert_eq(info.reps[0], 3);
	pm_dataset_free(d);
	pm_read_info_clear(&info);

	o.drop_first = 3;
	expect_error(reps_csv, &o, PM_ESCHEMA, "has 3 runs: --drop-first 3 leaves none", 4, 0);
}

Test(ingest, throughput_becomes_time)
{
	const char *csv = "batch,threads,samples_per_s\n64,1,1280\n128,2,5120\n";
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d;
	pm_error err;

	o.throughput = "samples_per_s";
	o.per = "batch";
	cr_assert_eq(parse(csv, &o, &d, &info, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(info.aggregated, 0);
	cr_assert_str_eq(pm_dataset_col_name(d, 2), "time_s");
	cr_assert_eq(num(d, 0, "time_s"), 64.0 / 1280);
	cr_assert_eq(num(d, 1, "time_s"), 128.0 / 5120);
	cr_assert_eq(pm_dataset_cell_line(d, 1, 2), 3);
	cr_assert_eq(pm_dataset_cell_column(d, 1, 2), 7);
	pm_dataset_free(d);

	o.target = "t_batch";
	o.aggregate = PM_AGG_MEAN;
	cr_assert_eq(parse("b,x\n2,4\n2,1\n", &(pm_read_options){ .throughput = "x", .per = "b",
			   .target = "t", .aggregate = PM_AGG_MEAN }, &d, NULL, &err), PM_OK,
		     "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(d), 1);
	cr_assert_eq(num(d, 0, "t"), (0.5 + 2.0) / 2);
	pm_dataset_free(d);
	/* without per, the time is 1 / throughput (issue 20) */
	cr_assert_eq(parse("b,x\n2,4\n2,1\n", &(pm_read_options){ .throughput = "x",
			   .target = "t", .aggregate = PM_AGG_MEAN }, &d, NULL, &err), PM_OK,
		     "%s", err.msg);
	cr_assert_eq(num(d, 0, "t"), (0.25 + 1.0) / 2);
	pm_dataset_free(d);

	o.aggregate = PM_AGG_DEFAULT;
	o.target = NULL;
	expect_error("batch,threads,samples_per_s\n64,1,0\n", &o, PM_ESCHEMA,
		     "column 'samples_per_s': 0 must be > 0", 2, 6);
	expect_error("batch,threads,samples_per_s\n64,1,fast\n", &o, PM_ESCHEMA,
		     "'fast' is not a number", 2, 6);
	o.per = "batch_size";
	expect_error(csv, &o, PM_ESCHEMA, "--per: no column 'batch_size'", 0, 0);
	o.per = "batch";
	o.target = "batch";
	expect_error(csv, &o, PM_ESCHEMA, "column 'batch' already exists", 0, 0);
}

Test(ingest, option_errors)
{
	pm_read_options o = pm_read_options_default();

	o.per = "x";
	expect_error(reps_csv, &o, PM_EINVAL, "--per goes with --throughput", 0, 0);
	o = pm_read_options_default();
	o.aggregate = PM_AGG_MEDIAN;
	expect_error(reps_csv, &o, PM_EINVAL, "aggregating runs needs the time column", 0, 0);
	o.target = "time_s";
	o.aggregate = PM_AGG_NONE;
	o.drop_first = 1;
	expect_error(reps_csv, &o, PM_EINVAL, "not with --aggregate none", 0, 0);
	o = pm_read_options_default();
	o.name_pattern = "x{n}";
	expect_error(reps_csv, &o, PM_EINVAL, "--name-pattern is for Google Benchmark", 0, 0);
	o = pm_read_options_default();
	o.target = "time";
	o.aggregate = PM_AGG_MEDIAN;
	expect_error(reps_csv, &o, PM_ESCHEMA, "the target: no column 'time'", 0, 0);
	expect_error("n,time_s\n1,2\n1,x\n", &(pm_read_options){ .target = "time_s",
		     .aggregate = PM_AGG_MIN }, PM_ESCHEMA, "'x' is not a number", 3, 3);
}

Test(ingest, names)
{
	pm_format f;
	pm_aggregate a;

	cr_assert_eq(pm_format_from_name("gbench", &f, NULL), PM_OK);
	cr_assert_eq(f, PM_FORMAT_GBENCH);
	cr_assert_str_eq(pm_format_name(PM_FORMAT_HYPERFINE), "hyperfine");
	cr_assert_eq(pm_format_from_name("xml", &f, NULL), PM_EINVAL);
	cr_assert_eq(pm_aggregate_from_name("min", &a, NULL), PM_OK);
	cr_assert_eq(a, PM_AGG_MIN);
	cr_assert_eq(pm_aggregate_from_name("default", &a, NULL), PM_EINVAL);
	cr_assert_eq(pm_aggregate_from_name("max", &a, NULL), PM_EINVAL);
}

Test(ingest, format_flag_overrides_detection)
{
	pm_read_options o = pm_read_options_default();

	o.format = PM_FORMAT_CSV;
	/* read as CSV, a JSON document is one odd column */
	cr_assert_eq(pm_dataset_read(data_path("hyperfine.json"), &o, &(pm_dataset *){ NULL },
				     NULL, NULL), PM_EPARSE);
	o.format = PM_FORMAT_HYPERFINE;
	expect_error("n,time_s\n1,2\n", &o, PM_EPARSE, "invalid JSON", 1, 1);
}

Test(ingest, extrap_text)
{
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d;

	o.region = "stencil";
	o.metric = "time";
	o.aggregate = PM_AGG_NONE;
	read_ok("extrap.txt", &o, &d, &info);
	cr_assert_eq(info.format, PM_FORMAT_EXTRAP);
	cr_assert_eq(pm_dataset_nrows(d), 18);
	cr_assert_str_eq(pm_dataset_col_name(d, 0), "p");
	cr_assert_str_eq(pm_dataset_col_name(d, 1), "n");
	cr_assert_str_eq(pm_dataset_col_name(d, 2), "time_s");
	cr_assert_str_eq(cell(d, 3, "p"), "2");
	cr_assert_str_eq(cell(d, 3, "n"), "2000");
	cr_assert_eq(num(d, 3, "time_s"), 1.021);
	cr_assert_eq(num(d, 17, "time_s"), 0.275);
	/* places: the value on its DATA line, the coordinates on their POINTS line */
	cr_assert_eq(pm_dataset_cell_line(d, 4, 2), 12);
	cr_assert_eq(pm_dataset_cell_column(d, 4, 2), 12);
	cr_assert_eq(pm_dataset_cell_line(d, 9, 0), 7);
	cr_assert_eq(pm_dataset_cell_column(d, 9, 1), 12);
	pm_dataset_free(d);

	o.region = "halo_exchange";
	o.metric = NULL;
	o.aggregate = PM_AGG_DEFAULT;
	read_ok("extrap.txt", &o, &d, &info);
	cr_assert_eq(pm_dataset_nrows(d), 6, "one metric in that region; medians");
	cr_assert_eq(num(d, 5, "time_s"), 0.068);
	cr_assert_eq(info.reps[5], 3);
	pm_dataset_free(d);
	pm_read_info_clear(&info);
}

Test(ingest, extrap_errors)
{
	pm_read_options o = pm_read_options_default();

	cr_assert_eq(pm_dataset_read(data_path("extrap.txt"), NULL, &(pm_dataset *){ NULL },
				     NULL, NULL), PM_ESCHEMA, "two regions: choose one");
	/* (each region with a DATA line for each point: fewer is an error of its own) */
	expect_error("PARAMETER p\nPOINTS 1 2\nREGION a\nDATA 1\nDATA 2\nREGION b\nDATA 2\nDATA 3\n",
		     NULL, PM_ESCHEMA, "more than one region ('a', 'b'): choose one with --region", 7,
		     1);
	expect_error("PARAMETER p\nPOINTS 1 2 3\nREGION a\nDATA 1\nDATA 2\nREGION b\nDATA 2\n", NULL,
		     PM_ESCHEMA, "only 2 DATA lines for the 3 points (region 'a', metric '')", 4, 1);
	expect_error("PARAMETER p\nPOINTS 1 2\nMETRIC time\nDATA 1 1.5\n", NULL, PM_ESCHEMA,
		     "only 1 DATA lines for the 2 points (region '', metric 'time')", 4, 1);
	expect_error("PARAMETER p\nPOINTS 1 2\nDATA 1 -0.5 2\nDATA 3\n", NULL, PM_ESCHEMA,
		     "DATA value -0.5 is not a number >= 0", 3, 8);
	expect_error("PARAMETER p\nPOINTS 1 2\nDATA 1\nDATA 2\nDATA 3\n", NULL, PM_ESCHEMA,
		     "more DATA lines than the 2 points", 5, 1);
	expect_error("PARAMETER p q\nPOINTS ( 1 2 ) ( 3 )\n", NULL, PM_ESCHEMA,
		     "a point of 1 values, but 2 parameters", 2, 16);
	expect_error("PARAMETER p q\nPOINTS ( 1 2\n", NULL, PM_ESCHEMA,
		     "a point without its ')'", 2, 8);
	expect_error("PARAMETER p\nPOINTS 1\nDATA 1\nVALUES 2\n", NULL, PM_ESCHEMA,
		     "'VALUES' is not PARAMETER, POINTS, REGION, METRIC or DATA", 4, 1);
	expect_error("PARAMETER p\nPOINTS 1\nDATA 1\nPARAMETER q\n", NULL, PM_ESCHEMA,
		     "PARAMETER after POINTS", 4, 1);
	expect_error("PARAMETER p\nPOINTS 0.5\nDATA 1 x\n", NULL, PM_ESCHEMA,
		     "column 'time_s': 'x' is not a number", 3, 8);
	o.region = "nowhere";
	expect_error("PARAMETER p\nPOINTS 1\nDATA 1\n", &o, PM_ESCHEMA,
		     "no DATA for region 'nowhere'", 0, 0);
	o.format = PM_FORMAT_CSV;
	expect_error("n,t\n1,2\n", &o, PM_EINVAL, "--region and --metric are for Extra-P", 0, 0);
}

/* Every cell of two datasets: the same names and numbers. */
static void expect_same_cells(const pm_dataset *a, const pm_dataset *b)
{
	cr_assert_eq(pm_dataset_nrows(a), pm_dataset_nrows(b));
	cr_assert_eq(pm_dataset_ncols(a), pm_dataset_ncols(b));
	for (size_t c = 0; c < pm_dataset_ncols(a); c++) {
		cr_assert_str_eq(pm_dataset_col_name(a, c), pm_dataset_col_name(b, c));
		for (size_t r = 0; r < pm_dataset_nrows(a); r++)
			cr_assert_eq(num(a, r, pm_dataset_col_name(a, c)),
				     num(b, r, pm_dataset_col_name(b, c)), "row %zu, column %zu", r,
				     c);
	}
}

/* extrap.json, extrap.jsonl, extrap_ids.json (Extra-P's older, id-based
 * JSON) and extrap_list.jsonl (a list of values per line, blank lines
 * between) hold extrap.txt's numbers: every run and every median the same,
 * for each region and metric. */
Test(ingest, extrap_json_and_jsonl_equal_the_text)
{
	static const char *const pick[][2] = { { "stencil", "time" }, { "stencil", "visits" },
					       { "halo_exchange", NULL } };
	static const char *const file[] = { "extrap.json", "extrap.jsonl", "extrap_ids.json",
					    "extrap_list.jsonl" };
	static const pm_format fmt[] = { PM_FORMAT_EXTRAP_JSON, PM_FORMAT_EXTRAP_JSONL,
					 PM_FORMAT_EXTRAP_JSON, PM_FORMAT_EXTRAP_JSONL };

	for (size_t k = 0; k < 3; k++) {
		for (int agg = PM_AGG_NONE; agg <= PM_AGG_MEDIAN; agg++) {
			pm_read_options o = pm_read_options_default();
			pm_read_info info;
			pm_dataset *text, *d;

			o.region = pick[k][0];
			o.metric = pick[k][1];
			o.aggregate = (pm_aggregate)agg;
			read_ok("extrap.txt", &o, &text, NULL);
			for (size_t f = 0; f < sizeof(file) / sizeof(*file); f++) {
				read_ok(file[f], &o, &d, &info);
				cr_assert_eq(info.format, fmt[f]);
				expect_same_cells(text, d);
				pm_dataset_free(d);
				pm_read_info_clear(&info);
			}
			pm_dataset_free(text);
		}
	}
}

/* JSON Lines cells are placed on their line; string params are levels;
 * callpath and metric default to "<root>" and "time". */
Test(ingest, extrap_jsonl_places_and_defaults)
{
	const char *text = "{\"params\": {\"x\": 2, \"mode\": \"a\"}, \"value\": 1.5}\n\n"
			   "{\"params\": {\"mode\": \"b\", \"x\": 4}, \"value\": 2.5, "
			   "\"metric\": \"<default>\", \"callpath\": \"<root>\"}\n";
	pm_dataset *d = runs_of(text);

	cr_assert_eq(pm_dataset_nrows(d), 2);
	cr_assert_str_eq(cell(d, 1, "mode"), "b");
	cr_assert_eq(num(d, 1, "x"), 4);
	cr_assert_eq(num(d, 1, "time_s"), 2.5);
	cr_assert_eq(pm_dataset_cell_line(d, 1, 2), 3);
	cr_assert_eq(pm_dataset_cell_column(d, 1, 2), 0);
	pm_dataset_free(d);
}

Test(ingest, extrap_json_errors)
{
	pm_read_options o = pm_read_options_default();
	const char *two = "{\"parameters\": [\"p\"], \"measurements\": {\"a\": {\"time\": "
			  "[{\"point\": 1, \"values\": [1]}]}, \"b\": {}}}";

	expect_error(two, NULL, PM_ESCHEMA, "measurements: the file has more than one region "
		     "('a', 'b'): choose one with --region", 0, 0);
	o.region = "c";
	expect_error(two, &o, PM_ESCHEMA, "measurements: no region 'c'", 0, 0);
	o.region = "a";
	o.metric = "visits";
	expect_error(two, &o, PM_ESCHEMA, "measurements.a: no metric 'visits'", 0, 0);
	expect_error("{\"parameters\": [], \"measurements\": {}}", NULL, PM_ESCHEMA,
		     "'parameters' must name 1 to 64 parameters", 0, 0);
	expect_error("{\"parameters\": [\"p\", 3], \"measurements\": {}}", NULL, PM_ESCHEMA,
		     "parameters[1] must be a name", 0, 0);
	expect_error("{\"parameters\": [\"p\"], \"measurements\": {\"a\": {\"t\": "
		     "[{\"point\": [1, 2], \"values\": [1]}]}}}", NULL, PM_ESCHEMA,
		     "measurements.a.t[0]: 'point' must be an array of 1 values", 0, 0);
	expect_error("{\"parameters\": [\"p\"], \"measurements\": {\"a\": {\"t\": "
		     "[{\"point\": [1], \"values\": [1]}, {\"point\": [2], \"values\": [1, -1]}]}}}",
		     NULL, PM_ESCHEMA, "measurements.a.t[1]: values[1] must be a number >= 0", 0, 0);
	expect_error("{\"parameters\": [\"p\"], \"measurements\": {\"a\": {\"t\": "
		     "[{\"point\": [true], \"values\": [1]}]}}}", NULL, PM_ESCHEMA,
		     "each coordinate of 'point' must be a number or a string", 0, 0);
	expect_error("{\"parameters\": [\"p\"], \"measurements\": {\"a\": {\"t\": "
		     "[{\"point\": [1], \"values\": []}]}}}", NULL, PM_ESCHEMA,
		     "measurements.a.t[0]: 'values' is empty", 0, 0);
	expect_error("{\"parameters\": [\"p\"], \"measurements\": {\"a\": {\"t\": {}}}}",
		     NULL, PM_ESCHEMA, "measurements.a.t: must be an array of points", 0, 0);
	expect_error("{\"parameters\": [\"p\"], \"measurements\": {\"a\": []}}", NULL,
		     PM_ESCHEMA, "measurements.a: must be an object of metrics", 0, 0);
	expect_error("{\"measurements\": {}}", NULL, PM_ESCHEMA, "missing 'parameters'", 0, 0);
	expect_error("{\"parameters\": [\"p\"], \"measurements\": {}}", NULL, PM_ESCHEMA,
		     "measurements: no region", 0, 0);
}

/* Extra-P's id-based JSON: each list as given, or a small default (two
 * parameters, two callpaths, one metric, one coordinate, one measurement). */
struct ids_doc {
	const char *params, *callpaths, *metrics, *coords, *meas;
};

static const char *ids_text(struct ids_doc d)
{
	static char text[2048];

	snprintf(text, sizeof(text), "{\"parameters\": %s, \"callpaths\": %s, \"metrics\": %s, "
		 "\"coordinates\": %s, \"measurements\": %s}",
		 d.params ? d.params :
			    "[{\"id\": 1, \"name\": \"x\"}, {\"id\": 2, \"name\": \"y\"}]",
		 d.callpaths ? d.callpaths :
			       "[{\"id\": 1, \"name\": \"a\"}, {\"id\": 2, \"name\": \"b\"}]",
		 d.metrics ? d.metrics : "[{\"id\": 1, \"name\": \"time\"}]",
		 d.coords ? d.coords : "[{\"id\": 1, \"parameter_value_pairs\": "
				       "[{\"parameter_id\": 1, \"parameter_value\": 4}, "
				       "{\"parameter_id\": 2, \"parameter_value\": \"big\"}]}]",
		 d.meas ? d.meas : "[{\"callpath_id\": 1, \"coordinate_id\": 1, "
				   "\"metric_id\": 1, \"value\": 2}]");
	return text;
}

#define IDS_PAIR(p, v) "{\"parameter_id\": " #p ", \"parameter_value\": " #v "}"
#define IDS_COORD(...) "[{\"id\": 1, \"parameter_value_pairs\": [" __VA_ARGS__ "]}]"
#define IDS_MEAS(cp, co, m, v) "{\"callpath_id\": " #cp ", \"coordinate_id\": " #co \
			       ", \"metric_id\": " #m ", \"value\": " #v "}"

/* Parameters in their order, string values as levels, a measurement
 * without its own id; the value of a callpath not chosen is not read. */
Test(ingest, extrap_json_ids_reads_by_id)
{
	pm_read_options o = pm_read_options_default();
	pm_dataset *d = runs_of(ids_text((struct ids_doc){ 0 }));
	pm_error err;

	cr_assert_eq(pm_dataset_ncols(d), 3);
	cr_assert_str_eq(pm_dataset_col_name(d, 0), "x");
	cr_assert_str_eq(pm_dataset_col_name(d, 2), "time_s");
	cr_assert_eq(num(d, 0, "x"), 4);
	cr_assert_str_eq(cell(d, 0, "y"), "big");
	cr_assert_eq(num(d, 0, "time_s"), 2);
	pm_dataset_free(d);
	o.region = "a";
	o.aggregate = PM_AGG_NONE;
	cr_assert_eq(parse(ids_text((struct ids_doc){ .meas = "[" IDS_MEAS(1, 1, 1, 3) ", "
			   IDS_MEAS(2, 1, 1, 0) ", " IDS_MEAS(1, 1, 1, 5) "]" }), &o, &d, NULL,
			   &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(d), 2);
	cr_assert_eq(num(d, 1, "time_s"), 5);
	pm_dataset_free(d);
}

Test(ingest, extrap_json_ids_errors)
{
	static const struct {
		struct ids_doc doc;
		const char *msg;
	} bad[] = {
		{ { .meas = "[" IDS_MEAS(7, 1, 1, 2) "]" },
		  "measurements[0]: 'callpath_id' 7 is not an id in 'callpaths'" },
		{ { .meas = "[" IDS_MEAS(1, 1, 3, 2) "]" },
		  "measurements[0]: 'metric_id' 3 is not an id in 'metrics'" },
		{ { .meas = "[" IDS_MEAS(1, 1, 1, 2) ", " IDS_MEAS(1, 2, 1, 2) "]" },
		  "measurements[1]: 'coordinate_id' 2 is not an id in 'coordinates'" },
		{ { .meas = "[" IDS_MEAS(1, 1, 1, -1) "]" },
		  "measurements[0]: 'value' must be a number >= 0" },
		{ { .meas = "[" IDS_MEAS(1, 1, 1, "fast") "]" },
		  "measurements[0]: 'value' must be a number >= 0" },
		{ { .meas = "[" IDS_MEAS(1, 1, 1, [2]) "]" },
		  "measurements[0]: 'value' must be a number >= 0" },
		{ { .meas = "[{\"callpath_id\": 1, \"coordinate_id\": 1, \"metric_id\": 1}]" },
		  "measurements[0]: missing 'value'" },
		{ { .meas = "[3]" }, "measurements[0]: must be an object with 'callpath_id'" },
		{ { .meas = "{}" }, "'measurements' must be an array" },
		{ { .meas = "[" IDS_MEAS(1, 1, 1, 2) ", " IDS_MEAS(2, 1, 1, 2) "]" },
		  "measurements[1]: the file has more than one region ('a', 'b'): choose one "
		  "with --region" },
		{ { .callpaths = "[{\"id\": 1, \"name\": \"a\"}, {\"id\": 1, \"name\": \"b\"}]" },
		  "callpaths[1]: id 1 is also that of callpaths[0]" },
		{ { .params = "[{\"id\": 2, \"name\": \"x\"}, {\"id\": 1, \"name\": \"y\"}, "
			      "{\"id\": 2, \"name\": \"z\"}]" },
		  "parameters[2]: id 2 is also that of parameters[0]" },
		{ { .callpaths = "[{\"id\": -1, \"name\": \"a\"}]" },
		  "callpaths[0]: 'id' must be a whole number" },
		{ { .callpaths = "[{\"id\": 1}]" }, "callpaths[0]: missing 'name'" },
		{ { .metrics = "[\"time\"]" }, "metrics[0]: must be an object with 'id'" },
		{ { .params = "[{\"id\": 1, \"name\": \"\"}]" }, "parameters[0]: 'name' is empty" },
		{ { .params = "[]" }, "'parameters' must name 1 to 64 parameters" },
		{ { .coords = IDS_COORD(IDS_PAIR(1, 4)) },
		  "coordinates[0]: no value for parameter 'y'" },
		{ { .coords = IDS_COORD(IDS_PAIR(1, 4) ", " IDS_PAIR(1, 8)) },
		  "coordinates[0].parameter_value_pairs[1]: parameter 'x' a second time" },
		{ { .coords = IDS_COORD(IDS_PAIR(1, 4) ", " IDS_PAIR(9, 8)) },
		  "coordinates[0].parameter_value_pairs[1]: 'parameter_id' 9 is not an id in "
		  "'parameters'" },
		{ { .coords = IDS_COORD(IDS_PAIR(1, true)) },
		  "coordinates[0].parameter_value_pairs[0]: 'parameter_value' must be a number "
		  "or a string" },
		{ { .coords = IDS_COORD("[1]") },
		  "coordinates[0].parameter_value_pairs[0]: must be an object with "
		  "'parameter_id' and 'parameter_value'" },
		{ { .coords = "[{\"id\": 1}]" },
		  "coordinates[0]: missing 'parameter_value_pairs'" },
	};
	pm_read_options o = pm_read_options_default();

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		expect_error(ids_text(bad[i].doc), NULL, PM_ESCHEMA, bad[i].msg, 0, 0);
	/* told from the newer layout by the array alone */
	expect_error("{\"parameters\": [], \"measurements\": []}", NULL, PM_ESCHEMA,
		     "missing 'callpaths'", 0, 0);
	o.region = "c";
	expect_error(ids_text((struct ids_doc){ 0 }), &o, PM_ESCHEMA,
		     "no measurement for region 'c' and metric '(any)'", 0, 0);
}

#define JSONL_FIRST "{\"params\": {\"p\": 1}, \"value\": 1}\n"

/* expect_error on JSONL_FIRST followed by `second`. */
static void expect_after_first(const char *second, pm_status code, const char *msg,
			       unsigned line, unsigned column)
{
	char text[512];

	snprintf(text, sizeof(text), "%s%s", JSONL_FIRST, second);
	expect_error(text, NULL, code, msg, line, column);
}

Test(ingest, extrap_jsonl_errors)
{
	pm_read_options o = pm_read_options_default();

	expect_after_first("{\"params\": {\"p\": 2}, \"value\": 1,}\n", PM_EPARSE,
			   "invalid JSON", 2, 33);
	expect_after_first("\n{\"params\": {\"p\": 2}, \"value\": -1}\n", PM_ESCHEMA,
			   "'value' must be a number >= 0", 3, 0);
	expect_after_first("{\"params\": {\"q\": 2}, \"value\": 1}\n", PM_ESCHEMA,
			   "no param 'p'", 2, 0);
	expect_after_first("{\"params\": {\"p\": 2, \"q\": 1}, \"value\": 1}\n", PM_ESCHEMA,
			   "its params differ from the first line's", 2, 0);
	expect_after_first("{\"params\": {\"p\": 2}}\n", PM_ESCHEMA, "missing 'value'", 2, 0);
	expect_after_first("[1]\n", PM_ESCHEMA, "each line must be an object", 2, 0);
	expect_after_first("{\"params\": {\"p\": 2}, \"value\": 1, \"callpath\": \"x\"}\n",
			   PM_ESCHEMA, "more than one region ('<root>', 'x'): choose one with "
			   "--region", 2, 0);
	expect_after_first("{\"params\": {\"p\": 2}, \"value\": 1, \"metric\": 7}\n",
			   PM_ESCHEMA, "'metric' must be a string", 2, 0);
	expect_error("{\"params\": {}, \"value\": 1}\n", NULL, PM_ESCHEMA, "'params' is empty",
		     1, 0);
	expect_error("{\"params\": {\"p\": [1]}, \"value\": 1}\n", NULL, PM_ESCHEMA,
		     "each param must be a number or a string", 1, 0);
	o.region = "main";
	expect_error(JSONL_FIRST, &o, PM_ESCHEMA, "no line for region 'main'", 0, 0);
	o.region = NULL;
	o.format = PM_FORMAT_EXTRAP_JSONL;
	expect_error("\n\n", &o, PM_ESCHEMA, "no measurements", 0, 0);
}

/* A list of values is a run each, all placed on their line. */
Test(ingest, extrap_jsonl_value_lists)
{
	pm_dataset *d = runs_of("{\"params\": {\"x\": 2}, \"value\": [1.5, 2.5]}\n\n"
				"{\"params\": {\"x\": 4}, \"value\": 3}\n");

	cr_assert_eq(pm_dataset_nrows(d), 3);
	cr_assert_eq(num(d, 1, "x"), 2);
	cr_assert_eq(num(d, 1, "time_s"), 2.5);
	cr_assert_eq(pm_dataset_cell_line(d, 1, 1), 1);
	cr_assert_eq(num(d, 2, "time_s"), 3);
	cr_assert_eq(pm_dataset_cell_line(d, 2, 1), 3);
	pm_dataset_free(d);
	expect_after_first("{\"params\": {\"p\": 2}, \"value\": [1, -1e-9]}\n", PM_ESCHEMA,
			   "value[1] must be a number >= 0", 2, 0);
	expect_after_first("{\"params\": {\"p\": 2}, \"value\": [1, \"x\"]}\n", PM_ESCHEMA,
			   "value[1] must be a number >= 0", 2, 0);
	expect_after_first("{\"params\": {\"p\": 2}, \"value\": []}\n", PM_ESCHEMA,
			   "'value' is empty", 2, 0);
}

/* A value the fit cannot take is placed on its line. */
Test(ingest, extrap_jsonl_fit_errors_name_the_line)
{
	const char *text = JSONL_FIRST "{\"params\": {\"p\": 2}, \"value\": 1}\n"
			   "{\"params\": {\"p\": -3}, \"value\": 1}\n";
	pm_read_options o = pm_read_options_default();
	pm_fit_options fo = pm_fit_options_default();
	pm_dataset *d;
	pm_error err;
	pm_spec *s = NULL;
	pm_model *m = NULL;

	o.aggregate = PM_AGG_NONE;
	cr_assert_eq(parse(text, &o, &d, NULL, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time_s", NULL), PM_OK);
	cr_assert_eq(pm_fit(d, s, &fo, &m, &err), PM_EDOMAIN);
	cr_expect_eq(err.line, 3, "%s", err.msg);
	cr_expect(strstr(err.msg, "column 'p'"), "%s", err.msg);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(ingest, extrap_json_names_and_detection)
{
	pm_format f;

	cr_assert_eq(pm_format_from_name("extrap-jsonl", &f, NULL), PM_OK);
	cr_assert_eq(f, PM_FORMAT_EXTRAP_JSONL);
	cr_assert_str_eq(pm_format_name(PM_FORMAT_EXTRAP_JSON), "extrap-json");
	cr_assert_str_eq(pm_format_name((pm_format)99), "?");
	/* a JSON file of another kind names all three it knows */
	expect_error("{\"x\": 1}", NULL, PM_ESCHEMA, "nor 'measurements' (Extra-P)", 0, 0);
}

/* CSV through pm_dataset_read is pm_dataset_read_csv: cells and places. */
Test(ingest, csv_reads_as_read_csv)
{
	pm_dataset *a, *b;
	char fa[17], fb[17];

	read_ok("hyperfine_runs.csv", NULL, &a, NULL);
	cr_assert_eq(pm_dataset_read_csv(data_path("hyperfine_runs.csv"), &b, NULL), PM_OK);
	pm_dataset_fingerprint(a, fa);
	pm_dataset_fingerprint(b, fb);
	cr_assert_str_eq(fa, fb);
	cr_assert_eq(pm_dataset_cell_line(a, 11, 2), 13);
	cr_assert_eq(pm_dataset_cell_column(a, 11, 2), pm_dataset_cell_column(b, 11, 2));
	pm_dataset_free(a);
	pm_dataset_free(b);
}

/* Extra-P reads a 0 (a count, a region that took no time at a small scale):
 * so do we, in every Extra-P format, and merge it with the other runs; a
 * negative value is still refused (above). Whether a median of 0 can be
 * fitted is the fit's to say (tests/cli.sh). */
Test(ingest, extrap_zeros_are_read)
{
	static const char *const text[] = {
		"PARAMETER p\nPOINTS 1 2\nDATA 1 0 2\nDATA 0\n",
		"{\"parameters\": [\"p\"], \"measurements\": {\"a\": {\"t\": [{\"point\": 1, "
		"\"values\": [1, 0, 2]}, {\"point\": 2, \"values\": [0]}]}}}",
		"{\"params\": {\"p\": 1}, \"value\": [1, 0, 2]}\n{\"params\": {\"p\": 2}, "
		"\"value\": 0}\n",
		"{\"parameters\": [{\"id\": 1, \"name\": \"p\"}], \"callpaths\": [{\"id\": 1, "
		"\"name\": \"a\"}], \"metrics\": [{\"id\": 1, \"name\": \"t\"}], \"coordinates\": "
		"[{\"id\": 1, \"parameter_value_pairs\": [{\"parameter_id\": 1, "
		"\"parameter_value\": 1}]}, {\"id\": 2, \"parameter_value_pairs\": "
		"[{\"parameter_id\": 1, \"parameter_value\": 2}]}], \"measurements\": ["
		"{\"callpath_id\": 1, \"coordinate_id\": 1, \"metric_id\": 1, \"value\": 1}, "
		"{\"callpath_id\": 1, \"coordinate_id\": 1, \"metric_id\": 1, \"value\": 0}, "
		"{\"callpath_id\": 1, \"coordinate_id\": 1, \"metric_id\": 1, \"value\": 2}, "
		"{\"callpath_id\": 1, \"coordinate_id\": 2, \"metric_id\": 1, \"value\": 0}]}",
	};

	for (size_t i = 0; i < sizeof(text) / sizeof(*text); i++) {
		pm_read_info info;
		pm_dataset *d;
		pm_error err;

		cr_assert_eq(parse(text[i], NULL, &d, &info, &err), PM_OK, "%zu: %s", i, err.msg);
		cr_assert_eq(pm_dataset_nrows(d), 2, "%zu", i);
		cr_assert_eq(num(d, 0, "time_s"), 1, "%zu: the median of 1, 0, 2", i);
		cr_assert_eq(num(d, 1, "time_s"), 0, "%zu", i);
		cr_assert_eq(info.reps[0], 3);
		pm_dataset_free(d);
		pm_read_info_clear(&info);
	}
	/* a CSV time is not a count: a 0 run is still refused before merging */
	{
		pm_read_options o = pm_read_options_default();

		o.target = "t";
		o.aggregate = PM_AGG_MEDIAN;
		expect_error("n,t\n1,1\n1,0\n", &o, PM_ESCHEMA, "column 't': 0 must be > 0", 3, 3);
	}
}

/* A JSON Lines line without "metric" has Extra-P's metric '<default>'. */
Test(ingest, extrap_jsonl_default_metric)
{
	pm_read_options o = pm_read_options_default();
	pm_dataset *d;
	pm_error err;

	o.metric = "<default>";
	cr_assert_eq(parse("{\"params\": {\"p\": 1}, \"value\": 2}\n", &o, &d, NULL, &err), PM_OK,
		     "%s", err.msg);
	cr_assert_eq(num(d, 0, "time_s"), 2);
	pm_dataset_free(d);
	o.metric = "time";
	expect_error("{\"params\": {\"p\": 1}, \"value\": 2}\n", &o, PM_ESCHEMA,
		     "no line for region '(any)' and metric 'time'", 0, 0);
}

/* --format extrap-json reads a file that is not JSON but JSON Lines as
 * such, as Extra-P's --json does; other text that is not JSON stays an
 * error of its own. */
Test(ingest, extrap_json_falls_back_to_jsonl)
{
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d;
	pm_error err;

	o.format = PM_FORMAT_EXTRAP_JSON;
	cr_assert_eq(parse("{\"params\": {\"p\": 1}, \"value\": 2}\n\n"
			   "  {\"params\": {\"p\": 2}, \"value\": 3}\n", &o, &d, &info, &err), PM_OK,
		     "%s", err.msg);
	cr_assert_eq(info.format, PM_FORMAT_EXTRAP_JSONL);
	cr_assert_eq(pm_dataset_nrows(d), 2);
	cr_assert_eq(num(d, 1, "time_s"), 3);
	pm_dataset_free(d);
	pm_read_info_clear(&info);
	/* the error is then JSON Lines', with its line */
	expect_error("{\"params\": {\"p\": 1}, \"value\": 2}\n{\"params\": {\"p\": 2}, "
		     "\"value\": -3}\n", &o, PM_ESCHEMA, "'value' must be a number >= 0", 2, 0);
	expect_error("{\"params\": {\"p\": 1}, \"value\": 2}\nDATA 3\n", &o, PM_EPARSE,
		     "invalid JSON", 2, 1);
}

/* A point that the file lists, but the chosen region and metric did not
 * measure, is an error, as in Extra-P (which refuses such a file), not a
 * point silently missing from the fit. */
Test(ingest, extrap_point_without_measurements)
{
	pm_read_options o = pm_read_options_default();
	const char *json = "{\"parameters\": [\"p\"], \"measurements\": {\"a\": {\"t\": "
			   "[{\"point\": 1, \"values\": [1]}, {\"point\": 2, \"values\": [2]}]}, "
			   "\"b\": {\"t\": [{\"point\": [1], \"values\": [3]}]}}}";
	const char *jsonl = "{\"params\": {\"p\": 1}, \"value\": 1, \"callpath\": \"a\"}\n"
			    "{\"params\": {\"p\": 2}, \"value\": 2, \"callpath\": \"a\"}\n"
			    "{\"params\": {\"p\": 1}, \"value\": 3, \"callpath\": \"b\"}\n";
	pm_dataset *d;
	pm_error err;

	o.region = "b";
	expect_error(json, &o, PM_ESCHEMA, "the point (2) of measurements.a.t[1] has no "
		     "measurement of region 'b' and metric 't'", 0, 0);
	expect_error(jsonl, &o, PM_ESCHEMA, "the point (2) of line 2 has no measurement of "
		     "region 'b' and metric '<default>'", 0, 0);
	expect_error("{\"parameters\": [{\"id\": 1, \"name\": \"p\"}], \"callpaths\": [{\"id\": 1, "
		     "\"name\": \"a\"}], \"metrics\": [{\"id\": 1, \"name\": \"t\"}], "
		     "\"coordinates\": [{\"id\": 1, \"parameter_value_pairs\": [{\"parameter_id\": 1, "
		     "\"parameter_value\": 1}]}, {\"id\": 2, \"parameter_value_pairs\": "
		     "[{\"parameter_id\": 1, \"parameter_value\": 2}]}], \"measurements\": ["
		     "{\"callpath_id\": 1, \"coordinate_id\": 1, \"metric_id\": 1, \"value\": 1}]}",
		     NULL, PM_ESCHEMA, "coordinates[1]: no measurement of region 'a' and metric "
		     "'t'", 0, 0);
	/* the region that has every point reads */
	o.region = "a";
	cr_assert_eq(parse(json, &o, &d, NULL, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(d), 2);
	pm_dataset_free(d);
	cr_assert_eq(parse(jsonl, &o, &d, NULL, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(d), 2);
	pm_dataset_free(d);
}

/* With --format auto, text that starts with any of Extra-P's keywords is
 * Extra-P text, and its error is the format's, not a CSV one. */
Test(ingest, extrap_text_detected_by_any_keyword)
{
	expect_error("POINTS 1 2\nREGION a\nDATA 1\n", NULL, PM_ESCHEMA,
		     "POINTS before any PARAMETER", 1, 1);
	expect_error("# no parameters\nREGION a\nDATA 1\n", NULL, PM_ESCHEMA,
		     "DATA before any POINTS", 3, 1);
	expect_error("METRIC\ttime\nDATA 1\n", NULL, PM_ESCHEMA, "DATA before any POINTS", 2, 1);
}
