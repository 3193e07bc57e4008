/*
 * kernel/time/quantum_clock: the quantum boundaries of every CPU as a service.
 * Boundaries are absolute TSC deadlines off one epoch T0, so no drift
 * accumulates -- aligned: CPU k's boundary i at T0 + i*Q; staggered: at
 * T0 + i*Q + k*Q/M (staggered Pfair, Sec. 3). The service computes each
 * boundary, arms the local APIC timer for it and, from the timer's
 * interrupt, calls its client: the self-measurement of the clocks
 * (kernel/time/clock_selftest.c) or a scheduler run (kernel/run/sched_run.c).
 */
#ifndef KERNEL_QUANTUM_CLOCK_H
#define KERNEL_QUANTUM_CLOCK_H

#include <stdint.h>

#include "../../arch/x86/trap.h"

#define QCLOCK_NONE (~0ull)

struct qclock_client {
	/*
	 * CPU cpu is at its boundary slot; entry is the interrupt's entry time
	 * in the boot CPU's TSC. missed: the boundary's time had passed before
	 * an earlier one was handled (every slot is still reported, in order).
	 * Returns the next slot the client wants a boundary at (at least
	 * slot + 1; QCLOCK_NONE: none before the run's end). A quantum-driven
	 * client returns slot + 1; an event-driven one skips slots where
	 * nothing happens.
	 */
	uint64_t (*boundary)(void *ctx, unsigned cpu, uint64_t slot, int missed,
			     uint64_t entry);
	/* After the boundaries of one interrupt, the next one armed and the
	 * interrupt acknowledged; interrupts are still off and the client may
	 * switch threads here. May be NULL. */
	void (*after)(void *ctx, unsigned cpu, struct trap_frame *f);
	void *ctx;
	/* Also a boundary at slot == slots, the run's end (a scheduler run
	 * stops the last slot's task there). */
	int end;
};

/* Chooses TSC-deadline or one-shot mode and, for one-shot, calibrates the
 * APIC timer against the TSC once. Call on the boot CPU before the APs. */
void qclock_init(void);
int qclock_deadline_mode(void);

/* Every quantum timer interrupt first calls poll(f) with its frame, from
 * before any run on (the GDB stub's check for a Ctrl-C or an attaching
 * GDB, kernel/debug/gdbstub.c). NULL, the default: none. */
void qclock_set_poll(void (*poll)(struct trap_frame *f));

/* Sets up a run of `slots` quanta of quantum_us on the `cpus` CPUs
 * 0..cpus-1, its epoch lead_us from now. On the boot CPU, before any CPU
 * starts. */
void qclock_prepare(int staggered, uint64_t slots, uint64_t quantum_us,
		    unsigned cpus, uint64_t lead_us,
		    const struct qclock_client *client);

/* After qclock_prepare, for a run whose boundaries come early: each
 * boundary's interrupt `us` before its time (qclock_due), its work done
 * then, and no return to ring 3 before the boundary itself (percpu
 * hold_tsc, arch/x86/hold.inc). Less than half a quantum. */
void qclock_ahead(uint64_t us);
/* CPU k's boundary i as its interrupt is due: qclock_ideal less the time
 * ahead. */
uint64_t qclock_due(unsigned k, uint64_t i);

/* On each CPU of the run: its timer on the clock's vector, its first
 * boundary armed (slot first). */
void qclock_cpu_start(uint64_t first);
/* Stops the calling CPU's timer. */
void qclock_cpu_stop(void);
/* Arms the calling CPU for its boundary `slot` (an event-driven client
 * that learns of an earlier event between boundaries). */
void qclock_cpu_arm(uint64_t slot);

/* Every boundary of the run has been seen on CPU cpu. */
int qclock_cpu_done(unsigned cpu);
/* Boundaries CPU cpu serviced on time / missed, in this run. */
uint64_t qclock_cpu_serviced(unsigned cpu);
uint64_t qclock_cpu_missed(unsigned cpu);
/* Of the serviced boundaries, those entered half a quantum or more after
 * their time; how long after its time the latest boundary was taken,
 * missed ones included (cycles). */
uint64_t qclock_cpu_late(unsigned cpu);
uint64_t qclock_cpu_late_max(unsigned cpu);
/* The next boundary CPU cpu waits for. */
uint64_t qclock_cpu_next(unsigned cpu);
/* After a run some CPU did not finish: "WHO: cpu K stopped at boundary N
 * of SLOTS" for each such CPU. */
void qclock_say_stopped(const char *who);

/* CPU k's boundary i in the boot CPU's TSC time (i may be `slots`: the
 * run's end). */
uint64_t qclock_ideal(unsigned k, uint64_t i);

/* late_mode=syscall (late_boundary=): called at a system call's entry
 * under that mode, interrupts off; stalls the first call this CPU makes
 * while its next boundary is a late one until that boundary is late by
 * late_boundary='s time. */
void qclock_late_syscall(void);
/* CPU k's slot at BSP time `when`: the last boundary i with
 * qclock_ideal(k, i) <= when (0 before the first). */
uint64_t qclock_slot_at(unsigned k, uint64_t when);
uint64_t qclock_t0(void);
unsigned qclock_cpus(void);
uint64_t qclock_slots(void);
uint64_t qclock_quantum_us(void);
int qclock_staggered(void);

/* The TSC in the boot CPU's timebase on the calling CPU. */
uint64_t qclock_now(void);

#endif
