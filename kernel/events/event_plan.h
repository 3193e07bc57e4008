/*
 * kernel/events/event_plan: an event-driven plugin's plan for the set the
 * kernel just ran -- the simulated machine's run of the same set over the
 * same time (sched/evsim, the code schedsim runs), after the kernel's run:
 * the deadline misses and the servers' windows the plugin has on a machine
 * whose every event is on time and free. The verdict (kernel/run/verdict.h)
 * compares the run with it.
 */
#ifndef KERNEL_EVENT_PLAN_H
#define KERNEL_EVENT_PLAN_H

#include <stdint.h>

#include "../../lib/taskset.h"
#include "../../sched/sched.h"

struct evplan {
	uint64_t *misses;       /* per entry: the plan's deadline misses */
	int *window_over;       /* per server: the plan's own window is over */
};

/* 0 with *out filled in, or -1 with *why saying why there is no plan (the
 * jobs came from elsewhere, or it would not fit the memory left). */
int evplan_run(const struct sched_plugin *plugin, const struct taskset *ts,
	       unsigned cpus, uint64_t end_us, uint64_t quantum_us,
	       struct evplan *out, const char **why);

#endif
