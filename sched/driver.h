/*
 * sched/driver: drives a plugin through the boundaries of a run -- the task
 * set's `at` events, schedule() per CPU, reschedule requests -- the same way
 * for the host simulator (a loop over slots and CPUs) and the kernel (one
 * call per timer interrupt, serialised in boundary order).
 */
#ifndef SCHED_DRIVER_H
#define SCHED_DRIVER_H

#include <stdint.h>

#include "sched.h"

/* Called whenever CPU cpu's task for slot t is chosen or replaced. */
typedef void (*sched_choice_fn)(void *ctx, unsigned cpu, uint64_t t, int task);

struct sched_driver {
	const struct sched_plugin *plugin;
	void *s;                       /* the plugin's state */
	const struct taskset *ts;
	unsigned cpus;
	uint64_t *chose_in;            /* per CPU: its latest slot, plus one */
	uint8_t *pending;              /* per CPU: resched requested */
	unsigned npending;             /* how many pending[] are set */
	unsigned next_event;
	sched_choice_fn on_choice;
	void *choice_ctx;
	void *(*alloc)(void *ctx, size_t size);
	void *alloc_ctx;
	struct sched_env env;          /* what the plugin sees; ctx = this */
	struct sched_error err;
	unsigned err_line;             /* the task-set line of a refused event */
	/* A lock variant's events (sched_env.lock), when set: set them
	 * after sched_driver_create, which clears them. */
	void (*on_lock)(void *ctx, const struct sched_lock_event *ev);
	void *lock_ctx;
};

/*
 * Creates the plugin for cfg (cfg->tasks is the task set) with memory from
 * alloc, which never returns NULL (struct sched_env): plugin itself, or its
 * lock variant for a set with resources (sched_plugin_for; d->plugin says
 * which). Returns 0, or -1 with the plugin's message in d->err.
 */
int sched_driver_create(struct sched_driver *d,
			const struct sched_plugin *plugin,
			const struct sched_config *cfg,
			void *(*alloc)(void *ctx, size_t size), void *alloc_ctx,
			sched_choice_fn on_choice, void *choice_ctx);

/*
 * CPU cpu is at the boundary that starts its slot t. The first call of a
 * slot (CPU 0) applies the events due by t. Then the plugin chooses for
 * cpu; a resched of a CPU that already chose in slot t has it choose again
 * (the later answer replaces the earlier). Calls must come in boundary
 * order: slot by slot, CPU 0 to M-1. Returns 0, or -1 with d->err (an event
 * the plugin refused or does not support, a task that does not exist, a
 * plugin that keeps asking for reschedules); for a refused event
 * d->err_line is its line in the task-set file, else 0.
 */
int sched_driver_boundary(struct sched_driver *d, unsigned cpu, uint64_t t);

/* The plugin runs at events (it has next_event). */
int sched_driver_at_events(const struct sched_driver *d);
/*
 * After every CPU's call at slot t: the next slot that needs calls -- the
 * plugin's next event or the next `at` event of the set, whichever comes
 * first; t + 1 for a plugin that needs every boundary.
 */
uint64_t sched_driver_next_event(const struct sched_driver *d, uint64_t t);
/*
 * At the end of a run whose last slot is t: the plugin is called at t if
 * it was not (at events), so that its accounting covers every slot before
 * t as calls at every boundary would have. Returns as
 * sched_driver_boundary.
 */
int sched_driver_finish(struct sched_driver *d, uint64_t t);

/* Events the running system reports about a task (the kernel: a thread's
 * job that ended early, a thread it stopped). */
enum sched_driver_event {
	SCHED_EV_COMPLETE,   /* its current job is done before its budget */
	SCHED_EV_LEAVE,      /* it leaves for good */
};

/*
 * Tells the plugin of ev for task at time t (the latest slot decided); a
 * CPU whose answer for slot t that changes is asked again, through
 * on_choice, as for a reschedule at a boundary. Returns 0, or -1 with
 * d->err.
 */
int sched_driver_event(struct sched_driver *d, enum sched_driver_event ev,
		       unsigned task, uint64_t t);

/*
 * A task's program locks (unlock = 0) or unlocks resource res at time t
 * (the latest slot decided, or the slot in progress): the lock variant's
 * lock_op. Returns 0, or a negative SCHED_LOCK_E* with d->err.
 */
int sched_driver_lock_op(struct sched_driver *d, unsigned task, int unlock,
			 unsigned res, uint64_t t);

#endif
