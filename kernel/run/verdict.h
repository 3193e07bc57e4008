/*
 * kernel/run/verdict: whether a scheduler run kept what the kernel can
 * check about itself, and the status the boot ends with
 * (docs/running.md, "Statuses and exit codes").
 *
 * The checks:
 *  - time: every quantum boundary was handled before the next one was due
 *    and less than half a quantum after its own time (the slot's task then
 *    still ran most of its slot); at events, every timer came within
 *    VERDICT_EVENT_TOLERANCE_US of the time it was armed for;
 *  - schedule (quantum runs with records): no slot ran a task other than
 *    the plugin's decision for it (idle slots are not counted: a task may
 *    sleep, block, exit or be killed; nor are slots whose answer changed
 *    within them, after such an event);
 *  - misses: no task missed more deadlines than the plugin planned -- its
 *    own count (quantum runs; a job dropped at a wake after its deadline
 *    is the set's event and not counted), or the simulated machine's run
 *    of the same set (sched/evsim, event runs);
 *  - windows: no server ran more than its budget, plus the tolerance, in
 *    any window of one period, unless the plan did too.
 * A run that kept them all passes. One whose time check failed is late:
 * the platform did not keep its time (or late_boundary= made it late), and
 * what else failed follows from that. Any other failed check is the
 * kernel's own: the run fails.
 */
#ifndef KERNEL_RUN_VERDICT_H
#define KERNEL_RUN_VERDICT_H

#include <stdint.h>

#include "../../lib/trace_stats.h"
#include "../../sched/sched.h"

/* At events a timer may come this long after its time, and a server's
 * window may exceed its budget by as much: the kernel's own path at an
 * event is a few thousand instructions (20-50 us under QEMU -icount
 * shift=3). */
#define VERDICT_EVENT_TOLERANCE_US 100

enum verdict_status {
	VERDICT_NONE,           /* no scheduler run reported */
	VERDICT_PASS,
	VERDICT_LATE,
	VERDICT_FAIL,
};

/* What a run measured; counts of what did not hold. */
struct verdict {
	const char *plugin;
	int at_events;              /* an event-driven run */
	uint64_t quantum_us;
	/* Time: quantum boundaries (or timer interrupts at events). */
	uint64_t clock_events;      /* boundaries due, or timers taken */
	uint64_t clock_missed;      /* boundaries passed before handled */
	uint64_t clock_late;        /* handled later than the tolerance */
	uint64_t late_max_ns;       /* the worst lateness */
	uint64_t tolerance_ns;
	/* The executed schedule (quantum runs with records). */
	int schedule_checked;
	uint64_t slots;             /* slots times CPUs compared */
	uint64_t slots_differ;
	uint64_t slots_mixed;       /* not compared: the answer changed */
	/* Deadline misses against the plan. */
	int misses_checked;
	const char *misses_unchecked_why;
	uint64_t misses, planned, unplanned;
	/* Servers whose window the check covers, those over it, and those
	 * over their budget by no more than the tolerance. */
	unsigned windows, windows_over, windows_within;
};

/* Before a quantum run with records: room for every CPU's decision for
 * every slot. */
void verdict_decisions_setup(unsigned cpus, uint64_t slots);
/* The plugin's answer for CPU cpu's slot (the latest one counts). */
void verdict_decided(unsigned cpu, uint64_t slot, int task);

/* After a quantum run: the checks from the records (st NULL: record=off),
 * the plugin's own counts and the clock's (boundaries missed, handled half
 * a quantum late or more, the worst entry after its time). */
void verdict_of_quanta(const struct sched_plugin *plugin, void *s,
		       unsigned ntasks, const struct trace_stats *st,
		       uint64_t missed, uint64_t late, uint64_t late_max_ns,
		       unsigned cpus, uint64_t slots, uint64_t quantum_us);

/* After an event run: its numbers, filled in by the caller. */
void verdict_set(const struct verdict *v);

/* Prints the verdict's lines (a paragraph for people, RESULT verdict) and
 * returns its status; *reason: the word for RESULT exit. VERDICT_NONE,
 * printing nothing, when no run reported. */
enum verdict_status verdict_report(const char **reason);

/* The worst lateness in microseconds, for RESULT exit. */
uint64_t verdict_late_max_us(void);

#endif
