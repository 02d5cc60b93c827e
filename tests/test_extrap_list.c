/* The regions × metrics of an Extra-P file (data/extrap_list.c), for
 * batch --each-region: every layout lists the fixtures' three pairs in
 * the order they first appear, a region without DATA is none, and the
 * errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(extrap_list);

static const char *data_path(const char *name)
{
	static char path[1024];
	const char *dir = getenv("PM_TEST_DATA");

	cr_assert_not_null(dir, "PM_TEST_DATA is not set");
	snprintf(path, sizeof(path), "%s/ingest/%s", dir, name);
	return path;
}

/* path lists exactly the fixtures' pairs, in their order. */
static void expect_fixture_pairs(const char *path, pm_format f)
{
	static const char *const region[] = { "stencil", "stencil", "halo_exchange" };
	static const char *const metric[] = { "time", "visits", "time" };
	pm_extrap_list *l = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_extrap_list_read(path, f, &l, &e), PM_OK, "%s: %s", path, e.msg);
	cr_assert_eq(l->n, 3, "%s: %zu pairs", path, l->n);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_str_eq(l->region[i], region[i], "%s pair %zu", path, i);
		cr_assert_str_eq(l->metric[i], metric[i], "%s pair %zu", path, i);
	}
	pm_extrap_list_free(l);
}

Test(extrap_list, every_layout)
{
	expect_fixture_pairs(data_path("extrap.txt"), PM_FORMAT_AUTO);
	expect_fixture_pairs(data_path("extrap.txt"), PM_FORMAT_EXTRAP);
	expect_fixture_pairs(data_path("extrap.json"), PM_FORMAT_AUTO);
	expect_fixture_pairs(data_path("extrap_ids.json"), PM_FORMAT_AUTO);
	expect_fixture_pairs(data_path("extrap_ids.json"), PM_FORMAT_EXTRAP_JSON);
	expect_fixture_pairs(data_path("extrap.jsonl"), PM_FORMAT_AUTO);
	expect_fixture_pairs(data_path("extrap_list.jsonl"), PM_FORMAT_EXTRAP_JSONL);
}

static const char *write_tmp(const char *text)
{
	static char path[] = "/tmp/pm_extrap_list_XXXXXX";
	int fd;
	FILE *f;

	strcpy(path + strlen(path) - 6, "XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

Test(extrap_list, text_details)
{
	/* a region whose only metric has no DATA lists nothing; names keep
	 * their blanks; JSON Lines defaults; a pair met again is listed once */
	const char *path = write_tmp("PARAMETER p\nPOINTS ( 1 ) ( 2 )\nREGION empty one\n"
				     "METRIC time\nREGION main loop \nMETRIC bytes\nDATA 1\nDATA 2\n"
				     "REGION empty one\nMETRIC bytes\nDATA 3\nDATA 4\n"
				     "REGION main loop\nMETRIC bytes\nDATA 1\nDATA 2\n");
	pm_extrap_list *l = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_extrap_list_read(path, PM_FORMAT_AUTO, &l, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(l->n, 2);
	cr_assert_str_eq(l->region[0], "main loop");
	cr_assert_str_eq(l->metric[0], "bytes");
	cr_assert_str_eq(l->region[1], "empty one");
	pm_extrap_list_free(l);
	remove(path);
	path = write_tmp("{\"params\": {\"p\": 1}, \"value\": 1}\n\n"
			 "{\"params\": {\"p\": 2}, \"value\": 2, \"metric\": \"bytes\"}\n"
			 "{\"params\": {\"p\": 2}, \"value\": 2}\n");
	cr_assert_eq(pm_extrap_list_read(path, PM_FORMAT_AUTO, &l, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(l->n, 2);
	cr_assert_str_eq(l->region[0], "<root>");
	cr_assert_str_eq(l->metric[0], "time");
	cr_assert_str_eq(l->metric[1], "bytes");
	pm_extrap_list_free(l);
	remove(path);
}

Test(extrap_list, errors)
{
	pm_extrap_list *l = (pm_extrap_list *)1;
	pm_error e = { 0 };
	const char *path;

	cr_assert_eq(pm_extrap_list_read(data_path("nothere.txt"), PM_FORMAT_AUTO, &l, &e), PM_EIO);
	cr_assert_null(l);
	cr_assert(strstr(e.file, "nothere.txt"));
	cr_assert_eq(pm_extrap_list_read(data_path("extrap.txt"), PM_FORMAT_CSV, &l, &e),
		     PM_EINVAL);
	cr_assert(strstr(e.msg, "not --format csv"), "%s", e.msg);
	cr_assert_eq(pm_extrap_list_read(data_path("extrap.txt"), PM_FORMAT_AUTO, NULL, &e),
		     PM_EINVAL);
	/* a CSV file, or JSON of another shape: no pair */
	cr_assert_eq(pm_extrap_list_read(data_path("throughput.csv"), PM_FORMAT_AUTO, &l, &e),
		     PM_ESCHEMA);
	cr_assert(strstr(e.msg, "no region with measurements"), "%s", e.msg);
	cr_assert(strstr(e.file, "throughput.csv"));
	path = write_tmp("{\"measurements\": 3}");
	cr_assert_eq(pm_extrap_list_read(path, PM_FORMAT_AUTO, &l, &e), PM_ESCHEMA);
	cr_assert_null(l);
	remove(path);
	pm_extrap_list_free(NULL);
}
