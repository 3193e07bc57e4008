/*
 * sched/lock/lock: what the locking protocols share -- the resources of a
 * set, each task's critical sections as lock and unlock operations at
 * points of its jobs' work, the queues of waiting jobs, and the per-job
 * accounts of blocking (docs/locking.md). Hardware-free: the kernel and
 * the simulator run the same code, as they run the plugins.
 *
 * A task's sections (task line cs=R:LEN@AT, lib/taskset.h) become
 * operations at points of its job's work: a request for R when AT units of
 * work are done, a release when AT + LEN are. At one point a job releases
 * first (the innermost section first), then requests (the outermost
 * first). The unit is the plugin's: quanta, or for an event-driven plugin
 * quanta of cfg->quantum_us microseconds.
 *
 * Blocking, per job and in the plugin's time unit, each instant in one
 * category (docs/locking.md, "What is measured"):
 *   spin  -- it holds a CPU spinning for a resource;
 *   wait  -- it is suspended waiting for a resource;
 *   pi    -- priority inversion: it is pending and not running, and on a
 *            partitioned plugin a job of lower base priority runs on its
 *            CPU; on a global or clustered one it is among the K highest
 *            base priorities of the pending jobs of its cluster of K
 *            (suspended ones included) and not running;
 *   intf  -- interference: pending, not running, none of the above.
 * A job's blocking is spin + wait + pi.
 */
#ifndef SCHED_LOCK_LOCK_H
#define SCHED_LOCK_LOCK_H

#include <stdint.h>

#include "../sched.h"

#define LOCK_NONE (-1)

enum lock_op_kind { LOCK_OP_RELEASE, LOCK_OP_REQUEST };

/* One operation of a task's job, at `at` units of its work. */
struct lock_op {
	uint32_t at;
	uint8_t kind;            /* enum lock_op_kind */
	uint8_t res;
};

/* Blocking categories (the header comment). */
enum lock_cat { LOCK_CAT_RUN, LOCK_CAT_SPIN, LOCK_CAT_WAIT, LOCK_CAT_PI,
		LOCK_CAT_INTF, LOCK_CAT_IDLE, LOCK_CATS };

/* A FIFO of task indices. */
struct lock_fifo {
	unsigned *v;
	unsigned head, n, cap;
};

struct lock_task {
	struct lock_op ops[2 * TASKSET_CS_MAX];
	unsigned nops;
	uint64_t uses;           /* mask of the resources its sections name */
	unsigned next_op;        /* the job's next operation (layout mode) */
	/* The job's state. */
	uint64_t held;           /* mask of the resources it holds */
	uint8_t stack[TASKSET_CS_MAX];   /* ... in the order acquired */
	unsigned nstack;
	int waiting;             /* the resource it waits for, or LOCK_NONE */
	uint8_t spinning;        /* ... spinning (else suspended) */
	uint64_t seq;            /* when it requested (FIFO order among PQ) */
	/* Its program's operations not yet taken effect (program_locks),
	 * in the order made: each takes effect where a unit of the task's
	 * work from pend_from[k] on ends (the one in progress when it was
	 * made), a job's end or start notwithstanding. */
	struct lock_op pend[4];
	uint64_t pend_from[4];
	unsigned npend;
	/* Blocking of the current job, by enum lock_cat. */
	uint64_t cat[LOCK_CATS];
	struct sched_lock_stats st;
};

struct lock_res {
	int holder;              /* task index, or LOCK_NONE */
	struct lock_fifo fifo;   /* spin locks: waiters in request order;
				    OMLP: the FIFO queue, head = holder */
	unsigned *pq;            /* OMLP: the priority queue */
	unsigned npq;
	/* Where it is used: the one CPU (cluster) of all its users, or
	 * LOCK_NONE when several (a global resource). */
	int home;
	uint32_t ceil_d;         /* SRP: the smallest relative deadline of its
				    users (its ceiling as a preemption level) */
	uint32_t ceil_prio;      /* PCP: the highest priority (smallest
				    prio=) of its users */
};

struct lock_set {
	const struct taskset *ts;
	enum taskset_protocol protocol;
	struct lock_task *task;
	struct lock_res *res;
	unsigned ntasks, nres;
	struct sched_env env;
	int program_locks;
	uint64_t seq;
};

/* Task t's operations in the order its job meets them (at most
 * 2 * TASKSET_CS_MAX); returns how many. */
unsigned lock_ops_of(const struct task_spec *t, struct lock_op *ops);

/* Per task: how far its jobs' work goes and the sections' lengths of the
 * set are checked by the parser; this builds the operations. */
void lock_set_init(struct lock_set *ls, const struct sched_config *cfg,
		   const struct sched_env *env);

/*
 * With each task's home (CPU for a partitioned plugin, cluster for a
 * clustered one, 0 for global): which resources are local, and their
 * ceilings. Refuses (-1, message) what the protocol cannot run: srp and pcp
 * with a resource used from two homes; nesting under protocols that
 * forbid it (msrp, mpcp, omlp); with not_at_0, a section starting at 0
 * (a request is made while the job runs, after some of its work).
 */
int lock_set_place(struct lock_set *ls, const unsigned *home, int not_at_0,
		   const char *plugin, struct sched_error *err);

/* The protocol forbids nesting. */
int lock_nesting_forbidden(enum taskset_protocol p);

/* Job `job` of task takes res at `at` (holder, held, its stack; no
 * longer waiting), reported. */
void lock_take(struct lock_set *ls, unsigned task, unsigned res, uint64_t job,
	       uint64_t at);
/* It lets res go (forced: released for it at its job's end or its
 * leave, counted), reported; the caller hands res on. */
void lock_drop(struct lock_set *ls, unsigned task, unsigned res, uint64_t job,
	       uint64_t at, int forced);

/* Report an event (env.lock). */
void lock_emit(struct lock_set *ls, enum sched_lock_kind kind, unsigned task,
	       unsigned res, uint64_t job, uint64_t at);

/* The current job of task ended at `at` (job index `job`): its blocking
 * reported (SCHED_LOCK_BLOCKED) and folded into its maxima, the
 * accounts reset. */
void lock_job_end(struct lock_set *ls, unsigned task, uint64_t job,
		  uint64_t at);

/*
 * A program's operation (sched_plugin.lock_op): checked against the task's
 * state and sections, and kept until the unit of work in progress at t
 * ends. 0, or -SCHED_LOCK_E* with a message.
 */
int lock_program_op(struct lock_set *ls, unsigned task, int unlock,
		    unsigned res, uint64_t t, struct sched_error *err);

/* FIFO helpers. */
void lock_fifo_push(struct lock_fifo *f, unsigned v);
unsigned lock_fifo_pop(struct lock_fifo *f);
unsigned lock_fifo_at(const struct lock_fifo *f, unsigned i);
/* Removes v wherever it is; 1 if it was there. */
int lock_fifo_remove(struct lock_fifo *f, unsigned v);

#endif
