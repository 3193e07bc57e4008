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
	uint32_t cpu;                   /* logical index, 0 = boot CPU */
	uint32_t apic_id;
	volatile uint32_t state;        /* enum cpu_state */
	volatile uint64_t quantum;      /* boundaries serviced so far */
	volatile uint64_t missed;       /* boundaries that passed unserviced */
	/* The quantum clock's run, here so that no two CPUs write one cache
	 * line at each boundary (kernel/quantum_clock.c). */
	volatile uint64_t clock_next;   /* the next boundary's index */
	volatile int clock_done;        /* every boundary of the run seen */
	int64_t tsc_offset;             /* this CPU's TSC minus the BSP's */
	struct gdt gdt;
	struct tss tss;
	uint8_t *stack_top;
} __attribute__((aligned(64)));

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
