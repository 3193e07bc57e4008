/* sched/edf/rq: a CPU's ready queue as a min-heap with cached earliest keys. */
#include "rq.h"

void edf_rq_init(struct edf_rq *rq, unsigned max_tasks, const uint64_t *key,
		 int *pos, const struct sched_env *env)
{
	rq->n = 0;
	rq->heap = env->alloc(env->ctx, (max_tasks ? max_tasks : 1) *
				   sizeof(unsigned));
	rq->key = key;
	rq->pos = pos;
	rq->earliest_curr = rq->earliest_next = EDF_KEY_NONE;
}

static void put(struct edf_rq *rq, unsigned i, unsigned task)
{
	rq->heap[i] = task;
	rq->pos[task] = (int)i;
}

static void sift_up(struct edf_rq *rq, unsigned i)
{
	unsigned task = rq->heap[i];
	while (i > 0 && rq->key[rq->heap[(i - 1) / 2]] > rq->key[task]) {
		put(rq, i, rq->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	put(rq, i, task);
}

static void sift_down(struct edf_rq *rq, unsigned i)
{
	unsigned task = rq->heap[i];
	for (;;) {
		unsigned c = 2 * i + 1;
		if (c >= rq->n)
			break;
		if (c + 1 < rq->n && rq->key[rq->heap[c + 1]] < rq->key[rq->heap[c]])
			c++;
		if (rq->key[rq->heap[c]] >= rq->key[task])
			break;
		put(rq, i, rq->heap[c]);
		i = c;
	}
	put(rq, i, task);
}

int edf_rq_next(const struct edf_rq *rq)
{
	if (rq->n < 2)
		return -1;
	if (rq->n > 2 && rq->key[rq->heap[2]] < rq->key[rq->heap[1]])
		return (int)rq->heap[2];
	return (int)rq->heap[1];
}

static void update_cache(struct edf_rq *rq)
{
	int next = edf_rq_next(rq);
	rq->earliest_curr = rq->n ? rq->key[rq->heap[0]] : EDF_KEY_NONE;
	rq->earliest_next = next >= 0 ? rq->key[next] : EDF_KEY_NONE;
}

void edf_rq_enqueue(struct edf_rq *rq, unsigned task)
{
	put(rq, rq->n++, task);
	sift_up(rq, rq->n - 1);
	update_cache(rq);
}

void edf_rq_dequeue(struct edf_rq *rq, unsigned task)
{
	unsigned i = (unsigned)rq->pos[task];
	unsigned last = --rq->n;
	rq->pos[task] = -1;
	if (i != last) {
		uint64_t hole = rq->key[task];
		put(rq, i, rq->heap[last]);
		if (rq->key[rq->heap[i]] < hole)
			sift_up(rq, i);
		else
			sift_down(rq, i);
	}
	update_cache(rq);
}
