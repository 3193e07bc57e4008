/* kernel/run_report: the results of a scheduler run. */
#include "run_report.h"

#include "../arch/x86/tsc.h"
#include "../lib/fmt.h"
#include "../lib/trace_stats.h"
#include "../sched/report.h"
#include "bootmem.h"
#include "clock_stats.h"
#include "console.h"
#include "options.h"
#include "quantum_clock.h"
#include "task.h"
#include "trace.h"

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

static void print_tasks(const struct trace_stats *st,
			const struct sched_plugin *plugin, void *s)
{
	uint64_t khz = st->p.tsc_khz;
	kprintf("\n  %-12s %-15s %9s %6s %6s %12s %7s %10s %10s %7s\n", "task",
		"work", "e/p", "jobs", "misses", "tardiness_us", "quanta",
		"ran_ms", "self_ms", "state");
	for (unsigned i = 0; i < ntasks; i++) {
		const struct task *t = &tasks[i];
		const struct trace_task_stats *x = &st->task[i];
		struct sched_task_stats q = { 0 };
		plugin->stats(s, i, &q);
		char ep[24];
		if (t->spec->p)
			fmt_snprintf(ep, sizeof ep, "%u/%u", t->spec->e, t->spec->p);
		else
			fmt_snprintf(ep, sizeof ep, "w=%u", t->spec->weight);
		uint64_t ran = trace_cycles_to_us(x->ran_cycles, khz);
		uint64_t self = trace_cycles_to_us(x->self_cycles, khz);
		kprintf("  %-12s %-15s %9s %6llu %6llu %12llu %7llu "
			"%6llu.%03llu %6llu.%03llu %7s\n", t->name,
			taskset_work_name(t->spec->work), ep,
			(unsigned long long)x->jobs, (unsigned long long)x->misses,
			(unsigned long long)trace_cycles_to_us(
				x->max_tardiness_cycles, khz),
			(unsigned long long)q.quanta, MS(ran), MS(self),
			state_name(t));
	}
	kprintf("\n");
	char keys[256];
	for (unsigned i = 0; i < ntasks; i++) {
		const struct task *t = &tasks[i];
		struct sched_task_stats q = { 0 };
		plugin->stats(s, i, &q);
		trace_stats_task_keys(keys, sizeof keys, st, i);
		kprintf("RESULT task name=%s state=%s quanta=%llu %s work=%s\n",
			t->name, state_name(t), (unsigned long long)q.quanta, keys,
			taskset_work_name(t->spec->work));
	}
}

/* What the tasks wrote, line by line behind their names. */
static void print_task_output(void)
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
	record_self();
	report_drops(cpus);
	describe(plugin, ts, cpus, 0);
	struct trace_stats st;
	if (trace_stats_of_run(&st))
		return;
	print_task_output();
	print_schedule(&st, ts, cpus);
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
	print_tasks(&st, plugin, s);
	trace_print_results(&st);
	kprintf("RESULT trace cycles_per_record=%llu\n",
		(unsigned long long)trace_cost_cycles());
	if (options.trace == TRACE_EVENTS) {
		describe(plugin, ts, cpus, &summary);
		trace_dump();
	}
}
