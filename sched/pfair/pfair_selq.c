/* sched/pfair/pfair_selq: tasks sorted by PD2 priority in an array. */
#include "pfair_selq.h"

void pfair_selq_init(struct pfair_selq *q, struct pfair_task **slots)
{
	q->a = slots;
	q->n = 0;
}

static void place(struct pfair_selq *q, unsigned i, struct pfair_task *t)
{
	q->a[i] = t;
	t->selq_pos = i;
}

void pfair_selq_insert(struct pfair_selq *q, struct pfair_task *t)
{
	unsigned lo = q->n;
	/* Usually t is the lowest yet (Schedule selects in priority order). */
	if (lo && !pfair_higher(q->a[lo - 1], t)) {
		unsigned hi = lo - 1;
		lo = 0;
		while (lo < hi) {       /* the first entry t is above */
			unsigned mid = (lo + hi) / 2;
			if (pfair_higher(q->a[mid], t))
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	for (unsigned i = q->n; i > lo; i--)
		place(q, i, q->a[i - 1]);
	place(q, lo, t);
	q->n++;
}

void pfair_selq_delete(struct pfair_selq *q, struct pfair_task *t)
{
	q->n--;
	for (unsigned i = t->selq_pos; i < q->n; i++)
		place(q, i, q->a[i + 1]);
}

void pfair_selq_swap(struct pfair_selq *x, struct pfair_selq *y)
{
	struct pfair_selq t = *x;
	*x = *y;
	*y = t;
}
