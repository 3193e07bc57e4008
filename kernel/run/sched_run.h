/*
 * kernel/run/sched_run: a run of the task set's threads under a scheduler
 * plugin from sched/ -- the code proven on the host. sched_run_prepare
 * makes the threads for either kind of run; sched_run_quanta drives a
 * quantum-driven plugin from the quantum clock, deciding on each CPU at
 * each of its boundaries (kernel/run/sched_decide.c) and switching to the
 * answers (kernel/run/dispatch.c). The schedule is printed as the same
 * JSON lines tools/schedsim prints (docs/formats.md).
 */
#ifndef KERNEL_SCHED_RUN_H
#define KERNEL_SCHED_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "../../sched/driver.h"

/* The driver of the run, for GDB's `rtk` commands (tools/gdb): its plugin
 * is NULL until a run starts. */
extern const struct sched_driver *const sched_run_driver;

struct task;
struct taskset;

/* What a run of either kind starts from: the parsed task set, the CPUs
 * of the run, and their idle threads (one per CPU). */
struct sched_run_setup {
	const struct taskset *ts;
	unsigned cpus;
	struct task *idle;
};

/*
 * Before any run of plugin: parses the task-set text, checks its programs
 * and the memory a run of slots quanta takes, prepares every CPU, loads
 * the tasks' programs and makes their threads and the idle threads.
 * Returns 0 with *out filled, or -1 after printing why, with a one-word
 * reason for RESULT exit.
 */
int sched_run_prepare(const struct sched_plugin *plugin, const char *file,
		      const char *text, size_t len, uint64_t slots,
		      struct sched_run_setup *out, const char **reason);

/*
 * After sched_run_prepare: runs the quantum-driven plugin for slots
 * quanta of quantum_us on the idle threads idle[]. Returns 0, or -1
 * after printing why with a one-word reason. (Event-driven plugins run in
 * kernel/events/event_run.c instead.)
 */
int sched_run_quanta(const struct sched_plugin *plugin, const char *file,
		     struct task *idle, uint64_t slots, uint64_t quantum_us,
		     const char **reason);

/*
 * Shared with the event-driven driver (kernel/events/event_run.c), once the
 * task threads exist: the dispatcher, system calls, fault handling, idle
 * loops and their calibration for the idle threads idle[]; every task's
 * control page for quanta of quantum_us; and what each CPU of the run
 * does (smp_run_on_all): start its clock at boundary 0, run its idle
 * thread until the run's end, stop.
 */
void sched_run_threads_setup(struct task *idle);
void sched_run_fill_controls(uint64_t quantum_us, uint64_t epoch_tsc);
void sched_run_cpu(void *arg);

/*
 * Also shared, after sched_run_threads_setup and before the run's clock
 * (which sets T0): every task's control page without an epoch yet, and the
 * phase before the synchronous release (kernel/run/release.h). Returns 0,
 * or -1 with a one-word reason.
 */
int sched_run_release(uint64_t quantum_us, const char **reason);


#endif
