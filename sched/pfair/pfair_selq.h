/*
 * sched/pfair/pfair_selq: the four small heaps of staggered Pfair, Fig. 5
 * (SchedNow, ReschedNow, SchedNext, ReschedNext), which hold the tasks
 * selected for one slot -- at most M together (invariants I1/I2, Sec. 3.2).
 *
 * Each is used as a min-ordered heap: its minimum is the lowest-priority
 * task (what Activate may displace, lines 44-49, and what Schedule hands
 * out first, line 16). Kept as an array sorted by decreasing priority,
 * each task knowing its index: the minimum is the last entry. Decided: an
 * array rather than the binomial heaps of Sec. 3.3, because each
 * Schedule(p) inserts into one (line 25) and extracts from one (line 16)
 * -- the work a staggered call adds to master/slave PD2's per processor
 * (Sec. 5.3) -- and Schedule selects tasks in priority order, so an insert
 * is almost always a new minimum: appending it and popping it are O(1),
 * where a heap pays O(log M) moves and comparisons for both. An insert out
 * of order (a requeued task of higher priority, Activate's line 48) or a
 * deletion by handle (lines 13-14, 28-30, 34-36) finds its place in
 * O(log M) comparisons and moves at most M pointers.
 */
#ifndef SCHED_PFAIR_PFAIR_SELQ_H
#define SCHED_PFAIR_PFAIR_SELQ_H

#include <stddef.h>

#include "pfair_task.h"

struct pfair_selq {
	struct pfair_task **a;    /* highest priority first */
	unsigned n;
};

/* slots: room for the M tasks it may hold. */
void pfair_selq_init(struct pfair_selq *q, struct pfair_task **slots);
void pfair_selq_insert(struct pfair_selq *q, struct pfair_task *t);
/* t must be in q. */
void pfair_selq_delete(struct pfair_selq *q, struct pfair_task *t);
/* Exchanges the contents of two queues, O(1) (Fig. 5 lines 10-11). */
void pfair_selq_swap(struct pfair_selq *x, struct pfair_selq *y);

static inline size_t pfair_selq_size(const struct pfair_selq *q)
{
	return q->n;
}

/* The lowest-priority task, or NULL. */
static inline struct pfair_task *pfair_selq_peek(const struct pfair_selq *q)
{
	return q->n ? q->a[q->n - 1] : NULL;
}

/* The lowest-priority task, removed; NULL when empty. */
static inline struct pfair_task *pfair_selq_extract(struct pfair_selq *q)
{
	return q->n ? q->a[--q->n] : NULL;
}

#endif
