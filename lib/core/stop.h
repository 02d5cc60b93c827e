/* pm_fit_options.stop as the library reads it. The flag is set by a signal
 * handler, which may run on any of the process's threads, or by a host's
 * own thread (pm_request_stop), while the fit's threads poll it: every
 * access is atomic, else the polling is a data race (C11 5.1.2.4; .ci/run's
 * ThreadSanitizer stage reports it). volatile sig_atomic_t alone is enough
 * only for a handler on the polling thread. Relaxed: the flag carries no
 * data, a fit need only see it at its next poll. A lock-free atomic is also
 * what a signal handler may touch (C11 7.14.1.1). */
#ifndef PM_CORE_STOP_H
#define PM_CORE_STOP_H

#include <signal.h>
#include <stdatomic.h>

/* an int everywhere we build (glibc, musl, BSDs), and ints lock-free */
_Static_assert(sizeof(sig_atomic_t) == sizeof(int) && ATOMIC_INT_LOCK_FREE == 2,
	       "the stop flag's atomic accesses need a lock-free sig_atomic_t");

/* Whether a stop was requested: 0 for no flag (NULL). */
static inline int pm__stop_requested(const volatile sig_atomic_t *stop)
{
	return stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
}

#endif
