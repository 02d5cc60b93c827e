/* Progress of a long fit on stderr: one line, rewritten in place, only when
 * stderr is a terminal (a log file or a pipe gets nothing). */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Redraws at most this often: a terminal cannot show more, and every
 * write holds up the fit's thread. */
#define PROGRESS_INTERVAL_S 0.1

static struct {
	double start, last;
	int shown;
	/* fits of several seeds report from several threads: one draws, the
	 * others skip (their news is a tenth of a second from stale anyway) */
	atomic_flag busy;
} state = { .busy = ATOMIC_FLAG_INIT };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void show(const pm_progress *p, void *arg)
{
	double t;

	(void)arg;
	if (atomic_flag_test_and_set(&state.busy))
		return;
	t = now();
	if (t - state.last >= PROGRESS_INTERVAL_S || p->generation == 0) {
		/* \r and clear-to-end-of-line: one line, redrawn; short enough
		 * for 80 columns (a wrapped line cannot be redrawn), so a batch
		 * of fits (sweep, --seeds) shows its count instead of the evals */
		if (p->fits > 1)
			cprintf(stderr, "\rfits %u/%u done  seed %llu  gen %u/%u  best %.5g  "
				"conv %.3g/1  %.1f s\033[K",
				p->fits_done, p->fits, (unsigned long long)p->seed, p->generation,
				p->maxiter, p->best_cost, p->convergence, t - state.start);
		else
			cprintf(stderr, "\rseed %llu  gen %u/%u  evals %llu  best %.5g  "
				"conv %.3g/1  %.1f s\033[K",
				(unsigned long long)p->seed, p->generation, p->maxiter,
				(unsigned long long)p->evaluations, p->best_cost, p->convergence,
				t - state.start);
		fflush(stderr);
		state.last = t;
		state.shown = 1;
	}
	atomic_flag_clear(&state.busy);
}

void progress_install(pm_fit_options *o, int quiet)
{
	if (quiet || !isatty(STDERR_FILENO))
		return;
	state.start = now();
	state.last = 0;
	state.shown = 0;
	o->progress = show;
	o->progress_arg = NULL;
}

void progress_end(void)
{
	if (state.shown)
		fputs("\r\033[K", stderr);	/* the results take the line's place */
	state.shown = 0;
}
