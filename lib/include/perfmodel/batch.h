/* Running a batch of fits (docs/batch.md, docs/embedding.md "Running a
 * batch"): the jobs of a jobs file (JSON Lines) or of every region × metric
 * of a profile, each run into its result line, and the results file they
 * go into, in job order whatever order they finish in, resumable. The CLI's
 * perfmodel batch and its MPI driver are this plus the printing, the
 * arguments and the signals.
 *
 * Nothing here prints, exits or changes the current folder; a job's
 * relative paths are read from the current folder when it runs (the CLI
 * makes the jobs file's folder the current one after reading it). Jobs of
 * one pm_batch may run on several threads at once; an output is written
 * by one thread at a time. */
#ifndef PERFMODEL_BATCH_H
#define PERFMODEL_BATCH_H

#include <stdio.h>

#include "perfmodel/options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_batch pm_batch;

/* What every job of a batch shares. */
typedef struct pm_batch_options {
	/* each job's --threads unless the job says (text as on a command
	 * line, checked when the job runs); NULL: fit's default */
	const char *threads;
	/* 1: the models keep their "run" member (threads used, wall time);
	 * 0: two runs of a batch write the same bytes */
	int timings;
	/* NULL, or polled as pm_fit_options.stop: once set, a running job
	 * stops and is to be run again (PM_BATCH_STOPPED) */
	volatile sig_atomic_t *stop;
} pm_batch_options;

/* Read the jobs file at path (a regular file or a pipe): every line that
 * is not blank is a job, a JSON object of fit's options by their long
 * names (docs/batch.md), or the error that line is (its result, named
 * "PATH:LINE"); o may be NULL. Errors with no batch: PM_EIO (the file
 * cannot be read, or is a folder), PM_EINVAL (two jobs of one id: the
 * place is the second, the message names the first's line), PM_ENOMEM. */
PM_API pm_status pm_batch_read(const char *path, const pm_batch_options *o, pm_batch **out,
			       pm_error *err);
/* The same from text[0..len), named name (the jobs file it stands for: a
 * job's "data" is sized from name's folder). Reads no file. */
PM_API pm_status pm_batch_parse(const char *text, size_t len, const char *name,
				const pm_batch_options *o, pm_batch **out, pm_error *err);
/* The options every job of --each-region shares (argv[0..argc), fit's
 * options): PM_EINVAL naming the first that would change what a job is
 * (its region, metric, target: PM_OPTION_IDENTITY), what becomes of its
 * model (PM_OPTION_OUTPUT), --help, an operand (every job reads profile),
 * or an option fit has not. */
PM_API pm_status pm_batch_check_shared(const char *profile, int argc, char *const *argv,
				       pm_error *err);
/* The jobs of --each-region: one per region × metric of profile
 * (pm_region_list_read), in its order, id "REGION/METRIC", each `command
 * PROFILE --region=R --metric=M` with argv[0..argc) (checked as
 * pm_batch_check_shared). A CUBE profile's runs are read once, by the
 * first job that reads them alike, for all. Errors: the list's, PM_EINVAL
 * for argv, PM_ENOMEM. */
PM_API pm_status pm_batch_regions(const char *profile, pm_command command, int argc,
				  char *const *argv, const pm_batch_options *o, pm_batch **out,
				  pm_error *err);
PM_API void pm_batch_free(pm_batch *b);	/* NULL: no-op */

/* The jobs: how many, job i's id (as the file gave it; none for a line
 * that is no job) and its error when the line is no job (NULL: a job). */
PM_API size_t pm_batch_njobs(const pm_batch *b);
PM_API const pm_batch_id *pm_batch_job_id(const pm_batch *b, size_t i);
PM_API const char *pm_batch_job_error(const pm_batch *b, size_t i);

/* What running a job came to. */
typedef enum pm_batch_outcome {
	PM_BATCH_MODEL,		/* the line has the model */
	PM_BATCH_FAILED,	/* the line has the job's error */
	PM_BATCH_STOPPED	/* the stop flag cut it short: no line, run it again */
} pm_batch_outcome;
/* Run job i: fit, select or discover as its options say, with nothing
 * printed or saved; its result line (pm_batch_line_to_json,
 * newline-ended, malloc'd: the caller's, or pm_batch_output_put's) into
 * *line. A job's failure is its line, with the message the command line
 * would print: PM_OK then too. PM_EINVAL for no such job, PM_ENOMEM. */
PM_API pm_status pm_batch_run(const pm_batch *b, size_t i, char **line,
			      pm_batch_outcome *outcome, pm_error *err);

/* The results file (fit -o's rules, DESIGN.md §6): never one of the
 * batch's inputs, written line by line into a temporary file beside it
 * that replaces it whole at the end; each line in job order as soon as
 * every job before it has one. */
typedef struct pm_batch_output pm_batch_output;
typedef struct pm_batch_output_options {
	/* the results file; NULL: written to stream as they come (no
	 * temporary file, no rename) */
	const char *path;
	FILE *stream;
	const char *name;	/* path as the user gave it, for messages */
	/* NULL, or a results file of an earlier run of this batch: each of
	 * its lines of a job of this batch (by id) counts as done and is
	 * written first; a missing file has none. The output may be this
	 * file: it is then rewritten as if the batch had run in one go. */
	const char *resume;
	/* NULL, or called with 1 before each write and the final rename and
	 * with 0 after: a caller that ends on a signal holds it meanwhile */
	void (*hold)(int on);
} pm_batch_output_options;
/* Open the output of b: its resumed lines read, a path checked against
 * every file the batch reads (the jobs file or profile, what a job names,
 * links and other names of them too: PM_EIO "cannot write NAME: it is
 * ..."), the temporary file made. PM_EIO, PM_ENOMEM. */
PM_API pm_status pm_batch_output_open(const pm_batch *b, const pm_batch_output_options *o,
				      pm_batch_output **out, pm_error *err);
/* Whether job i has its line (resumed or put). */
PM_API int pm_batch_output_has(const pm_batch_output *o, size_t i);
/* The jobs still to run (none of o's, all when o is NULL) in the order to
 * hand them out in: the most costly first (seeds, data size, command, a
 * fit that chooses its form), ties in job order. *order (malloc'd) holds
 * *n indices. PM_ENOMEM. */
PM_API pm_status pm_batch_order(const pm_batch *b, const pm_batch_output *o, size_t **order,
				size_t *n, pm_error *err);
/* Job i's line (pm_batch_run's; owned from here on, whatever the status),
 * failed when it is an error: written when its turn comes. PM_EIO once
 * writing has failed (the results cannot be kept; the close says it
 * again and leaves the file as it was), PM_EINVAL for no such job or one
 * that has its line. */
PM_API pm_status pm_batch_output_put(pm_batch_output *o, size_t i, char *line, int failed,
				     pm_error *err);
/* How a batch went: its jobs, those with a line, whether any failed. */
typedef struct pm_batch_tally {
	size_t jobs, done;
	int failed;
} pm_batch_tally;
/* The end: the lines still held (cut short: out of turn, still in job
 * order) and, when some job has none, the marker {"incomplete": ...};
 * then the temporary file over the output, or the resumed file rewritten
 * in job order. A failed write leaves the output as it was: PM_EIO
 * "cannot write NAME: WHY (the file is unchanged)". Frees o; t (may be
 * NULL) says how the batch went whatever the status. */
PM_API pm_status pm_batch_output_close(pm_batch_output *o, pm_batch_tally *t, pm_error *err);

#ifdef __cplusplus
}
#endif

#endif
