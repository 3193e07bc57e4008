/*
 * sched/edf/edf: the EDF engine behind the `gedf`, `pedf` and `cedf`
 * plugins.
 *
 * Global EDF as in the global EDF paper (Lelli et al., Sec. 4): one logical
 * global queue made of per-CPU ready queues (rq.h); a job that arrives goes
 * to its task's last CPU and is pushed away when that CPU runs an earlier
 * one; a CPU whose job completes or blocks pulls the earliest pushable job
 * of all the other queues. The push target comes from the selectable push
 * structure (push.h). With partitioning, each task stays on its CPU and
 * nothing moves. Clustered (C-EDF), the CPUs are split into clusters of K:
 * each cluster is a global EDF of its own -- its own push structure, pulls
 * from its own queues -- and a task's jobs never leave its cluster; K = M
 * is global EDF, K = 1 partitioned.
 *
 * The job model (quanta): task i releases jobs at phase + k * p_i, each
 * needing e_i quanta by release + d_i. A job completes at the end of the
 * slot in which its last quantum ran; it missed if that is after its
 * deadline, by its tardiness. A late task's next job is released at its
 * periodic time but waits for the previous one (jobs of a task run in
 * order).
 *
 * Priority and ties: a job's key is (absolute deadline, task index), smaller
 * first; so two jobs never tie and "the M earliest-deadline jobs" is one
 * set. Invariant after every event (checked under SCHED_DEBUG): every queued
 * job that is not at the head of its queue has a larger key than every head
 * of its cluster, and no queue is empty while another of its cluster holds
 * two jobs.
 *
 * Blocking and waking (`at` events, decided here; the paper has none):
 * - block at t: the task's current job, if any, leaves its queue (a pull on
 *   its CPU); a blocked task releases no jobs.
 * - wake at w, the task still has an unfinished job with deadline > w: the
 *   job is queued again (a push) and the task goes on as before.
 * - wake at w otherwise (sporadic): when a job is due -- the unfinished one
 *   whose deadline has passed, or a release that fell in the blocked time --
 *   a new job is released at w with deadline w + d and the periodic releases
 *   continue from w. An unfinished job and the jobs released behind it
 *   before the block are dropped and each counted as a miss (they never
 *   complete, so they add no tardiness).
 * - leave drops the task's jobs uncounted (with any released behind the
 *   current one); join at t releases a job at max(t, the next periodic
 *   release), keeping jobs at least p apart, on the task's last CPU (P-EDF:
 *   its own; admission counted every declared task, so it always fits).
 * Events at t are applied after the slot t - 1 has been charged and the
 * releases at t made.
 *
 * Driving it: the engine counts time by the t of its calls, so the driver
 * calls schedule(cpu, t) for every CPU at every (aligned) boundary, as the
 * simulator does; the first call at t charges slot t - 1 to what each CPU
 * was last told and makes the boundary's completions and releases, with
 * their pushes and pulls. A CPU whose job changed outside its own call is
 * asked to reschedule through env->resched (the kernel's IPI); asking again
 * in the same slot returns the current choice, and a slot is charged once.
 */
#ifndef SCHED_EDF_EDF_H
#define SCHED_EDF_EDF_H

#include <stdint.h>

#include "../sched.h"
#include "jobs.h"
#include "push.h"

/* The operations the paper times (Sec. 6), with a caller-given clock. */
enum edf_op {
	EDF_OP_PUSH_FIND,   /* the push decision (push.h) */
	EDF_OP_ENQUEUE,     /* into a ready queue, with the push structure */
	EDF_OP_DEQUEUE,
	EDF_OP_PULL,        /* the scan of all queues, moving included */
	EDF_OPS
};

struct edf_op_stats {
	uint64_t count[EDF_OPS];
	uint64_t cycles[EDF_OPS];
};

struct edf;

/*
 * Creates the engine over clusters of `cluster` CPUs each -- CPUs
 * [c * cluster, (c + 1) * cluster) form cluster c; cluster divides M --
 * with global EDF inside each cluster through the given push structure:
 * cluster = M is G-EDF, between 1 and M C-EDF. cluster = 0 is P-EDF: no
 * push structure, nothing moves. Task i's jobs are first queued on CPU
 * home[i] and stay in its cluster (P-EDF: on that CPU); home == NULL: CPU
 * i mod M (read at creation only). Returns NULL with a message for a set
 * it cannot schedule.
 */
struct edf *edf_create(const struct sched_config *cfg,
		       const struct sched_env *env, enum edf_push_mode mode,
		       unsigned cluster, const unsigned *home,
		       struct sched_error *err);

int edf_schedule(struct edf *s, unsigned cpu, uint64_t t);
/* After the calls at t: the first boundary after t with a release or a
 * completion, where the next decision is due (sched.h, next_event). */
uint64_t edf_next_event(const struct edf *s, uint64_t t);
/* A task that left comes back, on the CPU it was on (P-EDF: its own). */
int edf_join(struct edf *s, unsigned task, uint64_t t,
	     struct sched_error *err);
void edf_leave(struct edf *s, unsigned task, uint64_t t);
void edf_block(struct edf *s, unsigned task, uint64_t t);
void edf_wake(struct edf *s, unsigned task, uint64_t t);
void edf_complete(struct edf *s, unsigned task, uint64_t t);
void edf_stats(struct edf *s, unsigned task, struct sched_task_stats *out);
/* Summary keys: pushes and pulls (G-EDF), reschedules (requests sent
 * through env->resched), dropped_jobs (by a wake after the deadline). */
void edf_summary(struct edf *s, sched_put_fn put, void *ctx);
/* The plugins' dump(): each CPU's queue in heap order (the head runs) and,
 * for global EDF, the CPU deadline heap and its free mask or the free-CPU
 * mask (format in docs/debugging.md). */
void edf_dump(const struct edf *s, sched_print_fn print, void *ctx);

/* CPUs per cluster (edf_create; 1 for P-EDF). */
unsigned edf_cluster(const struct edf *s);

/*
 * Times enqueue, dequeue and the push decision with clock (e.g. the TSC);
 * NULL turns timing off (the default).
 */
void edf_set_clock(struct edf *s, uint64_t (*clock)(void));
void edf_op_stats(const struct edf *s, struct edf_op_stats *out);

#endif
