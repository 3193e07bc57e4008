/*
 * sched/edf/cpumask: a set of CPUs as an array of 64-bit words, for the
 * free-CPU masks of the global EDF paper (Lelli et al., Sec. 4.1 dlf_mask and
 * Sec. 5 free_cpus). One word covers 64 CPUs, as on the paper's machine; more
 * CPUs just take more words.
 */
#ifndef SCHED_EDF_CPUMASK_H
#define SCHED_EDF_CPUMASK_H

#include <stdint.h>

#define CPUMASK_WORDS(cpus) (((cpus) + 63u) / 64u)

static inline void cpumask_set(uint64_t *m, unsigned cpu)
{
	m[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

static inline void cpumask_clear(uint64_t *m, unsigned cpu)
{
	m[cpu / 64] &= ~((uint64_t)1 << (cpu % 64));
}

static inline int cpumask_test(const uint64_t *m, unsigned cpu)
{
	return (int)((m[cpu / 64] >> (cpu % 64)) & 1);
}

/* The lowest CPU in the set, or -1 when it is empty. */
static inline int cpumask_first(const uint64_t *m, unsigned words)
{
	for (unsigned w = 0; w < words; w++)
		if (m[w])
			return (int)(w * 64 + (unsigned)__builtin_ctzll(m[w]));
	return -1;
}

#endif
