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
 *
 * Event-driven plugins (event_us set: `pfp`) instead count time in
 * microseconds and are called at events, not at quantum boundaries: see
 * "Event-driven plugins" below and docs/schedulers-event-driven.md.
 */
#ifndef SCHED_SCHED_H
#define SCHED_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/taskset.h"

#define SCHED_IDLE (-1)
#define SCHED_ERROR_MAX 200
/* next_call(): nothing is due on this CPU. */
#define SCHED_NEVER UINT64_MAX
/* The quantum the kernel uses by default (its quantum_us= word). */
#define SCHED_QUANTUM_US_DEFAULT 1000

struct sched_error {
	char msg[SCHED_ERROR_MAX];
};

/* Budget events of a server (sched_env.note), in microseconds. */
enum sched_note_kind {
	SCHED_NOTE_EXHAUSTED,    /* its budget ran out while it had work */
	SCHED_NOTE_REPLENISHED,  /* amount came back (a replenishment, or a
				    polling server's period) */
	SCHED_NOTE_POSTED,       /* a replenishment of amount is due at due */
	SCHED_NOTE_TOLL,         /* charged amount for preempting a task */
	SCHED_NOTE_COALESCED,    /* a hybrid merged replenishments; amount =
				    how many are pending now */
};

struct sched_note {
	enum sched_note_kind kind;
	unsigned task;           /* the server's index in the task set */
	unsigned cpu;
	uint64_t at;             /* when it happened */
	uint64_t amount;
	uint64_t due;            /* SCHED_NOTE_POSTED only */
};

/*
 * Locking protocols (docs/locking.md): what a plugin's lock variant did, as
 * it happened -- sched_env.lock. Times are the plugin's (slots, or
 * microseconds when event_us), a job is the task's job index from 0.
 */
enum sched_lock_kind {
	SCHED_LOCK_REQUEST,      /* the job asked for res */
	SCHED_LOCK_ACQUIRE,      /* ... and holds it from now on */
	SCHED_LOCK_RELEASE,      /* it let res go */
	SCHED_LOCK_FORCED,       /* its job ended, or the task left, holding
				    res: released for it */
	SCHED_LOCK_SPIN,         /* it waits for res spinning on its CPU */
	SCHED_LOCK_SUSPEND,      /* it waits for res suspended */
	SCHED_LOCK_BLOCKED,      /* the job ended (or was dropped): its time
				    spinning, suspended, in priority
				    inversion and in interference */
};

struct sched_lock_event {
	enum sched_lock_kind kind;
	unsigned task;
	unsigned res;            /* not SCHED_LOCK_BLOCKED */
	uint64_t job;
	uint64_t at;
	/* SCHED_LOCK_BLOCKED only, in the plugin's time unit. */
	uint64_t spin, wait, pi, intf;
};

/* Per-task totals of a lock variant (sched_plugin.lock_stats), in the
 * plugin's time unit; *_max are the largest of one job. */
struct sched_lock_stats {
	uint64_t requests;
	uint64_t spin_max, wait_max, pi_max, intf_max;
	uint64_t blocked_max;    /* spin + wait + pi of one job */
	uint64_t forced;         /* resources released for it */
};

/* What the driver gives a plugin. */
struct sched_env {
	/* Zeroed memory, 16-byte aligned; freed all at once with the plugin.
	 * Never NULL: an allocator that runs out does not return (the kernel
	 * panics, schedsim exits, each naming the size), so plugins use what
	 * it returns unchecked. */
	void *(*alloc)(void *ctx, size_t size);
	/*
	 * Ask CPU cpu to call schedule() again before its next boundary (the
	 * kernel sends an IPI; the simulator calls it at once). Only event-driven
	 * plugins (EDF) use it.
	 */
	void (*resched)(void *ctx, unsigned cpu);
	void *ctx;
	/*
	 * Optional (NULL: nobody listens): what an event-driven plugin did to
	 * a server's budget, for traces and the simulator's output.
	 */
	void (*note)(void *ctx, const struct sched_note *n);
	/* Optional (NULL: nobody listens): a lock variant's events. */
	void (*lock)(void *ctx, const struct sched_lock_event *ev);
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
	/* Event-driven plugins: the length of a quantum in microseconds, by
	 * which a task's e, p, d and phase are multiplied; 0 means
	 * SCHED_QUANTUM_US_DEFAULT. */
	uint64_t quantum_us;
	/*
	 * Lock variants: the jobs' lock and unlock calls come from their
	 * programs through lock_op() (the kernel), not from the cs= layout
	 * of the task file (the simulator's model of those programs).
	 */
	int program_locks;
};

