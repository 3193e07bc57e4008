/* kernel/run/run_report: the results of a scheduler run. */
#include "run_report.h"

#include "../../arch/x86/tsc.h"
#include "../../lib/fmt.h"
#include "../../lib/trace_stats.h"
#include "../../sched/report.h"
#include "../core/bootmem.h"
#include "../time/clock_stats.h"
#include "../core/console.h"
#include "hourglass.h"
#include "lock.h"
#include "../core/options.h"
#include "../time/quantum_clock.h"
#include "../task/task.h"
#include "../trace/trace.h"
#include "verdict.h"

/* Room for the summary line the dump repeats. */
#define SUMMARY_MAX 65536

static void print_text(void *ctx, const char *text)
{
	(void)ctx;
	kprintf("%s", text);
}

static const char *state_name(const struct task *t)
{
	switch (t->state) {
	case TASK_KILLED:
		return "killed";
	case TASK_EXITED:
		return "exited";
	default:
		return "ok";
	}
}

/* Each task's own measurement, from its control page, as a record. */
static void record_self(void)
{
	trace_enable(1);
	for (unsigned i = 0; i < ntasks; i++)
		trace_emit(TRACE_SELF, 0, (uint32_t)i, 0,
			   tasks[i].control->self_cycles);
	trace_enable(0);
}

/* The summary line, printed and kept for the dump (TRACE-SUMMARY). */
struct capture {
	char *buf;
	size_t len, cap;
};

static void print_and_keep(void *ctx, const char *text)
{
	struct capture *c = ctx;
	kprintf("%s", text);
	while (*text && c->len + 1 < c->cap)
		c->buf[c->len++] = *text++;
	c->buf[c->len] = 0;
}

static void describe(const struct sched_plugin *plugin,
		     const struct taskset *ts, unsigned cpus,
		     const struct capture *summary)
{
	struct trace_dump_info info = {
		.p = {
			.cpus = cpus, .tsc_khz = tsc.khz, .t0 = qclock_t0(),
			.end = qclock_ideal(cpus - 1, qclock_slots()),
			.quantum_us = qclock_quantum_us(),
			.slots = qclock_slots(),
			.staggered = qclock_staggered(), .ntasks = ntasks,
		},
		.sched = plugin->name, .ts = ts,
		.summary = summary ? summary->buf : 0,
		.summary_len = summary ? summary->len : 0,
	};
	/* The summary ends with a newline the dump does not want. */
	if (info.summary_len && info.summary[info.summary_len - 1] == '\n')
		info.summary_len--;
	trace_describe(&info);
}

static void report_drops(unsigned cpus)
{
	for (unsigned k = 0; k < cpus; k++) {
		uint32_t count;
		uint64_t dropped;
		trace_records(k, &count, &dropped);
		if (dropped)
			kprintf("trace: cpu %u dropped %llu records (its buffer "
				"holds %u): the numbers below miss them\n", k,
				(unsigned long long)dropped, count);
	}
}

static void print_schedule(const struct trace_stats *st,
			   const struct taskset *ts, unsigned cpus)
{
	int *row = bootmem_alloc(cpus * sizeof *row);
	for (uint64_t t = 0; t < st->p.slots; t++) {
		for (unsigned k = 0; k < cpus; k++)
			row[k] = st->schedule[t * cpus + k];
		sched_report_slot(print_text, 0, ts, t, row, cpus);
	}
}

/* Microseconds as milliseconds with three decimals. */
#define MS(us) (unsigned long long)((us) / 1000), \
	(unsigned long long)((us) % 1000)

/* What the task measured itself (its control page, untrusted): release
 * latency, from its first instruction after sleep_next_period. */
