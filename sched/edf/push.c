/* sched/edf/push: heap, fmask and original push decisions (see push.h). */
#include "push.h"

#include "cpumask.h"

const char *edf_push_mode_name(enum edf_push_mode mode)
{
	static const char *const names[EDF_PUSH_MODES] = { "heap", "fmask",
							   "original" };
	return (unsigned)mode < EDF_PUSH_MODES ? names[mode] : "?";
}

void edf_push_init(struct edf_push *p, enum edf_push_mode mode, unsigned cpus,
		   const struct edf_rq *rq, const struct sched_env *env)
{
	p->mode = mode;
	p->cpus = cpus;
	p->rq = rq;
	if (mode == EDF_PUSH_HEAP)
		cpudl_init(&p->heap, cpus, env);
	if (mode == EDF_PUSH_FMASK) {
		p->fmask = env->alloc(env->ctx,
				      CPUMASK_WORDS(cpus) * sizeof(uint64_t));
		for (unsigned c = 0; c < cpus; c++)
			cpumask_set(p->fmask, c);
	}
}

void edf_push_update(struct edf_push *p, unsigned cpu)
{
	uint64_t key = p->rq[cpu].earliest_curr;
	switch (p->mode) {
	case EDF_PUSH_HEAP:
		if (key == EDF_KEY_NONE)
			cpudl_clear(&p->heap, cpu);
		else
			cpudl_set(&p->heap, cpu, key);
		break;
	case EDF_PUSH_FMASK:
		if (key == EDF_KEY_NONE)
			cpumask_set(p->fmask, cpu);
		else
			cpumask_clear(p->fmask, cpu);
		break;
	case EDF_PUSH_ORIGINAL:
		break;
	}
}

/*
 * Fig. 3's loop: every CPU whose current job is later than key is eligible
 * (an idle CPU's "deadline" is EDF_KEY_NONE, later than any job); keep the
 * latest; among idle CPUs the first, as the strict comparison keeps it.
 */
static int scan(const struct edf_push *p, uint64_t key)
{
	int best = -1;
	uint64_t best_key = key;
	for (unsigned c = 0; c < p->cpus; c++) {
		uint64_t curr = p->rq[c].earliest_curr;
		if (curr > best_key) {
			best = (int)c;
			best_key = curr;
		}
	}
	return best;
}

int edf_push_find(const struct edf_push *p, uint64_t key)
{
	switch (p->mode) {
	case EDF_PUSH_HEAP:
		return cpudl_find(&p->heap, key);
	case EDF_PUSH_FMASK: {
		/* Fig. 4, lines 2-3: skip the loop when a CPU is idle. */
		int cpu = cpumask_first(p->fmask, CPUMASK_WORDS(p->cpus));
		return cpu >= 0 ? cpu : scan(p, key);
	}
	case EDF_PUSH_ORIGINAL:
		return scan(p, key);
	}
	return -1;
}

#if SCHED_DEBUG
int edf_push_check(const struct edf_push *p)
{
	for (unsigned c = 0; c < p->cpus; c++) {
		uint64_t key = p->rq[c].earliest_curr;
		int idle = key == EDF_KEY_NONE;
		if (p->mode == EDF_PUSH_HEAP) {
			int idx = p->heap.cpu_to_idx[c];
			if (idle != (idx < 0) ||
			    (!idle && p->heap.elements[idx].key != key))
				return -1;
		}
		if (p->mode == EDF_PUSH_FMASK &&
		    idle != cpumask_test(p->fmask, c))
			return -1;
	}
	return p->mode == EDF_PUSH_HEAP ? cpudl_check(&p->heap) : 0;
}
#endif
