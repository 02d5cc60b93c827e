/* What the prediction benchmarks share: a clock, and random points for a
 * model drawn before timing, so that a timing is of prediction alone. */
#ifndef PM_BENCH_POINTS_H
#define PM_BENCH_POINTS_H

#include <math.h>
#include <stdint.h>
#include <time.h>

#include "perfmodel/predict.h"

static inline double bench_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* xorshift64*: the bench's inputs need no better */
static inline double bench_uniform(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * UINT64_C(2685821657736338717)) >> 11) * 0x1p-53;
}

/* n points of m by position into x[n * ninputs]: numeric inputs
 * log-uniform in [1, 4096], categorical ones a uniform level. */
static inline void bench_points(const pm_model *m, double *x, size_t n)
{
	uint64_t seed = UINT64_C(0x9e3779b97f4a7c15);
	size_t ni = pm_model_ninputs(m);

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ni; j++) {
			size_t nl = pm_model_nlevels(m, j);

			x[i * ni + j] = nl ? floor(bench_uniform(&seed) * (double)nl)
					   : exp2(12.0 * bench_uniform(&seed));
		}
}

#endif
