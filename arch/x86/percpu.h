/*
 * arch/x86/percpu: one record per CPU, reached through GS base. GDB's `cpus`
 * command (tools/gdb/kernel.gdb) reads percpu[] and cpu_count: keep the
 * field names it uses.
 */
#ifndef ARCH_X86_PERCPU_H
#define ARCH_X86_PERCPU_H

#include <stdint.h>

#include "desc.h"

#define MAX_CPUS 64
#define KSTACK_SIZE 16384
#define IST_STACK_SIZE 8192

enum cpu_state {
	CPU_ABSENT,     /* no such CPU, or not started */
	CPU_STARTING,   /* INIT/SIPI sent, not checked in */
	CPU_ONLINE,     /* checked in, idle */
	CPU_MEASURING,  /* running the quantum clock */
	CPU_DONE,       /* finished its run */
	CPU_HALTED,     /* stopped by a panic or at the end */
};

struct percpu {
	struct percpu *self;            /* at %gs:0 */
	/* The SYSCALL entry (arch/x86/syscall.asm) reads these through GS:
	 * the running task's kernel stack top, and the task's stack pointer
	 * while the entry saves its registers. */
	uint64_t syscall_rsp0;
	uint64_t syscall_user_rsp;
	uint32_t cpu;                   /* logical index, 0 = boot CPU */
	uint32_t apic_id;
	volatile uint32_t state;        /* enum cpu_state */
	int64_t tsc_offset;             /* this CPU's TSC minus the BSP's */
	struct gdt gdt;
	struct tss tss;
	uint8_t *stack_top;
} __attribute__((aligned(64)));

_Static_assert(__builtin_offsetof(struct percpu, syscall_rsp0) == 8 &&
	       __builtin_offsetof(struct percpu, syscall_user_rsp) == 16,
	       "arch/x86/syscall.asm's offsets");

extern struct percpu percpu[MAX_CPUS];
extern volatile unsigned cpu_count;     /* CPUs in percpu[] (found) */

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}

/* Points GS base at percpu[cpu] on the calling CPU. */
void percpu_install(unsigned cpu);
/* percpu_install, then the CPU's own GDT, TSS and interrupt stacks, and
 * the shared IDT. */
void percpu_setup_cpu(unsigned cpu);

#endif
