/*
 * sched/pfair/pfair: what the two Pfair plugins share -- the tasks, exact
 * admission, the rules for dynamic task sets, statistics.
 *
 * Dynamic task sets (staggered Pfair Sec. 2.2 and 3.2; the join and leave
 * conditions are Srinivasan and Anderson's, cited there as [13]):
 *  - An event at time tau takes effect from slot max(tau, next_slot): the
 *    first slot whose set a plugin can still change.
 *  - block: the task is deactivated (Fig. 7) and keeps its weight.
 *  - wake: an intra-sporadic (IS) delay: the pending subtask's window is
 *    right-shifted so that it is released no earlier than the wake-up
 *    slot; then the task is activated (Fig. 7).
 *  - leave: the task stops competing at once (deactivated, and nothing it
 *    has not been granted is owed: GIS omission), but its weight is only
 *    released at the earliest legal leaving time -- d(T_i) + b(T_i) for a
 *    light task, its group deadline D(T_i) for a heavy one, T_i its
 *    last-scheduled subtask (immediately if none ran since it joined).
 *  - join of a task that left: admitted if the weights then reserved plus
 *    its own fit in M. A join that comes too early -- its own weight, or
 *    that of other leaving tasks, is still reserved -- is deferred to the
 *    first slot at which it fits (pending joins are retried in task-index
 *    order); one that would not fit even after every reserved weight is
 *    released is refused with a message. A joining task starts afresh:
 *    subtask 1 released at its join slot. Events for a task whose join is
 *    still pending act on the join: block makes it join blocked, wake
 *    undoes that, leave cancels the join.
 *  - complete (a job ends early): the job's remaining subtasks are omitted
 *    (GIS) and the next job's first subtask becomes current.
 */
#ifndef SCHED_PFAIR_PFAIR_H
#define SCHED_PFAIR_PFAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "../../lib/ratsum.h"
#include "../sched.h"
#include "pfair_queue.h"
#include "pfair_task.h"

struct pfair;

/* The plugin side of Fig. 7: Activate(T) and Deactivate(T). */
struct pfair_ops {
	void (*activate)(struct pfair *pf, struct pfair_task *t);
	void (*deactivate)(struct pfair *pf, struct pfair_task *t);
};

struct pfair {
	unsigned m, n;
	const struct taskset *ts;  /* for names in messages */
	bool staggered;
	bool early_release;       /* param pfair_er=1 */
	struct pfair_task *task;
	struct pfair_queue q;
	const struct pfair_ops *ops;
	uint64_t next_slot;       /* first slot an event can still change */

	struct ratsum held;       /* weights reserved (ACTIVE, BLOCKED, LEAVING) */
	struct ratsum leaving;    /* of which LEAVING */
	uint64_t *terms, *scratch; /* for an exact sum (lib/ratsum) */
	unsigned n_leaving, n_pending;
	uint64_t next_free;       /* earliest free_at of a LEAVING task */
	bool joins_dirty;         /* a pending join may fit now: retry */
	uint64_t joins, deferred_joins;
};

/*
 * Sets up pf for cfg (admission over all declared tasks, in file order:
 * the message names the first task that pushes the total above M). Tasks
 * are queued from their phase. Returns false with err filled.
 */
bool pfair_init(struct pfair *pf, const struct sched_config *cfg,
		const struct sched_env *env, const struct pfair_ops *ops,
		struct sched_error *err);

/*
 * At the start of every slot, before its set is chosen: releases the
 * reserved weights due by then, then admits pending joins (task-index
 * order). Joins and weight releases happen only here, so an event's effect
 * does not depend on the order of the events of one instant.
 */
void pfair_tick(struct pfair *pf, uint64_t slot);

/*
 * t ran in slot on cpu: charges its subtask (UpdatePriority) and requeues it
 * for the next one (Fig. 5 lines 19-23; PD2's requeue).
 */
void pfair_ran(struct pfair *pf, struct pfair_task *t, uint64_t slot,
	       unsigned cpu);

/* Charges the current subtask of t for slot on cpu (ran) or as wasted. */
void pfair_charge(struct pfair *pf, struct pfair_task *t, uint64_t slot,
		  unsigned cpu, bool ran);

/*
 * For the plugins' dump() (format in docs/debugging.md): "pfair LABEL NAME"
 * for each task member() holds for, highest PD2 priority first.
 */
typedef bool (*pfair_member_fn)(const struct pfair_task *t, const void *arg);
void pfair_dump_set(const struct pfair *pf, const char *label,
		    pfair_member_fn member, const void *arg,
		    sched_print_fn print, void *ctx);
/* Eligible, Incoming by slot, and every task's current subtask. */
void pfair_dump(const struct pfair *pf, sched_print_fn print, void *ctx);

/* struct sched_plugin members, for both plugins. */
int pfair_join(void *s, unsigned task, uint64_t t, struct sched_error *err);
void pfair_leave(void *s, unsigned task, uint64_t t);
void pfair_block(void *s, unsigned task, uint64_t t);
void pfair_wake(void *s, unsigned task, uint64_t t);
void pfair_complete(void *s, unsigned task, uint64_t t);
void pfair_stats(void *s, unsigned task, struct sched_task_stats *out);
void pfair_summary(void *s, sched_put_fn put, void *ctx);

/* The struct sched_plugin members both Pfair plugins share. */
extern const char *const pfair_params[];   /* pfair_er */

#define PFAIR_PLUGIN_EVENTS                                          \
	.join = pfair_join, .leave = pfair_leave, .block = pfair_block,   \
	.wake = pfair_wake, .complete = pfair_complete,                   \
	.stats = pfair_stats, .summary = pfair_summary,                   \
	.params = pfair_params

#endif
