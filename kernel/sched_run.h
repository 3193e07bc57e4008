/*
 * kernel/sched_run: a scheduler plugin from sched/ driven by the quantum
 * clock -- the code proven on the host, deciding on each CPU at each of its
 * boundaries. Tasks are not yet threads: each CPU records the task the
 * plugin chose for its slot, and the schedule is printed as FORMATS.md
 * section 2 JSON lines, the same as tools/schedsim prints.
 */
#ifndef KERNEL_SCHED_RUN_H
#define KERNEL_SCHED_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "../sched/driver.h"

/* The driver of the run, for GDB's `rtk` commands (tools/gdb): its plugin
 * is NULL until a run starts. */
extern const struct sched_driver *const sched_run_driver;

/*
 * Runs the plugin over the task-set text for slots quanta. Returns 0, or -1
 * after printing why, with a one-word reason for RESULT exit.
 */
int sched_run(const struct sched_plugin *plugin, const char *file,
	      const char *text,
	      size_t len, uint64_t slots, uint64_t quantum_us,
	      const char **reason);

#endif
