/*
 * kernel/events/event_report: what an event-driven run did, kept during the run
 * (under the plugin lock, in memory taken before it) and printed after it
 * in the simulator's words: the segment, job and budget-event JSON lines
 * of docs/schedulers-event-driven.md, its summary line (sched/report.c,
 * the code schedsim prints with), then RESULT lines.
 */
#ifndef KERNEL_EVENT_REPORT_H
#define KERNEL_EVENT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "../../sched/report.h"
#include "../../sched/sched.h"

/* Before the run: room for `records` lines, and for each server `jobs`
 * response times and foreground spans. */
void evrep_setup(const struct taskset *ts, uint64_t records, uint64_t jobs);

/* During the run, under the plugin lock. */
void evrep_segment(const struct sched_segment *seg);
/* [from, to): the server ran at its own priority (a span of the
 * sliding-window check), in time order per server. */
void evrep_span(unsigned server, uint64_t from, uint64_t to);
/* A job arrived (arg: cost_us) or completed (arg: a server job's response
 * time, which is kept for the summary; 0 for a periodic job). */
void evrep_job(int done, uint64_t at, unsigned task, uint64_t job,
	       uint64_t arg);
void evrep_note(const struct sched_note *n);

/* What the driver measured, for the RESULT lines. */
struct evrep_run {
	unsigned cpus;
	uint64_t end_us, quantum_us;
	const uint64_t *self_us;     /* per entry: its thread's CPU time */
	const uint64_t *queued;      /* per server: jobs left at the end */
	const uint64_t *dropped;     /* per server: arrivals its full queue
				      * refused */
	const uint64_t *wakes;       /* per CPU: timer interrupts taken */
	const uint64_t *late_max_ns; /* per CPU: latest entry after the
				      * time armed */
	const uint64_t *late_sum_ns;
	uint64_t boundary_missed;    /* timer times passed while busy */
};

/* After the run, on the boot CPU: everything, in order. Returns the
 * deadline misses reported; *window_bad: servers over their bound. */
uint64_t evrep_print(const struct sched_plugin *plugin, void *s,
		     const struct taskset *ts, const struct evrep_run *run,
		     unsigned *window_bad);

/* After evrep_print: of the servers the window check applies to
 * (*checked), those that ran more than their budget + slack_us in some
 * window -- unless plan_over (per entry; may be NULL) says the plan's own
 * window was over too; *within: the others over their budget alone. */
unsigned evrep_windows_over(uint64_t slack_us, const int *plan_over,
			    unsigned *checked, unsigned *within);

/* The summary line evrep_print printed, without its newline (for the
 * trace dump's TRACE-SUMMARY). */
const char *evrep_summary(size_t *len);

#endif
