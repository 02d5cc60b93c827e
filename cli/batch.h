/* perfmodel batch (docs/batch.md): what the command (cmd_batch.c, one
 * process) and the MPI driver (batch_mpi.c, rank 0 and its workers) share
 * around the library's batch (perfmodel/batch.h): the arguments, the
 * signals and the messages. */
#ifndef PM_BATCH_H
#define PM_BATCH_H

#include "perfmodel/batch.h"
#include "cli.h"

/* The options every driver takes (usage in cmd_batch.c): the jobs file,
 * -o, --threads, --timings, --resume. */
struct batch_args {
	const char *jobs, *threads;
	/* --each-region FILE: a job per region × metric, each running
	 * `command` (NULL: fit) with fit_argv (the options after "--") */
	const char *each_region, *command;
	char **fit_argv;
	int fit_argc;
	char *out, *resume;	/* absolute (the jobs' folder becomes current); NULL: none */
	const char *out_name;	/* out as given, for messages */
	int timings;
	volatile sig_atomic_t *stop;	/* set by SIGINT or SIGTERM (batch_main) */
};
void batch_args_free(struct batch_args *a);
/* Every driver's start: parse argv, catch SIGINT and SIGTERM (a->stop),
 * read the jobs into *b; a jobs file's folder then becomes the current
 * one, against which a job's relative paths are read. 0 with *b set to go
 * on; else the exit status (*b NULL also after -h, exit status 0). */
int batch_main(int argc, char **argv, struct batch_args *a, pm_batch **b);
/* The output of a (its -o, else its --resume file, else standard output)
 * with a's --resume read, a signal held while a line is written. 0, or
 * EXIT_FAIL after reporting. */
int batch_open(const struct batch_args *a, const pm_batch *b, pm_batch_output **o);
/* The output's end (pm_batch_output_close): the exit status, EXIT_FAIL
 * when writing failed, else EXIT_INTERRUPTED when interrupted, EXIT_FAIL
 * when a job failed or has no line, EXIT_OK. */
int batch_close(const struct batch_args *a, pm_batch_output *o, int interrupted);

#endif