/* Per-task accounting, kept by the plugin. */
struct sched_task_stats {
	uint64_t quanta;          /* quanta received */
	uint64_t jobs;            /* jobs completed */
	uint64_t misses;          /* jobs (Pfair: subtasks) past their deadline */
	/* Largest tardiness, as max_tardiness_num / tardiness_den quanta. */
	uint64_t max_tardiness_num;
	uint64_t tardiness_den;   /* 1, or M under staggering */
	/* Event-driven plugins: tardiness is in microseconds (den 1), quanta
	 * stays 0 and run_us counts the microseconds the task was chosen. */
	uint64_t run_us;
};

/* Per-server accounting of an event-driven plugin, in microseconds. */
struct sched_server_stats {
	uint64_t arrivals;        /* aperiodic jobs that arrived */
	uint64_t jobs;            /* ... and completed */
	uint64_t demand_us;       /* their costs, as arrive() gave them */
	uint64_t consumed_us;     /* budget used: foreground time plus tolls */
	uint64_t background_us;   /* chosen at background priority */
	uint64_t tolls, toll_us;  /* preemptions charged, and what they cost */
	uint64_t exhaustions;     /* budget ran out with work pending */
	uint64_t replenishments;
	uint64_t coalesces;       /* hybrid: overloads that merged
				     replenishments */
	uint64_t max_pending;     /* most replenishments pending at once */
};

/*
 * Extra summary fields: put(ctx, key, num, den) with den = 1 for integers.
 * The simulator writes them into the JSON summary, the kernel as RESULT keys.
 */
typedef void (*sched_put_fn)(void *ctx, const char *key, int64_t num,
			     int64_t den);

/* Text out, a piece at a time (the simulator's stdout, the console). */
typedef void (*sched_print_fn)(void *ctx, const char *text);

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
	/* It keeps no jobs or deadlines (a proportional-share scheduler):
	 * stats() leaves jobs and misses 0, so the kernel's verdict reports
	 * the misses of the run without comparing them. */
	int no_deadlines;
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
	 * Optional, for a plugin whose answers change only at events (the EDF
	 * family): after the schedule() calls of every CPU at slot t, the
	 * first slot after t at which one may change -- a release, a job's
	 * last quantum ending -- given that each CPU runs its answer until
	 * then. Until that slot the plugin need not be called: the kernel
	 * arms its one-shot timers there, not at every quantum, and calls
	 * schedule() at the slots it returns (and at `at` events); the
	 * schedule is the one calls at every boundary give. It may return an
	 * earlier slot than needed (a call there changes nothing), never a
	 * later one. Without it the plugin is called at every boundary.
	 */
	uint64_t (*next_event)(void *s, uint64_t t);

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
	/*
	 * Optional: time the plugin's own operations with clock (the kernel's
	 * TSC; word optime=on) and put their counts and cycles in summary().
	 * The global EDF paper times push, enqueue, dequeue and pull (Sec. 6).
	 */
	void (*set_clock)(void *s, uint64_t (*clock)(void));

	/*
	 * Event-driven plugins (docs/schedulers-event-driven.md). With
	 * event_us set, every time argument above -- schedule()'s t,
	 * complete()'s t -- and below is in microseconds since the run began,
	 * and calls carry non-decreasing times across all CPUs. The driver:
	 *   - calls schedule(cpu, now) for every CPU at time 0, at the time
	 *     next_call(cpu) names, and after a resched(cpu) request; any
	 *     other call returns the same answer unless something changed;
	 *     from one answer to the next, the CPU runs the task it was told;
	 *   - reports with complete(task, now) that the task's job ended (a
	 *     server's: the aperiodic job at the head of its queue); the
	 *     simulator knows it from the job's cost, the kernel from the
	 *     thread;
	 *   - delivers aperiodic jobs with arrive();
	 *   - at one instant, delivers completions first, then arrivals, then
	 *     calls schedule() for the CPUs that need it.
	 * The plugin calls env->resched(cpu) for every CPU whose answer or
	 * next_call() a call may have changed (its own included).
	 */
	int event_us;
	/* When CPU cpu must next call schedule() (a release, a budget running
	 * out, a replenishment), as a time after the latest call; or
	 * SCHED_NEVER. Read after every schedule(cpu). */
	uint64_t (*next_call)(void *s, unsigned cpu);
	/* An aperiodic job of cost_us for server `server` (a task[] index
	 * whose server.kind is set). NULL: the plugin takes no servers. */
	void (*arrive)(void *s, unsigned server, uint64_t now, uint32_t cost_us);
	/* Whether CPU cpu's latest answer is a server running at background
	 * priority (out of budget; its time is not charged). */
	int (*background)(void *s, unsigned cpu);
	void (*server_stats)(void *s, unsigned server,
			     struct sched_server_stats *out);
	/*
	 * Optional: the plugin's state, one line per call of print, without
	 * the newline (the kernel's dumpstate= word). GDB's `rtk` commands
	 * (tools/gdb) print the same lines from memory and the tests compare
	 * the two, so the format is theirs too: docs/debugging.md.
	 */
	void (*dump)(void *s, sched_print_fn print, void *ctx);

	/*
	 * Locking protocols (docs/locking.md). A plugin that runs sets with
	 * `resource` lines names its variant for them in `locks` (the same
	 * name, its own callbacks); sched_plugin_for() picks it. A variant
	 * has:
	 *   protocols: a mask of the enum taskset_protocol values it runs;
	 *   lock_op(s, task, unlock, res, t, err): the task's program locks
	 *     (unlock = 0) or unlocks res at time t (the kernel's system
	 *     call); 0, or a negative SCHED_LOCK_E* with a message in err;
	 *   lock_stats: the task's totals.
	 */
	const struct sched_plugin *locks;
	unsigned protocols;
	int (*lock_op)(void *s, unsigned task, int unlock, unsigned res,
		       uint64_t t, struct sched_error *err);
	void (*lock_stats)(void *s, unsigned task, struct sched_lock_stats *out);
};

