/* CUBE profiles: the values of tests/data/cube/ (profile.cubex, plain_be.cubex), written by
 * tests/cube_gen.py from known numbers (its docstring), read exactly through
 * the index's tree order, exclusive and inclusive, mean and sum over the
 * locations; folders of run folders as one data set; and every broken
 * archive an error that says what. */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/read_file.h"
#include "ingest/cube.h"
#include "perfmodel/perfmodel.h"
#include "leak_check.h"

PM_LEAK_CHECKED_SUITE(cube);

static const char *cube_path(const char *name)
{
	static char path[1024];
	const char *dir = getenv("PM_TEST_DATA");

	cr_assert_not_null(dir, "PM_TEST_DATA is not set");
	snprintf(path, sizeof(path), "%s/cube/%s", dir, name);
	return path;
}

/* The one run of a profile, read as the library reads it. */
static double one_run(const char *file, const char *callpath, const char *metric, int inclusive,
		      pm_cube_scaling scaling)
{
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	double v;

	o.region = callpath;
	o.metric = metric;
	o.inclusive = inclusive;
	o.scaling = scaling;
	cr_assert_eq(pm_dataset_read(cube_path(file), &o, &d, &info, &err), PM_OK, "%s: %s", file,
		     err.msg);
	cr_assert_eq(info.format, PM_FORMAT_CUBE, "recognised by content");
	cr_assert_eq(pm_dataset_nrows(d), 1);
	cr_assert_eq(pm_dataset_number(d, 0, pm_dataset_ncols(d) - 1, &v, NULL), PM_OK);
	pm_dataset_free(d);
	pm_read_info_clear(&info);
	return v;
}

/* cube_gen.py's profile.cubex: 2 locations, scale 1 (zlib data, gzip
 * anchor, little-endian). time at location l is (l + 1) x {main 1,
 * compute 0.5, kernel 4, io 2} exclusive; visits (cnode + 1) x 10 + l, io
 * not stored. */
Test(cube, values_of_a_profile)
{
	const char *f = "profile.cubex";

	cr_assert_eq(one_run(f, "main", NULL, 0, PM_SCALING_WEAK), 1.5, "(1 + 2) / 2");
	cr_assert_eq(one_run(f, "main", "time", 1, PM_SCALING_WEAK), 11.25, "(7.5 + 15) / 2");
	cr_assert_eq(one_run(f, "main", "time", 1, PM_SCALING_STRONG), 22.5);
	cr_assert_eq(one_run(f, "main->compute", "time", 0, PM_SCALING_WEAK), 0.75);
	cr_assert_eq(one_run(f, "main->compute", "time", 1, PM_SCALING_WEAK), 6.75);
	cr_assert_eq(one_run(f, "main->compute->kernel", "time", 0, PM_SCALING_STRONG), 12);
	cr_assert_eq(one_run(f, "main->io", "time", 0, PM_SCALING_WEAK), 3);
	/* an exclusive metric: inclusive sums the subtree, io has no row */
	cr_assert_eq(one_run(f, "main", "visits", 0, PM_SCALING_WEAK), 10.5);
	cr_assert_eq(one_run(f, "main", "visits", 1, PM_SCALING_STRONG), 60 + 63);
	cr_assert_eq(one_run(f, "main->compute", "visits", 1, PM_SCALING_WEAK), 51);
	cr_assert_eq(one_run(f, "main->io", "visits", 0, PM_SCALING_STRONG), 0);
}

/* plain_be.cubex: 3 locations, scale 2, raw data, plain anchor, big-endian. */
Test(cube, values_of_a_plain_big_endian_profile)
{
	const char *f = "plain_be.cubex";

	cr_assert_eq(one_run(f, "main", "time", 0, PM_SCALING_WEAK), 4, "(2 + 4 + 6) / 3");
	cr_assert_eq(one_run(f, "main", "time", 1, PM_SCALING_STRONG), 15 + 30 + 45);
	cr_assert_eq(one_run(f, "main->compute->kernel", "visits", 0, PM_SCALING_STRONG),
		     60 + 62 + 64);
	cr_assert_eq(one_run(f, "main->compute", "visits", 1, PM_SCALING_WEAK), 104);
}

/* --scaling each: the mean as the time, each location in a column of its
 * own, and the runs not merged (lif takes them run by run). */
