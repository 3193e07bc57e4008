/*
 * sched/gdq: Grouped Distributed Queues (Caprita, Nieh & Stein, CUCS-004-06),
 * the proportional-share scheduler, as a plugin of sched/sched.h.
 *
 * Parameters: gdq_T (inter-group interval, quanta, default 20), gdq_delta
 * (intra-group NVT slack, default 4), gdq_err (1: track service errors for
 * the summary, an O(N) pass per slot meant for the simulator; default 1).
 */
#ifndef SCHED_GDQ_GDQ_H
#define SCHED_GDQ_GDQ_H

#include "../sched.h"

extern const struct sched_plugin gdq_plugin;

#endif
