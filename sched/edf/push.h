/*
 * sched/edf/push: the push decision of the global EDF paper (Lelli et al.):
 * which CPU should take a job with a given key. Three selectable structures,
 * compared in the paper's Sec. 6:
 *
 *   EDF_PUSH_HEAP     (edf_cpudl=0, default) "heap": the CPU deadline
 *                     max-heap with its free-CPU mask, Fig. 7; O(1).
 *   EDF_PUSH_FMASK    (edf_cpudl=1) "fmask": a free-CPU mask, then a scan of
 *                     every CPU's current deadline, Fig. 4.
 *   EDF_PUSH_ORIGINAL (edf_cpudl=2) "original": the scan alone, Fig. 3.
 *
 * All three answer the same: the lowest-numbered idle CPU if there is one,
 * else the CPU running the latest job if that job is later than key, else -1.
 * (Figs. 3 and 4 return the mask of all eligible CPUs; the push then takes
 * the latest of them, which is the heap's root, so we return that CPU.)
 * Running keys are unique, so the choice is unique and the three structures
 * produce identical schedules.
 */
#ifndef SCHED_EDF_PUSH_H
#define SCHED_EDF_PUSH_H

#include <stdint.h>

#include "../sched.h"
#include "cpudl.h"
#include "rq.h"

enum edf_push_mode {
	EDF_PUSH_HEAP = 0,
	EDF_PUSH_FMASK = 1,
	EDF_PUSH_ORIGINAL = 2,
};

#define EDF_PUSH_MODES 3

struct edf_push {
	enum edf_push_mode mode;
	unsigned cpus;
	const struct edf_rq *rq;   /* the CPUs' queues: their earliest_curr */
	struct cpudl heap;         /* EDF_PUSH_HEAP */
	uint64_t *fmask;           /* EDF_PUSH_FMASK: idle CPUs */
};

/* The mode's name as in the paper ("heap", "fmask", "original"). */
const char *edf_push_mode_name(enum edf_push_mode mode);

void edf_push_init(struct edf_push *p, enum edf_push_mode mode, unsigned cpus,
		   const struct edf_rq *rq, const struct sched_env *env);

/* The head of rq[cpu] changed (earliest_curr is the new key or NONE). */
void edf_push_update(struct edf_push *p, unsigned cpu);

/* The CPU to push a job with this key to, or -1. */
int edf_push_find(const struct edf_push *p, uint64_t key);

#if SCHED_DEBUG
/* 0 when the structure agrees with the queues' heads. */
int edf_push_check(const struct edf_push *p);
#endif

#endif
