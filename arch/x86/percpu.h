/*
 * arch/x86/percpu: one record per CPU, reached through GS base. GDB's `rtk
 * cpus` and `rtk clock` (tools/gdb/rtkgdb) read percpu[] and cpu_count:
 * keep the field names they use.
 *
 * The boot CPU starts on a record of its own; once the CPUs are counted, the
 * kernel gives the table a record per CPU from memory sized for them and
 * each CPU moves onto its record (percpu_move).
 */
#ifndef ARCH_X86_PERCPU_H
#define ARCH_X86_PERCPU_H

#include <stdint.h>

#include "desc.h"

/* The most CPUs the kernel runs on: every xAPIC ID (0-254; 255 is the
 * broadcast address, SDM vol. 3, 11.6.1) and one more an x2APIC machine
 * may number beyond them. Only the firmware's list is this long; per-CPU
 * memory is sized from the CPUs found. */
#define MAX_CPUS 256
#define KSTACK_SIZE 16384
#define IST_STACK_SIZE 8192
/* One CPU's interrupt stacks: IST_NMI, IST_DOUBLE_FAULT, IST_MACHINE_CHECK,
 * and IST_DEBUG's IST_DEBUG_LEVELS. */
#define PERCPU_IST_BYTES ((3 + IST_DEBUG_LEVELS) * IST_STACK_SIZE)

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
	/* ahead_us= (kernel/time/quantum_clock.c): no return to ring 3
	 * before this TSC value of this CPU (arch/x86/hold.inc); 0: none. */
	uint64_t hold_tsc;
	uint32_t cpu;                   /* logical index, 0 = boot CPU */
	uint32_t apic_id;
	volatile uint32_t state;        /* enum cpu_state */
	int64_t tsc_offset;             /* this CPU's TSC minus the BSP's */
	struct gdt gdt;
	struct tss tss;
	uint8_t *stack_top;
	uint8_t *ist_stacks;            /* PERCPU_IST_BYTES */
} __attribute__((aligned(64)));

_Static_assert(__builtin_offsetof(struct percpu, syscall_rsp0) == 8 &&
	       __builtin_offsetof(struct percpu, syscall_user_rsp) == 16 &&
	       __builtin_offsetof(struct percpu, hold_tsc) == 24,
	       "arch/x86/syscall.asm's and hold.inc's offsets");
/* arch/x86/isr.asm moves #DB's stack in the TSS (PERCPU_TSS_IST_DEBUG) by
 * IST_STACK_SIZE (DEBUG_IST_NEST) while a #DB from ring 0 is handled. */
_Static_assert(__builtin_offsetof(struct percpu, tss) +
	       __builtin_offsetof(struct tss, ist) + 8 * (IST_DEBUG - 1) == 180 &&
	       IST_STACK_SIZE == 8192, "arch/x86/isr.asm's offsets");

extern struct percpu *volatile percpu;  /* cpu_count records */
extern volatile unsigned cpu_count;

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}

/* The boot CPU's own record, before there is memory for the others. */
void percpu_setup_boot_cpu(void);
/*
 * The calling CPU takes the record p (its cpu and ist_stacks filled in):
 * GS base, a GDT and TSS of its own with those interrupt stacks, and the
 * shared IDT.
 */
void percpu_setup(struct percpu *p);
/* The calling CPU moves its record to `to`, as CPU `cpu`, and reloads its
 * descriptors from there. */
void percpu_move(struct percpu *to, unsigned cpu);

#endif
