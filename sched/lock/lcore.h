/*
 * sched/lock/lcore: the quantum-driven EDF scheduler of the lock variants
 * of pedf, gedf and cedf (docs/locking.md): the job model of sched/edf
 * with critical sections, and the protocols' rules for who runs.
 *
 * Jobs (as sched/edf/edf.h): task i releases jobs at phase + k p_i, each
 * with e_i quanta of work due by its release + d_i; a job completes at the
 * end of the slot of its last quantum of work, late by its tardiness; a
 * late task's next job waits for it. Base priority: the key (absolute
 * deadline, task index), smaller first. A job has *started* once it ran or
 * spun in a slot.
 *
 * Where tasks go: pedf places them by first-fit decreasing density onto
 * CPUs (sched/edf/partition.h), cedf onto clusters of K CPUs by
 * utilisation, gedf has one cluster of M. A task's jobs run on its CPU or
 * in its cluster only.
 *
 * Sections: a job's operations (sched/lock/lock.h) are due at the
 * boundary where the quantum of work that reaches their point ends. At a
 * boundary t, in this order:
 *   1. every CPU's slot t - 1 is charged to the job it ran: a quantum of
 *      work, or of spinning (no work) for a job spinning;
 *   2. the resources' releases due (in task order);
 *   3. jobs whose work is done complete (any resource they still hold is
 *      released for them, SCHED_LOCK_FORCED), then the jobs released
 *      at t start;
 *   4. each CPU's job for slot t (below);
 *   5. the requests due of the jobs chosen (in task order -- so of two
 *      requests at one boundary the lower task index queues first): a
 *      request is the first thing a job does in the quantum its section
 *      begins with, so one not chosen makes it when it next runs. When
 *      a request leaves a chosen job suspended, step 4 again.
 * So a job preempted where one section ends and the next begins is
 * preempted before it asks for the second, as in a kernel where a release
 * is a preemption point.
 * Between two boundaries where one of these happens nothing changes, so
 * the variants run at events (next_event) like their plain plugins.
 *
 * The protocols:
 *   srp (pedf) -- Baker's stack resource policy: every resource is used
 *      from one CPU; its ceiling is the smallest relative deadline d of
 *      its users, the CPU's ceiling the smallest ceiling of the resources
 *      held there (none: infinite). A job may start only when its d is
 *      below the CPU's ceiling. A request always finds its resource free.
 *   msrp (pedf) -- Gai et al.'s multiprocessor SRP: a resource used from
 *      one CPU is local and follows srp; a global one (used from several)
 *      is a FIFO spin lock: a request finding it taken or others queued
 *      joins the FIFO and spins; a release hands it to the FIFO's head at
 *      the same boundary. A job spinning or holding a global resource is
 *      non-preemptive.
 *   omlp (gedf, cedf) -- Brandenburg and Anderson's global OMLP: every
 *      resource has a FIFO queue of at most K jobs (K the cluster's CPUs)
 *      whose head holds it, and behind it a queue by base priority; a
 *      request joins the FIFO when it has room, else the priority queue;
 *      a release moves the FIFO on and the priority queue's head into it.
 *      Waiting jobs are suspended. A holder runs with the highest
 *      priority of itself and the jobs waiting for what it holds
 *      (priority inheritance). Every user of a resource is in one cluster
 *      (cedf).
 *
 * Who runs:
 *   partitioned (pedf), each CPU: the job it ran in the slot before, if
 *      that job is non-preemptive; else the highest-priority ready job
 *      J, if J has started or its d is below the CPU's ceiling; else the
 *      highest-priority ready job that has started.
 *   global (gedf, cedf, omlp), each cluster of K: the K ready (not
 *      suspended) jobs of highest priority, with inheritance. A chosen
 *      job that ran in the slot before keeps its CPU; the others take the
 *      free CPUs of the cluster, lowest-numbered first, in priority order.
 *
 * In the kernel (sched_config.program_locks) the operations come from the
 * tasks' programs through lock_op(): each is due where the quantum of work
 * in progress when it was made ends, with the same order as above.
 */
#ifndef SCHED_LOCK_LCORE_H
#define SCHED_LOCK_LCORE_H

#include "../sched.h"

struct lcore;

enum lcore_mode { LCORE_PARTITIONED, LCORE_GLOBAL };

/* Tasks on home[i]: a CPU (partitioned) or a cluster of `cluster` CPUs
 * (global). NULL with a message for what the protocol cannot run. */
struct lcore *lcore_create(const struct sched_config *cfg,
			   const struct sched_env *env, enum lcore_mode mode,
			   unsigned cluster, const unsigned *home,
			   const char *plugin, struct sched_error *err);

int lcore_schedule(struct lcore *c, unsigned cpu, uint64_t t);
uint64_t lcore_next_event(const struct lcore *c, uint64_t t);
void lcore_leave(struct lcore *c, unsigned task, uint64_t t);
void lcore_complete(struct lcore *c, unsigned task, uint64_t t);
void lcore_stats(struct lcore *c, unsigned task, struct sched_task_stats *out);
void lcore_lock_stats(struct lcore *c, unsigned task,
		      struct sched_lock_stats *out);
int lcore_lock_op(struct lcore *c, unsigned task, int unlock, unsigned res,
		  uint64_t t, struct sched_error *err);
void lcore_summary(struct lcore *c, sched_put_fn put, void *ctx);
void lcore_dump(const struct lcore *c, sched_print_fn print, void *ctx);

#endif
