/* arch/x86/trap: exceptions, interrupts and the panic report. */
#ifndef ARCH_X86_TRAP_H
#define ARCH_X86_TRAP_H

#include <stdint.h>

#define VEC_PAGE_FAULT 14
#define VEC_NMI 2
#define VEC_DOUBLE_FAULT 8
#define VEC_MACHINE_CHECK 18
/* Vectors the kernel programs (above the 32 exceptions, SDM vol. 3, 6.2). */
#define VEC_QUANTUM_TIMER 0x40
#define VEC_CALIBRATION_TIMER 0x41
#define VEC_RESCHED_IPI 0x50
/* A CPU halted inside the quantum timer's handler is woken by this IPI
 * (kernel/sched_run.c): the local APIC delivers it only from a higher
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

typedef void (*trap_handler)(struct trap_frame *f);

/* Handlers for vectors 32-255; they send their own EOI. */
void trap_set_handler(unsigned vector, trap_handler h);

/* Called from isr_common. */
void trap_dispatch(struct trap_frame *f);

/*
 * Stops the machine after a fatal error: prints "PANIC cpu=N ..." with the
 * message, a stack trace, stops every other CPU and ends with
 * "RESULT exit status=fail reason=<reason>". reason is one word.
 */
void panic(const char *reason, const char *format, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* Set by the CPU that panics; the others halt when the NMI comes. */
extern volatile int trap_stopping;

#endif
