/*
 * Helpers for the C unit tests: a failure counter with EXPECT and CHECK,
 * a xorshift RNG, and plugin memory that is freed at the end.
 */
#ifndef TESTS_HOST_C_UNIT_H
#define TESTS_HOST_C_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../../lib/xorshift.h"

static int failures;

/* EXPECT counts a failure and goes on; CHECK also leaves the (void)
 * function, for checks after which the rest would only cascade. */
#define EXPECT(cond, ...)                                                  \
	do {                                                               \
		if (!(cond)) {                                             \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);        \
			printf(__VA_ARGS__);                               \
			printf("\n");                                      \
			failures++;                                        \
		}                                                          \
	} while (0)

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		int check_ok_ = !!(cond);                                  \
		EXPECT(check_ok_, __VA_ARGS__);                            \
		if (!check_ok_)                                            \
			return;                                            \
	} while (0)

static uint64_t rng_state = 88172645463325252ull;

static inline uint64_t rnd64(void)
{
	return xorshift64(&rng_state);
}

/* Uniform enough in 0..n-1 for tests. */
static inline unsigned rnd(unsigned n)
{
	return (unsigned)(rnd64() % n);
}

/* Plugin memory (struct sched_env alloc), all released by unit_free(). */
static void *unit_blocks[4096];
static unsigned unit_nblocks;

static inline void *unit_alloc(void *ctx, size_t size)
{
	(void)ctx;
	void *p = calloc(1, size ? size : 1);
	if (!p || unit_nblocks == sizeof unit_blocks / sizeof *unit_blocks)
		abort();
	return unit_blocks[unit_nblocks++] = p;
}

static inline void unit_free(void)
{
	while (unit_nblocks)
		free(unit_blocks[--unit_nblocks]);
}

/* The end of a test's main: frees plugin memory, says how it went and
 * returns the exit status (0 when nothing failed). */
static inline int unit_exit_status(void)
{
	unit_free();
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}

static inline void unit_no_resched(void *ctx, unsigned cpu)
{
	(void)ctx;
	(void)cpu;
}

#endif
