/*
 * sched/pfair/pfair_queue: the Eligible heap and the Incoming[t] heaps of
 * staggered Pfair, Fig. 5, as a bounded wheel.
 *
 * Eligible (max-ordered by PD2 priority) holds the queued tasks with
 * elig <= h, the horizon. The paper's Incoming is an unbounded array "solely
 * to simplify the presentation" (Sec. 3.1); here Incoming[x] for
 * h < x < h + W lives in wheel[x mod W], and the rare task eligible only
 * later (a phase, a late wake) waits in a far heap ordered by elig, from
 * which advance() moves it into Eligible when its slot comes. W is a power
 * of two above the longest gap between consecutive releases, so a task
 * requeued after running always lands in the wheel (W is capped at 4096;
 * a task with a longer gap simply passes through the far heap).
 */
#ifndef SCHED_PFAIR_PFAIR_QUEUE_H
#define SCHED_PFAIR_PFAIR_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "../../lib/heap.h"
#include "pfair_task.h"

struct pfair_queue {
	struct heap eligible;
	struct heap *wheel;
	struct heap far;
	uint64_t mask;       /* W - 1 */
	uint64_t h;          /* Eligible holds every queued task with elig <= h */
};

/* The wheel size for tasks whose largest ceil(p/e) is max_gap. */
uint64_t pfair_queue_wheel_size(uint64_t max_gap);
/* wheel: storage for `size` heaps (a power of two). Horizon starts at 0. */
void pfair_queue_init(struct pfair_queue *q, struct heap *wheel, uint64_t size);

void pfair_queue_put(struct pfair_queue *q, struct pfair_task *t);
void pfair_queue_remove(struct pfair_queue *q, struct pfair_task *t);
/* Moves the horizon forward to h, merging Incoming[h'] for each h' <= h. */
void pfair_queue_advance(struct pfair_queue *q, uint64_t h);
/* The highest-priority eligible task, removed; NULL when none. */
struct pfair_task *pfair_queue_extract(struct pfair_queue *q);

#endif
