/* perfmodel batch: many fits from a jobs file, one after the other in this
 * process; under mpirun or srun, handed to perfmodel-batch-mpi (batch_mpi.c),
 * which shares the jobs across the ranks, so that the plain CLI never needs
 * MPI at run time (docs/batch.md). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"

const char batch_usage[] =
	"usage: perfmodel batch JOBS.jsonl [-o RESULTS.jsonl] [--threads N] [--timings]\n"
	"                       [--resume RESULTS.jsonl]\n"
	"       perfmodel batch --each-region PROFILE [--command fit|select|discover]\n"
	"                       [-o RESULTS.jsonl] [...] [-- FIT OPTIONS]\n"
	"\n"
	"Run many fits (docs/batch.md). Each line of JOBS.jsonl is a job, a JSON object:\n"
	"  {\"id\": \"gemm-s3\", \"data\": \"gemm.csv\", \"spec\": \"gemm.json\", \"seed\": 3}\n"
	"with any option of 'perfmodel fit' by its long name (\"form\": \"multiplicative\",\n"
	"\"no-polish\": true, \"intrinsic\": [\"n\", \"m\"]), \"spec\" a file or an inline spec\n"
	"object, \"command\": \"discover\" or \"select\" to run that command instead of fit.\n"
	"Relative paths are read from the jobs file's folder.\n"
	"\n"
	"Results: one line per job, in job order, written as they complete:\n"
	"  {\"id\": ..., \"model\": {the model document}} or {\"id\": ..., \"error\": \"...\"}\n"
	"A failed job never stops the others; the exit status is 1 if any failed. A run\n"
	"cut short by SIGINT or SIGTERM keeps every finished line and ends with\n"
	"{\"incomplete\": true, \"done\": N, \"jobs\": M} (exit status 130).\n"
	"\n"
	"  -o, --output FILE      the results (default: standard output)\n"
	"      --threads N        each job's fit threads, unless the job says (default: fit's)\n"
	"      --timings          keep each model's \"run\" member (threads used, wall time);\n"
	"                         without it two runs write the same bytes\n"
	"      --resume FILE      skip the jobs FILE has a result for (by id) and rewrite it\n"
	"                         as if run in one go (the output unless -o)\n"
	"      --each-region FILE an Extra-P file (text, JSON or JSON Lines): one job per\n"
	"                         region x metric, id \"REGION/METRIC\", each\n"
	"                         'COMMAND FILE --region R --metric M FIT OPTIONS' (paths\n"
	"                         from the current folder)\n"
	"      --command C        --each-region's command: fit (default), select, discover\n"
	"  -h, --help             this text\n"
	"\n"
	"Under 'mpirun -np K' or 'srun' (K > 1) the jobs are shared across the K ranks\n"
	"(perfmodel-batch-mpi, when perfmodel was built with MPI); the results are the same\n"
	"bytes for any K.\n";

/* The ranks of an MPI or Slurm launch this process is one of (1: none). */
static long launch_size(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
					    "SLURM_STEP_NUM_TASKS" };
	long k = 1;

	for (size_t v = 0; v < sizeof(vars) / sizeof(*vars); v++) {
		const char *s = getenv(vars[v]);
		long n = s ? strtol(s, NULL, 10) : 0;

		k = n > k ? n : k;
	}
	return k;
}

/* exec perfmodel-batch-mpi with argv, beside this program (a build tree,
 * or installed beside it), else in PM_LIBEXECDIR; returns only on failure. */
static int exec_mpi(int argc, char **argv, long ranks)
{
	char self[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char **args = calloc((size_t)argc + 1, sizeof(*args));

	if (!args)
		return EXIT_FAIL;
	args[0] = "perfmodel-batch-mpi";
	memcpy(args + 1, argv + 1, (size_t)(argc - 1) * sizeof(*args));
	if (n > 0) {
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		pm_snprintf(path, sizeof(path), "%s/perfmodel-batch-mpi", self);
		execv(path, args);
	}
#ifdef PM_LIBEXECDIR
	execv(PM_LIBEXECDIR "/perfmodel-batch-mpi", args);
#endif
	free(args);
	cprintf(stderr, "perfmodel: batch: this is one of %ld ranks, but perfmodel was built "
		"without MPI (no perfmodel-batch-mpi): every rank would run every job\n", ranks);
	return EXIT_FAIL;
}

int batch_main(int argc, char **argv, struct batch_args *a, struct batch *b)
{
	int rc, help;

	if ((rc = batch_parse_args(argc, argv, a, &help)) || help)
		return rc;
	if ((rc = a->each_region ? batch_regions(a, b)
				 : batch_read(a->jobs, a->threads, a->timings, b)))
		return rc;
	b->stop = interrupt_install();
	return 0;
}

int cmd_batch(int argc, char **argv)
{
	struct batch_args a = { 0 };
	struct batch b = { 0 };
	struct batch_out o = { 0 };
	long ranks = launch_size();
	int rc, stopped = 0;

	if (ranks > 1)
		return exec_mpi(argc, argv, ranks);
	if ((rc = batch_main(argc, argv, &a, &b)) || !b.stop)
		goto out;
	if ((rc = batch_out_open(&o, &a, &b))) {
		batch_out_close(&o, &b, 0);
		goto out;
	}
	for (size_t i = 0; i < b.n && !stopped; i++) {
		char *line;
		int error;

		if (o.done[i])
			continue;
		switch (batch_run(&b, i, &line, &error)) {
		case 0: batch_out_put(&o, &b, i, line, error); break;
		case 1: stopped = 1; break;
		default:
			report_error(&(pm_error){ .code = PM_ENOMEM });
			stopped = -1;
		}
		stopped |= *b.stop != 0;
		/* the results cannot be kept: no use running the rest */
		if (o.write_errno && !stopped)
			stopped = -1;
	}
	rc = batch_out_close(&o, &b, stopped == 1 || *b.stop);
out:
	batch_free(&b);
	batch_args_free(&a);
	return rc;
}
