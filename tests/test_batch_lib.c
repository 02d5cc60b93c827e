/* The library's batch (lib/batch/, perfmodel/batch.h): each kind of bad
 * jobs file gives its status and a message naming the file and the line;
 * --each-region's shared options are refused by name; a job runs into its
 * model or its error line, or stops; the results go out in job order,
 * resume from an earlier file and never replace an input. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leak_check.h"
#include "perfmodel/batch.h"

PM_LEAK_CHECKED_SUITE(batch_lib);

/* A fresh folder for one test's files: its name in dir. */
static void fresh_dir(char dir[64])
{
	strcpy(dir, "/tmp/pm_batch_lib_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* The whole of path, malloc'd. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	cr_assert_not_null(f, "%s", path);
	buf[fread(buf, 1, (1 << 16) - 1, f)] = '\0';
	fclose(f);
	return buf;
}

static pm_batch *parse(const char *text, const char *name)
{
	pm_batch *b = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_batch_parse(text, strlen(text), name, NULL, &b, &e), PM_OK, "%s", e.msg);
	return b;
}

/* Job i's result line, which must be an error; returned malloc'd. */
static char *failed_line(const pm_batch *b, size_t i)
{
	pm_batch_outcome outcome;
	pm_error e = { 0 };
	char *line = NULL;

	cr_assert_eq(pm_batch_run(b, i, &line, &outcome, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(outcome, PM_BATCH_FAILED, "%s", line);
	return line;
}

Test(batch_lib, each_bad_line_is_its_error_named_by_file_and_line)
{
	pm_batch *b = parse("{\"id\": 1, \"data\": \"x.csv\"}\n"
			    "not JSON {\n"
			    "\n"
			    "[1, 2]\n"
			    "{\"id\": \"e\", \"data\": \"\"}\n"
			    "{\"data\": \"x.csv\"}\n"
			    "{\"id\": \"o\", \"data\": \"x.csv\", \"out\": \"m.json\"}\n"
			    "{\"id\": \"x\", \"data\": \"x.csv\"} trailing\n"
			    "{\"id\": \"n\", \"data\": \"x.csv\", \"seed\": {\"a\": 1}}\n",
			    "dir/jobs.jsonl");
	static const char *const want[] = {
		NULL,
		"dir/jobs.jsonl:2: not JSON",
		"dir/jobs.jsonl:4: a job is a JSON object",
		"dir/jobs.jsonl:5: \"data\" must be a file name, not empty",
		"dir/jobs.jsonl:6: no \"id\": every job needs one",
		"dir/jobs.jsonl:7: \"out\" is not an option of a batch job: the model goes into "
		"the results",
		"dir/jobs.jsonl:8: not JSON",
		"dir/jobs.jsonl:9: \"seed\": expected a string, a number, true or a list of them",
	};
	char *line;

	cr_assert_eq(pm_batch_njobs(b), 8, "the blank line is no job");
	for (size_t i = 0; i < 8; i++) {
		if (!want[i]) {
			cr_expect_null(pm_batch_job_error(b, i));
			continue;
		}
		cr_expect_str_eq(pm_batch_job_error(b, i), want[i]);
	}
	/* the error is the job's line, with its id where it has one */
	line = failed_line(b, 3);
	cr_expect_str_eq(line, "{\"id\": \"e\", \"error\": \"dir/jobs.jsonl:5: \\\"data\\\" must be "
			 "a file name, not empty\"}\n");
	free(line);
	line = failed_line(b, 1);
	cr_expect_str_eq(line, "{\"id\": null, \"error\": \"dir/jobs.jsonl:2: not JSON\"}\n");
	free(line);
	pm_batch_free(b);
}

Test(batch_lib, a_nul_byte_makes_a_line_no_job)
{
	static const char text[] = "{\"id\": 1, \"data\": \"x.csv\"}\0{\"id\": 2}\n";
	pm_batch *b = NULL;

	cr_assert_eq(pm_batch_parse(text, sizeof(text) - 1, "j.jsonl", NULL, &b, NULL), PM_OK);
	cr_assert_eq(pm_batch_njobs(b), 1);
	cr_expect_str_eq(pm_batch_job_error(b, 0), "j.jsonl:1: not JSON");
	pm_batch_free(b);
}

Test(batch_lib, an_unknown_option_is_the_jobs_error_as_fit_says_it)
{
	pm_batch *b = parse("{\"id\": \"u\", \"data\": \"x.csv\", \"frobnicate\": 3}\n", "j.jsonl");
	char *line = failed_line(b, 0);

	cr_expect_str_eq(line, "{\"id\": \"u\", \"error\": \"unknown option '--frobnicate=3' (see "
			 "'perfmodel help fit')\"}\n");
	free(line);
	pm_batch_free(b);
}

Test(batch_lib, help_in_a_job_is_its_error_and_ends_nothing)
{
	pm_batch *b = parse("{\"id\": \"h\", \"data\": \"x.csv\", \"he\": true}\n"
			    "{\"id\": \"k\", \"data\": \"nothere.csv\", \"command\": \"select\"}\n",
			    "j.jsonl");
	char *line = failed_line(b, 0);

	cr_expect_str_eq(line, "{\"id\": \"h\", \"error\": \"'--he' is --help, which is not an option "
			 "of a batch job\"}\n");
	free(line);
	/* the next job still runs: its own error, naming its file */
	line = failed_line(b, 1);
	cr_expect(strstr(line, "nothere.csv") != NULL, "%s", line);
	free(line);
	pm_batch_free(b);
}

Test(batch_lib, duplicate_ids_name_both_lines)
{
	static const char text[] = "{\"id\": \"a\", \"data\": \"x.csv\"}\n"
				   "{\"id\": 7, \"data\": \"x.csv\"}\n"
				   "{\"id\": \"a\", \"data\": \"y.csv\"}\n";
	pm_batch *b = (pm_batch *)1;
	pm_error e = { 0 };

	cr_assert_eq(pm_batch_parse(text, strlen(text), "dup.jsonl", NULL, &b, &e), PM_EINVAL);
	cr_expect_null(b);
	cr_expect_str_eq(e.file, "dup.jsonl");
	cr_expect_eq(e.line, 3);
	cr_expect_str_eq(e.msg, "id \"a\" is also line 1's: ids must be unique");
}

Test(batch_lib, a_folder_or_nothing_is_no_jobs_file)
{
	char dir[64], path[128];
	pm_batch *b = NULL;
	pm_error e = { 0 };

	fresh_dir(dir);
	cr_assert_eq(pm_batch_read(dir, NULL, &b, &e), PM_EIO);
	cr_expect_null(b);
	cr_expect_str_eq(e.file, dir);
	cr_expect_str_eq(e.msg, "a folder, not a jobs file");
	snprintf(path, sizeof(path), "%s/nothere.jsonl", dir);
	cr_assert_eq(pm_batch_read(path, NULL, &b, &e), PM_EIO);
	cr_expect_str_eq(e.file, path);
	cr_expect_str_eq(e.msg, "No such file or directory");
	rmdir(dir);
}

Test(batch_lib, shared_options_that_change_a_job_are_refused_by_name)
{
	static const struct {
		const char *args[3];
		int argc;
		const char *want;
	} cases[] = {
		{ { "--callpath", "main" }, 2, "--callpath after --: each job's region and metric "
		  "are its pair of p.txt, its target the metric" },
		{ { "--call=main" }, 1, "--callpath after --:" },
		{ { "--metric", "visits" }, 2, "--metric after --:" },
		{ { "--target", "t" }, 2, "--target after --:" },
		{ { "-o", "m.json" }, 2, "--output after --: not an option of a batch job" },
		{ { "--seed", "2", "--he" }, 3, "--help after --: a job prints no usage" },
		{ { "other.csv" }, 1, "'other.csv' after --: every job reads p.txt" },
		{ { "--seed" }, 1, "'--seed' after --: needs a value" },
		{ { "--version" }, 1, "'--version' after --: not an option of fit" },
	};
	pm_error e;

	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		pm_batch *b = (pm_batch *)1;

		cr_expect_eq(pm_batch_check_shared("p.txt", cases[k].argc,
						   (char *const *)cases[k].args, &e), PM_EINVAL);
		cr_expect(!strncmp(e.msg, cases[k].want, strlen(cases[k].want)), "%s", e.msg);
		/* refused before the profile is read */
		cr_expect_eq(pm_batch_regions("nothere.txt", PM_COMMAND_FIT, cases[k].argc,
					      (char *const *)cases[k].args, NULL, &b, &e), PM_EINVAL);
		cr_expect_null(b);
	}
	cr_expect_eq(pm_batch_check_shared("p.txt", 0, NULL, &e), PM_OK);
	cr_expect_eq(pm_batch_check_shared("p.txt", 2, (char *const[]){ "--seed", "2" }, &e), PM_OK);
}

Test(batch_lib, each_region_jobs_are_the_pairs_in_order)
{
	char path[4096];
	pm_batch *b = NULL;
	pm_error e = { 0 };

	snprintf(path, sizeof(path), "%s/ingest/extrap.txt", getenv("PM_TEST_DATA"));
	cr_assert_eq(pm_batch_regions(path, PM_COMMAND_FIT, 2, (char *const[]){ "--seed", "2" },
				      NULL, &b, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_batch_njobs(b), 3);
	cr_expect_str_eq(pm_batch_job_id(b, 0)->text, "stencil/time");
	cr_expect_str_eq(pm_batch_job_id(b, 1)->text, "stencil/visits");
	cr_expect_str_eq(pm_batch_job_id(b, 2)->text, "halo_exchange/time");
	pm_batch_free(b);
	cr_expect_eq(pm_batch_regions("/nothere.txt", PM_COMMAND_FIT, 0, NULL, NULL, &b, &e), PM_EIO);
	cr_expect_null(b);
}

Test(batch_lib, a_job_runs_into_its_model_or_stops)
{
	char text[8192];
	const char *root = getenv("PM_SOURCE_ROOT");
	volatile sig_atomic_t stop = 0;
	pm_batch_options o = { .threads = "1", .stop = &stop };
	pm_batch_outcome outcome;
	pm_batch *b = NULL;
	char *line = NULL;

	snprintf(text, sizeof(text), "{\"id\": \"g\", \"data\": \"%s/data/gemm_cpu.csv\", \"spec\": "
		 "\"%s/models/gemm.json\", \"form\": \"additive\", \"maxiter\": 20, "
		 "\"no-intervals\": true}\n", root, root);
	cr_assert_eq(pm_batch_parse(text, strlen(text), "j.jsonl", &o, &b, NULL), PM_OK);
	cr_assert_eq(pm_batch_run(b, 0, &line, &outcome, NULL), PM_OK);
	cr_expect_eq(outcome, PM_BATCH_MODEL);
	cr_expect(!strncmp(line, "{\"id\": \"g\", \"model\": {", 22), "%.100s", line);
	cr_expect(strstr(line, "\"run\"") == NULL, "no timings: no run member");
	free(line);
	/* a stop: no line, the job is to be run again */
	stop = 1;
	cr_assert_eq(pm_batch_run(b, 0, &line, &outcome, NULL), PM_OK);
	cr_expect_eq(outcome, PM_BATCH_STOPPED);
	cr_expect_null(line);
	cr_expect_eq(pm_batch_run(b, 1, &line, &outcome, NULL), PM_EINVAL, "no such job");
	pm_batch_free(b);
}

/* The three jobs a, b, c; their error lines. */
static const char jobs3[] = "{\"id\": \"a\", \"data\": \"x.csv\"}\n"
			    "{\"id\": \"b\", \"data\": \"x.csv\", \"seeds\": 4}\n"
			    "{\"id\": \"c\", \"data\": \"x.csv\"}\n";
#define LINE(id) "{\"id\": \"" id "\", \"error\": \"e\"}\n"

static pm_batch_output *open_out(const pm_batch *b, const char *path, const char *resume)
{
	pm_batch_output_options oo = { .path = path, .resume = resume };
	pm_batch_output *o = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_batch_output_open(b, &oo, &o, &e), PM_OK, "%s", e.msg);
	return o;
}

static void put(pm_batch_output *o, size_t i, const char *line)
{
	cr_assert_eq(pm_batch_output_put(o, i, strdup(line), 1, NULL), PM_OK);
}

Test(batch_lib, lines_go_out_in_job_order_whatever_order_they_finish_in)
{
	char dir[64], path[128], *got;
	pm_batch *b = parse(jobs3, "j.jsonl");
	pm_batch_output *o;
	pm_batch_tally t;
	size_t *order, n;

	fresh_dir(dir);
	snprintf(path, sizeof(path), "%s/r.jsonl", dir);
	o = open_out(b, path, NULL);
	/* the most costly first (--seeds 4), then in job order */
	cr_assert_eq(pm_batch_order(b, o, &order, &n, NULL), PM_OK);
	cr_assert_eq(n, 3);
	cr_expect(order[0] == 1 && order[1] == 0 && order[2] == 2);
	free(order);
	put(o, 2, LINE("c"));
	put(o, 0, LINE("a"));
	cr_expect(pm_batch_output_has(o, 0) && !pm_batch_output_has(o, 1));
	cr_expect_eq(pm_batch_output_put(o, 0, strdup(LINE("a")), 1, NULL), PM_EINVAL,
		     "a job has one line");
	put(o, 1, LINE("b"));
	cr_assert_eq(pm_batch_output_close(o, &t, NULL), PM_OK);
	cr_expect(t.jobs == 3 && t.done == 3 && t.failed);
	got = read_text(path);
	cr_expect_str_eq(got, LINE("a") LINE("b") LINE("c"));
	free(got);
	/* cut short: what finished, still in order, and the marker */
	o = open_out(b, path, NULL);
	put(o, 2, LINE("c"));
	cr_assert_eq(pm_batch_output_close(o, &t, NULL), PM_OK);
	cr_expect(t.done == 1 && t.jobs == 3);
	got = read_text(path);
	cr_expect_str_eq(got, LINE("c") "{\"incomplete\": true, \"done\": 1, \"jobs\": 3}\n");
	free(got);
	unlink(path);
	rmdir(dir);
	pm_batch_free(b);
}

/* The automatic choice of form costs about 30 fits of a form: a fit job
 * with no form (in the job, its spec object or its spec file) or with
 * "form": "auto" comes before a form's fit of ten times the data. */
Test(batch_lib, the_automatic_choice_is_handed_out_first)
{
	char dir[64], path[160], big[1024];
	pm_batch *b;
	size_t *order, n;
	static const char jobs[] =
		"{\"id\": \"fixed\", \"data\": \"big.csv\", \"form\": \"multiplicative\"}\n"
		"{\"id\": \"auto\", \"data\": \"small.csv\"}\n"
		"{\"id\": \"spec_file\", \"data\": \"big.csv\", \"spec\": \"s.json\"}\n"
		"{\"id\": \"spec_obj\", \"data\": \"small.csv\", "
		"\"spec\": {\"target\": \"t\", \"formula\": \"a * n^p\"}}\n"
		"{\"id\": \"said_auto\", \"data\": \"small.csv\", \"form\": \"auto\"}\n"
		"{\"id\": \"warm\", \"data\": \"small.csv\", \"warm_start\": \"m.json\"}\n";

	fresh_dir(dir);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(path, sizeof(path), "%s/big.csv", dir);
	write_text(path, big);
	snprintf(path, sizeof(path), "%s/small.csv", dir);
	write_text(path, big + sizeof(big) - 1 - 100);
	snprintf(path, sizeof(path), "%s/s.json", dir);
	write_text(path, "{\"target\": \"t\", \"form\": \"additive\"}");
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	b = parse(jobs, path);
	cr_assert_eq(pm_batch_order(b, NULL, &order, &n, NULL), PM_OK);
	cr_assert_eq(n, 6);
	cr_expect(order[0] == 1 && order[1] == 4 && order[2] == 0 && order[3] == 2 &&
		  order[4] == 3 && order[5] == 5, "%zu %zu %zu %zu %zu %zu", order[0], order[1],
		  order[2], order[3], order[4], order[5]);
	free(order);
	pm_batch_free(b);
	for (const char *const *f = (const char *const[]){ "big.csv", "small.csv", "s.json", NULL };
	     *f; f++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *f);
		unlink(path);
	}
	rmdir(dir);
}

