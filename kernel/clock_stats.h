/*
 * kernel/clock_stats: how well the quantum clock kept its boundaries in a
 * run -- the table for people and the `RESULT ticks` line. Aligned: the
 * error of boundary i is its spread across CPUs; staggered: CPU k's
 * deviation from its ideal time T0 + i*Q + k*Q/M.
 */
#ifndef KERNEL_CLOCK_STATS_H
#define KERNEL_CLOCK_STATS_H

#include <stdint.h>

struct clock_stats {
	int staggered;
	unsigned cpus;
	uint64_t quantum_us, quanta;
	uint64_t missed;                /* over all CPUs */
	uint64_t seen_min, seen_max;    /* boundaries serviced, per CPU */
	uint64_t err_min_ns, err_p50_ns, err_p99_ns, err_max_ns;
	uint64_t samples;
};

/* Room for the entry times of a run of the current quantum clock (after
 * qclock_prepare), cleared. */
void clock_stats_begin(void);
/* From the clock's boundary hook: CPU cpu took its boundary slot at entry
 * (boot-CPU TSC); a missed boundary is never recorded. */
void clock_stats_record(unsigned cpu, uint64_t slot, uint64_t entry);
/* After the run. */
void clock_stats_summarise(struct clock_stats *out);
void clock_stats_report(const struct clock_stats *r);
/* trace=on: one line per CPU and boundary, `TRACE tick mode=M cpu=K
 * slot=I at_ns=A late_ns=N`: when the interrupt entered, from the epoch
 * T0, and how long after its ideal time, both negative when before;
 * `late_ns=missed` alone when the boundary was never serviced. */
void clock_stats_trace_lines(void);

#endif
