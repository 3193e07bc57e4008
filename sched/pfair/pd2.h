/*
 * sched/pfair/pd2: aligned master/slave PD2 (the `pd2` plugin).
 *
 * The call for CPU 0 at slot t decides slot t for all M CPUs in
 * O(M log N): the M highest-priority eligible subtasks (Sec. 2.1). A task
 * that ran in slot t-1 and runs again in t keeps its CPU (the affinity
 * rule of Sec. 3, "tasks can be migrated only after preemptions"); the
 * others take the free CPUs in priority order, lowest CPU index first.
 * Calls for CPUs 1..M-1 return what CPU 0's call decided.
 *
 * Locking the kernel must provide: one lock around every call, as for any
 * plugin (sched.h); CPUs 1..M-1 must not ask before CPU 0 decided the slot.
 */
#ifndef SCHED_PFAIR_PD2_H
#define SCHED_PFAIR_PD2_H

#include "../sched.h"

extern const struct sched_plugin pd2;

#endif
