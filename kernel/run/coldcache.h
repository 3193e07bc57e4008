/*
 * kernel/run/coldcache: coldcache=on -- before each timed call into a
 * quantum-driven plugin (each `sched` span of the trace), the plugin's
 * memory is flushed from every cache level, outside the timed region, so
 * that the call runs as it would after another task had filled the cache
 * (staggered Pfair paper, Sec. 5.3, Fig. 11(b); the host's counterpart is
 * tools/pfair_overhead --cold 1). What is flushed: every block the plugin
 * and its driver allocated while the driver was created, the task table
 * the plugin reads, and the driver's own state.
 */
#ifndef KERNEL_COLDCACHE_H
#define KERNEL_COLDCACHE_H

#include <stddef.h>

/* Before the driver is created: forget any earlier run's ranges. */
void coldcache_reset(void);
/* A block the plugin's allocator handed out (sched_run's alloc). */
void coldcache_note_alloc(const void *p, size_t size);
/* After the driver is created: the arena is what was noted so far; the
 * task table and the driver's state are flushed with it. */
void coldcache_freeze(const void *tasks, size_t tasks_bytes,
		      const void *driver, size_t driver_bytes);

/* coldcache=on: flushes the ranges and counts the call (under the plugin
 * lock); off: nothing. */
void coldcache_flush(void);

/* coldcache=on: `RESULT coldcache` with the counts and the ranges. */
void coldcache_report(void);

#endif
