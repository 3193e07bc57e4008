/*
 * tools/bench_env.h: what the host benchmark programs give a plugin --
 * memory (all released by bench_free) and a reschedule request that needs
 * no answer, since every CPU is asked at every boundary anyway.
 */
#ifndef TOOLS_BENCH_ENV_H
#define TOOLS_BENCH_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void **bench_blocks;
static size_t bench_nblocks, bench_cap;

static void *bench_alloc(void *ctx, size_t size)
{
	(void)ctx;
	if (bench_nblocks == bench_cap) {
		bench_cap = bench_cap ? 2 * bench_cap : 64;
		bench_blocks = realloc(bench_blocks, bench_cap * sizeof *bench_blocks);
	}
	void *p = NULL;
	if (!bench_blocks || posix_memalign(&p, 16, size ? size : 1)) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memset(p, 0, size);
	return bench_blocks[bench_nblocks++] = p;
}

static void bench_free(void)
{
	while (bench_nblocks)
		free(bench_blocks[--bench_nblocks]);
	free(bench_blocks);
	bench_blocks = NULL;
	bench_cap = 0;
}

static void bench_no_resched(void *ctx, unsigned cpu)
{
	(void)ctx;
	(void)cpu;
}

#endif
