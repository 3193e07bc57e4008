/*
 * sched/report: the schedule JSON lines (docs/formats.md, "Schedules as
 * JSON lines"), written the same way by the host simulator and the kernel, through a print callback.
 */
#ifndef SCHED_REPORT_H
#define SCHED_REPORT_H

#include <stdint.h>

#include "pfp/window.h"
#include "sched.h"

/* {"t": t, "cpus": ["T1", null, ...]} -- choice[k] is CPU k's task. */
void sched_report_slot(sched_print_fn out, void *ctx, const struct taskset *ts,
		       uint64_t t, const int *choice, unsigned cpus);

/* The summary line: totals, per-task stats and the plugin's own fields.
 * Returns the total of missed deadlines it reported. */
uint64_t sched_report_summary(sched_print_fn out, void *ctx,
			  const struct sched_plugin *plugin, void *s,
			  const struct taskset *ts, unsigned cpus, uint64_t slots,
			  int staggered);

/* Event-driven schedules (docs/schedulers-event-driven.md): a CPU ran a
 * task over [from, to). */
struct sched_segment {
	unsigned cpu;
	uint64_t from, to;         /* [from, to) microseconds */
	int task;
	int background;            /* a server at background priority */
	uint64_t overhead_us;      /* its start was a context switch */
};

/*
 * What the driver of an event-driven plugin measured itself, per task-set
 * entry: the simulator from its machine (evsim.h), the kernel from its
 * trace.
 */
struct sched_measure {
	uint64_t self_us;          /* work done: time run minus switching */
	uint64_t queued;           /* servers: jobs still queued at the end */
	uint64_t *resp;            /* servers: response times, sorted */
	uint64_t nresp;
	struct sched_span *spans;  /* servers: foreground spans, in order */
	uint64_t nspans;
	int top;                   /* servers: no other task or server of its
				      CPU has a priority as high */
	struct sched_window window;
};

void sched_report_segment(sched_print_fn out, void *ctx,
			  const struct taskset *ts,
			  const struct sched_segment *seg);

/* A server's budget event (sched_env.note) as a JSON line. */
void sched_report_note(sched_print_fn out, void *ctx, const struct taskset *ts,
		       const struct sched_note *n);

/* A job's arrival (arg: cost) or completion (arg: a server job's response
 * time) as a JSON line. */
void sched_report_job(sched_print_fn out, void *ctx, const struct taskset *ts,
		      int done, uint64_t at, unsigned task, uint64_t job,
		      uint64_t arg);

struct sched_run_us {
	unsigned cpus;
	uint64_t time_us, quantum_us, cxs_us;
};

/* The summary of an event-driven run: the plugin's statistics and, per
 * entry, what measure(ctx, task) gives. Returns the misses it reported
 * and sets *window_bad to the servers whose sliding-window check failed. */
uint64_t sched_report_summary_us(
	sched_print_fn out, void *ctx, const struct sched_plugin *plugin,
	void *s, const struct taskset *ts, const struct sched_run_us *run,
	const struct sched_measure *(*measure)(const void *mctx, unsigned task),
	const void *mctx, unsigned *window_bad);

/* A lock variant's per-task totals: `, "lock": {...}` inside the task's
 * object of the summary (nothing for a plugin without lock_stats). */
void sched_report_lock_stats(sched_print_fn out, void *ctx,
			     const struct sched_plugin *plugin, void *s,
			     unsigned task);

/* A lock event (sched_env.lock) as a JSON line, its time "at" + unit ("" in
 * slots, "_us"). */
void sched_report_lock(sched_print_fn out, void *ctx, const struct taskset *ts,
		       const struct sched_lock_event *ev, const char *unit);
const char *sched_lock_kind_name(enum sched_lock_kind k);

/* One line of a plugin's dump() (sched.h), formatted; longer than 191
 * bytes it is cut. */
void sched_report_line(sched_print_fn out, void *ctx, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* num/den with six decimals ("0.500000"), or an integer when exact. */
void sched_report_fraction(char *buf, unsigned size, uint64_t num, uint64_t den);

#endif
