/*
 * sched/lock/lpfp: the lock variant of pfp (docs/locking.md) --
 * partitioned fixed priority, event-driven in microseconds, with the
 * priority ceiling protocol on each CPU and the multiprocessor priority
 * ceiling protocol across CPUs.
 *
 * Jobs: each task stays on its cpu=; job k is released at (phase + k p) Q
 * and due by that plus d Q (Q = cfg->quantum_us); its work ends when the
 * driver says so (complete(), as pfp: the simulator after e Q of work).
 * Jobs of a task run in order. A job's base priority is its task's prio=
 * (smaller is higher), ties by task index. Servers are not taken.
 *
 * Sections: the driver reports each lock and unlock (lock_op) at the
 * instant a job's work reaches the point its cs= names -- the simulator
 * from the layout, the kernel from the program's system call -- and the
 * plugin applies it at once. At one instant the simulator reports the
 * operations due of the jobs that run after the completions, arrivals and
 * decisions (unlocks first, in task order), and decides again, until none
 * is due (sched/evsim.h).
 *
 * pcp -- Sha, Rajkumar and Lehoczky's priority ceiling protocol, each
 *   resource used on one CPU: its ceiling is the highest priority of its
 *   users. A job may lock a free resource only if its priority is higher
 *   than the ceiling of every resource held by other jobs of its CPU;
 *   otherwise it is suspended, and the job holding the resource it wants
 *   (or, when that is free, the one holding the resource with the highest
 *   ceiling) runs with the waiter's priority if it is higher (inheritance).
 *   When a resource is released the CPU's waiters, highest priority first,
 *   get theirs while the rule allows.
 * mpcp -- Rajkumar's multiprocessor priority ceiling protocol: a resource
 *   used from one CPU follows pcp there; a global one is held in a global
 *   critical section that runs above every priority of the holder's CPU,
 *   at the highest priority of the users on other CPUs (among global
 *   sections of one CPU, the higher that ceiling, the earlier). A request
 *   for a held global resource suspends the job in the resource's queue,
 *   ordered by base priority; a release hands it to the queue's head.
 *   Sections do not nest.
 *
 * Who runs on a CPU: its ready (released, unfinished, not suspended) job
 * of highest effective priority -- a global section's level first, then
 * priority with inheritance, then task index.
 */
#ifndef SCHED_LOCK_LPFP_H
#define SCHED_LOCK_LPFP_H

#include "../sched.h"

extern const struct sched_plugin pfp_locks;

#endif
