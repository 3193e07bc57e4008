/*
 * sched/evsim: the simulated machine that drives an event-driven plugin
 * (sched.h, event_us) on the host, as the kernel drives it on hardware:
 * CPUs run what the plugin answered, jobs end when their work is done,
 * aperiodic jobs arrive (lib/arrival), one-shot timers fire at next_call().
 *
 * Work: a periodic job needs e * quantum_us microseconds (exec * quantum_us
 * for a task given exec=: its jobs end before their budget), an aperiodic
 * job its cost_us. Each time a CPU changes what it runs (to or from idle too)
 * the first cxs_us of the new choice are a context switch that does no
 * work but is charged to it -- the per-preemption cost of the sporadic-
 * server paper's experiment (Sec. 3), which the toll is meant to cover.
 *
 * Each instant: jobs whose work is done complete, arrivals due are
 * delivered, then schedule() is called on every CPU whose timer is due or
 * which was asked to reschedule (sched.h's order). Then, for a set with
 * resources run on the plugin's lock variant, the jobs that now run past
 * their switch and whose work has reached a point of their cs= lock or
 * unlock there (sched/lock/lock.h's order: unlocks first, in task order),
 * and the CPUs that changed decide again, until no call is due: a job
 * makes its calls while it runs, so one preempted just as it reaches a
 * point makes its call when it runs again. Time moves to the next
 * instant anything can happen. The driver measures, per task and server,
 * the work done (self_us) and each aperiodic job's response time, and
 * keeps every server's foreground spans for the sliding-window check.
 */
#ifndef SCHED_EVSIM_H
#define SCHED_EVSIM_H

#include <stdint.h>

#include "../lib/arrival.h"
#include "report.h"
#include "sched.h"

enum sched_evsim_kind {
	SCHED_EVSIM_ARRIVE,        /* arg: cost_us */
	SCHED_EVSIM_DONE,          /* arg: response time (servers), or 0 */
};

struct sched_evsim_event {
	enum sched_evsim_kind kind;
	uint64_t at;
	unsigned task;
	uint64_t job;              /* the task's job index, from 0 */
	uint64_t arg;
};

struct sched_evsim_out {
	void (*segment)(void *ctx, const struct sched_segment *seg);
	void (*event)(void *ctx, const struct sched_evsim_event *ev);
	void (*note)(void *ctx, const struct sched_note *n);
	void *ctx;
	/* Optional: a lock variant's events (sched_env.lock). */
	void (*lock)(void *ctx, const struct sched_lock_event *ev);
};

struct sched_evsim;

/*
 * What an event-driven run of plugin can take from ts -- the kernel's
 * driver asks too: 0, or -1 with a message (an `at` event other than
 * `arrive`, whose line is then in *err_line; servers under a plugin
 * without arrive()).
 */
int sched_evsim_check(const struct sched_plugin *plugin,
		      const struct taskset *ts, struct sched_error *err,
		      unsigned *err_line);

/*
 * A machine for plugin (its lock variant for a set with resources) over
 * cfg (cfg->quantum_us set), running until_us
 * with cxs_us per switch; memory from alloc, never freed before the end.
 * NULL with a message in err (the plugin refused the set, or the set has
 * `at` events the plugin does not take: err_line is then their line).
 */
struct sched_evsim *sched_evsim_create(const struct sched_plugin *plugin,
				       const struct sched_config *cfg,
				       uint64_t until_us, uint64_t cxs_us,
				       void *(*alloc)(void *ctx, size_t size),
				       void *alloc_ctx,
				       const struct sched_evsim_out *out,
				       struct sched_error *err,
				       unsigned *err_line);

/* Runs to the end; 0, or -1 with a message (a plugin that answered a task
 * that does not exist or keeps asking for reschedules). */
int sched_evsim_run(struct sched_evsim *m, struct sched_error *err);

/* No other task or server of entry i's CPU has a priority as high: the
 * sliding-window bound is the server's to keep (docs/servers.md). */
int sched_evsim_top(const struct taskset *ts, unsigned i);

void *sched_evsim_plugin_state(const struct sched_evsim *m);
/* The plugin that runs: plugin, or its lock variant. */
const struct sched_plugin *sched_evsim_plugin(const struct sched_evsim *m);
const struct sched_measure *sched_evsim_measure(const struct sched_evsim *m,
						unsigned task);

#endif
