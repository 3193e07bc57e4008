/*
 * sched/edf/rq: one CPU's EDF ready queue (global EDF paper, Sec. 4 and
 * Fig. 2), a binary min-heap of task indices ordered by their keys (absolute
 * deadline, then task index). The head is the job the CPU runs (`curr`);
 * every other queued job is pushable. Like Fig. 2 `earliest_dl`, the queue
 * caches the keys of its two earliest jobs, so that push and pull compare
 * queues without walking them.
 *
 * The paper's queues are red-black trees with a second tree of pushable
 * tasks; a heap gives the same two answers (earliest, next earliest) in O(1)
 * and insert/remove in O(log n) with one array.
 */
#ifndef SCHED_EDF_RQ_H
#define SCHED_EDF_RQ_H

#include <stdint.h>

#include "../sched.h"

#define EDF_KEY_NONE UINT64_MAX

struct edf_rq {
	unsigned n;
	unsigned *heap;          /* task indices */
	const uint64_t *key;     /* per task, shared by all queues */
	int *pos;                /* per task: index in its queue's heap, or -1 */
	uint64_t earliest_curr;  /* key of the head, EDF_KEY_NONE if empty */
	uint64_t earliest_next;  /* key of the earliest pushable job */
};

void edf_rq_init(struct edf_rq *rq, unsigned max_tasks, const uint64_t *key,
		 int *pos, const struct sched_env *env);

void edf_rq_enqueue(struct edf_rq *rq, unsigned task);
void edf_rq_dequeue(struct edf_rq *rq, unsigned task);

/* The head's task index, or -1 when the queue is empty. */
static inline int edf_rq_curr(const struct edf_rq *rq)
{
	return rq->n ? (int)rq->heap[0] : -1;
}

/* The earliest pushable (queued, not head) task, or -1. */
int edf_rq_next(const struct edf_rq *rq);

#endif
