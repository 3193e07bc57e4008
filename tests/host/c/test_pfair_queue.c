/*
 * The Incoming wheel and Eligible heap (sched/pfair/pfair_queue) against a
 * brute-force model: random puts (eligible now, within the wheel, beyond
 * it), removals, horizon advances and extractions. After every operation
 * Eligible must hold exactly the queued tasks with elig <= h, and
 * extraction must give the highest PD2 priority among them.
 */
#include <stdio.h>

#include <stdlib.h>

#include "../../../sched/pfair/pfair_queue.h"
#include "unit.h"

#define N 200
#define WHEEL 16

static struct pfair_task task[N];
static struct heap wheel[WHEEL];

static void check(struct pfair_queue *q)
{
	size_t want = 0;
	const struct pfair_task *best = NULL;
	for (unsigned i = 0; i < N; i++)
		if (task[i].queued && task[i].elig <= q->h) {
			want++;
			if (!best || pfair_higher(&task[i], best))
				best = &task[i];
		}
	CHECK(heap_size(&q->eligible) == want, "h=%llu: Eligible has %zu, "
	      "model %zu", (unsigned long long)q->h,
	      heap_size(&q->eligible), want);
	struct heap_node *top = heap_peek(&q->eligible);
	CHECK((top ? pfair_task_of(top) : NULL) == best, "wrong top");
}

static void step(struct pfair_queue *q)
{
	struct pfair_task *x = &task[rnd(N)];
	unsigned op = rnd(10);
	if (op < 4 && !x->queued) {
		/* Random windows; eligible now, soon, or beyond the wheel. */
		x->theta = q->h + rnd(3 * WHEEL);
		x->job = rnd(3);
		pfair_task_update(x, rnd(2));
		x->elig = q->h + rnd(3 * WHEEL);
		if (rnd(4) == 0 && q->h)
			x->elig = q->h - 1;
		pfair_queue_put(q, x);
	} else if (op < 6 && x->queued) {
		pfair_queue_remove(q, x);
	} else if (op < 8) {
		pfair_queue_advance(q, q->h + 1 + (op == 7 ? rnd(3) : 0));
	} else {
		struct heap_node *top = heap_peek(&q->eligible);
		struct pfair_task *got = pfair_queue_extract(q);
		CHECK((top ? pfair_task_of(top) : NULL) == got,
		      "extract is not the top");
		CHECK(!got || !got->queued, "extracted but queued");
	}
	check(q);
}

int main(void)
{
	struct pfair_queue q;
	pfair_queue_init(&q, wheel, WHEEL);
	for (unsigned i = 0; i < N; i++) {
		task[i].id = i;
		task[i].e = 1 + rnd(5);
		task[i].p = task[i].e + rnd(10);
		task[i].k = 1;
	}
	for (unsigned i = 0; i < 50000 && !failures; i++)
		step(&q);
	return unit_exit_status();
}
