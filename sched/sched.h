/*
 * sched/sched.h: the one interface between a scheduler plugin and whoever
 * drives it -- the kernel's quantum clock or the host simulator.
 *
 * The plugin decides "what should run" (linked, in LITMUS^RT's words); the
 * kernel does the context switch ("what runs"). A plugin never touches the
 * hardware: it gets memory and cross-CPU requests through struct sched_env.
 *
 * Time is counted in quanta. Under aligned quanta every CPU's slot t starts
 * at t; under staggered quanta CPU k's slot t starts at t + k/M
 * (staggered Pfair, Sec. 3). Calls for one boundary come in time order:
 * for slot t, CPU 0 first and CPU M-1 last (in both modes).
 *
 * Work is accounted in whole quanta: a task chosen for a slot consumes one
 * quantum of its budget in it unless the driver reports, with complete(),
 * that its job ended early.
 *
 * Locking the kernel must provide: calls into one plugin instance are
 * serialised by the caller, and schedule() calls come in boundary order
 * (see `ordered` below).
 */
#ifndef SCHED_SCHED_H
#define SCHED_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/taskset.h"

#define SCHED_IDLE (-1)
#define SCHED_ERROR_MAX 200

struct sched_error {
	char msg[SCHED_ERROR_MAX];
};

/* What the driver gives a plugin. */
struct sched_env {
	/* Zeroed memory, 16-byte aligned; freed all at once with the plugin. */
	void *(*alloc)(void *ctx, size_t size);
	/*
	 * Ask CPU cpu to call schedule() again before its next boundary (the
	 * kernel sends an IPI; the simulator calls it at once). Only event-driven
	 * plugins (EDF) use it.
	 */
	void (*resched)(void *ctx, unsigned cpu);
	void *ctx;
};

/* Plugin parameters: name=value words (e.g. "gdq_T=20 gdq_delta=4"). */
struct sched_param {
	const char *name;
	uint64_t value;
};

struct sched_config {
	unsigned cpus;                   /* M >= 1 */
	int staggered;                   /* quanta staggered by Q/M */
	const struct taskset *tasks;     /* indices into tasks->task[] name tasks */
	const struct sched_param *params;   /* only names the plugin lists */
	unsigned nparams;
	uint64_t seed;                   /* for any randomised tie-breaking */
	/*
	 * A simulation (schedsim), not a run on the quantum clock: accounting
	 * that costs O(N) per slot (GDQ's service errors) is on by default.
	 * The kernel leaves it 0 so its timer interrupt does not pay for it.
	 */
	int simulation;
};

/* Per-task accounting, kept by the plugin. */
struct sched_task_stats {
	uint64_t quanta;          /* quanta received */
	uint64_t jobs;            /* jobs completed */
	uint64_t misses;          /* jobs (Pfair: subtasks) past their deadline */
	/* Largest tardiness, as max_tardiness_num / tardiness_den quanta. */
	uint64_t max_tardiness_num;
	uint64_t tardiness_den;   /* 1, or M under staggering */
};

/*
 * Extra summary fields: put(ctx, key, num, den) with den = 1 for integers.
 * The simulator writes them into the JSON summary, the kernel as RESULT keys.
 */
typedef void (*sched_put_fn)(void *ctx, const char *key, int64_t num,
			     int64_t den);

struct sched_plugin {
	const char *name;
	const char *description;
	/* Its quantum boundaries are staggered (CPU k at t + k/M) unless told
	 * otherwise; else aligned. The kernel and schedsim go by this. */
	int staggered;
	/*
	 * Its schedule() calls must come one by one in boundary order, each
	 * from the CPU at that boundary (staggered Pfair's Schedule(p)).
	 * Otherwise the kernel lets the first CPU to reach slot t decide slot
	 * t for every CPU, in CPU order, as the simulator does; the others
	 * take their answers without waiting in line.
	 */
	int ordered;
	/* The parameters it reads (sched_param_get), NULL-terminated; the
	 * kernel and schedsim refuse any other. */
	const char *const *params;

	/*
	 * Admission and set-up for cfg->tasks (tasks present from their phase).
	 * Returns the plugin state, or NULL with a message naming the task or
	 * value that was refused.
	 */
	void *(*create)(const struct sched_config *cfg,
			const struct sched_env *env, struct sched_error *err);

	/*
	 * CPU cpu is at the boundary that starts its slot t: which task (an index
	 * into cfg->tasks->task[]) runs in that slot, or SCHED_IDLE. For an
	 * event-driven plugin this is also the answer to a resched() request.
	 */
	int (*schedule)(void *s, unsigned cpu, uint64_t t);

	/*
	 * Task events at time t, taking effect from the next boundary on. May be
	 * NULL when a plugin does not support them. join() may refuse (admission)
	 * with a message and return -1.
	 */
	int (*join)(void *s, unsigned task, uint64_t t, struct sched_error *err);
	void (*leave)(void *s, unsigned task, uint64_t t);
	void (*block)(void *s, unsigned task, uint64_t t);
	void (*wake)(void *s, unsigned task, uint64_t t);
	/* The task's current job finished before using its budget. */
	void (*complete)(void *s, unsigned task, uint64_t t);

	void (*stats)(void *s, unsigned task, struct sched_task_stats *out);
	/* Optional: plugin-specific summary fields. */
	void (*summary)(void *s, sched_put_fn put, void *ctx);
};

/* The plugins that exist, by name (sched/registry.c). */
const struct sched_plugin *sched_find(const char *name);
extern const struct sched_plugin *const sched_plugins[];
extern const unsigned sched_nplugins;

/* Whether plugin p lists parameter name (n bytes, not terminated). */
int sched_takes_param(const struct sched_plugin *p, const char *name,
		      size_t n);

/* A parameter's value from cfg, or def when absent. */
uint64_t sched_param_get(const struct sched_config *cfg, const char *name,
			 uint64_t def);

#endif
