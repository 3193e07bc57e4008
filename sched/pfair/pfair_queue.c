/* sched/pfair/pfair_queue: Eligible plus the Incoming wheel. */
#include "pfair_queue.h"

static bool elig_before(const struct heap_node *a, const struct heap_node *b)
{
	const struct pfair_task *x = pfair_task_of(a), *y = pfair_task_of(b);
	if (x->elig != y->elig)
		return x->elig < y->elig;
	return x->id < y->id;
}

uint64_t pfair_queue_wheel_size(uint64_t max_gap)
{
	uint64_t w = 2;
	while (w < max_gap + 2 && w < ((uint64_t)1 << 12))
		w *= 2;
	return w;
}

void pfair_queue_init(struct pfair_queue *q, struct heap *wheel, uint64_t size)
{
	heap_init(&q->eligible, pfair_before_max);
	heap_init(&q->far, elig_before);
	for (uint64_t i = 0; i < size; i++)
		heap_init(&wheel[i], pfair_before_max);
	q->wheel = wheel;
	q->mask = size - 1;
	q->h = 0;
}

void pfair_queue_put(struct pfair_queue *q, struct pfair_task *t)
{
	t->queued = true;
	t->far = false;
	if (t->elig <= q->h)
		heap_insert(&q->eligible, &t->node);
	else if (t->elig - q->h <= q->mask)
		heap_insert(&q->wheel[t->elig & q->mask], &t->node);
	else {
		t->far = true;
		heap_insert(&q->far, &t->node);
	}
}

void pfair_queue_remove(struct pfair_queue *q, struct pfair_task *t)
{
	struct heap *h;
	if (t->far)
		h = &q->far;
	else if (t->elig <= q->h)
		h = &q->eligible;
	else
		h = &q->wheel[t->elig & q->mask];
	heap_delete(h, &t->node);
	t->queued = t->far = false;
}

void pfair_queue_advance(struct pfair_queue *q, uint64_t h)
{
	while (q->h < h) {
		q->h++;
		heap_union(&q->eligible, &q->wheel[q->h & q->mask]);
		for (struct heap_node *n; (n = heap_peek(&q->far)) &&
		     pfair_task_of(n)->elig <= q->h;) {
			heap_delete(&q->far, n);
			pfair_task_of(n)->far = false;
			heap_insert(&q->eligible, n);
		}
	}
}

struct pfair_task *pfair_queue_extract(struct pfair_queue *q)
{
	struct heap_node *n = heap_extract(&q->eligible);
	if (!n)
		return NULL;
	struct pfair_task *t = pfair_task_of(n);
	t->queued = false;
	return t;
}
