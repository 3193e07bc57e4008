/*
 * lib/xorshift: Marsaglia's xorshift64 (J. Stat. Softw. 8(14), 2003, shifts
 * 13, 7, 17), the pseudo-random numbers of the tests and benchmarks: fast
 * and reproducible from a seed, not for anything needing quality.
 */
#ifndef LIB_XORSHIFT_H
#define LIB_XORSHIFT_H

#include <stdint.h>

/* The next number of the sequence in *state (which must not be 0). */
static inline uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

/* Uniform in [0, 1) from the top 53 bits. */
static inline double xorshift64_unit(uint64_t *state)
{
	return (double)(xorshift64(state) >> 11) / (double)(1ull << 53);
}

#endif