static void latency_keys(char *buf, size_t size, const struct task *t)
{
	const volatile struct rt_control *c = t->control;
	uint64_t n = c->lat_count, r = c->resp_count;
	/* resp_*: backtest's job response times (release to the end of its
	 * loop), LITMUS^RT Sec. 4.3's completion measure per job. */
	fmt_snprintf(buf, size, "lat_n=%llu lat_avg_ns=%llu lat_max_ns=%llu "
		     "resp_n=%llu resp_avg_ns=%llu resp_max_ns=%llu",
		     (unsigned long long)n,
		     (unsigned long long)(n ? c->lat_sum_ns / n : 0),
		     (unsigned long long)c->lat_max_ns,
		     (unsigned long long)r,
		     (unsigned long long)(r ? c->resp_sum_ns / r : 0),
		     (unsigned long long)c->resp_max_ns);
}

/* A writer's own timing of its working set after each dispatch (user/
 * writer.c): untrusted numbers from its control page, reported as they are.
 * Cycles are the TSC's. */
static void print_reload(const struct task *t)
{
	const volatile struct rt_control *c = t->control;
	kprintf("RESULT reload name=%s ws=%u steady_lines=%llu "
		"steady_cycles=%llu preempt_n=%llu preempt_cycles=%llu "
		"migrate_n=%llu migrate_cycles=%llu\n", t->name, t->spec->ws,
		(unsigned long long)c->steady_lines,
		(unsigned long long)c->steady_cycles,
		(unsigned long long)c->resume_n[0],
		(unsigned long long)c->resume_cycles[0],
		(unsigned long long)c->resume_n[1],
		(unsigned long long)c->resume_cycles[1]);
}

/* self_us straight from the control page, for a run without records. */
static uint64_t self_us_unrecorded(const struct task *t)
{
	return trace_cycles_to_us(t->control->self_cycles, tsc.khz);
}

/* st NULL (record=off): only the columns that need no record. */
static void print_tasks(const struct trace_stats *st,
			const struct sched_plugin *plugin, void *s)
{
	uint64_t khz = tsc.khz;
	kprintf("\n  %-12s %-15s %9s %6s %6s %12s %7s %10s %10s %7s\n", "task",
		"work", "e/p", "jobs", "misses", "tardiness_us", "quanta",
		"ran_ms", "self_ms", "state");
	for (unsigned i = 0; i < ntasks; i++) {
		const struct task *t = &tasks[i];
		struct sched_task_stats q = { 0 };
		plugin->stats(s, i, &q);
		char ep[24];
		if (t->spec->p)
			fmt_snprintf(ep, sizeof ep, "%u/%u", t->spec->e, t->spec->p);
		else
			fmt_snprintf(ep, sizeof ep, "w=%u", t->spec->weight);
		kprintf("  %-12s %-15s %9s ", t->name, t->spec->work, ep);
		if (st) {
			const struct trace_task_stats *x = &st->task[i];
			uint64_t ran = trace_cycles_to_us(x->ran_cycles, khz);
			uint64_t self = trace_cycles_to_us(x->self_cycles, khz);
			kprintf("%6llu %6llu %12llu %7llu %6llu.%03llu "
				"%6llu.%03llu %7s\n", (unsigned long long)x->jobs,
				(unsigned long long)x->misses,
				(unsigned long long)trace_cycles_to_us(
					x->max_tardiness_cycles, khz),
				(unsigned long long)q.quanta, MS(ran), MS(self),
				state_name(t));
		} else {
			uint64_t self = self_us_unrecorded(t);
			kprintf("%6s %6s %12s %7llu %10s %6llu.%03llu %7s\n", "-",
				"-", "-", (unsigned long long)q.quanta, "-",
				MS(self), state_name(t));
		}
	}
	kprintf("\n");
	char keys[256], lat[192];
	for (unsigned i = 0; i < ntasks; i++) {
		const struct task *t = &tasks[i];
		struct sched_task_stats q = { 0 };
		plugin->stats(s, i, &q);
		if (st)
			trace_stats_task_keys(keys, sizeof keys, st, i);
		else
			fmt_snprintf(keys, sizeof keys, "self_us=%llu",
				     (unsigned long long)self_us_unrecorded(t));
		latency_keys(lat, sizeof lat, t);
		kprintf("RESULT task name=%s state=%s quanta=%llu %s %s work=%s\n",
			t->name, state_name(t), (unsigned long long)q.quanta, keys,
			lat, t->spec->work);
	}
	for (unsigned i = 0; i < ntasks; i++)
		if (tasks[i].prog_flags & RT_PROG_RELOAD)
			print_reload(&tasks[i]);
}

