/*
 * sched/edf/cpudl: the max-heap of the CPUs' current deadlines of the global
 * EDF paper (Lelli et al., Sec. 5, Figs. 5-7): `elements` holds the busy CPUs
 * ordered by the key of the job each one runs (latest at the root),
 * `cpu_to_idx` says where a CPU sits in it, and `free_cpus` holds the idle
 * CPUs. Finding the push target is O(1); a CPU changing its job or going idle
 * costs O(log M).
 *
 * Keys are opaque 64-bit numbers, larger = later; the EDF plugins pack the
 * absolute deadline and a tie-breaking task index into them so that no two
 * running jobs have equal keys.
 *
 * Locking: the paper guards the heap with one spin lock (Fig. 6 `lock`); here
 * the caller serialises, as for the whole plugin (sched/sched.h).
 */
#ifndef SCHED_EDF_CPUDL_H
#define SCHED_EDF_CPUDL_H

#include <stdint.h>

#include "../sched.h"

struct cpudl_item {
	uint64_t key;
	unsigned cpu;
};

struct cpudl {
	unsigned cpus;                /* M */
	unsigned size;                /* busy CPUs, the heap's length */
	int *cpu_to_idx;              /* -1 when the CPU is idle */
	struct cpudl_item *elements;
	uint64_t *free_cpus;          /* CPUMASK_WORDS(M) words */
};

/* Sets h up for cpus CPUs, all idle, with memory from env. */
void cpudl_init(struct cpudl *h, unsigned cpus, const struct sched_env *env);

/* CPU cpu now runs a job with this key. */
void cpudl_set(struct cpudl *h, unsigned cpu, uint64_t key);

/* CPU cpu is now idle. */
void cpudl_clear(struct cpudl *h, unsigned cpu);

/*
 * Fig. 7 without affinities: an idle CPU (the lowest-numbered one) if there
 * is one, else the CPU at the root if its key is above key, else -1.
 */
int cpudl_find(const struct cpudl *h, uint64_t key);

#if SCHED_DEBUG
/* 0 when the heap property and cpu_to_idx/free_cpus agree; else -1. */
int cpudl_check(const struct cpudl *h);
#endif

#endif
