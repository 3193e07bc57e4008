/*
 * sched/edf/jobs: the job model the EDF plugins share (edf.h states it):
 * task i releases jobs at phase + k * p_i, each needing e_i quanta by its
 * release + d_i; a job completes at the end of the slot in which its last
 * quantum ran, and missed its deadline if that is later, by its tardiness.
 * Jobs of a task run in order: a late task's next job is released when
 * the current one completes.
 *
 * Tasks between jobs -- present, not blocked, nothing left to run -- wait
 * in a release queue ordered by next release (ties by index), so the
 * releases due at a boundary cost O(log N) each instead of a scan of every
 * task.
 */
#ifndef SCHED_EDF_JOBS_H
#define SCHED_EDF_JOBS_H

#include <stdint.h>

#include "../../lib/heap.h"
#include "../sched.h"

/* Task indices take the low bits of a key, the deadline (below 2^44
 * quanta) the rest. */
#define EDF_TASK_BITS 20
#define EDF_MAX_TASKS (1u << EDF_TASK_BITS)

struct edf_job_task {
	uint64_t next_release;       /* of the job after the current one */
	uint64_t deadline;           /* of the current job, while rem > 0 */
	uint64_t charged;            /* 1 + the last slot charged */
	uint64_t blocked_at;
	uint32_t e, p, d;
	uint32_t rem;                /* quanta the current job still needs */
	unsigned cpu;                /* the engine's: where it is queued or runs */
	uint8_t present, blocked;
	uint8_t waiting;             /* in the release queue */
	struct heap_node wnode;
	unsigned id;
	struct sched_task_stats st;
};

struct edf_jobs {
	struct edf_job_task *task;
	uint64_t *key;               /* per task: deadline << TASK_BITS | task */
	struct heap waiting;
};

/* Every task of ts present, its first job due at its phase. */
void edf_jobs_init(struct edf_jobs *j, const struct taskset *ts,
		   const struct sched_env *env);

/* Puts task i in the release queue exactly when it is between jobs, keyed
 * by its next release. Called after every change of its state. */
void edf_jobs_update_waiting(struct edf_jobs *j, unsigned i);

/* Task i's next job is released at r: deadline r + d, e quanta to run. */
void edf_jobs_start(struct edf_jobs *j, unsigned i, uint64_t r);

/* The earliest next release of a waiting task; UINT64_MAX if none. */
uint64_t edf_jobs_next_release(const struct edf_jobs *j);

/* The waiting task whose release is due first by time b, or -1. */
int edf_jobs_due(const struct edf_jobs *j, uint64_t b);

/* Task i's current job completed at c: counted (a miss past its deadline,
 * with its tardiness), and the task waits for its next release. */
void edf_jobs_finish(struct edf_jobs *j, unsigned i, uint64_t c);

#endif
