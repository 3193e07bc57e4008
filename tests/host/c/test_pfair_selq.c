/*
 * The PD2 order as sched/pfair compares it (deadline, then one folded tie
 * number) against the definition written out field by field, on random
 * subtasks of light, heavy and weight-1 tasks with periods up to 2^31 - 1;
 * and the selection queues of staggered Pfair (pfair_selq) against a
 * brute-force model under random inserts, deletions and extractions.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../sched/pfair/pfair_selq.h"
#include "unit.h"

#define N 64
#define QUEUES 3

static struct pfair_task task[N];

/* staggered Pfair Sec. 2.1: earlier deadline; b = 1 first; both b = 1,
 * the later group deadline; the lower index. */
static int textbook_higher(const struct pfair_task *a,
			   const struct pfair_task *b)
{
	if (a->deadline != b->deadline)
		return a->deadline < b->deadline;
	if (a->b != b->b)
		return a->b;
	if (a->b && a->group_deadline != b->group_deadline)
		return a->group_deadline > b->group_deadline;
	return a->id < b->id;
}

/* A random subtask; few distinct deadlines, so that ties are common. */
static void randomize(struct pfair_task *t)
{
	static const uint32_t big = 2147483647u;
	switch (rnd(4)) {
	case 0:                         /* small, light or heavy */
		t->p = 2 + (uint32_t)rnd(11);
		t->e = 1 + (uint32_t)rnd(t->p);
		break;
	case 1:                         /* heavy with a huge period */
		t->p = big - (uint32_t)rnd(1000);
		t->e = t->p / 2 + 1 + (uint32_t)rnd(t->p / 2 - 1);
		break;
	case 2:                         /* light with a huge period */
		t->p = big - (uint32_t)rnd(1000);
		t->e = 1 + (uint32_t)rnd(3);
		break;
	default:                        /* weight 1 */
		t->e = t->p = 1 + (uint32_t)rnd(4);
		break;
	}
	t->k = 1 + (uint32_t)rnd(t->e < 8 ? t->e : 8);
	if (rnd(2) && t->e > 8)
		t->k = t->e - (uint32_t)rnd(8);
	t->job = rnd(3);
	t->theta = rnd(4);
	pfair_task_update(t, false);
}

static void test_folded_order(void)
{
	for (unsigned i = 0; i < N; i++)
		task[i].id = i;
	for (unsigned round = 0; round < 2000 && !failures; round++) {
		for (unsigned i = 0; i < N; i++)
			randomize(&task[i]);
		/* Shifted to the same deadline in pairs: heavy against light,
		 * b = 1 against b = 0. */
		for (unsigned i = 1; i < N; i += 2) {
			struct pfair_task *a = &task[i - 1], *b = &task[i];
			if (a->deadline > b->deadline)
				b->theta += a->deadline - b->deadline;
			else
				a->theta += b->deadline - a->deadline;
			pfair_task_update(a, false);
			pfair_task_update(b, false);
		}
		for (unsigned i = 0; i < N; i++)
			for (unsigned j = 0; j < N; j++)
				CHECK(pfair_higher(&task[i], &task[j]) ==
				      textbook_higher(&task[i], &task[j]),
				      "tasks %u (e=%u p=%u d=%llu b=%d D=%llu) and "
				      "%u (e=%u p=%u d=%llu b=%d D=%llu)", i,
				      task[i].e, task[i].p,
				      (unsigned long long)task[i].deadline,
				      task[i].b,
				      (unsigned long long)task[i].group_deadline,
				      j, task[j].e, task[j].p,
				      (unsigned long long)task[j].deadline,
				      task[j].b,
				      (unsigned long long)task[j].group_deadline);
	}
}

static struct pfair_selq q[QUEUES];
static struct pfair_task *slots[QUEUES][N];
static int where[N];    /* -1: in no queue */

/* The lowest-priority member of queue k by the textbook order. */
static struct pfair_task *model_min(int k)
{
	struct pfair_task *m = NULL;
	for (unsigned i = 0; i < N; i++)
		if (where[i] == k && (!m || textbook_higher(m, &task[i])))
			m = &task[i];
	return m;
}

static void check_queues(void)
{
	for (int k = 0; k < QUEUES; k++) {
		unsigned members = 0;
		for (unsigned i = 0; i < N; i++)
			members += where[i] == k;
		CHECK(pfair_selq_size(&q[k]) == members, "queue %d: size %zu, "
		      "model %u", k, pfair_selq_size(&q[k]), members);
		for (unsigned i = 0; i < q[k].n; i++) {
			struct pfair_task *t = q[k].a[i];
			CHECK(where[t->id] == k && t->selq_pos == i,
			      "queue %d: entry %u misplaced", k, i);
			CHECK(i == 0 || textbook_higher(q[k].a[i - 1], t),
			      "queue %d: entries %u, %u out of order", k, i - 1,
			      i);
		}
		CHECK(pfair_selq_peek(&q[k]) == model_min(k),
		      "queue %d: peek is not the lowest priority", k);
	}
}

static void test_queues(void)
{
	for (int k = 0; k < QUEUES; k++)
		pfair_selq_init(&q[k], slots[k]);
	for (unsigned i = 0; i < N; i++) {
		where[i] = -1;
		randomize(&task[i]);
	}
	for (unsigned step = 0; step < 100000 && !failures; step++) {
		unsigned i = (unsigned)rnd(N);
		int k = (int)rnd(QUEUES);
		switch (rnd(5)) {
		case 0:
		case 1:
			if (where[i] < 0) {
				randomize(&task[i]);
				pfair_selq_insert(&q[k], &task[i]);
				where[i] = k;
			}
			break;
		case 2:
			if (where[i] >= 0) {
				pfair_selq_delete(&q[where[i]], &task[i]);
				where[i] = -1;
			}
			break;
		case 3: {
			struct pfair_task *want = model_min(k);
			struct pfair_task *got = pfair_selq_extract(&q[k]);
			CHECK(got == want, "queue %d: extracted not the lowest", k);
			if (got)
				where[got->id] = -1;
			break;
		}
		default:
			if (rnd(50) == 0) {
				int j = (int)rnd(QUEUES);
				pfair_selq_swap(&q[k], &q[j]);
				for (unsigned x = 0; x < N; x++)
					where[x] = where[x] == k ? j :
						   where[x] == j ? k : where[x];
			}
			break;
		}
		check_queues();
	}
}

int main(void)
{
	test_folded_order();
	test_queues();
	return unit_exit_status();
}
