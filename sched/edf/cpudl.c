/* sched/edf/cpudl: the CPU deadline max-heap (global EDF paper, Sec. 5). */
#include "cpudl.h"

#include "cpumask.h"

/*
 * Fig. 5/6 put the root in elements[0] and the children of i at 2i and
 * 2i + 1, which would make the root its own child; we keep the root at 0 and
 * use the 0-based layout: children 2i + 1 and 2i + 2, parent (i - 1) / 2.
 */
#define PARENT(i) (((i) - 1) / 2)
#define LEFT(i) (2 * (i) + 1)

void cpudl_init(struct cpudl *h, unsigned cpus, const struct sched_env *env)
{
	h->cpus = cpus;
	h->size = 0;
	h->cpu_to_idx = env->alloc(env->ctx, cpus * sizeof(int));
	h->elements = env->alloc(env->ctx, cpus * sizeof(struct cpudl_item));
	h->free_cpus = env->alloc(env->ctx, CPUMASK_WORDS(cpus) * sizeof(uint64_t));
	for (unsigned c = 0; c < cpus; c++) {
		h->cpu_to_idx[c] = -1;
		cpumask_set(h->free_cpus, c);
	}
}

static void place(struct cpudl *h, unsigned idx, struct cpudl_item it)
{
	h->elements[idx] = it;
	h->cpu_to_idx[it.cpu] = (int)idx;
}

static void sift_up(struct cpudl *h, unsigned idx)
{
	struct cpudl_item it = h->elements[idx];
	while (idx > 0 && h->elements[PARENT(idx)].key < it.key) {
		place(h, idx, h->elements[PARENT(idx)]);
		idx = PARENT(idx);
	}
	place(h, idx, it);
}

static void sift_down(struct cpudl *h, unsigned idx)
{
	struct cpudl_item it = h->elements[idx];
	for (;;) {
		unsigned child = LEFT(idx);
		if (child >= h->size)
			break;
		if (child + 1 < h->size &&
		    h->elements[child + 1].key > h->elements[child].key)
			child++;
		if (h->elements[child].key <= it.key)
			break;
		place(h, idx, h->elements[child]);
		idx = child;
	}
	place(h, idx, it);
}

void cpudl_set(struct cpudl *h, unsigned cpu, uint64_t key)
{
	int idx = h->cpu_to_idx[cpu];
	if (idx < 0) {
		cpumask_clear(h->free_cpus, cpu);
		idx = (int)h->size++;
		place(h, (unsigned)idx, (struct cpudl_item){ key, cpu });
		sift_up(h, (unsigned)idx);
		return;
	}
	uint64_t old = h->elements[idx].key;
	h->elements[idx].key = key;
	if (key > old)
		sift_up(h, (unsigned)idx);
	else
		sift_down(h, (unsigned)idx);
}

void cpudl_clear(struct cpudl *h, unsigned cpu)
{
	int idx = h->cpu_to_idx[cpu];
	if (idx < 0)
		return;
	h->cpu_to_idx[cpu] = -1;
	cpumask_set(h->free_cpus, cpu);
	unsigned last = --h->size;
	if ((unsigned)idx == last)
		return;
	/* The last element fills the hole and may have to go either way. */
	uint64_t hole_key = h->elements[idx].key;
	place(h, (unsigned)idx, h->elements[last]);
	if (h->elements[idx].key > hole_key)
		sift_up(h, (unsigned)idx);
	else
		sift_down(h, (unsigned)idx);
}

int cpudl_find(const struct cpudl *h, uint64_t key)
{
	/* Fig. 7, lines 2-3: an idle CPU first. */
	int cpu = cpumask_first(h->free_cpus, CPUMASK_WORDS(h->cpus));
	if (cpu >= 0)
		return cpu;
	/* Fig. 7, lines 4-5: the latest-deadline CPU. The figure tests only
	 * the affinity there and leaves the deadline test to the caller; we make
	 * it here (Fig. 3's dline_before), so -1 means no CPU runs a later job.
	 * Lines 6-12, the scan, only serve affinity masks, which we do not
	 * have: when the root is not later, no CPU is. */
	if (h->size > 0 && h->elements[0].key > key)
		return (int)h->elements[0].cpu;
	return -1;
}

#if SCHED_DEBUG
int cpudl_check(const struct cpudl *h)
{
	unsigned busy = 0;
	for (unsigned c = 0; c < h->cpus; c++) {
		int idx = h->cpu_to_idx[c];
		if (idx < 0) {
			if (!cpumask_test(h->free_cpus, c))
				return -1;
			continue;
		}
		busy++;
		if (cpumask_test(h->free_cpus, c) || (unsigned)idx >= h->size ||
		    h->elements[idx].cpu != c)
			return -1;
	}
	if (busy != h->size)
		return -1;
	for (unsigned i = 1; i < h->size; i++)
		if (h->elements[PARENT(i)].key < h->elements[i].key)
			return -1;
	return 0;
}
#endif
