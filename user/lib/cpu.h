/* user/lib/cpu: the unprivileged x86 instructions the workloads use. */
#ifndef USER_LIB_CPU_H
#define USER_LIB_CPU_H

#include <stdint.h>

/*
 * The time-stamp counter (SDM vol. 2B "RDTSC"). Not ordered against the
 * loads and stores around it, which the hourglass loop does not need: it
 * looks for gaps of thousands of cycles, not for the cost of one access.
 * Ring 3 may read it as long as CR4.TSD is clear, which the kernel leaves.
 */
static inline uint64_t cpu_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* The spin-wait hint (SDM vol. 2B "PAUSE"); see RT_CONTROL_PAUSE. */
static inline void cpu_pause(void)
{
	__asm__ volatile("pause" ::: "memory");
}

#endif
