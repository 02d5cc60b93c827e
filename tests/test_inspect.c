/* What an input holds (ingest/inspect.c, `perfmodel inspect`): columns and
 * their roles, parameters' values, points with their runs in parameter
 * order, a 0 counted rather than refused, the region × metric read and
 * listed, and the errors of reading. CUBE profiles: test_cube.c. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(inspect);

static char path[64];

/* text in a temporary file, at path */
static void put(const char *text)
{
	int fd;

	strcpy(path, "/tmp/pm_inspect_XXXXXX");
	cr_assert_neq(fd = mkstemp(path), -1);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* pm_inspect_to_json of file (NULL: path) with o, parsed. */
static cJSON *inspect(const char *file, const pm_read_options *o)
{
	pm_error err = { 0 };
	char *doc = NULL;
	cJSON *root;

	cr_assert_eq(pm_inspect_to_json(file ? file : path, o, &doc, &err), PM_OK, "%s", err.msg);
	cr_assert_not_null(root = cJSON_Parse(doc), "%s", doc);
	free(doc);
	return root;
}

static const cJSON *get(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	cr_assert_not_null(v, "no member '%s'", key);
	return v;
}

static double num(const cJSON *o, const char *key)
{
	return get(o, key)->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
	return get(o, key)->valuestring;
}

static const cJSON *column(const cJSON *root, size_t i)
{
	return cJSON_GetArrayItem(get(root, "columns"), (int)i);
}

static const char *const runs_csv =
	"n,kind,t,note\n"
	"4,a,2.0,x\n"
	"1,a,1.0,\n"
	"4,a,2.5,y\n"
	"2,b,0,z\n"
	"1,a,1.5,\n";

/* Without --target a CSV file's columns are listed, not grouped. */
Test(inspect, csv_without_a_target)
{
	cJSON *root;

	put(runs_csv);
	root = inspect(NULL, NULL);
	cr_assert_str_eq(str(root, "format"), "csv");
	cr_assert(cJSON_IsFalse(get(root, "folder")));
	cr_assert(cJSON_IsNull(get(root, "target")));
	cr_assert_eq(num(root, "runs"), 5);
	cr_assert_null(cJSON_GetObjectItem(root, "points"));
	cr_assert_null(cJSON_GetObjectItem(root, "regions"));
	cr_assert_str_eq(str(column(root, 0), "role"), "column");
	cr_assert_eq(num(column(root, 0), "distinct"), 3);
	cr_assert_eq(num(column(root, 0), "min"), 1);
	cr_assert_eq(num(column(root, 0), "max"), 4);
	cr_assert_null(cJSON_GetObjectItem(column(root, 0), "values"), "numbers: a range");
	/* texts list their values; empty cells are counted, not a value */
	cr_assert(cJSON_IsFalse(get(column(root, 3), "numeric")));
	cr_assert_eq(num(column(root, 3), "empty"), 2);
	cr_assert_eq(num(column(root, 3), "distinct"), 3);
	cr_assert_eq(cJSON_GetArraySize(get(column(root, 3), "values")), 3);
	cJSON_Delete(root);
	unlink(path);
}

/* With --target: the parameters' values ascending, one point per
 * configuration in parameter order with its runs and median, a 0 counted. */
Test(inspect, csv_points)
{
	pm_read_options o = pm_read_options_default();
	const char *key[] = { "n", "kind", NULL };
	const cJSON *pts, *first;
	cJSON *root;

	put(runs_csv);
	o.target = "t";
	o.key = key;
	root = inspect(NULL, &o);
	cr_assert_str_eq(str(root, "target"), "t");
	cr_assert_str_eq(str(column(root, 0), "role"), "parameter");
	cr_assert_eq(cJSON_GetArraySize(get(column(root, 0), "values")), 3);
	cr_assert_eq(cJSON_GetArrayItem(get(column(root, 0), "values"), 0)->valuedouble, 1);
	cr_assert_eq(cJSON_GetArrayItem(get(column(root, 0), "values"), 2)->valuedouble, 4);
	cr_assert_str_eq(str(column(root, 2), "role"), "target");
	cr_assert_str_eq(str(column(root, 3), "role"), "other");
	pts = get(root, "points");
	cr_assert_eq(num(pts, "count"), 3);
	cr_assert_eq(num(pts, "runs_min"), 1);
	cr_assert_eq(num(pts, "runs_max"), 2);
	cr_assert_eq(num(pts, "zeros"), 1);
	cr_assert_eq(num(pts, "dropped"), 0);
	first = cJSON_GetArrayItem(get(pts, "list"), 0);
	cr_assert_eq(num(get(first, "point"), "n"), 1, "in parameter order, not the file's");
	cr_assert_str_eq(str(get(first, "point"), "kind"), "a");
	cr_assert_eq(num(first, "runs"), 2);
	cr_assert_eq(num(first, "value"), 1.25);
	cr_assert(fabs(num(first, "cv") - 0.5 / sqrt(2) / 1.25) < 1e-12);
	cr_assert(cJSON_IsNull(get(cJSON_GetArrayItem(get(pts, "list"), 1), "cv")), "one run");
	cJSON_Delete(root);
	/* the minimum instead of the median; every other column a parameter */
	o.aggregate = PM_AGG_MIN;
	o.key = NULL;
	root = inspect(NULL, &o);
	pts = get(root, "points");
	cr_assert_eq(num(pts, "count"), 4, "note makes the runs at n = 4 two points");
	first = cJSON_GetArrayItem(get(pts, "list"), 0);
	cr_assert_eq(num(first, "value"), 1.0);
	cJSON_Delete(root);
	unlink(path);
	/* the first run of each point dropped (a warm-up run, slow) */
	put("n,t\n1,5\n1,1\n2,6\n2,2\n1,1.5\n");
	o.aggregate = PM_AGG_DEFAULT;
	o.drop_first = 1;
	root = inspect(NULL, &o);
	pts = get(root, "points");
	cr_assert_eq(num(pts, "dropped"), 2);
	cr_assert_eq(num(root, "runs"), 5, "runs as read");
	cr_assert_eq(num(cJSON_GetArrayItem(get(pts, "list"), 0), "value"), 1.25);
	cr_assert_eq(num(cJSON_GetArrayItem(get(pts, "list"), 1), "value"), 2);
	cJSON_Delete(root);
	unlink(path);
}

/* Extra-P: the first pair unless one is asked for; every pair listed. */
Test(inspect, extrap_pairs)
{
	pm_read_options o = pm_read_options_default();
	char file[1024];
	cJSON *root;

	snprintf(file, sizeof(file), "%s/ingest/extrap.txt", getenv("PM_TEST_DATA"));
	root = inspect(file, &o);
	cr_assert_str_eq(str(root, "format"), "extrap");
	cr_assert_str_eq(str(root, "region"), "stencil");
	cr_assert_str_eq(str(root, "metric"), "time");
	cr_assert_str_eq(str(root, "target"), "time_s");
	cr_assert_eq(num(root, "runs"), 18);
	cr_assert_eq(num(get(root, "points"), "count"), 6);
	cr_assert_eq(num(get(root, "points"), "runs_min"), 3);
	cr_assert_eq(cJSON_GetArraySize(get(root, "regions")), 3);
	cr_assert_null(cJSON_GetObjectItem(root, "cube"));
	cJSON_Delete(root);
	/* a metric alone: the first region that has it */
	o.metric = "visits";
	root = inspect(file, &o);
	cr_assert_str_eq(str(root, "region"), "stencil");
	cr_assert_eq(num(cJSON_GetArrayItem(get(get(root, "points"), "list"), 0), "value"), 100);
	cJSON_Delete(root);
	o.metric = NULL;
	o.region = "halo_exchange";
	root = inspect(file, &o);
	cr_assert_str_eq(str(root, "metric"), "time");
	cJSON_Delete(root);
}

static void fails(const char *file, const pm_read_options *o, pm_status code, const char *msg)
{
	pm_error err = { 0 };
	char *doc = (char *)1;

	cr_assert_eq(pm_inspect_to_json(file, o, &doc, &err), code, "got %s", err.msg);
	cr_assert_null(doc);
	cr_assert(strstr(err.msg, msg), "'%s' does not say '%s'", err.msg, msg);
}

Test(inspect, errors)
{
	pm_read_options o = pm_read_options_default();
	const char *key[] = { "n", "nothere", NULL };
	char file[1024];

	fails(NULL, NULL, PM_EINVAL, "no file name");
	cr_assert_eq(pm_inspect_to_json("x", NULL, NULL, NULL), PM_EINVAL);
	fails("/nonexistent/file.csv", NULL, PM_EIO, "");
	put(runs_csv);
	o.key = key;
	o.target = "t";
	fails(path, &o, PM_ESCHEMA, "no column 'nothere'");
	o.key = NULL;
	o.target = "time";
	fails(path, &o, PM_ESCHEMA, "time");
	o.target = "kind";
	fails(path, &o, PM_ESCHEMA, "kind");
	unlink(path);
	put("n,t\n1,-2\n");
	o.target = "t";
	fails(path, &o, PM_ESCHEMA, "-2");
	unlink(path);
	snprintf(file, sizeof(file), "%s/ingest/extrap.txt", getenv("PM_TEST_DATA"));
	o = pm_read_options_default();
	o.region = "nothere";
	fails(file, &o, PM_ESCHEMA, "nothere");
	o = pm_read_options_default();
	o.format = PM_FORMAT_CSV;
	o.region = "stencil";
	fails(file, &o, PM_EINVAL, "--region and --metric are for Extra-P and CUBE");
}
