/*
 * sched/pfp/pfp: partitioned fixed-priority scheduling with aperiodic
 * servers, the `pfp` plugin -- event-driven, in microseconds (sched.h,
 * docs/schedulers-event-driven.md).
 *
 * Each task and server stays on its cpu= (default 0). On a CPU the ready
 * entity with the smallest prio= runs, SCHED_FIFO style (POSIX): among
 * equal priorities the one that became ready first, and a preempted one
 * keeps its place at the head; a task whose next job is already released
 * when one ends goes on without losing its place. A server out of budget
 * that still has work runs at a background level below every task (in
 * prio order among such servers); one that moves between the levels is
 * queued at the tail of the level it enters.
 *
 * Periodic tasks take e, p, d and phase in quanta, each quantum
 * cfg->quantum_us microseconds: job k is released at (phase + k p) Q and
 * due by that plus d Q. Jobs of a task run in order. The plugin does not
 * enforce e (SCHED_FIFO): a job ends when the driver says so (complete());
 * the simulator does after e Q of work. A job that ends after its deadline
 * is a miss, its tardiness in microseconds. The servers' budgets follow
 * server.h.
 *
 * Every call first accounts the time since the CPU's last call to what it
 * was told to run (a server's foreground time to its budget), processing
 * on the way any release, replenishment or budget exhaustion that fell in
 * between; the driver's next_call() timers make those calls happen at the
 * instants themselves, so late calls (a kernel's timer latency) only delay
 * decisions, never accounting. A CPU's answer changes only in schedule().
 * Tasks, servers and CPUs are independent across CPUs; the calls need the
 * plugin-wide serialisation of sched.h all the same.
 */
#ifndef SCHED_PFP_PFP_H
#define SCHED_PFP_PFP_H

#include "../sched.h"

extern const struct sched_plugin pfp_plugin;

#endif
