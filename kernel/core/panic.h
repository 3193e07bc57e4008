/*
 * kernel/core/panic: the end of the line -- a fault the kernel cannot contain or
 * a state it cannot go on from. The report names the CPU, the vector and the
 * registers, walks the stack with the kernel's own symbols, stops every
 * other CPU and ends with "RESULT exit status=fail reason=...".
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "../../arch/x86/trap.h"

/* Installs the fallback for faults and stray interrupts and the NMI that
 * stops the other CPUs. First thing after the console. */
void panic_init(void);

/* "PANIC cpu=N: <message>", a stack trace, then stop. reason is one word. */
void panic(const char *reason, const char *format, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* The report of an exception taken in the kernel, then stop. */
void panic_frame(const struct trap_frame *f) __attribute__((noreturn));

/* A fault in ring 3 goes to h instead of the panic report (the task layer
 * kills the task). */
void panic_set_user_fault_handler(trap_handler h);

/*
 * A debugger that can take the machine at a panic (kernel/debug/gdbstub.c
 * installs one when its stub is on): stop(f) runs after the report and
 * before the machine powers off -- f is the faulting frame, or NULL for a
 * panic() call -- and returns when the debugger lets go; nmi(f) returns 1
 * when an NMI was the debugger's own. NULL (the default): none.
 */
struct panic_debugger {
	void (*stop)(const struct trap_frame *f);
	int (*nmi)(struct trap_frame *f);
	/* The machine is about to power off with this exit status (0 pass,
	 * 1 fail, 2 late): a debugger attached tells its side the program
	 * exited. */
	void (*exited)(unsigned status);
};
void panic_set_debugger(const struct panic_debugger *d);

/* Before powering off with status (0 pass, 1 fail, 2 late): the debugger,
 * if any, hears of it (kernel/main.c's end, and a panic's). */
void panic_tell_debugger_exit(unsigned status);

/* Set once a CPU has begun to panic. */
int panic_in_progress(void);

#endif
