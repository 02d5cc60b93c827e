/* Differential evolution as scipy.optimize.differential_evolution does it
 * with its defaults (best1bin, dithered F, CR 0.7, Latin-hypercube init,
 * relative-tolerance stop), but with synchronous ("deferred") generations
 * and one PCG32 stream per member, so that the result is bit-identical for
 * any thread count. See docs/maths.md.
 *
 * DE only proposes and selects: it does not polish. scipy's final local
 * search is the caller's business (pm__polish in polish.h, or a sequence of
 * its own), so that the optimiser and the local search can change apart. */
#ifndef PM_DE_H
#define PM_DE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "perfmodel/perfmodel.h"
#include "core/pool.h"

/* The cost of x (real units, inside the bounds). scratch is the calling
 * thread's own buffer of the size given to pm__de_minimize. Must be
 * deterministic and may return +inf (never NaN: map NaN to +inf). */
typedef double (*pm_cost_fn)(const double *x, void *ctx, void *scratch);

typedef struct pm_de_settings {
	uint64_t seed;
	unsigned maxiter;	/* generations after the initial population */
	unsigned popsize;	/* population = max(5, popsize * dim) */
	double tol, atol;
	double mutation_lo, mutation_hi;	/* F ~ U[lo, hi) per generation */
	double recombination;
	/* Polled before each member's evaluation: nonzero stops DE with the
	 * best member of the last whole generation (stop "interrupted"); the
	 * generation it cut short is dropped, its evaluations uncounted. Cut
	 * short in the initial population, DE returns the best member costed
	 * (member 0 always is). NULL: never. A signal handler or another thread may
	 * set it (pm_request_stop); DE never writes it, and reads it atomically
	 * (core/stop.h). */
	volatile sig_atomic_t *stop;
	/* NULL, or told after the initial population and each generation, on
	 * the thread that called pm__de_minimize (pm_fit_options.progress). */
	void (*progress)(const pm_progress *p, void *arg);
	void *progress_arg;
	/* NULL, or a warm start (pm_fit_options.warm_start): dim values inside
	 * the bounds, the earlier optimum, which is member 0, and for each
	 * dimension the half-width of the box around it (real units) where the
	 * other members are drawn, Latin-hypercube as without a start; a
	 * half-width of at least hi - lo draws from the whole range. Both
	 * or neither. */
	const double *start, *radius;
} pm_de_settings;

typedef struct pm_de_result {
	double cost;		/* cost of x */
	unsigned generations;
	uint64_t evaluations;	/* cost calls */
	const char *stop;	/* static: "converged", "maxiter" or "interrupted" */
} pm_de_result;

/* The population of popsize * dim members, at least 5 (scipy's rule). */
size_t pm__de_members(unsigned popsize, size_t dim);

/* Minimise f over the box [lo, hi] (dim >= 1, lo[k] <= hi[k], both finite;
 * lo[k] == hi[k] fixes parameter k) using the pool's threads (pool NULL: the
 * caller's thread alone); the best point goes to x[dim]. Each worker's
 * scratch is scratch_bytes long and 64-byte aligned (NULL when scratch_bytes
 * is 0). No local search follows: x is the best member as DE left it. The
 * result depends on s->seed only, never on the number of threads. Not
 * reentrant on one pool.
 * Errors: PM_EINVAL (bad settings or bounds), PM_ENOMEM, PM_EFIT (no member
 * of the initial population has a finite cost); on error x is unchanged. */
pm_status pm__de_minimize(size_t dim, const double *lo, const double *hi, pm_cost_fn f,
			  void *ctx, size_t scratch_bytes, const pm_de_settings *s,
			  pm_pool *pool, double *x, pm_de_result *res, pm_error *err);

#endif
