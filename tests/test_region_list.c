/* The regions × metrics of an Extra-P file (ingest/region_list.c), for
 * batch --each-region: every layout lists the fixtures' three pairs in
 * the order they first appear, a region without DATA is none, and the
 * errors. CUBE profiles are listed in test_cube.c (built with CUBE only). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(region_list);

/* pm_region_list_read of tests/data/ingest/NAME. */
static pm_status list_fixture(const char *name, pm_format f, pm_region_list **l, pm_error *e)
{
	char path[1024];

	cr_assert_not_null(getenv("PM_TEST_DATA"), "PM_TEST_DATA is not set");
	snprintf(path, sizeof(path), "%s/ingest/%s", getenv("PM_TEST_DATA"), name);
	return pm_region_list_read(path, f, l, e);
}

/* NAME lists exactly the fixtures' pairs, in their order. */
static void expect_fixture_pairs(const char *name, pm_format f)
{
	static const char *const region[] = { "stencil", "stencil", "halo_exchange" };
	static const char *const metric[] = { "time", "visits", "time" };
	pm_region_list *l = NULL;
	pm_error e = { 0 };

	cr_assert_eq(list_fixture(name, f, &l, &e), PM_OK, "%s: %s", name, e.msg);
	cr_assert_eq(l->n, 3, "%s: %zu pairs", name, l->n);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_str_eq(l->region[i], region[i], "%s pair %zu", name, i);
		cr_assert_str_eq(l->metric[i], metric[i], "%s pair %zu", name, i);
	}
	pm_region_list_free(l);
}

Test(region_list, every_layout)
{
	expect_fixture_pairs("extrap.txt", PM_FORMAT_AUTO);
	expect_fixture_pairs("extrap.txt", PM_FORMAT_EXTRAP);
	expect_fixture_pairs("extrap.json", PM_FORMAT_AUTO);
	expect_fixture_pairs("extrap_ids.json", PM_FORMAT_AUTO);
	expect_fixture_pairs("extrap_ids.json", PM_FORMAT_EXTRAP_JSON);
	expect_fixture_pairs("extrap.jsonl", PM_FORMAT_AUTO);
	expect_fixture_pairs("extrap_list.jsonl", PM_FORMAT_EXTRAP_JSONL);
}

/* pm_region_list_read of a file holding text. */
static pm_status list_text(const char *text, pm_region_list **l, pm_error *e)
{
	char path[] = "/tmp/pm_region_list_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	pm_status st;

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	st = pm_region_list_read(path, PM_FORMAT_AUTO, l, e);
	remove(path);
	return st;
}

Test(region_list, text_details)
{
	pm_region_list *l = NULL;
	pm_error e = { 0 };

	/* a region whose only metric has no DATA lists nothing; names keep
	 * their blanks; a pair met again is listed once */
	cr_assert_eq(list_text("PARAMETER p\nPOINTS ( 1 ) ( 2 )\nREGION empty one\n"
			       "METRIC time\nREGION main loop \nMETRIC bytes\nDATA 1\nDATA 2\n"
			       "REGION empty one\nMETRIC bytes\nDATA 3\nDATA 4\n"
			       "REGION main loop\nMETRIC bytes\nDATA 1\nDATA 2\n", &l, &e),
		     PM_OK, "%s", e.msg);
	cr_assert_eq(l->n, 2);
	cr_assert_str_eq(l->region[0], "main loop");
	cr_assert_str_eq(l->metric[0], "bytes");
	cr_assert_str_eq(l->region[1], "empty one");
	pm_region_list_free(l);
	/* JSON Lines: Extra-P's defaults for a line without callpath or metric,
	 * as the reader names them (a job with --metric=time found nothing) */
	cr_assert_eq(list_text("{\"params\": {\"p\": 1}, \"value\": 1}\n\n"
			       "{\"params\": {\"p\": 2}, \"value\": 2, \"metric\": \"bytes\"}\n"
			       "{\"params\": {\"p\": 2}, \"value\": 2}\n", &l, &e),
		     PM_OK, "%s", e.msg);
	cr_assert_eq(l->n, 2);
	cr_assert_str_eq(l->region[0], "<root>");
	cr_assert_str_eq(l->metric[0], "<default>");
	cr_assert_str_eq(l->metric[1], "bytes");
	pm_region_list_free(l);
}

Test(region_list, errors)
{
	pm_region_list *l = (pm_region_list *)1;
	pm_error e = { 0 };

	cr_assert_eq(list_fixture("nothere.txt", PM_FORMAT_AUTO, &l, &e), PM_EIO);
	cr_assert_null(l);
	cr_assert(strstr(e.file, "nothere.txt"));
	cr_assert_eq(list_fixture("extrap.txt", PM_FORMAT_CSV, &l, &e), PM_EINVAL);
	cr_assert(strstr(e.msg, "not --format csv"), "%s", e.msg);
	cr_assert_eq(pm_region_list_read(NULL, PM_FORMAT_EXTRAP, &l, &e), PM_EINVAL);
	cr_assert_eq(list_fixture("extrap.txt", PM_FORMAT_AUTO, NULL, &e), PM_EINVAL);
	/* a format without regions, and JSON of another shape: no pair */
	cr_assert_eq(list_fixture("throughput.csv", PM_FORMAT_AUTO, &l, &e), PM_ESCHEMA);
	cr_assert(strstr(e.msg, "a csv file, which has no regions"), "%s", e.msg);
	cr_assert(strstr(e.file, "throughput.csv"));
	cr_assert_eq(list_fixture("gbench.json", PM_FORMAT_AUTO, &l, &e), PM_ESCHEMA);
	cr_assert(strstr(e.msg, "a gbench file"), "%s", e.msg);
	cr_assert_eq(list_text("{\"measurements\": 3}", &l, &e), PM_ESCHEMA);
	cr_assert_null(l);
	pm_region_list_free(NULL);
}
