/* perfmodel batch: many fits from a jobs file, one after the other in this
 * process (the library's batch, perfmodel/batch.h, with the arguments, the
 * signals and the messages here); under mpirun or srun, handed to
 * perfmodel-batch-mpi (batch_mpi.c), which shares the jobs across the
 * ranks, so that the plain CLI never needs MPI at run time (docs/batch.md). */
#include <errno.h>
#include <getopt.h>
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

enum { OPT_THREADS = 256, OPT_TIMINGS, OPT_RESUME, OPT_EACH_REGION, OPT_COMMAND };

static const struct option long_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "timings", no_argument, NULL, OPT_TIMINGS },
	{ "resume", required_argument, NULL, OPT_RESUME },
	{ "each-region", required_argument, NULL, OPT_EACH_REGION },
	{ "command", required_argument, NULL, OPT_COMMAND },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* path as an absolute name, so that it still names the same file once the
 * jobs' folder is the current one; NULL when out of memory. */
static char *absolute(const char *path)
{
	char cwd[PATH_MAX];
	size_t n;
	char *s;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	n = strlen(cwd) + strlen(path) + 2;
	s = malloc(n);
	if (s)
		pm_snprintf(s, n, "%s/%s", cwd, path);
	return s;
}

/* Parse argv as `perfmodel batch`: 0, or the exit status (usage, or -h:
 * EXIT_OK after the help, which *help says). */
static int batch_parse_args(int argc, char **argv, struct batch_args *a, int *help)
{
	unsigned long long u;
	const char *out = NULL, *resume = NULL;
	pm_error err;
	int c, own = 0;

	/* after "--": --each-region's options of every fit */
	while (own < argc && strcmp(argv[own], "--"))
		own++;
	a->fit_argv = argv + own + (own < argc);
	a->fit_argc = argc - own - (own < argc);
	*help = 0;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(own, argv, ":o:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_EACH_REGION: a->each_region = optarg; break;
		case OPT_COMMAND:
			if (strcmp(optarg, "fit") && strcmp(optarg, "select") &&
			    strcmp(optarg, "discover"))
				return usage_error("batch", "--command '%s': expected fit, select or "
						   "discover", optarg);
			a->command = optarg;
			break;
		case OPT_RESUME: resume = optarg; break;
		case OPT_TIMINGS: a->timings = 1; break;
		case OPT_THREADS:
			if (pm_parse_whole(optarg, 1024, &u) || u == 0)
				return usage_error("batch", "--threads '%s': expected a whole number "
						   "from 1 to 1024", optarg);
			a->threads = optarg;
			break;
		default:
			*help = c == 'h';
			return common_option(c, argv, "batch", batch_usage);
		}
	}
	if (a->each_region ? optind != own : one_operand(own, argv, "batch", "jobs file", &a->jobs))
		return a->each_region ? usage_error("batch", "--each-region makes the jobs: no jobs "
						    "file") : EXIT_USAGE;
	if (!a->each_region && (a->command || a->fit_argc))
		return usage_error("batch", "--command and options after -- are --each-region's; "
				   "a jobs file says them per job");
	if (a->each_region && pm_batch_check_shared(a->each_region, a->fit_argc, a->fit_argv, &err))
		return usage_error("batch", "%s", err.msg);
	if ((a->jobs && !*a->jobs) || (a->each_region && !*a->each_region) || (out && !*out) ||
	    (resume && !*resume))
		return usage_error("batch", "an empty file name (the %s)", a->jobs && !*a->jobs
				   ? "jobs file" : a->each_region && !*a->each_region
				   ? "--each-region profile" : out && !*out ? "output" : "--resume file");
	if (resume && !strcmp(resume, "-"))
		return usage_error("batch", "--resume reads and rewrites a file: not '-'");
	if (out && !strcmp(out, "-") && resume)
		return usage_error("batch", "--resume rewrites the results in a file: not -o -");
	if (!out && resume)
		out = resume;
	a->out = out && strcmp(out, "-") ? absolute(out) : NULL;
	a->out_name = out;
	a->resume = resume ? absolute(resume) : NULL;
	if ((out && strcmp(out, "-") && !a->out) || (resume && !a->resume)) {
		report_error(&(pm_error){ .code = PM_ENOMEM });
		return EXIT_FAIL;
	}
	return 0;
}

