/* CSV ingest throughput of libperfmodel.
 *
 * usage: ingest_bench FILE.csv
 * prints one JSON line: the file's size, the time of pm_dataset_read_csv()
 * (read, tokenize and type: every column's levels and numbers) and of then
 * reading every numeric column (pm_dataset_col_numbers() into one array, as
 * a fit reads its target), each as seconds and MB/s of the file (1 MB =
 * 10^6 bytes); and the read's CPU time (user + system), which other
 * processes on a busy machine inflate less than the wall time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "perfmodel/perfmodel.h"

static double clock_s(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static double cpu_now(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

int main(int argc, char **argv)
{
	pm_dataset *d = NULL;
	pm_error err = { 0 };
	double t0, t1, t2, c0, c1, sum = 0.0, mb;
	double *v;
	size_t nrows, ncols;
	FILE *f;
	long size;

	if (argc != 2) {
		fprintf(stderr, "usage: ingest_bench FILE.csv\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0) {
		fprintf(stderr, "ingest_bench: cannot read %s\n", argv[1]);
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	mb = (double)size / 1e6;
	c0 = cpu_now();
	t0 = now();
	if (pm_dataset_read_csv(argv[1], &d, &err) != PM_OK) {
		fprintf(stderr, "ingest_bench: %s\n", err.msg);
		return 1;
	}
	t1 = now();
	c1 = cpu_now();
	nrows = pm_dataset_nrows(d);
	ncols = pm_dataset_ncols(d);
	v = malloc((nrows + 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "ingest_bench: out of memory\n");
		return 1;
	}
	for (size_t c = 0; c < ncols; c++)
		if (pm_dataset_col_numbers(d, c, v, NULL) == PM_OK)
			for (size_t r = 0; r < nrows; r++)
				sum += v[r];
	t2 = now();
	printf("{\"bytes\": %ld, \"rows\": %zu, \"cols\": %zu, \"read_s\": %.6f, "
	       "\"read_mb_per_s\": %.1f, \"read_cpu_s\": %.6f, \"read_cpu_mb_per_s\": %.1f, "
	       "\"numbers_s\": %.6f, \"read_and_numbers_mb_per_s\": %.1f, \"checksum\": %.17g}\n",
	       size, nrows, ncols, t1 - t0, mb / (t1 - t0), c1 - c0, mb / (c1 - c0), t2 - t1,
	       mb / (t2 - t0), sum);
	free(v);
	pm_dataset_free(d);
	return 0;
}
