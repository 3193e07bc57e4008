/*
 * Helpers for the C unit tests: a failure counter with a CHECK that
 * reports and leaves the current (void) function, and a xorshift RNG.
 */
#ifndef TESTS_HOST_C_UNIT_H
#define TESTS_HOST_C_UNIT_H

#include <stdint.h>
#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);        \
			printf(__VA_ARGS__);                               \
			printf("\n");                                      \
			failures++;                                        \
			return;                                            \
		}                                                          \
	} while (0)

static uint64_t rng_state = 88172645463325252ull;

/* Uniform enough in 0..n-1 for tests. */
static inline unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

#endif
