/*
 * kernel/run/run_report: what a scheduler run prints when it is over -- the
 * executed schedule (docs/formats.md, "Schedules as JSON lines": who
 * really ran in each slot, from the trace), the plugin's summary, a table of the tasks for people,
 * and the RESULT sched, ticks, task, overhead and hourglass lines, all
 * computed from the trace records (lib/trace_stats) the decoder reads too.
 */
#ifndef KERNEL_RUN_REPORT_H
#define KERNEL_RUN_REPORT_H

#include "../../lib/taskset.h"
#include "../../sched/sched.h"

void run_report(const struct sched_plugin *plugin, void *s,
		const struct taskset *ts, unsigned cpus);

/* What the tasks wrote (RT_SYS_WRITE), line by line behind their names:
 * after a run of either kind. */
void run_report_task_output(void);

#endif
