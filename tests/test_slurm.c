/* pm_slurm_time's rounding and formats, and pm_slurm_option's mapping. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "leak_check.h"
#include "model_fixture.h"

PM_LEAK_CHECKED_SUITE(slurm);

static void expect_time(double seconds, const char *want, uint64_t want_min)
{
	char out[PM_SLURM_TIME_CHARS];
	uint64_t min = 0;
	pm_error e = { 0 };

	cr_assert_eq(pm_slurm_time(seconds, out, &min, &e), PM_OK, "%g: %s", seconds, e.msg);
	cr_expect_str_eq(out, want, "%.17g s", seconds);
	cr_expect_eq(min, want_min, "%.17g s: %llu minutes", seconds, (unsigned long long)min);
}

Test(slurm, time_rounds_up_to_whole_minutes)
{
	expect_time(0, "00:01:00", 1);		/* 0 would be no limit */
	expect_time(0.001, "00:01:00", 1);
	expect_time(59.01, "00:01:00", 1);
	expect_time(60, "00:01:00", 1);		/* exact minutes stay */
	expect_time(60.001, "00:02:00", 2);
	expect_time(2532, "00:43:00", 43);	/* 42.2 min */
	expect_time(2580, "00:43:00", 43);
	expect_time(3599.5, "01:00:00", 60);
	expect_time(3600, "01:00:00", 60);
	expect_time(86340, "23:59:00", 1439);
	expect_time(86399, "1-00:00:00", 1440);	/* a day */
	expect_time(86400, "1-00:00:00", 1440);
	expect_time(86400 + 7380, "1-02:03:00", 1563);	/* days-hours:minutes */
	expect_time(10 * 86400 + 3600 * 23 + 59 * 60, "10-23:59:00", 15839);
	/* the longest limit sbatch reads (PM_SLURM_MAX_MINUTES): whole, and
	 * from a second under it */
	expect_time(35791393.0 * 60, "24855-03:13:00", 35791393);
	expect_time(35791393.0 * 60 - 59, "24855-03:13:00", 35791393);
	expect_time(35791392.0 * 60 + 0.5, "24855-03:13:00", 35791393);
	expect_time(35791392.0 * 60, "24855-03:12:00", 35791392);
	/* the minutes may be left out */
	{
		char out[PM_SLURM_TIME_CHARS];

		cr_assert_eq(pm_slurm_time(61, out, NULL, NULL), PM_OK);
		cr_expect_str_eq(out, "00:02:00");
	}
}

/* Beyond it, sbatch's int of seconds would overflow (--time=139393-07:11:00
 * would wrap around): no limit, which sbatch reads, and minutes 0. */
Test(slurm, time_beyond_slurm_is_unlimited)
{
	static const double beyond[] = { 35791393.0 * 60 + 0.001, 35791394.0 * 60,
					 2147483647.0 + 1, 139393.0 * 86400 + 7 * 3600 + 11 * 60,
					 1e300, 1.7976931348623157e308 };

	for (size_t k = 0; k < sizeof(beyond) / sizeof(beyond[0]); k++)
		expect_time(beyond[k], "UNLIMITED", 0);
	/* sbatch's own reading of the longest limit fits its int, with the
	 * 59 s it adds to round up (parse_time.c) */
	cr_expect_leq(35791393.0 * 60 + 59, 2147483647.0);
	cr_expect_gt(35791394.0 * 60 + 59, 2147483647.0);
}

Test(slurm, time_errors)
{
	char out[PM_SLURM_TIME_CHARS] = "unchanged";
	uint64_t min = 7;

	EXPECT_FAIL(pm_slurm_time(-1, out, &min, E), PM_EINVAL,
		    "a time limit of -1 s is not a finite number >= 0");
	EXPECT_FAIL(pm_slurm_time(NAN, out, &min, E), PM_EINVAL, "of nan s is not");
	EXPECT_FAIL(pm_slurm_time(INFINITY, out, &min, E), PM_EINVAL, "of inf s is not");
	EXPECT_FAIL(pm_slurm_time(-INFINITY, out, &min, E), PM_EINVAL, "of -inf s is not");
	EXPECT_FAIL(pm_slurm_time(-0.001, out, &min, E), PM_EINVAL, "of -0.001 s is not");
	cr_expect_str_eq(out, "unchanged");
	cr_expect_eq(min, 7);
	EXPECT_FAIL(pm_slurm_time(60, NULL, &min, E), PM_EINVAL, "out is NULL");
}

Test(slurm, options_by_column_name)
{
	static const char *const cases[][2] = {
		{ "nodes", "--nodes" },		  { "NUM_NODES", "--nodes" },
		{ "ntasks", "--ntasks" },	  { "Tasks", "--ntasks" },
		{ "ranks", "--ntasks" },	  { "processes", "--ntasks" },
		{ "procs", "--ntasks" },	  { "World_Size", "--ntasks" },
		{ "workers", "--ntasks" },	  { "threads", "--cpus-per-task" },
		{ "CPUS", "--cpus-per-task" },	  { "cpus_per_task", "--cpus-per-task" },
		{ "OMP_NUM_THREADS", "--cpus-per-task" },
		{ "gpus", "--gpus" },		  { "num_gpus", "--gpus" },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *o = pm_slurm_option(cases[k][0]);

		cr_expect(o && strcmp(o, cases[k][1]) == 0, "%s: %s", cases[k][0], o ? o : "NULL");
	}
	/* a name that only begins or ends like one, or another name */
	cr_expect_null(pm_slurm_option("node"));
	cr_expect_null(pm_slurm_option("nodes2"));
	cr_expect_null(pm_slurm_option("gpu"));
	cr_expect_null(pm_slurm_option("batch_size"));
	cr_expect_null(pm_slurm_option(""));
	cr_expect_null(pm_slurm_option(NULL));
}
