/*
 * arch/x86/trap: the entry of every exception and interrupt. What happens
 * then is the kernel's: it installs a handler per vector and a fallback for
 * the rest (kernel/core/panic.c reports faults and stray interrupts).
 */
#ifndef ARCH_X86_TRAP_H
#define ARCH_X86_TRAP_H

#include <stdint.h>

#define VEC_DIVIDE_ERROR 0
#define VEC_DEBUG 1
#define VEC_NMI 2
#define VEC_BREAKPOINT 3
#define VEC_INVALID_OPCODE 6
#define VEC_DOUBLE_FAULT 8
#define VEC_GENERAL_PROTECTION 13
#define VEC_PAGE_FAULT 14
#define VEC_MACHINE_CHECK 18
/* Vectors the kernel programs (above the 32 exceptions, SDM vol. 3, 6.2). */
/* Ends a halt and nothing else: kernel/core/smp.c wakes waiting CPUs with it,
 * and its own one-shot timer uses it to bound a wait. */
#define VEC_SMP_WAKE 0x30
#define VEC_QUANTUM_TIMER 0x40
#define VEC_CALIBRATION_TIMER 0x41
#define VEC_RESCHED_IPI 0x50
/* kernel/events/event_run.c, arrivals=irq: an aperiodic arrival handed to another
 * CPU as a device's interrupt would bring it. */
#define VEC_ARRIVAL_IPI 0x58
/* Device interrupts that deliver aperiodic arrivals (kernel/arrivals/arrival_irq.c),
 * in the quantum timer's priority class: the wake-up IPI outranks them too,
 * so what they call may wait for another CPU. */
#define VEC_ARRIVAL_HPET 0x44
#define VEC_ARRIVAL_UART 0x45
_Static_assert((VEC_RESCHED_IPI >> 4) > (VEC_ARRIVAL_HPET >> 4) &&
	       (VEC_RESCHED_IPI >> 4) > (VEC_ARRIVAL_UART >> 4),
	       "the wake-up IPI must outrank the arrival interrupts");
/* A CPU halted inside the quantum timer's handler is woken by this IPI
 * (kernel/run/sched_run.c): the local APIC delivers it only from a higher
 * priority class (vector >> 4) than the one in service (SDM 11.8.3). */
_Static_assert((VEC_RESCHED_IPI >> 4) > (VEC_QUANTUM_TIMER >> 4),
	       "the wake-up IPI must outrank the quantum timer");
#define VEC_SPURIOUS 0xff

/* The registers as arch/x86/isr.asm saves them, lowest address first. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;     /* pushed by the CPU */
};

/* arch/x86/isr.asm and syscall.asm address these by offset. */
_Static_assert(__builtin_offsetof(struct trap_frame, vector) == 120 &&
	       __builtin_offsetof(struct trap_frame, cs) == 144 &&
	       sizeof(struct trap_frame) == 176, "isr.asm's offsets");

/* The frame came from ring 3. */
static inline int trap_from_user(const struct trap_frame *f)
{
	return (f->cs & 3) != 0;
}

typedef void (*trap_handler)(struct trap_frame *f);

/* The handler of one vector (0-255); interrupt handlers send their own
 * EOI. */
void trap_set_handler(unsigned vector, trap_handler h);
/* What runs for a vector without a handler of its own. */
void trap_set_fallback(trap_handler h);
/* "#PF" and the like for vectors 0-31 (SDM vol. 3, table 6-1). */
const char *trap_exception_name(unsigned vector);

/* Called from isr_common. */
void trap_dispatch(struct trap_frame *f);

#endif
