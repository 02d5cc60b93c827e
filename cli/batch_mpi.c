/* perfmodel-batch-mpi: perfmodel batch over MPI ranks (docs/batch.md). Every
 * rank reads the jobs file; rank 0 hands out job numbers one at a time, the
 * most costly first, to the other ranks and to a thread of its own, and
 * writes the results in job order (batch.c), so that the file is the same
 * bytes for any number of ranks. Only the main thread of rank 0 and the
 * workers' one thread call MPI (MPI_THREAD_FUNNELED). A program apart from
 * perfmodel so that the CLI never needs libmpi; 'perfmodel batch' under
 * mpirun or srun executes this one. */
#include <gsl/gsl_errno.h>
#include <locale.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"

enum { TAG_JOB = 1, TAG_RESULT, TAG_STOP };
/* what a result message says after its job number */
enum { RES_LINE, RES_ERROR, RES_STOPPED, RES_NOMEM };
/* the two int32 before a result's line */
#define HEADER 8

/* A worker rank: run each job rank 0 sends, send its result, until STOP. */
static int worker(const struct batch *b)
{
	for (;;) {
		int job, r, error;
		int32_t head[2];
		MPI_Status st;
		char *line, *msg;
		size_t len;

		if (MPI_Recv(&job, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st) != MPI_SUCCESS)
			return EXIT_FAIL;
		if (st.MPI_TAG == TAG_STOP)
			return EXIT_OK;
		r = job >= 0 && (size_t)job < b->n ? batch_run(b, (size_t)job, &line, &error) : -1;
		head[0] = job;
		head[1] = r == 0 ? (error ? RES_ERROR : RES_LINE) : r == 1 ? RES_STOPPED : RES_NOMEM;
		len = r == 0 ? strlen(line) : 0;
		msg = malloc(HEADER + len);
		if (!msg) {
			head[1] = RES_NOMEM;
			len = 0;
			msg = (char *)head;
		} else {
			memcpy(msg, head, HEADER);
			memcpy(msg + HEADER, r == 0 ? line : "", len);
		}
		if (r == 0)
			free(line);
		r = MPI_Send(msg, (int)(HEADER + len), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
		if (msg != (char *)head)
			free(msg);
		if (r != MPI_SUCCESS)
			return EXIT_FAIL;
	}
}

/* Rank 0's queue, shared by its dispatcher and its own worker thread. */
struct queue {
	pthread_mutex_t mu;
	const struct batch *b;
	size_t *order, n, taken;	/* batch_order; handed out: order[0..taken) */
	/* the local thread's finished jobs, for the dispatcher to write */
	size_t *fin_job, nfin;
	char **fin_line;
	int *fin_res;
	int local_done;	/* the local thread has stopped */
};

/* The next job to hand out, or -1: none left (or a signal came). */
static long take(struct queue *q)
{
	long job = -1;

	pthread_mutex_lock(&q->mu);
	if (q->taken < q->n && !*q->b->stop)
		job = (long)q->order[q->taken++];
	pthread_mutex_unlock(&q->mu);
	return job;
}

static void *local_worker(void *arg)
{
	struct queue *q = arg;
	long job;

	while ((job = take(q)) >= 0) {
		char *line = NULL;
		int error, r = batch_run(q->b, (size_t)job, &line, &error);

		pthread_mutex_lock(&q->mu);
		q->fin_job[q->nfin] = (size_t)job;
		q->fin_line[q->nfin] = line;
		q->fin_res[q->nfin++] = r == 0 ? (error ? RES_ERROR : RES_LINE)
					: r == 1 ? RES_STOPPED : RES_NOMEM;
		pthread_mutex_unlock(&q->mu);
		if (r)
			break;
	}
	pthread_mutex_lock(&q->mu);
	q->local_done = 1;
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* A job's end as the dispatcher sees it: its line to the output, or the
 * reason the batch cannot go on (*stopped: 1 a signal, 2 no memory). */
static void finish(struct batch_out *o, const struct batch *b, size_t job, char *line, int res,
		   int *stopped)
{
	if (res == RES_LINE || res == RES_ERROR) {
		batch_out_put(o, b, job, line, res == RES_ERROR);
		return;
	}
	free(line);
	*stopped = *stopped ? *stopped : res == RES_STOPPED ? 1 : 2;
}

/* A worker rank that MPI says is gone: its job gets an error line. */
static void lost(struct batch_out *o, const struct batch *b, int rank, long job, int mpi_err)
{
	char text[MPI_MAX_ERROR_STRING], msg[MPI_MAX_ERROR_STRING + 64];
	int len = 0;
	char *line = NULL;

	if (job < 0)
		return;
	MPI_Error_string(mpi_err, text, &len);
	pm_snprintf(msg, sizeof(msg), "rank %d, which ran this job, failed: %s", rank, text);
	if (pm_batch_line_to_json(&b->job[job].id, NULL, msg, 0, &line, NULL) == PM_OK)
		batch_out_put(o, b, (size_t)job, line, 1);
}

/* One message from a worker, if one is waiting: 1 when one came. */
static int receive(struct batch_out *o, const struct batch *b, long *busy, int *stopped)
{
	MPI_Status st;
	int flag = 0, n = 0;
	char *msg;
	int32_t head[2];

	if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS ||
	    !flag)
		return 0;
	MPI_Get_count(&st, MPI_BYTE, &n);
	msg = malloc((size_t)n + 1);
	if (!msg || n < HEADER ||
	    MPI_Recv(msg, n, MPI_BYTE, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE) != MPI_SUCCESS) {
		free(msg);
		*stopped = 2;
		return 1;
	}
	memcpy(head, msg, HEADER);
	busy[st.MPI_SOURCE] = -1;
	/* the line moves to the front of the buffer it came in */
	memmove(msg, msg + HEADER, (size_t)n - HEADER);
	msg[n - HEADER] = '\0';
	if (head[0] >= 0 && (size_t)head[0] < b->n)
		finish(o, b, (size_t)head[0], msg, head[1], stopped);
	else
		free(msg);
	return 1;
}

/* The local thread's finished jobs to the output: 1 when there were any. */
static int drain(struct queue *q, struct batch_out *o, int *stopped, int *local_done)
{
	size_t n;

	pthread_mutex_lock(&q->mu);
	n = q->nfin;
	for (size_t k = 0; k < n; k++)
		finish(o, q->b, q->fin_job[k], q->fin_line[k], q->fin_res[k], stopped);
	q->nfin = 0;
	*local_done = q->local_done;
	pthread_mutex_unlock(&q->mu);
	return n > 0;
}

/* Rank 0: hand out, gather, write; then stop the workers. */
static int dispatch(struct batch_out *o, const struct batch *b, int size)
{
	struct queue q = { .mu = PTHREAD_MUTEX_INITIALIZER, .b = b };
	long *busy = malloc((size_t)size * sizeof(*busy));
	int stopped = 0, local_done = 0, rc, working;
	pthread_t local;

	q.order = batch_order(b, o->done, &q.n);
	q.fin_job = malloc((q.n + 1) * sizeof(*q.fin_job));
	q.fin_line = malloc((q.n + 1) * sizeof(*q.fin_line));
	q.fin_res = malloc((q.n + 1) * sizeof(*q.fin_res));
	if (!busy || !q.order || !q.fin_job || !q.fin_line || !q.fin_res ||
	    pthread_create(&local, NULL, local_worker, &q)) {
		report_error(&(pm_error){ .code = PM_ENOMEM });
		free(busy);
		free(q.order);
		free(q.fin_job);
		free(q.fin_line);
		free(q.fin_res);
		MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
		return EXIT_FAIL;
	}
	for (int r = 0; r < size; r++)
		busy[r] = -1;
	do {
		int progress = 0;

		for (int r = 1; r < size && !stopped; r++) {
			long job;
			int e;

			if (busy[r] >= 0 || (job = take(&q)) < 0)
				continue;
			busy[r] = job;
			progress = 1;
			if ((e = MPI_Send(&(int){ (int)job }, 1, MPI_INT, r, TAG_JOB,
					  MPI_COMM_WORLD)) != MPI_SUCCESS) {
				lost(o, b, r, job, e);
				busy[r] = -2;	/* not used again */
			}
		}
		progress |= receive(o, b, busy, &stopped);
		progress |= drain(&q, o, &stopped, &local_done);
		if (*b->stop)
			stopped = 1;
		working = !local_done;
		for (int r = 1; r < size; r++)
			working |= busy[r] >= 0;
		/* results take seconds: a millisecond's nap keeps this rank's
		 * core for its own fits instead of polling */
		if (!progress && !stopped)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	} while (!stopped && working);
	/* cut short: the finished lines and the marker first, whatever the
	 * workers still do (mpirun may soon kill them all) */
	pthread_join(local, NULL);
	drain(&q, o, &stopped, &local_done);
	rc = batch_out_close(o, b, stopped == 1);
	for (int r = 1; r < size; r++)
		if (busy[r] == -1)
			MPI_Send(&(int){ -1 }, 1, MPI_INT, r, TAG_STOP, MPI_COMM_WORLD);
	working = 0;
	for (int r = 1; r < size; r++)
		working |= busy[r] >= 0;
	free(busy);
	free(q.order);
	free(q.fin_job);
	free(q.fin_line);
	free(q.fin_res);
	/* a worker still in a fit (the signal did not reach it) would keep
	 * MPI_Finalize waiting: end them all */
	if (working)
		MPI_Abort(MPI_COMM_WORLD, rc);
	return rc;
}

int main(int argc, char **argv)
{
	struct batch_args a = { 0 };
	struct batch b = { 0 };
	struct batch_out o = { 0 };
	int provided, rank = 0, size = 1, rc, all;
	FILE *quiet = NULL;

	setlocale(LC_ALL, "");
	gsl_set_error_handler_off();
	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		fputs("perfmodel: batch: MPI_Init_thread failed\n", stderr);
		return EXIT_FAIL;
	}
	/* errors come back as codes: a lost rank is a failed job, not an abort */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* every rank reads the jobs; rank 0 alone says what is wrong */
	if (rank)
		diag_capture(quiet = fopen("/dev/null", "w"));
	rc = batch_main(argc, argv, &a, &b);
	if (!rc && !b.stop)
		rc = -1;	/* -h: done */
	if (!rank && !rc)
		rc = batch_out_open(&o, &a, &b);
	MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (all == 0)
		rc = rank ? worker(&b) : dispatch(&o, &b, size);
	else if (!rank && o.line)
		batch_out_close(&o, &b, 0);
	batch_free(&b);
	batch_args_free(&a);
	if (quiet)
		fclose(quiet);
	fflush(stdout);
	MPI_Finalize();
	return rc < 0 ? EXIT_OK : rank ? EXIT_OK : rc;
}
