/*
 * sched/pfair/spd2: the distributed staggered Pfair algorithm (the `spd2`
 * plugin): staggered Pfair, Fig. 5 (Initialize, SelectTask, Schedule) and
 * Fig. 7 (Deactivate, Activate), line by line.
 *
 * schedule(p, t) is Schedule(p) at CPU p's boundary t + p/M (CPUs are
 * numbered 0..M-1 here, 1..M in the paper). One call costs O(log N) for
 * a constant number of operations on Eligible and Incoming (binomial
 * heaps, Sec. 3.3), plus a constant number on the four selection queues of
 * at most M tasks (pfair_selq.h: O(1) when tasks come in priority order,
 * the usual case, else O(log M) comparisons and at most M pointer moves,
 * where heaps need O(log M) of both). The CPU-0 call of each slot
 * also releases reserved weights and retries deferred joins (pfair.h),
 * which is O(N) only while some are outstanding.
 *
 * Locking the kernel must provide: every procedure reads and writes the
 * shared variables of Fig. 5 (t, SchedCount, Running, the heaps), so
 * Schedule(p) on each CPU and every task event (join, leave, block, wake,
 * complete) must run under one lock, held for the whole procedure.
 * Staggering keeps it uncontended: CPU p's boundary is 1/M of a quantum
 * away from its neighbours', and each holder does O(log N) work. The calls
 * must come in boundary order (CPU 0..M-1 for slot t, then slot t+1).
 *
 * Under SCHED_DEBUG, invariants I1/I2 (Sec. 3.2) are checked after every
 * procedure, and a hook may watch every Schedule(p) (for the tests).
 */
#ifndef SCHED_PFAIR_SPD2_H
#define SCHED_PFAIR_SPD2_H

#include <stdint.h>

#include "../sched.h"

extern const struct sched_plugin spd2;

#if SCHED_DEBUG
/* Which heap of Fig. 5 a task is in at the moment. */
enum spd2_where {
	SPD2_NONE,
	SPD2_SCHED_NOW,
	SPD2_RESCHED_NOW,
	SPD2_SCHED_NEXT,
	SPD2_RESCHED_NEXT,
	SPD2_ELIGIBLE,
	SPD2_INCOMING,
};
const char *spd2_where_name(enum spd2_where w);
enum spd2_where spd2_where(void *s, unsigned task);
/* The Incoming slot a task in INCOMING waits for. */
uint64_t spd2_incoming_slot(void *s, unsigned task);
#endif

#endif
