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

#include "../../sched/driver.h"

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

/*
 * Shared with the event-driven driver (kernel/events/event_run.c), once the
 * task threads exist: the dispatcher, system calls, fault handling, idle
 * loops and their calibration for the idle threads idle[]; every task's
 * control page for quanta of quantum_us; and what each CPU of the run
 * does (smp_run_on_all): start its clock at boundary 0, run its idle
 * thread until the run's end, stop.
 */
struct task;
void sched_run_threads_setup(struct task *idle);
void sched_run_fill_controls(uint64_t quantum_us);
void sched_run_cpu(void *arg);

#endif