Test(cube, each_location_a_column)
{
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d;
	pm_error err = { 0 };
	double v;

	o.region = "main";
	o.inclusive = 1;
	o.scaling = PM_SCALING_EACH;
	cr_assert_eq(pm_dataset_read(cube_path("plain_be.cubex"), &o, &d, &info, &err), PM_OK, "%s",
		     err.msg);
	cr_assert_eq(info.aggregated, 0);
	cr_assert_eq(pm_dataset_ncols(d), 4);
	cr_assert_str_eq(pm_dataset_col_name(d, 0), "time_s");
	cr_assert_str_eq(pm_dataset_col_name(d, 3), "loc_3");
	cr_assert_eq(pm_dataset_number(d, 0, 0, &v, NULL), PM_OK);
	cr_assert_eq(v, 30);
	for (size_t l = 0; l < 3; l++) {
		cr_assert_eq(pm_dataset_number(d, 0, l + 1, &v, NULL), PM_OK);
		cr_assert_eq(v, 15.0 * (double)(l + 1));
	}
	pm_dataset_free(d);
	pm_read_info_clear(&info);
}

static void read_fails(const char *path, const pm_read_options *o, pm_status code,
		       const char *msg)
{
	pm_dataset *d = (pm_dataset *)1;
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_read(path, o, &d, NULL, &err), code, "%s: got %d: %s", path,
		     err.code, err.msg);
	cr_assert_null(d);
	cr_assert(strstr(err.msg, msg), "'%s' does not say '%s'", err.msg, msg);
}

Test(cube, choices_that_do_not_exist)
{
	pm_read_options o = pm_read_options_default();

	read_fails(cube_path("profile.cubex"), &o, PM_ESCHEMA, "the profile has 4 call paths: "
		   "choose one with --callpath ('main', 'main->compute', 'main->compute->kernel', "
		   "'main->io')");
	o.region = "main->kernel";
	read_fails(cube_path("profile.cubex"), &o, PM_ESCHEMA, "no call path 'main->kernel' "
		   "(4 call nodes: 'main'");
	o.region = "main";
	o.metric = "cycles";
	read_fails(cube_path("profile.cubex"), &o, PM_ESCHEMA, "no metric 'cycles' ('time', "
		   "'visits', 'flops'): choose one with --metric");
	o.metric = "flops";
	read_fails(cube_path("profile.cubex"), &o, PM_ESCHEMA, "metric 'flops' has no data in "
		   "the profile (no 2.index");
	/* the CUBE options are CUBE's */
	o = pm_read_options_default();
	o.format = PM_FORMAT_CSV;
	o.inclusive = 1;
	cr_assert_eq(pm_dataset_parse("n,t\n1,2\n", 8, NULL, &o, &(pm_dataset *){ NULL }, NULL,
				      NULL), PM_EINVAL);
	o.inclusive = 0;
	o.scaling = PM_SCALING_STRONG;
	cr_assert_eq(pm_dataset_parse("n,t\n1,2\n", 8, NULL, &o, &(pm_dataset *){ NULL }, NULL,
				      NULL), PM_EINVAL);
}

/* The profile's bytes (profile.cubex, or plain_be.cubex whose anchor is
 * not compressed), altered by `edit`, read from memory. */
static void broken_file(const char *file, void (*edit)(char *buf, size_t *len), const char *msg)
{
	pm_read_options o = pm_read_options_default();
	pm_dataset *d = (pm_dataset *)1;
	pm_error err = { 0 };
	char *buf;
	size_t len;

	cr_assert_eq(pm__read_file(cube_path(file), &buf, &len, NULL), PM_OK);
	edit(buf, &len);
	o.region = "main";
	cr_assert_eq(pm_dataset_parse(buf, len, "p.cubex", &o, &d, NULL, &err), PM_ESCHEMA,
		     "got %d: %s", err.code, err.msg);
	cr_assert_null(d);
	cr_assert(strstr(err.msg, msg), "'%s' does not say '%s'", err.msg, msg);
	free(buf);
}

static void broken(void (*edit)(char *buf, size_t *len), const char *msg)
{
	broken_file("profile.cubex", edit, msg);
}

