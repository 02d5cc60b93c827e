/* PCG32: XSH RR output on a 64-bit LCG (O'Neill 2014), written from the
 * paper's description. Each (seed, stream) pair is an independent sequence,
 * which is what lets DE give every population member its own generator. */
#include "core/pcg32.h"

/* Knuth's MMIX multiplier, the one the reference pcg32 uses: any other
 * constant would change every published test vector. */
#define PCG_MULT UINT64_C(6364136223846793005)

static void step(pm_pcg32 *r)
{
	r->state = r->state * PCG_MULT + r->inc;
}

void pm__pcg32_seed(pm_pcg32 *r, uint64_t seed, uint64_t stream)
{
	/* The reference seeding, step for step, so that (seed, stream) pairs
	 * give the same sequences as pcg32_srandom_r: streams whose numbers
	 * differ only in the top bit coincide, as in the reference. */
	r->state = 0;
	r->inc = (stream << 1) | 1u;
	step(r);
	r->state += seed;
	step(r);
}

uint32_t pm__pcg32_next(pm_pcg32 *r)
{
	uint64_t old = r->state;
	uint32_t xorshifted, rot;

	step(r);
	/* Output from the old state keeps the LCG step off the critical path. */
	xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
	rot = (uint32_t)(old >> 59);
	/* (32 - rot) & 31 rather than 32 - rot: a shift by 32 is undefined. */
	return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

double pm__pcg32_uniform(pm_pcg32 *r)
{
	/* 27 + 26 bits fill a double's significand exactly, so every value is
	 * a multiple of 2^-53 in [0, 1) and 1.0 cannot come out by rounding. */
	uint64_t a = pm__pcg32_next(r) >> 5;
	uint64_t b = pm__pcg32_next(r) >> 6;

	return (double)((a << 26) | b) * 0x1p-53;
}

uint32_t pm__pcg32_below(pm_pcg32 *r, uint32_t bound)
{
	/* Lemire's multiply-and-reject: the high word of x * bound is uniform
	 * once the low words that would over-represent some results (there
	 * are 2^32 mod bound of them) are rejected. The division runs only
	 * when a rejection is possible at all. */
	uint64_t m;
	uint32_t low;

	if (bound == 0)
		return 0;	/* a caller bug; never loop forever on it */
	m = (uint64_t)pm__pcg32_next(r) * bound;
	low = (uint32_t)m;
	if (low < bound) {
		uint32_t threshold = (uint32_t)(-bound) % bound;

		while (low < threshold) {
			m = (uint64_t)pm__pcg32_next(r) * bound;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}
