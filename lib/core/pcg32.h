/* PCG32 (O'Neill 2014, pcg32 = XSH RR 64/32 with selectable stream): small,
 * fast, statistically strong and, above all here, one independent stream per
 * population member, so that DE is deterministic for any thread count. */
#ifndef PM_PCG32_H
#define PM_PCG32_H

#include <stdint.h>

typedef struct pm_pcg32 {
	uint64_t state;
	uint64_t inc;	/* always odd: selects the stream */
} pm_pcg32;

/* Seed generator `r` with `seed` on stream `stream` (the reference pcg32_srandom_r). */
void pm__pcg32_seed(pm_pcg32 *r, uint64_t seed, uint64_t stream);
uint32_t pm__pcg32_next(pm_pcg32 *r);
/* Uniform in [0, 1) with 53 random bits (two draws). */
double pm__pcg32_uniform(pm_pcg32 *r);
/* Uniform integer in [0, bound) without modulo bias; bound > 0. */
uint32_t pm__pcg32_below(pm_pcg32 *r, uint32_t bound);

#endif
