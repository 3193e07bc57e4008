/*
 * arch/x86/features: the protections and state a CPU turns on for ring-3
 * tasks -- SSE state saving, SMEP, SMAP, UMIP where CPUID has them -- and
 * the save area of the FPU/SSE registers.
 */
#ifndef ARCH_X86_FEATURES_H
#define ARCH_X86_FEATURES_H

#include <stdint.h>

struct cpu_protections {
	int nx;     /* EFER.NXE (set by boot/long_mode.inc) */
	int smep;   /* the kernel cannot execute user pages */
	int smap;   /* the kernel cannot touch user pages by accident */
	int umip;   /* ring 3 cannot read the descriptor tables */
};

/* Sets CR0 and CR4 on the calling CPU; returns what it could turn on.
 * Every CPU of a run with ring-3 tasks calls it (the answers are the same
 * on one machine). */
struct cpu_protections features_init_cpu(void);
/* What features_init_cpu turns on where the CPU has it (CPUID), and NX
 * (already on). */
struct cpu_protections features_available(void);

/* FXSAVE's area: 512 bytes, 16-byte aligned (SDM vol. 1, 10.5). */
#define FPU_AREA_SIZE 512

struct fpu_area {
	uint8_t bytes[FPU_AREA_SIZE];
} __attribute__((aligned(16)));

static inline void fpu_save(struct fpu_area *a)
{
	__asm__ volatile("fxsave64 %0" : "=m"(*a));
}

static inline void fpu_restore(const struct fpu_area *a)
{
	__asm__ volatile("fxrstor64 %0" : : "m"(*a));
}

/* The state a new task starts with (FNINIT's, MXCSR 0x1f80: every SSE
 * exception masked), captured once. */
void fpu_initial(struct fpu_area *a);

#endif