/* lock_op's refusals. */
#define SCHED_LOCK_EUNDECLARED 1  /* no such resource, or not in its cs= */
#define SCHED_LOCK_EDOUBLE     2  /* it holds or waits for it already */
#define SCHED_LOCK_ENOTHELD    3  /* unlock of what it does not hold */
#define SCHED_LOCK_ENESTING    4  /* nesting the protocol forbids */
#define SCHED_LOCK_EBUSY       5  /* an earlier call has not taken effect */
#define SCHED_LOCK_EORDER      6  /* unlock of a section not innermost */
#define SCHED_LOCK_EENDED      7  /* the job that made it has ended */

/*
 * The plugin to run ts with: plugin, or its lock variant when ts has
 * resources (a variant given is its own). NULL with a message in err when
 * ts has resources and plugin has no variant, or its variant does not run
 * their protocol.
 */
const struct sched_plugin *sched_plugin_for(const struct sched_plugin *plugin,
					    const struct taskset *ts,
					    struct sched_error *err);

/* The plugins that exist, by name (sched/registry.c). */
const struct sched_plugin *sched_find(const char *name);
extern const struct sched_plugin *const sched_plugins[];
extern const unsigned sched_nplugins;

/* Whether plugin p lists parameter name (n bytes, not terminated). */
int sched_takes_param(const struct sched_plugin *p, const char *name,
		      size_t n);

/* 0 when plugin p can take every entry of ts; -1 with a message naming the
 * first server when ts has servers and p takes none. */
int sched_check_servers(const struct sched_plugin *p, const struct taskset *ts,
			struct sched_error *err);

/* A parameter's value from cfg, or def when absent. */
uint64_t sched_param_get(const struct sched_config *cfg, const char *name,
			 uint64_t def);
/* The same, checked: 0 with *out in [min, max], or -1 with a message in
 * err naming the parameter, its value and the range. */
int sched_param_in(const struct sched_config *cfg, const char *name,
		   uint64_t def, uint64_t min, uint64_t max, uint64_t *out,
		   struct sched_error *err);

#endif
