/* A batch's jobs as lib/batch/'s files share them. Private to lib/batch/. */
#ifndef PM_BATCH_IMPL_H
#define PM_BATCH_IMPL_H

#include <pthread.h>
#include <sys/stat.h>

#include "perfmodel/batch.h"
#include "perfmodel/ingest.h"

/* One job: the line of the jobs file turned into the argument vector of
 * the command it names, so that every option, check and message of a job
 * is the command line's; or the error that line is. */
struct pm__job {
	pm_batch_id id;		/* id.text owned */
	unsigned line;		/* in the jobs file (--each-region: the pair's number) */
	pm_command command;
	int argc;
	char **argv;		/* "fit", "--KEY=VALUE"..., "--", DATA */
	char *spec_json;	/* an inline "spec" object; NULL: none */
	char *spec_name;	/* "JOBS:LINE: spec", what errors in it name */
	char *error;		/* the line is no job: its result is this */
	double size;		/* how long it may take, for the order (order.c) */
};

/* --each-region: the pairs, and their runs read once by the first job
 * that reads them (run.c), for the jobs that read them alike. */
struct pm__regions {
	pm_region_list *list;
	pthread_mutex_t mu;	/* over cache and tried: jobs run on threads */
	pm_read_cache *cache;
	int tried;		/* made, or failed to: the jobs read the files */
	/* the options every job shares (an input the output must not be) */
	int argc;
	char **argv;
};

struct pm_batch {
	char *path;		/* the jobs file or the profile, as given */
	/* what path named when read (st_ino 0: nothing): an input the
	 * output must not be */
	struct stat file;
	struct pm__regions *regions;	/* --each-region; else NULL */
	struct pm__job *job;
	size_t n;
	int timings;
	volatile sig_atomic_t *stop;
};

/* j->argv[j->argc++] = a copy of text (the array has room): 0, or -1
 * when out of memory. */
int pm__job_push(struct pm__job *j, const char *text);
/* "fit", "select" or "discover". */
const char *pm__command_name(pm_command c);
/* A new batch of path (copied) with o's settings; NULL: no memory. */
pm_batch *pm__batch_new(const char *path, const pm_batch_options *o);
/* Two jobs of one id (pm_batch_read's PM_EINVAL), checked in order.c. */
pm_status pm__batch_check_ids(const pm_batch *b, pm_error *err);
/* Job ids in one order: strings after numbers. */
int pm__batch_id_cmp(const pm_batch_id *a, const pm_batch_id *b);
/* The jobs that have an id sorted by it (ties by line): *ix malloc'd, *n
 * of them. PM_ENOMEM. */
pm_status pm__batch_by_id(const pm_batch *b, size_t **ix, size_t *n, pm_error *err);
/* Of ix[0..n) sorted by pm__batch_by_id, the job whose id is want; b->n:
 * none. */
size_t pm__batch_find_id(const pm_batch *b, const size_t *ix, size_t n, const pm_batch_id *want);
/* pm_batch_order: the jobs whose done[i] is 0 (done NULL: all). */
pm_status pm__batch_by_size(const pm_batch *b, const unsigned char *done, size_t **order,
			    size_t *n, pm_error *err);
/* strerror(e) into buf, safe on any thread. Returns buf. */

#endif
