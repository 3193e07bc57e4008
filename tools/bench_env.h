/*
 * tools/bench_env.h: what the host benchmark programs give a plugin --
 * memory (all released by bench_free) and a reschedule request that needs
 * no answer, since every CPU is asked at every boundary anyway -- and how
 * they read a list argument.
 */
#ifndef TOOLS_BENCH_ENV_H
#define TOOLS_BENCH_ENV_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/parse_num.h"

static void **bench_blocks;
static size_t *bench_sizes;
static size_t bench_nblocks, bench_cap;

static void *bench_alloc(void *ctx, size_t size)
{
	(void)ctx;
	if (bench_nblocks == bench_cap) {
		bench_cap = bench_cap ? 2 * bench_cap : 64;
		bench_blocks = realloc(bench_blocks, bench_cap * sizeof *bench_blocks);
		bench_sizes = realloc(bench_sizes, bench_cap * sizeof *bench_sizes);
	}
	void *p = NULL;
	if (!bench_blocks || !bench_sizes ||
	    posix_memalign(&p, 16, size ? size : 1)) {
		fprintf(stderr, "out of memory (%zu bytes for the scheduler)\n",
			size);
		exit(1);
	}
	memset(p, 0, size);
	bench_sizes[bench_nblocks] = size;
	return bench_blocks[bench_nblocks++] = p;
}

/* Writes back and evicts the lines of [p, p + size) from every cache level
 * (CLFLUSH invalidates the line in the whole coherence domain, SDM vol. 2A,
 * CLFLUSH). 64 bytes: every x86-64 CPU's CLFLUSH line size so far; a larger
 * line only flushes each one more than once. */
static inline void bench_flush_range(const void *p, size_t size)
{
	const char *c = p;
	for (size_t off = 0; off < size; off += 64)
		__builtin_ia32_clflush(c + off);
	if (size)
		__builtin_ia32_clflush(c + size - 1);
}

/* A cold cache for the scheduler: every block it was given flushed, then
 * MFENCE so the flushes are done before the next timed read (CLFLUSH is
 * ordered by MFENCE, SDM vol. 2A). */
static inline void bench_flush_all(void)
{
	for (size_t i = 0; i < bench_nblocks; i++)
		bench_flush_range(bench_blocks[i], bench_sizes[i]);
	__builtin_ia32_mfence();
}

static void bench_free(void)
{
	while (bench_nblocks)
		free(bench_blocks[--bench_nblocks]);
	free(bench_blocks);
	free(bench_sizes);
	bench_blocks = NULL;
	bench_sizes = NULL;
	bench_cap = 0;
}

static void bench_no_resched(void *ctx, unsigned cpu)
{
	(void)ctx;
	(void)cpu;
}

/* "a,b,c": up to max numbers in 1..limit into out; exits naming prog on
 * anything else. Returns how many. */
static inline unsigned bench_list(const char *prog, const char *s,
				  uint64_t *out, unsigned max, uint64_t limit)
{
	unsigned n = 0;
	while (*s && n < max) {
		size_t len = strcspn(s, ",");
		if (parse_u64(s, len, limit, &out[n]) != PARSE_NUM_OK ||
		    !out[n]) {
			fprintf(stderr, "%s: bad list '%s'\n", prog, s);
			exit(2);
		}
		n++;
		s += len + (s[len] == ',');
	}
	return n;
}

#endif
