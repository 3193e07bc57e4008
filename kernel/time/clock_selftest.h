/*
 * kernel/time/clock_selftest: the quantum clock measuring itself, with no
 * scheduler: every CPU takes each of its boundaries and records when its
 * interrupt entered (`sched=` unset; `ticks=` says which clocks).
 */
#ifndef KERNEL_CLOCK_SELFTEST_H
#define KERNEL_CLOCK_SELFTEST_H

#include <stdint.h>

#include "clock_stats.h"

/* Runs `slots` quanta on every online CPU and reports; trace_lines: also
 * print a TRACE line per boundary. Returns -1 after saying why, with the
 * one-word reason in *reason: "memory" when the boundary records do not
 * fit, "quantum_clock" when some CPU did not finish. */
int clock_selftest(int staggered, uint64_t slots, uint64_t quantum_us,
		   int trace_lines, const char **reason);
/* The same, its statistics also in *out (the hardware report's). */
int clock_selftest_stats(int staggered, uint64_t slots, uint64_t quantum_us,
			 int trace_lines, struct clock_stats *out,
			 const char **reason);

#endif
