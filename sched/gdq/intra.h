/*
 * sched/gdq/intra: the intra-group scheduler of GDQ (Caprita, Nieh & Stein,
 * Sec. 2.2.2): per-queue round robin by normalized virtual time (NVT), with
 * stealing from the queue of least NVT.
 *
 * A process's NVT nv_C = w_C * 2^k / phi_C is kept exactly as the numerator
 * nvn = nv_C * phi_C (it grows by 2^k per quantum run), so every comparison
 * with an integer queue NVT is an integer one.
 */
#ifndef SCHED_GDQ_INTRA_H
#define SCHED_GDQ_INTRA_H

#include <stdbool.h>
#include <stdint.h>

struct gdq_queue;

struct gdq_proc {
	struct gdq_proc *next, *prev;   /* circular round-robin list */
	struct gdq_queue *q;            /* NULL when not queued */
	uint64_t phi;                   /* (feasibility-adjusted) weight */
	uint64_t nvn;                   /* NVT * phi */
	unsigned order;                 /* floor(log2 phi) */
};

struct gdq_queue {
	struct gdq_proc *cur;           /* C(Q); NULL when empty */
	uint64_t nv;                    /* nv_Q, the round counter */
	uint64_t weight;                /* sum of phi, for arrivals (Sec. 2.4) */
	unsigned n;
	int cpu;                        /* processor on it; -1: stalled */
};

struct gdq_group {
	struct gdq_queue *q;            /* the Pbar^k queues */
	unsigned nq;
	uint64_t delta;
};

/* Appends p to q so that it comes last in q's current round. */
void gdq_queue_add(struct gdq_queue *q, struct gdq_proc *p);
void gdq_queue_remove(struct gdq_proc *p);
/* MOVE-PROCESS(MinC, Q): p goes right before C(Q) and becomes C(Q). */
void gdq_move_process(struct gdq_proc *p, struct gdq_queue *q);
/* GET-MIN-QUEUE(G): NULL when no queue can give a process. */
struct gdq_queue *gdq_min_queue(const struct gdq_group *g);
/* Appends p to q (gdq_queue_add); an empty q first joins the group's
 * current round. Every arrival and refill goes through here. */
void gdq_group_add(struct gdq_group *g, struct gdq_queue *q,
		   struct gdq_proc *p);
/* The queue of least total weight (arrivals, Sec. 2.4). */
struct gdq_queue *gdq_lightest_queue(const struct gdq_group *g);
/*
 * INTRAGROUP for the processor working on q: the process to run for the next
 * quantum (its NVT already advanced), or NULL when nothing can be found.
 */
struct gdq_proc *gdq_intragroup(struct gdq_group *g, struct gdq_queue *q);
/* Fills an empty active queue with one process stolen as INTRAGROUP does. */
bool gdq_refill(struct gdq_group *g, struct gdq_queue *q);

#endif
