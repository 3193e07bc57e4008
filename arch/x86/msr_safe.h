/* arch/x86/msr_safe: reading an MSR the CPU may not have (a #GP is caught,
 * arch/x86/trap.c). */
#ifndef ARCH_X86_MSR_SAFE_H
#define ARCH_X86_MSR_SAFE_H

#include <stdint.h>

/* 0 and *value, or -1 when RDMSR raised #GP (no such MSR). */
int msr_read_safe(uint32_t msr, uint64_t *value);

/* The RDMSR instruction and where a #GP on it resumes (msr_safe.asm). */
extern char msr_read_safe_insn[], msr_read_safe_fault[];

#endif
