/* perfmodel-batch-mpi: perfmodel batch over MPI ranks (docs/batch.md). Every
 * rank reads the jobs file; rank 0 hands out job numbers one at a time, the
 * most costly first, to the other ranks and to a thread of its own, and
 * writes the results in job order (pm_batch_output), so that the file is the same
 * bytes for any number of ranks. Each rank begins its first job before
 * MPI_Init returns, the job of its launcher's rank in that order (MPI's
 * start-up waits tenths of a second on the launcher), and rank 0 learns
 * which jobs were begun once MPI is up. On rank 0 only the main thread calls MPI;
 * a worker's heartbeat thread does beside its fits (MPI_THREAD_MULTIPLE),
 * so that rank 0 can tell a dead rank from a long fit. A program apart from
 * perfmodel so that the CLI never needs libmpi; 'perfmodel batch' under
 * mpirun or srun executes this one. */
#include <gsl/gsl_errno.h>
#include <limits.h>
#include <locale.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"

enum { TAG_JOB = 1, TAG_RESULT, TAG_STOP, TAG_ALIVE };
/* what a result message says after its job number */
enum { RES_LINE, RES_ERROR, RES_STOPPED, RES_NOMEM };
/* how long rank 0 waits for the workers' answers after a signal, in ms */
#define GRACE_MS 5000
/* a worker's heartbeat, and the silence after which rank 0 takes it for
 * dead (a fit's thread may keep a loaded node busy for a while: generous) */
#define HEARTBEAT_MS 1000
#define SILENCE_S 15.0
/* the two int32 before a result's line */
#define HEADER 8

/* A worker's heartbeat: a message to rank 0 every HEARTBEAT_MS while the
 * worker lives, so that rank 0 can tell a long fit from a dead rank. */
struct heart {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int quit;
};

static void *heartbeat(void *arg)
{
	struct heart *h = arg;
	struct timespec t;

	pthread_mutex_lock(&h->mu);
	while (!h->quit) {
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_sec += HEARTBEAT_MS / 1000;
		pthread_cond_timedwait(&h->cv, &h->mu, &t);
		if (!h->quit)
			MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ALIVE, MPI_COMM_WORLD);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* A job's end as a message says it: its line, its error line, cut short
 * by a signal, or no memory. */
static int run(const pm_batch *b, size_t job, char **line)
{
	pm_batch_outcome outcome;

	if (pm_batch_run(b, job, line, &outcome, NULL))
		return RES_NOMEM;
	return outcome == PM_BATCH_MODEL ? RES_LINE : outcome == PM_BATCH_FAILED ? RES_ERROR
										: RES_STOPPED;
}

/* The rank this process's launcher gave it, read before MPI_Init: -1 when
 * no launcher's variable says (or one says nonsense). Only a guess of
 * what MPI will say: a job begun on it that MPI's rank does not confirm
 * is still a job done (rank 0 is told which, and keeps one line of it). */
static int launch_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
					    "SLURM_PROCID" };

	for (size_t v = 0; v < sizeof(vars) / sizeof(*vars); v++) {
		const char *s = getenv(vars[v]);
		char *end;
		long r;

		if (!s || !*s)
			continue;
		r = strtol(s, &end, 10);
		return *end || r < 0 || r >= INT_MAX ? -1 : (int)r;
	}
	return -1;
}

/* A job begun before MPI_Init, on a thread of its own. */
struct early {
	const pm_batch *b;
	int job;	/* -1: none begun */
	pthread_t t;
	char *line;
	int res;
};

static void *early_run(void *arg)
{
	struct early *e = arg;

	e->res = run(e->b, (size_t)e->job, &e->line);
	return NULL;
}

/* Begin the job that rank hands out first (the rank-th of pm_batch_order's
 * order: rank 0's own thread takes the first, rank r the r-th), if any. */
static void early_begin(struct early *e, const pm_batch *b, int rank)
{
	size_t *order = NULL, n = 0;

	*e = (struct early){ .b = b, .job = -1 };
	if (rank >= 0 && !pm_batch_order(b, NULL, &order, &n, NULL) && (size_t)rank < n &&
	    order[rank] < INT_MAX) {
		e->job = (int)order[rank];
		if (pthread_create(&e->t, NULL, early_run, e))
			e->job = -1;
	}
	free(order);
}

/* The begun job's end, waited for. */
static void early_end(struct early *e)
{
	if (e->job >= 0)
		pthread_join(e->t, NULL);
}

