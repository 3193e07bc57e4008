/* kernel/run/coldcache: the plugin's memory flushed before each timed call. */
#include "coldcache.h"

#include <stdint.h>

#include "../../arch/x86/cache.h"
#include "../core/console.h"
#include "../core/options.h"

struct range {
	uintptr_t from;
	size_t bytes;
};

enum { ARENA, TASKS, DRIVER, NRANGES };

static const char *const range_names[NRANGES] = { "arena", "tasks",
						  "driver" };

static struct coldcache_state {
	struct range r[NRANGES];
	uintptr_t arena_end;
	int frozen;
	/* Blocks handed out after the freeze: not flushed, so reported. */
	uint64_t late_allocs;
	uint64_t flushes, lines;
} cc;

void coldcache_reset(void)
{
	cc = (struct coldcache_state){ 0 };
}

void coldcache_note_alloc(const void *p, size_t size)
{
	uintptr_t a = (uintptr_t)p;
	if (cc.frozen) {
		cc.late_allocs++;
		return;
	}
	if (!cc.r[ARENA].from || a < cc.r[ARENA].from)
		cc.r[ARENA].from = a;
	if (a + size > cc.arena_end)
		cc.arena_end = a + size;
}

void coldcache_freeze(const void *tasks, size_t tasks_bytes,
		      const void *driver, size_t driver_bytes)
{
	/* bootmem is a bump allocator and nothing else allocates while the
	 * driver is created, so the blocks are one range (with the padding
	 * that aligns each to 64 bytes). */
	if (cc.r[ARENA].from)
		cc.r[ARENA].bytes = cc.arena_end - cc.r[ARENA].from;
	cc.r[TASKS] = (struct range){ (uintptr_t)tasks, tasks_bytes };
	cc.r[DRIVER] = (struct range){ (uintptr_t)driver, driver_bytes };
	cc.frozen = 1;
}

void coldcache_flush(void)
{
	if (!options.coldcache)
		return;
	for (unsigned i = 0; i < NRANGES; i++)
		cc.lines += cache_flush_range((const void *)cc.r[i].from,
					      cc.r[i].bytes);
	cc.flushes++;
}

void coldcache_report(void)
{
	if (!options.coldcache)
		return;
	kprintf("RESULT coldcache flushes=%llu lines=%llu line_bytes=%u "
		"late_allocs=%llu", (unsigned long long)cc.flushes,
		(unsigned long long)cc.lines, cache_line_bytes(),
		(unsigned long long)cc.late_allocs);
	for (unsigned i = 0; i < NRANGES; i++)
		kprintf(" %s=0x%llx %s_bytes=%llu", range_names[i],
			(unsigned long long)cc.r[i].from, range_names[i],
			(unsigned long long)cc.r[i].bytes);
	kprintf("\n");
}
