/*
 * kernel/core/cpu_wait: a CPU waiting for another one -- for its turn in
 * boundary order, for a lock, for a task still running elsewhere. It spins
 * for spin_us= (where a measured microsecond matters, on hardware the wait
 * ends within it) and then halts until the CPU it waits for sends the
 * wake-up IPI. Under an emulator with more virtual CPUs than host cores a
 * spinning CPU starves the very one it waits for (QEMU TCG, 4 CPUs on 2
 * host cores: 6 of 1000 boundaries serviced); halting hands the host core
 * over.
 */
#ifndef KERNEL_CPU_WAIT_H
#define KERNEL_CPU_WAIT_H

#include <stdint.h>

/* The spin before halting, in TSC cycles (from spin_us=); on the boot CPU
 * before a run. The wake-up IPI is VEC_RESCHED_IPI, whose handler
 * (kernel/run/dispatch.c) acknowledges it. */
void cpu_wait_setup(uint64_t spin_cycles);

/*
 * Returns when done(arg) is true, with interrupts disabled as they are in
 * the handlers that wait. done is not called again once it said true, so
 * it may take what it tests for, as a lock's try does. Interrupts are
 * enabled only while halted, so a waiting CPU can be woken from inside a
 * timer handler: the wake-up IPI's priority class outranks the timer's
 * (arch/x86/trap.h).
 */
void cpu_wait_until(int (*done)(void *arg), void *arg);

/* Wakes CPU cpu if it is halted in cpu_wait_until; call after making its
 * condition true (with a release store). */
void cpu_wake(unsigned cpu);
/* Wakes every CPU halted in cpu_wait_until. */
void cpu_wake_all(void);

#endif