/* The member called name: its header's offset in buf. */
static size_t member(const char *buf, size_t len, const char *name)
{
	for (size_t off = 0; off + 512 <= len;) {
		size_t size = strtoul(buf + off + 124, NULL, 8);

		if (!strcmp(buf + off, name))
			return off;
		off += 512 + (size + 511) / 512 * 512;
	}
	cr_assert_fail("no member %s", name);
	return 0;
}

static void cut_short(char *buf, size_t *len)
{
	*len = member(buf, *len, "0.data") + 512 + 10;
	(void)buf;
}

static void huge_size(char *buf, size_t *len)
{
	memcpy(buf + member(buf, *len, "anchor.xml") + 124, "77777777777", 11);
}

static void anchor_not_xml(char *buf, size_t *len)
{
	size_t at = member(buf, *len, "anchor.xml");

	memcpy(buf + at + 512, "\x1f\x8bNOTGZIP", 9);
}

static void broken_zlib(char *buf, size_t *len)
{
	size_t at = member(buf, *len, "0.data") + 512;

	/* the first chunk's bytes, after the header and the 4 x 24 of its table */
	memset(buf + at + 19 + 4 * 24, 0xff, 4);
}

static void index_past_the_tree(char *buf, size_t *len)
{
	size_t at = member(buf, *len, "0.index") + 512;

	buf[at + 22] = 9;	/* the first tree index of four call nodes */
}

/* The plain anchor of plain_be.cubex with a DTD before <cube>. */
static void anchor_with_dtd(char *buf, size_t *len)
{
	size_t at = member(buf, *len, "anchor.xml") + 512;
	char *cube = strstr(buf + at, "<cube");

	cr_assert_not_null(cube);
	/* over the first line's blanks and the XML declaration's encoding */
	memcpy(buf + at, "<?xml version='1.0'?><!DOCTYPE c []>", 36);
	memset(buf + at + 36, ' ', (size_t)(cube - buf - at) - 36);
}

static void no_anchor(char *buf, size_t *len)
{
	memcpy(buf + member(buf, *len, "anchor.xml"), "anchor.txt", 10);
}

Test(cube, broken_archives)
{
	broken(cut_short, "past the end of the file");
	broken(huge_size, "past the end of the file");
	broken(anchor_not_xml, "anchor.xml: broken compressed data");
	broken(broken_zlib, "0.data: broken compressed data");
	broken(index_past_the_tree, "0.index: index 9 is no call node (of 4)");
	broken(no_anchor, "no anchor.xml in the archive");
	broken_file("plain_be.cubex", anchor_with_dtd, "anchor.xml: has a DTD");
}

/* ---- folders of run folders ----------------------------------------------- */

static char tmp[] = "/tmp/pm_cube_XXXXXX";

static void put(const char *folder, const char *file)
{
	char path[512], *buf;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, folder);
	mkdir(path, 0700);
	if (!file)
		return;
	cr_assert_eq(pm__read_file(cube_path("profile.cubex"), &buf, &len, NULL), PM_OK);
	snprintf(path, sizeof(path), "%s/%s/%s", tmp, folder, file);
	cr_assert_not_null(f = fopen(path, "wb"));
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
	free(buf);
}