/* record=off: RESULT hourglass from the loop's own account; the gaps'
 * median needs every gap, which only the records keep. */
static void print_hourglass_unrecorded(unsigned cpus)
{
	for (unsigned k = 0; k < cpus; k++) {
		struct hourglass_account a;
		hourglass_account_of(k, &a);
		kprintf("RESULT hourglass cpu=%u gaps=%llu gap_max_ns=%llu "
			"got_us=%llu\n", k, (unsigned long long)a.gaps,
			(unsigned long long)trace_cycles_to_ns(a.gap_max_cycles,
							       tsc.khz),
			(unsigned long long)trace_cycles_to_us(a.got_cycles,
							       tsc.khz));
	}
}

void run_report_task_output(void)
{
	for (unsigned i = 0; i < ntasks; i++) {
		const struct task *t = &tasks[i];
		uint32_t start = 0;
		for (uint32_t j = 0; j <= t->out_len; j++) {
			if (j < t->out_len && t->out[j] != '\n')
				continue;
			if (j > start)
				kprintf("%s| %.*s\n", t->name, (int)(j - start),
					t->out + start);
			start = j + 1;
		}
		if (t->out_lost)
			kprintf("%s| (%u more bytes did not fit its buffer)\n",
				t->name, t->out_lost);
	}
}

void run_report(const struct sched_plugin *plugin, void *s,
		const struct taskset *ts, unsigned cpus)
{
	struct trace_stats st;
	const struct trace_stats *recorded = 0;
	if (options.record) {
		record_self();
		report_drops(cpus);
		describe(plugin, ts, cpus, 0);
		if (trace_stats_of_run(&st))
			return;
		recorded = &st;
	} else {
		kprintf("trace: record=off: nothing was recorded, so there is no "
			"executed schedule, no RESULT overhead line, RESULT task "
			"has no jobs, misses, max_tardiness_us, ran_us or faults, "
			"RESULT hourglass no gap_p50_ns and RESULT ticks no "
			"err_* (all come from the records); the summary is the "
			"scheduler's own\n");
	}
	run_report_task_output();
	if (recorded)
		print_schedule(recorded, ts, cpus);
	struct capture summary = { bootmem_alloc(SUMMARY_MAX), 0, SUMMARY_MAX };
	uint64_t misses = sched_report_summary(print_and_keep, &summary, plugin,
					       s, ts, cpus, qclock_slots(),
					       qclock_staggered());
	struct clock_stats r;
	clock_stats_summarise(&r);
	if (options.trace == TRACE_TICK_LINES)
		clock_stats_trace_lines();
	kprintf("RESULT sched name=%s cpus=%u tasks=%u slots=%llu ticks=%s "
		"misses=%llu boundary_missed=%llu\n", plugin->name, cpus,
		ts->ntasks, (unsigned long long)qclock_slots(),
		qclock_staggered() ? "staggered" : "aligned",
		(unsigned long long)misses, (unsigned long long)r.missed);
	clock_stats_report(&r);
	uint64_t late = 0, late_max = 0;
	for (unsigned k = 0; k < cpus; k++) {
		late += qclock_cpu_late(k);
		if (qclock_cpu_late_max(k) > late_max)
			late_max = qclock_cpu_late_max(k);
	}
	verdict_of_quanta(plugin, s, ts->ntasks, recorded, r.missed, late,
			  tsc_to_ns(late_max), cpus, qclock_slots(),
			  qclock_quantum_us());
	print_tasks(recorded, plugin, s);
	if (recorded)
		trace_print_results(recorded);
	else
		print_hourglass_unrecorded(cpus);
	kprintf("RESULT trace cycles_per_record=%llu\n",
		(unsigned long long)trace_cost_cycles());
	lock_report(plugin, s);
	if (recorded && options.trace == TRACE_EVENTS) {
		describe(plugin, ts, cpus, &summary);
		trace_dump();
	}
}
