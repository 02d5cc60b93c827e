/* Ctrl-C during the library's long calls (docs/python.md, "Threads and
 * Ctrl-C"). Python's own SIGINT handler only sets a flag that the
 * interpreter reads between bytecodes, which a call into C never reaches;
 * and a call may sit for long where it cannot be stopped at all (reading a
 * large profile, a pipe no one writes). So the call runs on a thread of its
 * own while the caller waits, and what a SIGINT does depends on the call:
 *  - a fit has a stop flag (pm_fit_options.stop): while fits run, SIGINT
 *    goes to on_sigint, as the CLI's handler (cli/interrupt.c) asks the
 *    library to stop, and the waiting thread hands the signal on to
 *    Python's handler (PyErr_SetInterruptEx): KeyboardInterrupt at once,
 *    the fit left to stop by itself; under a handler that does not raise,
 *    the fit returns its best model (info["interrupted"]);
 *  - a call without one (inspect) is waited for reading Python's signals:
 *    KeyboardInterrupt at once, the call left to end by itself — asked
 *    to, where it polls a flag (a CUBE set's reading: pm_read_options.stop).
 * A call left behind frees what it made when it ends. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "binding.h"

/* ---- SIGINT while fits run ----------------------------------------------------
 * One flag for every fit (Ctrl-C is for the whole process), which each
 * fit's waiting thread passes on to its own; the last fit to end puts
 * Python's handler back. */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned fits_running;
static volatile sig_atomic_t sigint_seen;
static struct sigaction python_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	pm_request_stop(&sigint_seen);
}

static void fits_begin(void)
{
	pthread_mutex_lock(&stop_lock);
	if (fits_running++ == 0) {
		struct sigaction sa = { 0 };

		/* no fit reads the flag now: a fresh start */
		__atomic_store_n(&sigint_seen, 0, __ATOMIC_SEQ_CST);
		sa.sa_handler = on_sigint;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, NULL, &python_sigint);
		/* a process that ignores SIGINT (started in the background)
		 * goes on ignoring it */
		if (python_sigint.sa_handler != SIG_IGN)
			sigaction(SIGINT, &sa, NULL);
	}
	pthread_mutex_unlock(&stop_lock);
}

static void fits_end(void)
{
	pthread_mutex_lock(&stop_lock);
	if (--fits_running == 0)
		sigaction(SIGINT, &python_sigint, NULL);
	pthread_mutex_unlock(&stop_lock);
}

static int sigint_was_seen(void)
{
	return __atomic_load_n(&sigint_seen, __ATOMIC_SEQ_CST) != 0;
}

/* ---- the call's thread ---------------------------------------------------------- */
struct watched {
	pthread_mutex_t lock;
	pthread_cond_t ended;
	int done;	/* run has returned */
	int abandoned;	/* the caller has gone: the thread drops the job */
	void (*run)(void *job), (*drop)(void *job);
	void *job;
};

static void watched_free(struct watched *w)
{
	pthread_cond_destroy(&w->ended);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* Who drops the job is settled under the lock: the caller, when it sees
 * done, or this thread, when it sees abandoned. */
static void *watched_thread(void *arg)
{
	struct watched *w = arg;
	int abandoned;

	w->run(w->job);
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	abandoned = w->abandoned;
	pthread_cond_signal(&w->ended);
	pthread_mutex_unlock(&w->lock);
	if (abandoned) {
		w->drop(w->job);
		watched_free(w);
	}
	return NULL;
}

/* How often the waiting thread looks for a signal: a Ctrl-C is felt within
 * this, and an idle wait costs nothing measurable. */
#define WATCH_NS 50000000L

/* 1 when the call has ended; waits at most WATCH_NS. */
static int wait_a_while(struct watched *w)
{
	struct timespec t;
	int done;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += WATCH_NS;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	while (!w->done && pthread_cond_timedwait(&w->ended, &w->lock, &t) != ETIMEDOUT)
		;
	done = w->done;
	pthread_mutex_unlock(&w->lock);
	return done;
}

/* The caller leaves with the exception a signal raised: the job is dropped
 * now when the call has ended, else by its thread when it does, which
 * cancel asks to come soon (the job, and so cancel, lives until then). -1. */
static int leave(struct watched *w, volatile sig_atomic_t *cancel)
{
	int done;

	pm_request_stop(cancel);
	pthread_mutex_lock(&w->lock);
	done = w->done;
	w->abandoned = !done;
	pthread_mutex_unlock(&w->lock);
	if (done) {
		w->drop(w->job);
		watched_free(w);
	}
	return -1;
}

static struct watched *start(void (*run)(void *), void (*drop)(void *), void *job)
{
	struct watched *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	pthread_t thread;
	int rc;

	if (!w) {
		PyErr_NoMemory();
		return NULL;
	}
	*w = (struct watched){ .run = run, .drop = drop, .job = job };
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->ended, NULL);
	/* the call's thread takes no signal: they land on threads that
	 * Python or on_sigint read */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&thread, NULL, watched_thread, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		watched_free(w);
		errno = rc;
		PyErr_SetFromErrno(PyExc_OSError);
		return NULL;
	}
	pthread_detach(thread);
	return w;
}

int pmpy_run_watched(void (*run)(void *job), void (*drop)(void *job), void *job,
		     volatile sig_atomic_t *stop, volatile sig_atomic_t *cancel)
{
	struct watched *w;
	int done = 0, fitting = stop != NULL;

	if (fitting)
		fits_begin();
	if (!(w = start(run, drop, job))) {
		if (fitting)
			fits_end();
		drop(job);
		return -1;
	}
	while (!done) {
		Py_BEGIN_ALLOW_THREADS
		done = wait_a_while(w);
		Py_END_ALLOW_THREADS
		if (fitting && (done || sigint_was_seen())) {
			fitting = 0;
			fits_end();
			if (!sigint_was_seen())
				continue;
			pm_request_stop(stop);
			/* Python's handler: -1 when it raised (KeyboardInterrupt
			 * by default); 0 under a handler that does not raise,
			 * and in a thread other than the main one, which Python
			 * gives the signal to: then the fit ends, interrupted */
			PyErr_SetInterruptEx(SIGINT);
			if (PyErr_CheckSignals() < 0)
				return leave(w, cancel);
		} else if (!stop && PyErr_CheckSignals() < 0)
			/* a signal while it ran wins over its result, as
			 * Python would have raised before the next bytecode */
			return leave(w, cancel);
	}
	watched_free(w);
	return 0;
}