Test(batch_lib, resume_skips_what_is_done_and_rewrites_in_one_go)
{
	char dir[64], path[128], *got;
	pm_batch *b = parse(jobs3, "j.jsonl");
	pm_batch_output *o;
	size_t *order, n;

	fresh_dir(dir);
	snprintf(path, sizeof(path), "%s/r.jsonl", dir);
	/* c and a done; a line cut short by a kill, and another batch's job */
	write_text(path, LINE("c") LINE("zz") LINE("a") "{\"id\": \"b\", \"err");
	o = open_out(b, path, path);
	cr_expect(pm_batch_output_has(o, 0) && !pm_batch_output_has(o, 1) &&
		  pm_batch_output_has(o, 2));
	cr_assert_eq(pm_batch_order(b, o, &order, &n, NULL), PM_OK);
	cr_expect(n == 1 && order[0] == 1);
	free(order);
	put(o, 1, LINE("b"));
	cr_assert_eq(pm_batch_output_close(o, NULL, NULL), PM_OK);
	got = read_text(path);
	cr_expect_str_eq(got, LINE("a") LINE("b") LINE("c"));
	free(got);
	unlink(path);
	rmdir(dir);
	pm_batch_free(b);
}

Test(batch_lib, the_output_is_never_an_input_and_a_failure_leaves_it)
{
	char dir[64], jobs[128], data[128], text[512], *got;
	pm_batch_output_options oo = { 0 };
	pm_batch_output *o = (pm_batch_output *)1;
	pm_batch *b = NULL;
	pm_error e = { 0 };

	fresh_dir(dir);
	snprintf(jobs, sizeof(jobs), "%s/jobs.jsonl", dir);
	snprintf(data, sizeof(data), "%s/data.csv", dir);
	snprintf(text, sizeof(text), "{\"id\": 1, \"data\": \"%s\"}\n", data);
	write_text(jobs, text);
	write_text(data, "n,t\n1,2\n");
	cr_assert_eq(pm_batch_read(jobs, NULL, &b, &e), PM_OK, "%s", e.msg);
	oo.path = oo.name = jobs;
	cr_expect_eq(pm_batch_output_open(b, &oo, &o, &e), PM_EIO);
	cr_expect_null(o);
	cr_expect(strstr(e.msg, "it is the jobs file") != NULL, "%s", e.msg);
	oo.path = oo.name = data;
	cr_expect_eq(pm_batch_output_open(b, &oo, &o, &e), PM_EIO);
	cr_expect(strstr(e.msg, ":1's \"data\"") != NULL, "%s", e.msg);
	/* a resumed folder is no results file */
	oo.path = NULL;
	oo.stream = stdout;
	oo.resume = dir;
	cr_expect_eq(pm_batch_output_open(b, &oo, &o, &e), PM_EIO);
	cr_expect(strstr(e.msg, "a folder, not a results file") != NULL, "%s", e.msg);
	got = read_text(data);
	cr_expect_str_eq(got, "n,t\n1,2\n");
	free(got);
	unlink(jobs);
	unlink(data);
	rmdir(dir);
	pm_batch_free(b);
}

