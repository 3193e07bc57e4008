/*
 * kernel/events/event_run: the kernel's driver for event-driven plugins (sched.h,
 * event_us: `pfp`), the duties of docs/schedulers-event-driven.md on
 * hardware.
 *
 * Time is the run clock: microseconds since the run's epoch T0, from the
 * TSC. Every CPU has one one-shot timer (the quantum clock's local-APIC
 * timer, TSC-deadline where the CPU has it, on a grid of 1 us: slot u is
 * T0 + u us), armed for the earliest of the plugin's next_call() for that
 * CPU, the moment the job it runs would have had all its work, the next
 * scripted or generated arrival (CPU 0) and the run's end. Every call
 * into the plugin holds one lock and reads the clock inside it, so the
 * plugin sees non-decreasing times. A CPU that must switch because of a
 * call made elsewhere gets a reschedule IPI (re-arming its timer in it).
 *
 * Threads: every task and every server is a ring-3 thread running its
 * work= (spin): the kernel measures each thread's CPU time at its
 * switches and ends a periodic job when it has had e * quantum_us
 * microseconds of it, a server's head job when it has had cost_us; then
 * it calls complete(). A server thread is the same spinning program: it
 * "serves" its FIFO queue by being given CPU time, which the kernel
 * charges to the queue's head job.
 */
#ifndef KERNEL_EVENT_RUN_H
#define KERNEL_EVENT_RUN_H

#include <stdint.h>

#include "../../lib/taskset.h"
#include "../../sched/sched.h"

struct task;

/*
 * Runs the event-driven plugin over ts on cpus CPUs for slots quanta of
 * quantum_us (sched_run has made the threads, idle[] one per CPU).
 * Returns 0, or -1 after printing why with a one-word reason.
 */
int event_run(const struct sched_plugin *plugin, const char *file,
	      const struct taskset *ts, unsigned cpus, struct task *idle,
	      uint64_t slots, uint64_t quantum_us, const char **reason);

/*
 * An aperiodic job of cost_us microseconds for server (its task-set
 * index) that arrived at irq_tsc (boot-CPU TSC time, qclock_now() at the
 * interrupt's entry): its response time counts from there. For device
 * interrupts: callable from any interrupt handler on any CPU (it masks
 * interrupts and takes the plugin lock). Returns 0; -1 when no event run
 * is in progress, the index is not a server, or the server's queue is
 * full (then counted in RESULT server dropped=).
 */
int event_run_arrive(unsigned server, uint32_t cost_us, uint64_t irq_tsc);

#endif
