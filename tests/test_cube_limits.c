/* CUBE profiles at their limits (ingest/cube_anchor.c, fmt_cube.c,
 * region_list.c): many regions and call paths read through indices (the
 * values asserted, not the time: bench/cube.sh times it), XML that
 * is not well-formed said with its line and nothing printed, counts the
 * bytes cannot hold, run profiles that cannot be read, and a call path
 * that only some runs of a set have. The profiles are written here: a
 * flat call tree main -> r1 .. r(n-1), one location, exclusive time of
 * call node i = i + 1, plain anchor and data. */
#define _GNU_SOURCE	/* memmem */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/read_file.h"
#include "ingest/cube.h"
#include "ingest/ingest_impl.h"
#include "perfmodel/ingest.h"
#include "perfmodel/perfmodel.h"
#include "leak_check.h"

PM_LEAK_CHECKED_SUITE(cube_limits);

/* A growing byte buffer. */
struct buf {
	char *p;
	size_t n, cap;
};

static void put_bytes(struct buf *b, const void *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = 2 * (b->n + n + 1);
		cr_assert_not_null(b->p = realloc(b->p, b->cap));
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void put_text(struct buf *b, const char *s)
{
	put_bytes(b, s, strlen(s));
}

/* A ustar member name of data[0, n) into the archive t. */
static void tar_member(struct buf *t, const char *name, const char *data, size_t n)
{
	char h[512] = { 0 }, pad[512] = { 0 };

	snprintf(h, 100, "%s", name);
	snprintf(h + 100, 8, "0000644");
	snprintf(h + 124, 12, "%011zo", n);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	put_bytes(t, h, 512);
	put_bytes(t, data, n);
	put_bytes(t, pad, (512 - n % 512) % 512);
}

/* The flat profile of n call nodes, as an archive, its regions declared
 * with ids in reverse order (a call node finds its region by id, not by
 * place); `anchor_tail` replaces the anchor's end (NULL: the usual). */
static void flat_profile(struct buf *t, size_t n, const char *anchor_tail)
{
	struct buf a = { 0 }, idx = { 0 }, data = { 0 };
	char line[160];
	int one = 1;
	short version = 0;

	put_text(&a, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.3\">\n"
		 "<metrics><metric id=\"0\" type=\"EXCLUSIVE\"><uniq_name>time</uniq_name>"
		 "<dtype>DOUBLE</dtype></metric></metrics>\n<program>\n");
	for (size_t i = n; i-- > 0;) {
		if (i)
			snprintf(line, sizeof(line), "<region id=\"%zu\"><name>r%zu</name></region>\n",
				 1000 + i, i);
		else
			snprintf(line, sizeof(line), "<region id=\"1000\"><name>main</name></region>\n");
		put_text(&a, line);
	}
	put_text(&a, "<cnode id=\"0\" calleeId=\"1000\">\n");
	for (size_t i = 1; i < n; i++) {
		snprintf(line, sizeof(line), "<cnode id=\"%zu\" calleeId=\"%zu\"/>\n", i, 1000 + i);
		put_text(&a, line);
	}
	put_text(&a, anchor_tail ? anchor_tail
		 : "</cnode>\n</program>\n<system><location Id=\"0\"/></system>\n</cube>\n");
	/* little-endian, as the machines the tests run on */
	put_bytes(&idx, "CUBEX.INDEX", 11);
	put_bytes(&idx, &one, 4);
	put_bytes(&idx, &version, 2);
	put_bytes(&idx, "\1", 1);
	put_bytes(&idx, &(int){ (int)n }, 4);
	put_bytes(&data, "CUBEX.DATA", 10);
	for (size_t i = 0; i < n; i++) {
		double v = (double)(i + 1);

		put_bytes(&idx, &(int){ (int)i }, 4);
		put_bytes(&data, &v, 8);
	}
	tar_member(t, "anchor.xml", a.p, a.n);
	tar_member(t, "0.index", idx.p, idx.n);
	tar_member(t, "0.data", data.p, data.n);
	put_bytes(t, (char[1024]){ 0 }, 1024);
	free(a.p);
	free(idx.p);
	free(data.p);
}

static void write_file(const char *path, const struct buf *t)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(t->p, 1, t->n, f), t->n);
	cr_assert_eq(fclose(f), 0);
}

