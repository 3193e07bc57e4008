/* sched/gdq/intra.c: INTRAGROUP and its helpers (GDQ, Sec. 2.2.2). */
#include "intra.h"

void gdq_queue_add(struct gdq_queue *q, struct gdq_proc *p)
{
	p->q = q;
	q->n++;
	q->weight += p->phi;
	if (!q->cur) {
		p->next = p->prev = p;
		q->cur = p;
		return;
	}
	/* Just before C(Q): the last one the round-robin pointer reaches. */
	p->next = q->cur;
	p->prev = q->cur->prev;
	p->prev->next = p;
	q->cur->prev = p;
}

void gdq_queue_remove(struct gdq_proc *p)
{
	struct gdq_queue *q = p->q;

	q->n--;
	q->weight -= p->phi;
	if (q->n == 0) {
		q->cur = 0;
	} else {
		p->prev->next = p->next;
		p->next->prev = p->prev;
		/*
		 * Removing C(Q): the paper never says what C(Q) becomes; we take
		 * next(C(Q)), which INTRAGROUP line 2 then examines normally.
		 */
		if (q->cur == p)
			q->cur = p->next;
	}
	p->next = p->prev = 0;
	p->q = 0;
}

void gdq_move_process(struct gdq_proc *p, struct gdq_queue *q)
{
	gdq_queue_remove(p);
	gdq_queue_add(q, p);
	q->cur = p;
}

/* nv_C >= nv_Q, exactly. */
static bool caught_up(const struct gdq_proc *c, const struct gdq_queue *q)
{
	return c->nvn >= q->nv * c->phi;
}

struct gdq_queue *gdq_min_queue(const struct gdq_group *g)
{
	struct gdq_queue *best = 0;

	for (unsigned i = 0; i < g->nq; i++) {
		struct gdq_queue *q = &g->q[i];
		/*
		 * GET-MIN-QUEUE: an active queue needs 2 processes; a stalled one
		 * may be emptied, but an empty one has nothing to give.
		 */
		bool ok = q->cpu < 0 ? q->n >= 1 : q->n >= 2;
		if (ok && (!best || q->nv < best->nv))
			best = q;
	}
	return best;
}

struct gdq_queue *gdq_lightest_queue(const struct gdq_group *g)
{
	struct gdq_queue *best = &g->q[0];

	for (unsigned i = 1; i < g->nq; i++)
		if (g->q[i].weight < best->weight)
			best = &g->q[i];
	return best;
}

/*
 * An empty queue's round counter stopped while it was empty; the paper does
 * not say what it becomes. Decided: the queue joins the round of its
 * group's slowest non-empty queue, so that what it receives neither races
 * ahead of the others nor is held back. With a stale counter an arrival
 * into it (Sec. 2.4 picks the smallest queue) ran alone, never stealing or
 * stolen from, until the queue caught up: a join at t = 101 into P = 5,
 * T = 20, delta = 4, weights 100, 65, 190, 112, 189, 114, 140 ran 150
 * quanta in a row, error +62.6 > Theorem 3.6's +60.
 */
void gdq_group_add(struct gdq_group *g, struct gdq_queue *q,
		   struct gdq_proc *p)
{
	if (!q->n) {
		uint64_t least = UINT64_MAX;
		for (unsigned i = 0; i < g->nq; i++)
			if (g->q[i].n && g->q[i].nv < least)
				least = g->q[i].nv;
		if (least != UINT64_MAX)
			q->nv = least;
	}
	gdq_queue_add(q, p);
}

bool gdq_refill(struct gdq_group *g, struct gdq_queue *q)
{
	struct gdq_queue *min = gdq_min_queue(g);

	if (!min || min == q)
		return false;
	struct gdq_proc *p = min->cur->next;
	gdq_queue_remove(p);
	gdq_group_add(g, q, p);
	q->cur = p;
	return true;
}

struct gdq_proc *gdq_intragroup(struct gdq_group *g, struct gdq_queue *q)
{
	/* Sec. 2.4: an emptied queue first pulls a process in. */
	if (!q->cur && !gdq_refill(g, q))
		return 0;
	/* INTRAGROUP line 2 */
	if (caught_up(q->cur, q)) {
		q->cur = q->cur->next;                  /* line 3 */
		if (caught_up(q->cur, q)) {             /* line 4 */
			struct gdq_queue *min = gdq_min_queue(g);  /* line 5 */
			if (min && q->nv > min->nv + g->delta)     /* line 6 */
				gdq_move_process(min->cur->next, q); /* 7-8 */
			else
				q->nv++;                        /* line 9 */
		}
	}
	q->cur->nvn += (uint64_t)1 << q->cur->order;    /* line 10 */
	return q->cur;                                  /* line 11 */
}
