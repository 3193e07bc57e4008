/*
 * sched/pfair/pfair_task: a Pfair task, its current subtask's PD2 priority,
 * and what happens when a subtask is scheduled (UpdatePriority of staggered
 * Pfair, Fig. 5 line 20).
 *
 * Windows (staggered Pfair, Sec. 2.1): for weight w = e/p the i-th subtask
 * is released at floor((i-1)/w) and due at ceil(i/w). Here i = job*e + k
 * with k in 1..e, so r = theta + job*p + floor((k-1)p/e) and
 * d = theta + job*p + ceil(k*p/e): the products stay below 2^63 for any
 * run length. theta is the task's phase plus every intra-sporadic delay
 * (IS, Sec. 2.2: windows are right-shifted, never closer together).
 */
#ifndef SCHED_PFAIR_PFAIR_TASK_H
#define SCHED_PFAIR_PFAIR_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include "../../lib/heap.h"

#define PFAIR_NO_SLOT INT64_MIN

enum pfair_state {
	PFAIR_ACTIVE,     /* competing for processors */
	PFAIR_BLOCKED,    /* suspended; its weight stays reserved */
	PFAIR_LEAVING,    /* left; weight reserved until free_at */
	PFAIR_GONE,       /* left; weight released */
};

struct pfair_task {
	struct heap_node node;    /* in at most one heap at a time */
	uint32_t e, p;
	unsigned id;              /* index in the task set: the last tie-break */

	uint64_t theta, job;      /* window offset; jobs begun before this one */
	uint32_t k;               /* current subtask within the job, 1..e */
	uint64_t not_before;      /* no execution before this slot (wake) */

	/* The current subtask, from pfair_task_update(). */
	uint64_t release, deadline, group_deadline, elig;
	bool b;
	uint64_t tie;             /* PD2's order past the deadline, see below */

	/* Plugin bookkeeping (see pd2.c and spd2.c). */
	int64_t sel_slot;         /* slot it was selected for, or NO_SLOT */
	bool resched;             /* selected back-to-back (ReschedNext) */
	bool queued;              /* in Eligible or Incoming (pfair_queue) */
	bool far;                 /* in the queue's far heap */
	unsigned selq_pos;        /* index in its pfair_selq (spd2.c) */
	int64_t ran_slot;         /* last slot it was granted a processor */
	unsigned ran_cpu;

	/* Dynamic task sets (pfair.c). */
	enum pfair_state state;
	uint64_t leave_ok;        /* earliest time it may leave (Sec. 2.2) */
	uint64_t free_at;         /* LEAVING: when its weight is released */
	bool join_pending;
	bool join_blocked;         /* blocked before its pending join */
	uint64_t join_at;          /* when the pending join was asked for */

	/* Statistics. */
	uint64_t quanta, wasted, jobs_done, misses, max_tardiness;
	/*
	 * Largest |lag| (Sec. 2.1) seen, times p: lag is w (t - theta) minus
	 * the subtasks done since theta, measured at the slot boundaries
	 * around each quantum it gets (its local maximum and minimum).
	 */
	uint64_t max_abs_lag;
};

/*
 * Sets the current subtask's release, deadline, b-bit, group deadline and
 * eligibility; with early release (ERfair, Sec. 2.2) a subtask is eligible
 * from its job's release instead of its own.
 */
void pfair_task_update(struct pfair_task *t, bool early_release);

/*
 * The PD2 order (staggered Pfair Sec. 2.1; Anderson and Srinivasan):
 * earlier deadline; then b = 1 before b = 0; then, both b = 1, the later
 * group deadline; then the lower task index. A strict total order.
 *
 * Every heap operation of a slot compares by it, so pfair_task_update
 * folds all but the deadline into one number, tie, smaller first:
 * bit 63 is 1 - b; bits 32-62 order the group deadlines of b = 1 subtasks
 * of equal deadline d -- 2^31 - 2 - (D - d) for a heavy task, whose D lies
 * within d .. d + p - 1 (p < 2^31), and 2^31 - 1 for a light one (D = 0,
 * last) -- and are 0 when b = 0; bits 0-31 are the task index.
 */
static inline bool pfair_higher(const struct pfair_task *a,
				const struct pfair_task *b)
{
	return a->deadline < b->deadline ||
	       (a->deadline == b->deadline && a->tie < b->tie);
}

/* Heap relations over pfair_task.node: max- and min-ordered by priority. */
bool pfair_before_max(const struct heap_node *a, const struct heap_node *b);
bool pfair_before_min(const struct heap_node *a, const struct heap_node *b);
struct pfair_task *pfair_task_of(const struct heap_node *n);

/*
 * The current subtask is done: it ran in slot `slot` on cpu (ran = true;
 * it completes at slot + 1 + offset/den), or it was charged without
 * running (Fig. 7 line 37). Records the statistics and the leave bound,
 * then moves to the next subtask.
 */
void pfair_task_charge(struct pfair_task *t, uint64_t slot, bool ran,
		       uint64_t offset, uint64_t den, bool early_release);

#endif