/* call path `path`'s exclusive time in profile t */
static double value_of(pm_cube *c, const char *path)
{
	double *v = NULL;
	size_t nloc;
	pm_error err = { 0 };
	double x;

	cr_assert_eq(pm__cube_values(c, "time", path, 0, &v, &nloc, &err), PM_OK, "%s: %s", path,
		     err.msg);
	cr_assert_eq(nloc, 1);
	x = v[0];
	free(v);
	return x;
}

/* 20 000 regions: every call node's region found among them by id, every
 * call path by its text (pm__read_cube_pairs reads them all), every pair
 * listed once. Quadratic, this was seconds; the time is
 * bench/cube.sh's to measure, the values are this test's. */
Test(cube_limits, many_regions)
{
	enum { N = 20000 };
	struct buf t = { 0 };
	pm_cube *c = NULL;
	pm_error err = { 0 };
	pm_region_list *l = NULL;
	char path[64];

	flat_profile(&t, N, NULL);
	cr_assert_eq(pm__cube_parse((unsigned char *)t.p, t.n, "big.cubex", NULL, &c, &err), PM_OK,
		     "%s", err.msg);
	cr_assert_eq(pm__cube_ncnodes(c), N);
	cr_assert_eq(value_of(c, "main"), 1);
	for (size_t i = 1; i < N; i += 997) {
		snprintf(path, sizeof(path), "main->r%zu", i);
		cr_assert_eq(value_of(c, path), (double)(i + 1), "%s", path);
	}
	cr_assert_eq(value_of(c, "main->r19999"), N);
	cr_assert_eq(value_of(c, "main->r1999"), 2000, "not its prefix's, main->r19990's");
	cr_assert_eq(pm__cube_values(c, "time", "main->r20000", 0, &(double *){ NULL },
				     &(size_t){ 0 }, &err), PM_ESCHEMA);
	cr_assert(strstr(err.msg, "no call path 'main->r20000' (20000 call nodes"), "%s", err.msg);
	pm__cube_free(c);
	cr_assert_eq(pm__region_list_parse(t.p, t.n, "big.cubex", PM_FORMAT_CUBE, &l, &err), PM_OK,
		     "%s", err.msg);
	cr_assert_eq(l->n, N);
	cr_assert_str_eq(l->region[N - 1], "main->r19999");
	pm_region_list_free(l);
	free(t.p);
}

/* A stop request (pm_read_options.stop, pm_request_stop) ends a long
 * parse, and a set's reading between its runs: PM_EIO "interrupted". */
Test(cube_limits, stopped)
{
	struct buf t = { 0 };
	pm_cube *c = NULL;
	pm_error err = { 0 };
	volatile sig_atomic_t stop = 0;
	pm_read_options o = pm_read_options_default();

	flat_profile(&t, 5000, NULL);
	cr_assert_eq(pm_request_stop(&stop), 0);
	cr_assert_eq(pm__cube_parse((unsigned char *)t.p, t.n, "big.cubex", &stop, &c, &err),
		     PM_EIO);
	cr_assert_null(c);
	cr_assert_str_eq(err.file, "big.cubex");
	cr_assert(strstr(err.msg, "interrupted while anchor.xml was read"), "%s", err.msg);
	o.stop = &stop;
	o.region = "main";
	cr_assert_eq(pm_dataset_parse(t.p, t.n, "big.cubex", &o, &(pm_dataset *){ NULL }, NULL,
				      &err), PM_EIO);
	free(t.p);
}

/* A cnode whose calleeId no region has: named, with its place. */
Test(cube_limits, callee_that_is_no_region)
{
	struct buf t = { 0 };
	pm_cube *c = NULL;
	pm_error err = { 0 };

	flat_profile(&t, 3, "<cnode id=\"3\" calleeId=\"77\"/></cnode>\n</program>\n<system>"
		     "<location Id=\"0\"/></system>\n</cube>\n");
	cr_assert_eq(pm__cube_parse((unsigned char *)t.p, t.n, "p.cubex", NULL, &c, &err), PM_ESCHEMA);
	cr_assert_null(c);
	cr_assert(strstr(err.msg, "cnode 4 (in document order) has calleeId 77, which is no "
			 "region's id"), "%s", err.msg);
	free(t.p);
}

/* XML that is not well-formed: libxml2's reason and line in the message,
 * no newline in it (raw or escaped), nothing written to stderr. */
