/*
 * kernel/run/lock: locks in a run (docs/locking.md) -- the lock and unlock
 * system calls of lib/rt_abi.h, and what the plugin's lock variant reports
 * as it happens: trace records (lib/trace_rec.h, TRACE_LOCK and
 * TRACE_BLOCKED), the slots a task spins (no work for its job,
 * kernel/task/jobs.h), the grants a lock call waits for; and after the run
 * the RESULT lock lines and what was refused or released for a task.
 */
#ifndef KERNEL_RUN_LOCK_H
#define KERNEL_RUN_LOCK_H

#include <stddef.h>
#include <stdint.h>

#include "../../arch/x86/trap.h"
#include "../../sched/driver.h"
#include "../task/task.h"

/* Before a run over ts; quantum: the plugin's times are slots (else
 * microseconds). The plugin's lock events go to lock_on_event (a
 * quantum-driven run's sched_driver.on_lock, an event-driven run's
 * sched_env.lock). */
void lock_run_setup(const struct taskset *ts, int quantum);
void lock_on_event(void *ctx, const struct sched_lock_event *ev);

/* Where the calls go: the plugin under its lock, at the caller's time.
 * A quantum-driven run's is decide_lock (kernel/run/sched_decide.c); an
 * event-driven run installs its own after lock_run_setup. Returns 0, or a
 * negative SCHED_LOCK_E* with the plugin's message in why. */
typedef int (*lock_op_fn)(unsigned task, int unlock, unsigned res, char *why,
			  size_t size);
void lock_set_op(lock_op_fn fn);

/* The system calls (kernel/run/syscall.c's table). */
int64_t lock_sys_lock(struct task *t, struct trap_frame *f);
int64_t lock_sys_unlock(struct task *t, struct trap_frame *f);

/* After the run: a RESULT lock line per task, and the refusals and forced
 * releases on the console. Nothing for a set without resources. */
void lock_report(const struct sched_plugin *plugin, void *s);

#endif
