/*
 * kernel/time/clock_stats: how well the quantum clock kept its boundaries in a
 * run -- the table for people and the `RESULT ticks` line -- from the
 * boundary records of the trace (kernel/trace/trace.h). Aligned: the
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
	int recorded;    /* the run wrote boundary records (not record=off) */
};

/* Before a run of the current quantum clock (after qclock_prepare) that
 * records nothing else: trace buffers with room for a boundary record
 * (TRACE_TICK_START, docs/trace-format.md) per CPU and slot, emptied.
 * Returns -1 after saying why when memory is short. The statistics below
 * read those records, whoever wrote them (a scheduler's run writes them
 * too, with its other events). */
int clock_stats_begin(void);
/* After the run. */
void clock_stats_summarise(struct clock_stats *out);
void clock_stats_report(const struct clock_stats *r);
/* One boundary's lateness: how long after its ideal time the interrupt
 * entered (0 when it entered before). */
struct clock_late {
	uint64_t ns;
	unsigned cpu;
	uint64_t slot;
};
/* After the run: the n latest boundaries serviced, latest first; returns
 * how many there were (at most n). Missed boundaries count in `missed`,
 * not here. */
unsigned clock_stats_latest(struct clock_late *out, unsigned n);
/* trace=on: one line per CPU and boundary, `TRACE tick mode=M cpu=K
 * slot=I at_ns=A late_ns=N`: when the interrupt entered, from the epoch
 * T0, and how long after its ideal time, both negative when before;
 * `late_ns=missed` alone when the boundary was never serviced. */
void clock_stats_trace_lines(void);

#endif