Test(batch_lib, whole_numbers_are_strict)
{
	unsigned long long u = 7;

	cr_expect_eq(pm_parse_whole("12", 100, &u), PM_OK);
	cr_expect_eq(u, 12);
	cr_expect_eq(pm_parse_whole("100", 100, &u), PM_OK);
	for (const char *const *t = (const char *const[]){ "", "-1", "+1", " 1", "1 ", "1x", "101",
							   "99999999999999999999999", NULL }; *t; t++) {
		u = 7;
		cr_expect_eq(pm_parse_whole(*t, 100, &u), PM_EINVAL, "'%s'", *t);
		cr_expect_eq(u, 7, "'%s' leaves the value", *t);
	}
	cr_expect_eq(pm_parse_whole(NULL, 100, &u), PM_EINVAL);
	cr_expect_eq(pm_parse_whole("1", 100, NULL), PM_EINVAL);
}

Test(batch_lib, a_member_given_twice_is_the_last)
{
	/* the first inline spec is freed (a leak once, found by fuzz_jobs) */
	pm_batch *b = parse("{\"id\": 1, \"data\": \"x.csv\", \"spec\": {\"target\": \"a\"}, "
			    "\"spec\": {\"target\": \"b\"}}\n", "j.jsonl");

	cr_expect_eq(pm_batch_njobs(b), 1);
	cr_expect_null(pm_batch_job_error(b, 0));
	pm_batch_free(b);
}