void batch_args_free(struct batch_args *a)
{
	free(a->out);
	free(a->resume);
}

/* A job's relative paths are the jobs file's: the current folder becomes
 * path's. 0, or EXIT_FAIL after saying why. */
static int enter_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], why[128];

	if (!slash)
		return 0;
	pm_snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (chdir(dir)) {
		cprintf(diag(), "perfmodel: %s: %s\n", dir, pm_strerror(errno, why, sizeof(why)));
		return EXIT_FAIL;
	}
	return 0;
}

int batch_main(int argc, char **argv, struct batch_args *a, pm_batch **b)
{
	pm_batch_options o;
	pm_error err;
	int rc, help;

	*b = NULL;
	if ((rc = batch_parse_args(argc, argv, a, &help)) || help)
		return rc;
	a->stop = interrupt_install();
	o = (pm_batch_options){ .threads = a->threads, .timings = a->timings, .stop = a->stop };
	if (a->each_region
	    ? pm_batch_regions(a->each_region, !a->command || !strcmp(a->command, "fit")
			       ? PM_COMMAND_FIT : !strcmp(a->command, "select")
			       ? PM_COMMAND_SELECT : PM_COMMAND_DISCOVER,
			       a->fit_argc, a->fit_argv, &o, b, &err)
	    : pm_batch_read(a->jobs, &o, b, &err)) {
		report_error(&err);
		return EXIT_FAIL;
	}
	return a->jobs ? enter_folder(a->jobs) : 0;
}

int batch_open(const struct batch_args *a, const pm_batch *b, pm_batch_output **o)
{
	pm_batch_output_options oo = { .path = a->out, .stream = stdout, .name = a->out_name,
				       .resume = a->resume, .hold = interrupt_hold };
	pm_error err;

	if (pm_batch_output_open(b, &oo, o, &err)) {
		report_error(&err);
		return EXIT_FAIL;
	}
	return 0;
}

int batch_close(const struct batch_args *a, pm_batch_output *o, int interrupted)
{
	pm_batch_tally t;
	pm_error err;

	if (pm_batch_output_close(o, &t, &err)) {
		/* on standard output, main's close_stdout says what went wrong */
		if (a->out)
			report_error(&err);
		return EXIT_FAIL;
	}
	return interrupted ? EXIT_INTERRUPTED : t.failed || t.done < t.jobs ? EXIT_FAIL : EXIT_OK;
}

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

int cmd_batch(int argc, char **argv)
{
	struct batch_args a = { 0 };
	pm_batch *b = NULL;
	pm_batch_output *o = NULL;
	long ranks = launch_size();
	int rc, stopped = 0;

	if (ranks > 1)
		return exec_mpi(argc, argv, ranks);
	if ((rc = batch_main(argc, argv, &a, &b)) || !b || (rc = batch_open(&a, b, &o)))
		goto out;
	for (size_t i = 0; i < pm_batch_njobs(b) && !stopped; i++) {
		pm_batch_outcome outcome;
		pm_error err;
		char *line;

		if (pm_batch_output_has(o, i))
			continue;
		if (pm_batch_run(b, i, &line, &outcome, &err)) {
			report_error(&err);
			stopped = -1;
		} else if (outcome == PM_BATCH_STOPPED) {
			stopped = 1;
		} else if (pm_batch_output_put(o, i, line, outcome == PM_BATCH_FAILED, NULL)) {
			/* the results cannot be kept: no use running the rest */
			stopped = -1;
		}
		stopped |= *a.stop != 0;
	}
	rc = batch_close(&a, o, stopped == 1 || *a.stop);
out:
	pm_batch_free(b);
	batch_args_free(&a);
	return rc;
}