/* The next message of rank 0 into *job, waited for by polling with a
 * millisecond's nap: Open MPI's blocking receive spins, and a rank whose
 * jobs are done would take a core from the fits still running (21 % of one
 * with --oversubscribe's yielding, all of it without). MPI_SUCCESS or the
 * error. */
static int next_job(int *job, MPI_Status *st)
{
	MPI_Request req;
	int done = 0, e = MPI_Irecv(job, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &req);

	while (e == MPI_SUCCESS && !(e = MPI_Test(&req, &done, st)) && !done)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	return e;
}

/* Job's result (res, line: freed here) to rank 0. MPI_SUCCESS or the error. */
static int send_result(int job, int res, char *line)
{
	int32_t head[2] = { job, res };
	size_t len = line ? strlen(line) : 0;
	char *msg = malloc(HEADER + len);
	int e;

	if (!msg) {
		head[1] = RES_NOMEM;
		len = 0;
		msg = (char *)head;
	} else {
		memcpy(msg, head, HEADER);
		memcpy(msg + HEADER, line ? line : "", len);
	}
	free(line);
	e = MPI_Send(msg, (int)(HEADER + len), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
	if (msg != (char *)head)
		free(msg);
	return e;
}

/* A worker rank: the job it began (e) first, then each job rank 0 sends;
 * its result to rank 0 each, until STOP. */
static int worker(const pm_batch *b, int beat, struct early *e)
{
	struct heart h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	pthread_t t;
	int rc = EXIT_FAIL, ok = 1;

	beat = beat && !pthread_create(&t, NULL, heartbeat, &h);
	if (e->job >= 0) {
		early_end(e);
		ok = send_result(e->job, e->res, e->line) == MPI_SUCCESS;
	}
	while (ok) {
		int job, res;
		MPI_Status st;
		char *line = NULL;

		if (next_job(&job, &st) != MPI_SUCCESS)
			break;
		if (st.MPI_TAG == TAG_STOP) {
			rc = EXIT_OK;
			break;
		}
		res = job >= 0 && (size_t)job < pm_batch_njobs(b) ? run(b, (size_t)job, &line)
								   : RES_NOMEM;
		ok = send_result(job, res, line) == MPI_SUCCESS;
	}
	if (beat) {
		pthread_mutex_lock(&h.mu);
		h.quit = 1;
		pthread_cond_signal(&h.cv);
		pthread_mutex_unlock(&h.mu);
		pthread_join(t, NULL);
	}
	return rc;
}

/* Rank 0's queue, shared by its dispatcher and its own worker thread. */
struct queue {
	pthread_mutex_t mu;
	const pm_batch *b;
	volatile sig_atomic_t *stop;
	size_t *order, n, taken;	/* pm_batch_order; handed out: order[0..taken) */
	/* jobs a rank began before MPI_Init (struct early), never handed out */
	unsigned char *begun;
	struct early *early;	/* rank 0's, its thread's first */
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
	while (q->taken < q->n && q->begun[q->order[q->taken]])
		q->taken++;
	if (q->taken < q->n && !*q->stop)
		job = (long)q->order[q->taken++];
	pthread_mutex_unlock(&q->mu);
	return job;
}

/* A job of the local thread done, for the dispatcher to write: 0 when the
 * thread is to stop (a signal, no memory). */
static int keep(struct queue *q, size_t job, char *line, int res)
{
	pthread_mutex_lock(&q->mu);
	q->fin_job[q->nfin] = job;
	q->fin_line[q->nfin] = line;
	q->fin_res[q->nfin++] = res;
	pthread_mutex_unlock(&q->mu);
	return res != RES_STOPPED && res != RES_NOMEM;
}

static void *local_worker(void *arg)
{
	struct queue *q = arg;
	long job;
	int go = 1;

	if (q->early->job >= 0) {
		early_end(q->early);
		go = keep(q, (size_t)q->early->job, q->early->line, q->early->res);
	}
	while (go && (job = take(q)) >= 0) {
		char *line = NULL;
		int r = run(q->b, (size_t)job, &line);

		go = keep(q, (size_t)job, line, r);
	}
	pthread_mutex_lock(&q->mu);
	q->local_done = 1;
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* A job's end as the dispatcher sees it: its line to the output, or the
 * reason the batch cannot go on (*stopped: 1 a signal, 2 no memory or no
 * output). */
static void finish(pm_batch_output *o, size_t job, char *line, int res, int *stopped)
{
	/* a job run twice (begun before MPI_Init by two processes whose
	 * launcher said the same rank): its lines are the same bytes */
	if ((res == RES_LINE || res == RES_ERROR) && pm_batch_output_has(o, job)) {
		free(line);
		return;
	}
	if (res == RES_LINE || res == RES_ERROR) {
		/* the results cannot be kept (a full disk): no use running the rest */
		if (pm_batch_output_put(o, job, line, res == RES_ERROR, NULL) && !*stopped)
			*stopped = 2;
		return;
	}
	free(line);
	*stopped = *stopped ? *stopped : res == RES_STOPPED ? 1 : 2;
}

/* What rank 0 knows of a worker rank. */
struct rank {
	long job;	/* the job it runs; IDLE; LOST: not used again */
	double seen;	/* when it was last heard from (now()) */
};
enum { IDLE = -1, LOST = -2 };

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A worker rank gone (an MPI error, or silent for SILENCE_S): its job gets
 * an error line and it gets no other. */
static void lost(pm_batch_output *o, const pm_batch *b, int r, struct rank *w,
		 const char *why, int *stopped)
{
	char msg[MPI_MAX_ERROR_STRING + 128];
	char *line = NULL;

	if (w->job >= 0) {
		pm_snprintf(msg, sizeof(msg), "rank %d, which ran this job, was lost: %s", r, why);
		if (pm_batch_line_to_json(pm_batch_job_id(b, (size_t)w->job), NULL, msg, 0, &line,
					  NULL) == PM_OK)
			finish(o, (size_t)w->job, line, RES_ERROR, stopped);
	}
	w->job = LOST;
}

/* One message from a worker, if one is waiting: 1 when one came. A
 * result goes to o (NULL: the output is closed, it is dropped). */
static int receive(pm_batch_output *o, const pm_batch *b, struct rank *w, int *stopped)
{
	MPI_Status st;
	int flag = 0, n = 0;
	char *msg;
	int32_t head[2];

	if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS ||
	    !flag)
		return 0;
	MPI_Get_count(&st, MPI_BYTE, &n);
	msg = malloc((size_t)n + 1);
	if (!msg || MPI_Recv(msg, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE) != MPI_SUCCESS) {
		free(msg);
		*stopped = 2;
		return 1;
	}
	w[st.MPI_SOURCE].seen = now();
	/* a heartbeat, or a rank already given up on */
	if (st.MPI_TAG != TAG_RESULT || n < HEADER || w[st.MPI_SOURCE].job == LOST) {
		free(msg);
		return 1;
	}
	memcpy(head, msg, HEADER);
	w[st.MPI_SOURCE].job = IDLE;
	/* the line moves to the front of the buffer it came in */
	memmove(msg, msg + HEADER, (size_t)n - HEADER);
	msg[n - HEADER] = '\0';
	if (o && head[0] >= 0 && (size_t)head[0] < pm_batch_njobs(b))
		finish(o, (size_t)head[0], msg, head[1], stopped);
	else
		free(msg);
	return 1;
}

/* The local thread's finished jobs to the output: 1 when there were any. */
static int drain(struct queue *q, pm_batch_output *o, int *stopped, int *local_done)
{
	size_t n;

	pthread_mutex_lock(&q->mu);
	n = q->nfin;
	for (size_t k = 0; k < n; k++)
		finish(o, q->fin_job[k], q->fin_line[k], q->fin_res[k], stopped);
	q->nfin = 0;
	*local_done = q->local_done;
	pthread_mutex_unlock(&q->mu);
	return n > 0;
}

/* Give idle workers a job each; give up on those that send fails or that
 * fell silent. 1 when something happened. */
static int hand_out(struct queue *q, pm_batch_output *o, struct rank *w, int size, int beat,
		    int *stopped)
{
	char text[MPI_MAX_ERROR_STRING];
	int progress = 0, len;

	for (int r = 1; r < size; r++) {
		long job;
		int e;

		if (beat && w[r].job >= 0 && now() - w[r].seen > SILENCE_S) {
			pm_snprintf(text, sizeof(text), "no word from it for %.0f s", SILENCE_S);
			lost(o, q->b, r, &w[r], text, stopped);
			progress = 1;
		}
		if (w[r].job != IDLE || (job = take(q)) < 0)
			continue;
		w[r].job = job;
		w[r].seen = now();
		progress = 1;
		e = MPI_Send(&(int){ (int)job }, 1, MPI_INT, r, TAG_JOB, MPI_COMM_WORLD);
		if (e != MPI_SUCCESS) {
			MPI_Error_string(e, text, &len);
			lost(o, q->b, r, &w[r], text, stopped);
		}
	}
	return progress;
}

/* Whether a worker rank still runs a job. */
static int any_busy(const struct rank *w, int size)
{
	for (int r = 1; r < size; r++)
		if (w[r].job >= 0)
			return 1;
	return 0;
}

/* Whether j, gathered from a rank, is a job that rank began before
 * MPI_Init (-1: none; anything else out of range is taken as none). */
static int began(const pm_batch *b, int j)
{
	return j >= 0 && (size_t)j < pm_batch_njobs(b);
}

/* dispatch's arrays, and the ranks' states w */
static void queue_free(struct queue *q, struct rank *w)
{
	free(w);
	free(q->order);
	free(q->fin_job);
	free(q->fin_line);
	free(q->fin_res);
	free(q->begun);
}

/* Rank 0: hand out, gather, write; then stop the workers. beat: they send
 * heartbeats; begun[r]: the job rank r began before MPI_Init (-1: none;
 * rank 0's is e). Returns the exit status, *lost_any when a rank was lost
 * (MPI_Finalize would wait for it). */
static int dispatch(const struct batch_args *a, pm_batch_output *o, const pm_batch *b, int size,
		    int beat, const int *begun, struct early *e, int *lost_any)
{
	struct queue q = { .mu = PTHREAD_MUTEX_INITIALIZER, .b = b, .stop = a->stop, .early = e };
	struct rank *w = malloc((size_t)size * sizeof(*w));
	int stopped = 0, local_done = 0, rc;
	pthread_t local;

	pm_batch_order(b, o, &q.order, &q.n, NULL);
	/* each job at most once in the local thread's list, and its first */
	q.fin_job = malloc((q.n + 1) * sizeof(*q.fin_job));
	q.fin_line = malloc((q.n + 1) * sizeof(*q.fin_line));
	q.fin_res = malloc((q.n + 1) * sizeof(*q.fin_res));
	q.begun = calloc(pm_batch_njobs(b) + 1, 1);
	for (int r = 0; q.begun && r < size; r++)
		if (began(b, begun[r]))
			q.begun[begun[r]] = 1;
	if (!w || !q.order || !q.fin_job || !q.fin_line || !q.fin_res || !q.begun ||
	    pthread_create(&local, NULL, local_worker, &q)) {
		report_error(&(pm_error){ .code = PM_ENOMEM });
		queue_free(&q, w);
		MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
		return EXIT_FAIL;
	}
	for (int r = 0; r < size; r++)
		w[r] = (struct rank){ r && began(b, begun[r]) ? begun[r] : IDLE, now() };
	do {
		int progress = stopped ? 0 : hand_out(&q, o, w, size, beat, &stopped);

		progress |= receive(o, b, w, &stopped);
		progress |= drain(&q, o, &stopped, &local_done);
		if (*a->stop)
			stopped = 1;
		/* results take seconds: a millisecond's nap keeps this rank's
		 * core for its own fits instead of polling */
		if (!progress && !stopped)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	} while (!stopped && (!local_done || any_busy(w, size)));
	/* cut short: the finished lines and the marker at once, before
	 * anything else (mpirun kills the ranks a second after passing a
	 * signal on); rank 0's own fit stops at its next cost evaluation,
	 * also when the signal came to a worker alone */
	if (stopped)
		*a->stop = 1;
	pthread_join(local, NULL);
	drain(&q, o, &stopped, &local_done);
	rc = batch_close(a, o, stopped == 1);
	/* the workers had the signal too (mpirun and srun pass it on): their
	 * answers, awaited a while so that MPI can end in order, come too
	 * late for the file and are run again by --resume */
	for (int t = 0; stopped && t < GRACE_MS && any_busy(w, size); t++) {
		while (receive(NULL, b, w, &stopped))
			;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	*lost_any = 0;
	for (int r = 1; r < size; r++) {
		if (w[r].job == IDLE)
			MPI_Send(&(int){ -1 }, 1, MPI_INT, r, TAG_STOP, MPI_COMM_WORLD);
		*lost_any |= w[r].job != IDLE;
	}
	queue_free(&q, w);
	return rc;
}

/* The end of a begun job whose batch does not go on: stopped at its next
 * cost evaluation (the flag of the signals: the batch ends anyway). */
static void early_drop(struct early *e, volatile sig_atomic_t *stop)
{
	if (e->job >= 0 && stop)
		*stop = 1;
	early_end(e);
	free(e->line);
	e->job = -1;
}

/* The arguments and the jobs (batch_main), rc as main's: 0 to go on, -1
 * after -h, else the exit status. */
static int read_jobs(int argc, char **argv, struct batch_args *a, pm_batch **b)
{
	int rc = batch_main(argc, argv, a, b);

	return !rc && !*b ? -1 : rc;
}

int main(int argc, char **argv)
{
	struct batch_args a = { 0 };
	pm_batch *b = NULL;
	pm_batch_output *o = NULL;
	struct early e = { .job = -1 };
	int provided, rank = 0, size = 1, rc = 0, all, beat, lost_any = 0, mpi = 0, *begun = NULL;
	int guess = launch_rank();
	FILE *quiet = NULL, *held = NULL;
	char *said = NULL;
	size_t nsaid = 0;

	setlocale(LC_ALL, "");
	gsl_set_error_handler_off();
	/* with the launcher's rank known, the jobs are read and this rank's
	 * first begun while MPI starts up; what reading says is held for
	 * MPI's rank 0 to say (the launcher's rank is only a guess), and so
	 * is -h's help (rc < 0) */
	if (guess >= 0) {
		help_capture(quiet = fopen("/dev/null", "w"));
		diag_capture(held = open_memstream(&said, &nsaid));
		if (!(rc = read_jobs(argc, argv, &a, &b)) && !a.resume)
			early_begin(&e, b, guess);
	}
	/* a worker's heartbeat thread calls MPI beside its fits; without
	 * that level there are no heartbeats and a silent rank is waited for */
	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
		diag_capture(NULL);
		if (held && !fclose(held) && said)
			fputs(said, stderr);
		fputs("perfmodel: batch: MPI_Init_thread failed\n", stderr);
		early_drop(&e, a.stop);
		free(said);
		rc = EXIT_FAIL;
		goto out;
	}
	mpi = 1;
	beat = provided == MPI_THREAD_MULTIPLE;
	/* errors come back as codes: a lost rank is a failed job, not an abort */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* every rank reads the jobs; rank 0 alone says what is wrong, or
	 * prints the help */
	if (rank && !quiet)
		quiet = fopen("/dev/null", "w");
	diag_capture(rank ? quiet : NULL);
	help_capture(rank ? quiet : NULL);
	if (held && !fclose(held) && !rank && said)
		fputs(said, stderr);
	free(said);
	if (guess < 0)
		rc = read_jobs(argc, argv, &a, &b);
	else if (rc < 0 && !rank)
		fputs(batch_usage, stdout);
	if (!rank && !rc && !(begun = malloc((size_t)size * sizeof(*begun)))) {
		report_error(&(pm_error){ .code = PM_ENOMEM });
		rc = EXIT_FAIL;
	}
	if (!rank && !rc)
		rc = batch_open(&a, b, &o);
	MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	/* every rank agrees on the heartbeats (the level may differ) */
	MPI_Allreduce(MPI_IN_PLACE, &beat, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	/* which job each rank began (the launcher's rank may not be MPI's:
	 * then two may run one job, or a job may not be the first handed out) */
	for (int r = 0; begun && r < size; r++)
		begun[r] = -1;
	if (all == 0) {
		MPI_Gather(&e.job, 1, MPI_INT, begun, 1, MPI_INT, 0, MPI_COMM_WORLD);
		rc = rank ? worker(b, beat, &e) : dispatch(&a, o, b, size, beat, begun, &e, &lost_any);
	} else {
		early_drop(&e, a.stop);
		if (!rank && o)
			batch_close(&a, o, 0);
	}
out:
	free(begun);
	pm_batch_free(b);
	batch_args_free(&a);
	if (quiet)
		fclose(quiet);
	fflush(stdout);
	/* MPI_Finalize would wait for a lost rank forever: the results are
	 * written, end them all */
	if (lost_any)
		MPI_Abort(MPI_COMM_WORLD, rc ? rc : EXIT_FAIL);
	if (mpi)
		MPI_Finalize();
	return rc < 0 ? EXIT_OK : rank ? EXIT_OK : rc;
}
