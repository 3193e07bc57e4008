/*
 * kernel/task/jobs: the jobs of each task as the kernel accounts them, from what
 * actually ran. The plugin has its own model for its decisions; this one
 * is the measurement, written to the trace (release, completion,
 * deadline_miss records) and read back for `RESULT task`.
 *
 * The model is the periodic task of the task-set file, on the aligned grid
 * of slots (a release at slot r is at T0 + r*Q on every CPU, staggered or
 * not): job j of a task is released at phase + j*p and is due d slots
 * later. A job is done when
 *  - it has run e quanta: a CPU's slot counts for the task the plugin
 *    decided for it (kernel/run/dispatch.c, dispatch_account) -- the
 *    thread that ran it when the CPU keeps up, and the plugin's task still
 *    when the CPU was too late to run it -- so the two job counts agree;
 *    the job completes at the ideal end of its last slot (so staggered
 *    Pfair's effect E1 is a tardiness of k/M quanta on CPU k, as the
 *    paper has it), or
 *  - the task says so (sleep_next_period), at that instant;
 * it missed its deadline when it completed after it. A task that runs ahead
 * of its releases (Pfair's early release) works on its next job.
 *
 * The `at` events follow the sporadic rules of sched/edf/edf.h: no release
 * while blocked or absent; a wake at w when a job is due (an unfinished one
 * past its deadline, or a release that fell in the blocked time) drops the
 * unfinished jobs (each a miss) and releases one at w, periodic from there;
 * leave drops unfinished jobs uncounted; join releases at the later of the
 * join and the next periodic release. A task the kernel stops (a fault, an
 * exit) leaves. Weight-only tasks have no jobs.
 */
#ifndef KERNEL_JOBS_H
#define KERNEL_JOBS_H

#include <stdint.h>

#include "task.h"

struct taskset;

/* Before the run: each task's model from its spec, and the release queue;
 * ts's `at` events drive it too. */
void jobs_setup(const struct taskset *ts, struct task *all, unsigned n);

/* Slot r's start on the aligned grid, in boot-CPU TSC time. */
uint64_t jobs_slot_time(uint64_t r);

/* The release and deadline slots of job j of t. */
uint64_t jobs_release_slot(const struct task *t, uint64_t j);
uint64_t jobs_deadline_slot(const struct task *t, uint64_t j);

/* CPU 0 at boundary t: the releases due by t, then the set's `at` events
 * at t (in file order from *next_event). */
void jobs_boundary(uint64_t t, unsigned *next_event);

/* On CPU cpu, slots [from, to) count for t: the plugin decided t for
 * each (one slot at a quantum boundary; at events, every slot since the
 * CPU last charged). */
void jobs_charge(struct task *t, unsigned cpu, uint64_t from, uint64_t to);

/* t spins for a resource from slot `from` on (to UINT64_MAX), or stops at
 * slot `to`: the slots in between are not work, so they do not count
 * towards its budget (docs/locking.md). Under the plugin's lock. */
void jobs_spin(struct task *t, uint64_t from);
void jobs_spin_end(struct task *t, uint64_t to);

/* t said its job is done, at boot-CPU TSC time now. */
void jobs_complete(struct task *t, uint64_t now);

/* The kernel stopped t (a fault, an exit) at slot. */
void jobs_stop(struct task *t, uint64_t slot);

#endif