Test(cube_limits, malformed_xml_said_with_its_line)
{
	struct buf t = { 0 };
	pm_cube *c = NULL;
	pm_error err = { 0 };
	char *printed = NULL;
	size_t len = 1;
	char errfile[] = "/tmp/pm_cube_stderr_XXXXXX";
	int fd = mkstemp(errfile), saved = dup(2);

	cr_assert(fd >= 0 && saved >= 0);
	flat_profile(&t, 2, "</cnode>\n</program>\n<system><location></system>\n</cube>\n");
	fflush(stderr);
	dup2(fd, 2);
	cr_assert_eq(pm__cube_parse((unsigned char *)t.p, t.n, "p.cubex", NULL, &c, &err), PM_ESCHEMA);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	cr_assert_str_eq(err.file, "p.cubex");
	cr_assert(strstr(err.msg, "anchor.xml:11: not XML: Opening and ending tag mismatch: "
			 "location line 11 and system"), "%s", err.msg);
	cr_assert_null(strchr(err.msg, '\n'), "%s", err.msg);
	cr_assert_null(strstr(err.msg, "\\x0a"), "%s", err.msg);
	cr_assert_eq(pm__read_file(errfile, &printed, &len, NULL), PM_OK);
	cr_assert_eq(len, 0, "libxml2 printed: %s", printed);
	free(printed);
	unlink(errfile);
	free(t.p);
}

/* Counts the bytes cannot hold are refused before anything is made of
 * them, naming the file and the count. */
Test(cube_limits, declared_counts_past_the_bytes)
{
	struct buf t = { 0 };
	pm_cube *c = NULL;
	pm_error err = { 0 };
	char *at;

	flat_profile(&t, 4, NULL);
	/* 0.index's count, 4 -> 0x7fffffff */
	cr_assert_not_null(at = memmem(t.p, t.n, "CUBEX.INDEX", 11));
	memcpy(at + 18, "\xff\xff\xff\x7f", 4);
	cr_assert_eq(pm__cube_parse((unsigned char *)t.p, t.n, "p.cubex", NULL, &c, &err), PM_OK);
	cr_assert_eq(pm__cube_values(c, "time", "main", 0, &(double *){ NULL }, &(size_t){ 0 },
				     &err), PM_ESCHEMA);
	cr_assert_str_eq(err.file, "p.cubex");
	cr_assert(strstr(err.msg, "0.index: 2147483647 indices in 16 bytes"), "%s", err.msg);
	pm__cube_free(c);
	free(t.p);
	/* a 30 kB profile whose anchor inflates to 1 000 000 locations
	 * (cube_gen.py --location-bomb): refused at the first location past
	 * the file's bytes, not read on (each would be a column with
	 * --scaling each) */
	{
		const char *dir = getenv("PM_TEST_DATA");
		char path[512];
		pm_read_options o = pm_read_options_default();

		cr_assert_not_null(dir);
		snprintf(path, sizeof(path), "%s/cube/location_bomb.cubex", dir);
		o.scaling = PM_SCALING_EACH;
		cr_assert_eq(pm_dataset_read(path, &o, &(pm_dataset *){ NULL }, NULL, &err),
			     PM_ESCHEMA);
		cr_assert_str_eq(err.file, path);
		cr_assert(strstr(err.msg, "anchor.xml: 30721 locations or more in a profile of 30720 "
				 "bytes"), "%s", err.msg);
	}
}

/* ---- sets ----------------------------------------------------------------- */

static char tmp[] = "/tmp/pm_cube_limits_XXXXXX";

/* folder (made) / file: the flat profile of n call nodes */
static void run(const char *folder, const char *file, size_t n)
{
	char path[512];
	struct buf t = { 0 };

	snprintf(path, sizeof(path), "%s/%s", tmp, folder);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/%s", tmp, folder, file);
	flat_profile(&t, n, NULL);
	write_file(path, &t);
	free(t.p);
}

