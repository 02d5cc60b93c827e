/* perfmodel batch (docs/batch.md): the jobs, one run, and the results file,
 * shared by the command (cmd_batch.c, one process) and the MPI driver
 * (batch_mpi.c, rank 0 and its workers). */
#ifndef PM_BATCH_H
#define PM_BATCH_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli.h"

/* One job: the line of the jobs file turned into the argv of the command
 * it names, or the error that line is. */
struct batch_job {
	pm_batch_id id;		/* id.text owned */
	unsigned line;		/* in the jobs file */
	enum fit_mode mode;
	int argc;
	char **argv;		/* "fit", "--KEY=VALUE"..., "--", DATA */
	char *spec_json;	/* an inline "spec" object; NULL: none */
	char *spec_name;	/* "JOBS:LINE: spec", what errors in it name */
	char *error;		/* the line is no job: its result is this */
	double size;		/* how long it may take, for longest-first (batch_order) */
};

/* --each-region of a CUBE profile set: the pairs' runs read once, by the
 * first job (batch.c job_cache), for the jobs that read them alike. */
struct region_cache {
	pm_region_list *list;
	pm_read_cache *cache;
	int tried;		/* made, or failed to: the jobs read the files */
};

struct batch {
	const char *path;	/* the jobs file, as given */
	struct stat file;	/* what path named when read: an input the output must not be */
	struct region_cache *regions;	/* --each-region: its pairs; else NULL */
	struct batch_job *job;
	size_t n;
	int timings;		/* --timings: the models keep their "run" member */
	volatile sig_atomic_t *stop;	/* set by SIGINT or SIGTERM (interrupt_install) */
};

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
};
/* Parse argv as `perfmodel batch`: 0, or the exit status (usage, or -h:
 * EXIT_OK after the help, which *help says). */
int batch_parse_args(int argc, char **argv, struct batch_args *a, int *help);
void batch_args_free(struct batch_args *a);
/* Every driver's start: parse argv, read the jobs, catch SIGINT and SIGTERM
 * (b->stop). 0 with b->stop set to go on; else the exit status (b->stop
 * NULL also after -h). */
int batch_main(int argc, char **argv, struct batch_args *a, struct batch *b);

/* Read the jobs file: every non-empty line is a job (or the error it is);
 * `threads` (NULL: none) becomes each job's first option. Then the current
 * folder becomes the jobs file's, against which a job's relative paths are
 * read. 0, or EXIT_FAIL after reporting why (no file, duplicate ids). */
int batch_read(const char *path, const char *threads, int timings, struct batch *b);
/* The jobs of --each-region: one per region × metric of a->each_region
 * (pm_region_list_read), id "REGION/METRIC", each `a->command DATA
 * --region=R --metric=M` with the options after "--"; paths are the
 * command line's (the folder stays). 0, or EXIT_FAIL after reporting. */
int batch_regions(const struct batch_args *a, struct batch *b);
void batch_free(struct batch *b);
/* Job ids in one order (duplicates, --resume's look-up), and the indices
 * of the jobs that have one sorted by it (ties by line), *n of them; NULL:
 * no memory. */
int batch_id_cmp(const pm_batch_id *a, const pm_batch_id *b);
size_t *batch_by_id(const struct batch *b, size_t *n);
/* The order to hand the jobs out in: the most costly first (size); the
 * indices of jobs not done (done[i] zero), *n of them. NULL: no memory. */
size_t *batch_order(const struct batch *b, const unsigned char *done, size_t *n);

/* Run job i: its result line (malloc'd, newline-ended) into *line, and
 * whether it is an error into *error, 0; 1 when a signal cut it short (no
 * line: the job is to be run again); -1 when out of memory. */
int batch_run(const struct batch *b, size_t i, char **line, int *error);

/* The results (batch_output.c): lines in job order, each written and
 * flushed as soon as every job before it has one, into a temporary file
 * beside the output that replaces it whole at the end. */
struct batch_out {
	FILE *f;
	const char *path;	/* NULL: standard output */
	const char *name;	/* path as given, for messages */
	char *final, *temp;	/* path's target (links followed), and the file written */
	int write_errno;	/* the first write that failed; 0: none */
	char **line;		/* per job: its line until written (kept with resume) */
	unsigned char *done;	/* per job: no line, one held, one written (batch.c) */
	size_t next;		/* the first job whose line is not written */
	size_t ndone, nold;
	int failed;		/* some line is an error */
};
/* Open the output (a.out, else a.resume's file, else standard output)
 * after reading a.resume's lines for jobs of b (by id), which are written
 * first and count as done. An output that is one of the batch's inputs
 * (the jobs file, the --each-region profile, a file a job reads, another
 * --resume file) is refused before any job runs. 0, or EXIT_FAIL after
 * reporting. */
int batch_out_open(struct batch_out *o, const struct batch_args *a, const struct batch *b);
/* Take job i's line (ownership too), an error line or not: written when
 * its turn comes. */
void batch_out_put(struct batch_out *o, const struct batch *b, size_t i, char *line, int error);
/* The end: when interrupted, the lines still held and the incomplete
 * marker; the temporary file renamed over the output, or with --resume
 * the whole file rewritten in job order. A failed write leaves the output
 * as it was. Returns the exit status: EXIT_FAIL when writing failed, else
 * EXIT_INTERRUPTED, EXIT_FAIL (a job failed), EXIT_OK. Frees o. */
int batch_out_close(struct batch_out *o, const struct batch *b, int interrupted);

#endif
