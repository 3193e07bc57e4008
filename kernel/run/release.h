/*
 * kernel/run/release: the synchronous release (LITMUS^RT's release
 * barrier). Before a run, every task whose program declares
 * RT_PROG_SYNC_RELEASE (lib/rt_abi.h) runs until it calls
 * RT_SYS_WAIT_RELEASE -- its own set-up: arguments, working set, whatever
 * it wants done before its first job. The run's epoch T0 is taken only
 * then: the quantum clock is started for the run (kernel/time/
 * quantum_clock.c, its usual lead included) once every such task has
 * reached the barrier, or once the timeout (release_timeout_ms=) has
 * passed. Every task's jobs are then released together from T0 as the
 * task set says (phase= included), and the simulator's time 0 is T0: a
 * schedule does not see the phase before it.
 *
 * The phase runs on the run's CPUs on a quantum clock of its own: at each
 * boundary a CPU takes the next task that has not reached the barrier
 * (round robin, one quantum each); no plugin is asked, nothing is traced,
 * and the tasks' CPU time is counted from T0. A task that reaches the
 * barrier waits there, in its system call, until the run first dispatches
 * it; one still short of it at the timeout is stopped where it is and
 * goes on from there when the run dispatches it (its later
 * RT_SYS_WAIT_RELEASE returns RT_RELEASE_PASSED at once). A task killed
 * or ended in the phase leaves the run at slot 0.
 */
#ifndef KERNEL_RELEASE_H
#define KERNEL_RELEASE_H

#include <stdint.h>

struct task;

/*
 * After sched_run_threads_setup, before the run's clock: the phase, on
 * cpus CPUs in quanta of quantum_us, for at most timeout_ms; nothing to do
 * when no program declares RT_PROG_SYNC_RELEASE. Prints what came of it
 * (a `release:` line and RESULT release). Returns 0, or -1 when a CPU
 * never finished the phase (its quantum clock stopped), after saying so.
 */
int release_phase(unsigned cpus, uint64_t quantum_us, uint64_t timeout_ms);

/* RT_SYS_WAIT_RELEASE of task t (interrupts off, in its system call): 0
 * once the run has started and dispatched t, or RT_RELEASE_PASSED at once
 * when the phase is over or t takes no part in it. */
int64_t release_wait(struct task *t);

#endif
