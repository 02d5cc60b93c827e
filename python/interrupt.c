/* Ctrl-C during the library's long calls (docs/python.md, "Threads and
 * Ctrl-C"). Python's own SIGINT handler only sets a flag that the
 * interpreter reads between bytecodes, which a call into C never reaches.
 * Two ways round it, as the call allows:
 *  - a fit has a stop flag (pm_fit_options.stop), which the CLI sets from
 *    its handler (cli/interrupt.c) and so does on_sigint here: the fit
 *    returns at its next cost evaluation and the signal goes on to Python;
 *  - a call with none (inspect: the readers) runs on a thread of its own
 *    while the caller waits, reading Python's signals: KeyboardInterrupt
 *    returns at once, and the call, left to end by itself, frees what it
 *    made. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "binding.h"

/* ---- a fit's stop flag ---------------------------------------------------------
 * While any fit runs, SIGINT goes to on_sigint, which asks every running
 * fit to stop (they share one flag: Ctrl-C is for the whole process); the
 * last fit to end puts Python's handler back and, when it was asked to
 * stop, hands the signal to Python (PyErr_SetInterruptEx), which raises
 * KeyboardInterrupt where Python would have. */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned fits_running;
static volatile sig_atomic_t stop_flag;
static struct sigaction python_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	pm_request_stop(&stop_flag);
}

volatile sig_atomic_t *pmpy_stop_begin(void)
{
	pthread_mutex_lock(&stop_lock);
	if (fits_running++ == 0) {
		struct sigaction sa = { 0 };

		/* no fit reads the flag now: a fresh start */
		__atomic_store_n(&stop_flag, 0, __ATOMIC_SEQ_CST);
		sa.sa_handler = on_sigint;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, NULL, &python_sigint);
		/* a process that ignores SIGINT (started in the background)
		 * goes on ignoring it */
		if (python_sigint.sa_handler != SIG_IGN)
			sigaction(SIGINT, &sa, NULL);
	}
	pthread_mutex_unlock(&stop_lock);
	return &stop_flag;
}

int pmpy_stop_end(void)
{
	int stopped;

	pthread_mutex_lock(&stop_lock);
	stopped = __atomic_load_n(&stop_flag, __ATOMIC_SEQ_CST) != 0;
	if (--fits_running == 0)
		sigaction(SIGINT, &python_sigint, NULL);
	pthread_mutex_unlock(&stop_lock);
	return stopped;
}

/* 0 when Python's handler did not raise (a handler of the user's, or a
 * thread other than the main one: the main thread gets it). */
int pmpy_deliver_sigint(void)
{
	PyErr_SetInterruptEx(SIGINT);
	return PyErr_CheckSignals();
}

/* ---- a call without one: watched from the calling thread -------------------- */
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

/* Who frees the job is settled under the lock: the caller, when it sees
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

/* How often the waiting thread reads Python's signals: a Ctrl-C is felt
 * within this, and an idle wait costs nothing measurable. */
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

int pmpy_run_watched(void (*run)(void *job), void (*drop)(void *job), void *job)
{
	struct watched *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	pthread_t thread;
	int rc, done = 0;

	if (!w) {
		drop(job);
		PyErr_NoMemory();
		return -1;
	}
	*w = (struct watched){ .run = run, .drop = drop, .job = job };
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->ended, NULL);
	/* the call's thread takes no signal: they land on threads that
	 * Python (or a fit, on_sigint) reads */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&thread, NULL, watched_thread, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		watched_free(w);
		drop(job);
		errno = rc;
		PyErr_SetFromErrno(PyExc_OSError);
		return -1;
	}
	pthread_detach(thread);
	while (!done) {
		Py_BEGIN_ALLOW_THREADS
		done = wait_a_while(w);
		Py_END_ALLOW_THREADS
		/* a signal while it ran wins over its result, as Python would
		 * have raised before the next bytecode */
		if (PyErr_CheckSignals() < 0) {
			pthread_mutex_lock(&w->lock);
			done = w->done;
			w->abandoned = !done;
			pthread_mutex_unlock(&w->lock);
			if (done) {
				drop(job);
				watched_free(w);
			}
			return -1;
		}
	}
	watched_free(w);
	return 0;
}