static void clean(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

/* A set read, and its pairs listed: both fail with the message msg, and
 * the error names the file `file`. */
static void set_fails(const char *file, const char *msg)
{
	pm_read_options o = pm_read_options_default();
	pm_region_list *l = NULL;
	pm_error err = { 0 };
	char want[512];

	snprintf(want, sizeof(want), "%s/%s", tmp, file);
	o.region = "main";
	cr_assert_eq(pm_dataset_read(tmp, &o, &(pm_dataset *){ NULL }, NULL, &err), PM_EIO,
		     "%s", err.msg);
	cr_assert_str_eq(err.file, want);
	cr_assert(strstr(err.msg, msg), "'%s' does not say '%s'", err.msg, msg);
	cr_assert_eq(pm_region_list_read(tmp, PM_FORMAT_CUBE, &l, &err), PM_EIO, "%s", err.msg);
	cr_assert_null(l);
	cr_assert_str_eq(err.file, want);
}

Test(cube_limits, run_profiles_that_cannot_be_read)
{
	char path[512];

	cr_assert_not_null(mkdtemp(tmp));
	run("mm.x1.r1", "profile.cubex", 3);
	run("mm.x2.r1", "profile.cubex", 3);
	snprintf(path, sizeof(path), "%s/mm.x3.r1", tmp);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/mm.x3.r1/profile.cubex", tmp);
	cr_assert_eq(symlink("/nonexistent/profile.cubex", path), 0);
	set_fails("mm.x3.r1/profile.cubex", "a symbolic link to nothing");
	/* a FIFO: said, never opened (opening it would wait for a writer) */
	unlink(path);
	cr_assert_eq(mkfifo(path, 0600), 0);
	set_fails("mm.x3.r1/profile.cubex", "a FIFO, not a regular file");
	/* a run folder that is a link to nothing; a file beside the runs is
	 * no run, as ever */
	unlink(path);
	snprintf(path, sizeof(path), "%s/mm.x3.r1", tmp);
	rmdir(path);
	cr_assert_eq(symlink("/nonexistent/mm.x3.r1", path), 0);
	set_fails("mm.x3.r1", "a symbolic link to nothing (a run folder that cannot be read)");
	unlink(path);
	snprintf(path, sizeof(path), "%s/notes.x1.r1.txt", tmp);
	{
		FILE *f = fopen(path, "w");

		cr_assert_not_null(f);
		fclose(f);
	}
	{
		pm_region_list *l = NULL;
		pm_error err = { 0 };

		cr_assert_eq(pm_region_list_read(tmp, PM_FORMAT_CUBE, &l, &err), PM_OK, "%s",
			     err.msg);
		pm_region_list_free(l);
	}
	clean();
}

/* A call path only the second run has: listed for batch --each-region, and
 * its read fails naming it and the profile that lacks it. */
Test(cube_limits, call_path_absent_from_the_first_run)
{
	pm_read_options o = pm_read_options_default();
	pm_region_list *l = NULL;
	pm_read_cache *cache = NULL;
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	char want[512];

	cr_assert_not_null(mkdtemp(strcpy(tmp, "/tmp/pm_cube_limits_XXXXXX")));
	run("mm.x1.r1", "profile.cubex", 3);
	run("mm.x2.r1", "profile.cubex", 4);
	run("mm.x3.r1", "profile.cubex", 4);
	cr_assert_eq(pm_region_list_read(tmp, PM_FORMAT_AUTO, &l, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(l->n, 4);
	cr_assert_str_eq(l->region[3], "main->r3");
	cr_assert_eq(pm_read_cache_new(tmp, &o, l, &cache, &err), PM_OK, "%s", err.msg);
	o.cache = cache;
	o.metric = "time";	/* the pair as listed: the cache's */
	o.region = "main->r2";
	cr_assert_eq(pm_dataset_read(tmp, &o, &d, NULL, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_dataset_nrows(d), 3);
	pm_dataset_free(d);
	o.region = "main->r3";
	cr_assert_eq(pm_dataset_read(tmp, &o, &(pm_dataset *){ NULL }, NULL, &err), PM_ESCHEMA);
	snprintf(want, sizeof(want), "%s/mm.x1.r1/profile.cubex", tmp);
	cr_assert_str_eq(err.file, want);
	cr_assert(strstr(err.msg, "no call path 'main->r3'"), "%s", err.msg);
	cr_assert(strstr(err.msg, "; 1 of the 3 runs lack it"), "%s", err.msg);
	/* read from the files, one pair: the first profile without it stops the
	 * reading */
	o.cache = NULL;
	cr_assert_eq(pm_dataset_read(tmp, &o, &(pm_dataset *){ NULL }, NULL, &err), PM_ESCHEMA);
	cr_assert_str_eq(err.file, want);
	cr_assert(strstr(err.msg, "no call path 'main->r3'"), "%s", err.msg);
	pm_read_cache_free(cache);
	pm_region_list_free(l);
	/* stopped: before the first run folder */
	{
		volatile sig_atomic_t stop = 1;

		o = pm_read_options_default();
		o.stop = &stop;
		o.region = "main";
		cr_assert_eq(pm_dataset_read(tmp, &o, &(pm_dataset *){ NULL }, NULL, &err), PM_EIO);
		cr_assert(strstr(err.msg, "interrupted before run folder 'mm.x1.r1' was read"), "%s",
			  err.msg);
	}
	clean();
}