static void clean(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

Test(cube, a_folder_of_run_folders)
{
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d;
	pm_error err = { 0 };
	size_t c;
	double v;

	cr_assert_not_null(mkdtemp(tmp));
	/* y is 2 everywhere: no parameter, as in Extra-P; x has a decimal comma */
	put("mm.x1y2.r1", "profile.cubex");
	put("mm.x2y2.r1", "profile.cubex");
	put("mm.x2y2.r2", "profile.cubex");
	put("mm.x4,5y2.r1", "profile.cubex");
	put("mm.x4,5y2.r1", "profile2.cubex");	/* two profiles: two runs */
	put("notes", NULL);			/* no profile: not a run */
	put(".hidden", "profile.cubex");
	o.region = "main->compute";
	o.inclusive = 1;
	cr_assert_eq(pm_dataset_read(tmp, &o, &d, &info, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(info.format, PM_FORMAT_CUBE);
	cr_assert_eq(pm_dataset_ncols(d), 2);
	cr_assert_str_eq(pm_dataset_col_name(d, 0), "x");
	cr_assert_eq(pm_dataset_nrows(d), 3);
	cr_assert_eq(info.runs, 5);
	cr_assert_eq(info.reps[1], 2);
	cr_assert_eq(info.reps[2], 2);
	cr_assert_eq(pm_dataset_number(d, 2, 0, &v, NULL), PM_OK);
	cr_assert_eq(v, 4.5);
	cr_assert_eq(pm_dataset_col_index(d, "time_s", &c, NULL), PM_OK);
	cr_assert_eq(pm_dataset_number(d, 0, c, &v, NULL), PM_OK);
	cr_assert_eq(v, 6.75);
	pm_dataset_free(d);
	pm_read_info_clear(&info);
	/* the same under a decimal-comma locale (the de_DE.UTF-8 the build
	 * makes, tests/meson.build): "4,5" and "4.5" both still read 4.5 */
	cr_assert_not_null(setlocale(LC_NUMERIC, "de_DE.UTF-8"), "LOCPATH=%s", getenv("LOCPATH"));
	cr_assert_eq(pm_dataset_read(tmp, &o, &d, &info, &err), PM_OK, "%s", err.msg);
	setlocale(LC_NUMERIC, "C");
	cr_assert_eq(pm_dataset_number(d, 2, 0, &v, NULL), PM_OK);
	cr_assert_eq(v, 4.5);
	pm_dataset_free(d);
	pm_read_info_clear(&info);
	/* a folder whose name gives other parameters, and one of no parameters */
	put("mm.x8z2.r1", "profile.cubex");
	read_fails(tmp, &o, PM_ESCHEMA, "folders 'mm.x1y2.r1' and 'mm.x8z2.r1' name other "
		   "parameters (or in another order)");
	clean();
	cr_assert_not_null(mkdtemp(strcpy(tmp, "/tmp/pm_cube_XXXXXX")));
	put("mm.x1y2.r1", "profile.cubex");
	put("run_a", "profile.cubex");
	read_fails(tmp, &o, PM_ESCHEMA, "folder 'run_a': no parameters in its name");
	clean();
	cr_assert_not_null(mkdtemp(strcpy(tmp, "/tmp/pm_cube_XXXXXX")));
	put("mm.x1y2.r1", "profile.cubex");
	put("mm.x1y2.r2", "profile.cubex");
	read_fails(tmp, &o, PM_ESCHEMA, "no parameter varies between the run folders");
	clean();
}

/* ---- what a profile holds: inspect and batch --each-region ---------------- */

Test(cube, metrics_and_call_paths)
{
	static const char *const path[] = { "main", "main->compute", "main->compute->kernel",
					    "main->io" };
	static const size_t depth[] = { 0, 1, 2, 1 };
	pm_cube *c = NULL;
	char *buf;
	size_t len, d;

	cr_assert_eq(pm__read_file(cube_path("profile.cubex"), &buf, &len, NULL), PM_OK);
	cr_assert_eq(pm__cube_parse((unsigned char *)buf, len, "p", NULL, &c, NULL), PM_OK);
	cr_assert_eq(pm__cube_nlocations(c), 2);
	cr_assert_eq(pm__cube_ncnodes(c), 4);
	for (size_t i = 0; i < 4; i++) {
		char *p = NULL;

		cr_assert_eq(pm__cube_callpath(c, i, &p, &d, NULL), PM_OK);
		cr_assert_str_eq(p, path[i]);
		cr_assert_eq(d, depth[i], "%s", p);
		free(p);
	}
	cr_assert_eq(pm__cube_nmetrics(c), 3);
	cr_assert_str_eq(pm__cube_metric(c, 0).name, "time");
	cr_assert_str_eq(pm__cube_metric(c, 0).type, "INCLUSIVE");
	cr_assert_str_eq(pm__cube_metric(c, 1).dtype, "UINT64");
	cr_assert_null(pm__cube_metric(c, 1).unreadable);
	/* flops: in the anchor, no data files */
	cr_assert(strstr(pm__cube_metric(c, 2).unreadable, "no data in the profile"));
	pm__cube_free(c);
	free(buf);
}

/* Every call path × readable metric, of a profile and of a set (its first
 * profile's), as batch --each-region makes its jobs. */
Test(cube, region_list)
{
	pm_region_list *l = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_region_list_read(cube_path("profile.cubex"), PM_FORMAT_AUTO, &l, &err),
		     PM_OK, "%s", err.msg);
	cr_assert_eq(l->n, 8, "4 call paths x time and visits; flops has no data");
	cr_assert_str_eq(l->region[2], "main->compute");
	cr_assert_str_eq(l->metric[2], "time");
	cr_assert_str_eq(l->region[7], "main->io");
	cr_assert_str_eq(l->metric[7], "visits");
	pm_region_list_free(l);
	cr_assert_not_null(mkdtemp(strcpy(tmp, "/tmp/pm_cube_XXXXXX")));
	put("mm.x1.r1", "profile.cubex");
	put("mm.x2.r1", "profile.cubex");
	cr_assert_eq(pm_region_list_read(tmp, PM_FORMAT_CUBE, &l, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(l->n, 8);
	pm_region_list_free(l);
	cr_assert_eq(pm_region_list_read(tmp, PM_FORMAT_AUTO, &l, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(l->n, 8);
	pm_region_list_free(l);
	clean();
	/* a folder without profiles */
	cr_assert_not_null(mkdtemp(strcpy(tmp, "/tmp/pm_cube_XXXXXX")));
	put("notes", NULL);
	cr_assert_eq(pm_region_list_read(tmp, PM_FORMAT_AUTO, &l, &err), PM_ESCHEMA);
	cr_assert_null(l);
	cr_assert(strstr(err.msg, "none of its folders holds a .cubex file"), "%s", err.msg);
	clean();
}

/* inspect of a set: the run folders, the pair read, the profile's metrics
 * and call tree. */
Test(cube, inspect_a_set)
{
	pm_read_options o = pm_read_options_default();
	pm_error err = { 0 };
	char *doc = NULL;

	cr_assert_not_null(mkdtemp(strcpy(tmp, "/tmp/pm_cube_XXXXXX")));
	put("mm.x1y2.r1", "profile.cubex");
	put("mm.x2y2.r1", "profile.cubex");
	put("mm.x2y2.r2", "profile.cubex");
	o.metric = "visits";
	o.scaling = PM_SCALING_EACH;
	cr_assert_eq(pm_inspect_to_json(tmp, &o, &doc, &err), PM_OK, "%s", err.msg);
	/* pretty-printed: one member per line, each point, metric and call
	 * path on one */
	cr_assert(strstr(doc, "\"format\": \"cube\",\n  \"folder\": true,\n  \"region\": "
			      "\"main\",\n  \"metric\": \"visits\",\n  \"inclusive\": false,\n  "
			      "\"scaling\": \"each\""), "%s", doc);
	cr_assert(strstr(doc, "\"name\": \"loc_2\",\n      \"role\": \"location\""), "%s", doc);
	cr_assert(strstr(doc, "\"runs\": 3,\n  \"constant\": {\"y\": 2},"), "y is 2 in every folder: %s",
		  doc);
	cr_assert(strstr(doc, "{\"point\": {\"x\": 2}, \"runs\": 2, \"value\": 10.5, \"cv\": 0}"),
		  "%s", doc);
	cr_assert(strstr(doc, "\"run_folders\": 3,\n    \"profiles\": 3,\n    \"locations\": 2"),
		  "%s", doc);
	cr_assert(strstr(doc, "{\"name\": \"flops\", \"type\": \"EXCLUSIVE\", \"dtype\": \"INT64\", "
			      "\"unreadable\": \"no data in the profile"), "%s", doc);
	cr_assert(strstr(doc, "{\"path\": \"main->compute->kernel\", \"depth\": 2}"), "%s", doc);
	free(doc);
	clean();
}

/* ---- a set read once for many pairs (pm_read_cache) ----------------------- */

/* d and e hold the same table: names, cells, rows. */
static void same_dataset(const pm_dataset *d, const pm_dataset *e)
{
	cr_assert_eq(pm_dataset_nrows(d), pm_dataset_nrows(e));
	cr_assert_eq(pm_dataset_ncols(d), pm_dataset_ncols(e));
	for (size_t c = 0; c < pm_dataset_ncols(d); c++) {
		cr_assert_str_eq(pm_dataset_col_name(d, c), pm_dataset_col_name(e, c));
		for (size_t r = 0; r < pm_dataset_nrows(d); r++)
			cr_assert_str_eq(pm_dataset_cell(d, r, c), pm_dataset_cell(e, r, c));
	}
}

/* o's read of tmp with and without the cache: the same dataset, or the
 * same error. */
static void read_alike(const pm_read_cache *cache, pm_read_options o)
{
	pm_dataset *d = NULL, *e = NULL;
	pm_read_info info = { 0 }, info2 = { 0 };
	pm_error err = { 0 }, err2 = { 0 };
	pm_status st, st2;

	st = pm_dataset_read(tmp, &o, &d, &info, &err);
	o.cache = cache;
	st2 = pm_dataset_read(tmp, &o, &e, &info2, &err2);
	cr_assert_eq(st, st2, "%s / %s", err.msg, err2.msg);
	cr_assert_str_eq(err.msg, err2.msg);
	if (!st) {
		same_dataset(d, e);
		cr_assert_eq(info.runs, info2.runs);
		cr_assert_eq(info.nrows, info2.nrows);
	}
	pm_dataset_free(d);
	pm_dataset_free(e);
	pm_read_info_clear(&info);
	pm_read_info_clear(&info2);
}

Test(cube, read_cache)
{
	char *region[] = { "main", "main->compute->kernel", "main->io", "main", "main" };
	char *metric[] = { "time", "visits", "time", "flops", "nothere" };
	const pm_region_list l = { 5, region, metric };
	pm_read_options o = pm_read_options_default();
	pm_read_cache *cache = NULL;
	pm_error err = { 0 };

	cr_assert_not_null(mkdtemp(strcpy(tmp, "/tmp/pm_cube_XXXXXX")));
	put("mm.x1y2.r1", "profile.cubex");
	put("mm.x2y2.r1", "profile.cubex");
	put("mm.x2y2.r2", "profile.cubex");
	put("mm.x4y2.r1", "profile.cubex");
	o.scaling = PM_SCALING_EACH;
	cr_assert_eq(pm_read_cache_new(tmp, &o, &l, &cache, &err), PM_OK, "%s", err.msg);
	/* every pair as read from the files: runs, then merged, or the error
	 * (flops has no data, nothere is no metric) */
	for (size_t k = 0; k < l.n; k++) {
		pm_read_options r = o;

		r.region = region[k];
		r.metric = metric[k];
		read_alike(cache, r);
		r.aggregate = PM_AGG_MEDIAN;
		read_alike(cache, r);
		/* read otherwise than the cache was made: the files are read */
		r.scaling = PM_SCALING_WEAK;
		read_alike(cache, r);
		r.inclusive = 1;
		read_alike(cache, r);
	}
	/* the files gone, a read the cache holds still succeeds: it reads none */
	clean();
	o.region = "main->compute->kernel";
	o.metric = "visits";
	cr_assert_neq(pm_dataset_read(tmp, &o, &(pm_dataset *){ NULL }, NULL, &err), PM_OK);
	{
		pm_dataset *d = NULL;

		o.cache = cache;
		cr_assert_eq(pm_dataset_read(tmp, &o, &d, NULL, &err), PM_OK, "%s", err.msg);
		cr_assert_eq(pm_dataset_nrows(d), 4);
		pm_dataset_free(d);
		o.cache = NULL;
	}
	pm_read_cache_free(cache);
	cr_assert_not_null(mkdtemp(strcpy(tmp, "/tmp/pm_cube_XXXXXX")));
	put("mm.x1y2.r1", "profile.cubex");
	put("mm.x2y2.r1", "profile.cubex");
	/* not a CUBE profile, and the arguments */
	cr_assert_eq(pm_read_cache_new(cube_path("../ingest/extrap.txt"), NULL, &l, &cache, &err),
		     PM_EINVAL);
	cr_assert_null(cache);
	cr_assert(strstr(err.msg, "not a tar archive"), "%s", err.msg);
	o.format = PM_FORMAT_CSV;
	cr_assert_eq(pm_read_cache_new(tmp, &o, &l, &cache, &err), PM_EINVAL);
	cr_assert_eq(pm_read_cache_new(NULL, NULL, &l, &cache, &err), PM_EINVAL);
	cr_assert_eq(pm_read_cache_new(tmp, NULL, NULL, &cache, &err), PM_EINVAL);
	cr_assert_eq(pm_read_cache_new(tmp, NULL, &l, NULL, &err), PM_EINVAL);
	pm_read_cache_free(NULL);
	clean();
	/* one profile, not a set */
	cr_assert_eq(pm_read_cache_new(cube_path("profile.cubex"), NULL, &l, &cache, &err), PM_OK,
		     "%s", err.msg);
	pm_read_cache_free(cache);
}
