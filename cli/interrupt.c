/* SIGINT and SIGTERM during a long run. The first asks the library to stop
 * at its next cost evaluation (pm_fit_options.stop; the library only
 * polls), so that the best model so far can still be saved; a second one
 * ends the process at once. The handler runs on whichever thread the signal
 * lands on, hence pm_request_stop's atomic exchange, not a plain store.
 * Everything about signals lives here. */
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

#include "cli.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	/* _exit: nothing that is not async-signal-safe, no atexit, no stdio
	 * flush; the output file is only ever replaced by a rename, which a
	 * held signal cannot cut in two (interrupt_hold) */
	if (pm_request_stop(&stop_requested))
		_exit(EXIT_INTERRUPTED);
}

volatile sig_atomic_t *interrupt_install(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return &stop_requested;
}

void interrupt_hold(int hold)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}
