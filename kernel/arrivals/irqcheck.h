/*
 * kernel/arrivals/irqcheck: the boot-time self-check of an arrival interrupt source
 * (irqcheck=hpet|uart, docs/interrupts.md), run in place of a scheduler
 * run until the pfp driver takes the arrivals: every arrival is recorded
 * by the callback and printed as a RESULT line after the check.
 */
#ifndef KERNEL_IRQCHECK_H
#define KERNEL_IRQCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "../core/options.h"

/*
 * Parses the task set (file, text, len), runs the source for duration_us
 * with its interrupts routed to CPU cpu (the typed source also ends at a
 * `!end` line) and prints the results. Returns 0 when the check passed,
 * else -1 with *reason set (taskset, irqcheck, memory).
 */
int irqcheck_run(enum irqcheck_mode mode, const char *file, const char *text,
		 size_t len, uint64_t duration_us, unsigned cpu,
		 const char **reason);

#endif
