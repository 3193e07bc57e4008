/*
 * user/lib/rand: Marsaglia's xorshift64 (J. Stat. Softw. 8(14), 2003,
 * shifts 13, 7, 17): reproducible numbers from a seed, cheap enough to sit
 * in a measured loop.
 */
#ifndef USER_LIB_RAND_H
#define USER_LIB_RAND_H

#include <stdint.h>

/* The next number of the sequence in *state, which must not be 0. */
static inline uint64_t rand_xorshift64(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

#endif
