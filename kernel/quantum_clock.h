/*
 * kernel/quantum_clock: the quantum boundaries of every CPU, from absolute
 * TSC deadlines off one epoch T0 so no drift accumulates -- aligned: CPU k's
 * boundary i at T0 + i*Q; staggered: at T0 + i*Q + k*Q/M (staggered Pfair,
 * Sec. 3) -- and the self-measurement of how well the timers keep them.
 */
#ifndef KERNEL_QUANTUM_CLOCK_H
#define KERNEL_QUANTUM_CLOCK_H

#include <stdint.h>

struct qclock_result {
	int staggered;
	unsigned cpus;
	uint64_t quantum_us, quanta;
	uint64_t missed;                /* over all CPUs */
	uint64_t seen_min, seen_max;    /* boundaries serviced, per CPU */
	uint64_t err_min_ns, err_p50_ns, err_p99_ns, err_max_ns;
	uint64_t samples;
};

/* Chooses TSC-deadline or one-shot mode and, for one-shot, calibrates the
 * APIC timer against the TSC once. Call on the boot CPU before the APs. */
void qclock_init(void);
int qclock_deadline_mode(void);

/*
 * Called in the timer interrupt of CPU cpu for each of its boundaries, in
 * slot order, after the entry time is recorded -- also for a boundary that
 * was missed, so a scheduler sees every slot.
 */
typedef void (*qclock_boundary_fn)(void *ctx, unsigned cpu, uint64_t slot,
				   int missed);

/* Runs slots quanta on every online CPU and measures the boundaries; calls
 * hook (when not NULL) at each. Returns -1 (after naming them) when some
 * CPU did not finish. */
int qclock_measure(int staggered, uint64_t slots, uint64_t quantum_us,
		   qclock_boundary_fn hook, void *hook_ctx,
		   struct qclock_result *out);

/* trace=on: after a measurement, one line per CPU and boundary,
 * `TRACE tick mode=M cpu=K slot=I at_ns=A late_ns=N`: when the interrupt
 * entered, from the epoch T0, and how long after its ideal time, both in
 * BSP TSC time and negative when before; `late_ns=missed` alone when the
 * boundary was never serviced. */
void qclock_trace(void);

/* The table for people and the RESULT ticks line. */
void qclock_report(const struct qclock_result *r);

#endif
