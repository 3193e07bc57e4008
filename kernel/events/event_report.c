/* kernel/events/event_report: an event-driven run's lines (event_report.h). */
#include "event_report.h"

#include "../../arch/x86/tsc.h"
#include "../../lib/fmt.h"
#include "../../lib/sort.h"
#include "../../sched/evsim.h"
#include "../core/bootmem.h"
#include "../core/console.h"
#include "../core/options.h"
#include "../task/task.h"

enum rec_kind { REC_SEGMENT, REC_ARRIVE, REC_DONE, REC_NOTE };

/* One line to print: a segment (a from, b to), a job (a at, b job, c arg)
 * or a note (sub its kind, a at, b amount, c due). */
struct rec {
	uint8_t kind, sub, bg;
	uint16_t cpu;
	int32_t task;
	uint64_t a, b, c;
};

static struct {
	const struct taskset *ts;
	struct rec *rec;
	uint64_t n, cap, lost;
	struct sched_measure *m;     /* per entry */
	uint64_t jobs_cap;           /* per server: resp and spans */
	uint64_t *resp_lost, *spans_lost;
	char *summary;               /* the summary line, for the trace dump */
	size_t summary_len;
} ev;

#define SUMMARY_MAX 65536

void evrep_setup(const struct taskset *ts, uint64_t records, uint64_t jobs)
{
	ev.ts = ts;
	ev.rec = bootmem_alloc(records * sizeof *ev.rec);
	ev.cap = records;
	ev.n = ev.lost = 0;
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	ev.m = bootmem_alloc(n * sizeof *ev.m);
	ev.resp_lost = bootmem_alloc(n * sizeof *ev.resp_lost);
	ev.spans_lost = bootmem_alloc(n * sizeof *ev.spans_lost);
	ev.jobs_cap = jobs;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		if (!ts->task[i].server.kind)
			continue;
		ev.m[i].resp = bootmem_alloc(jobs * sizeof *ev.m[i].resp);
		ev.m[i].spans = bootmem_alloc(jobs * sizeof *ev.m[i].spans);
	}
}

static void put(const struct rec *r)
{
	if (ev.n < ev.cap)
		ev.rec[ev.n++] = *r;
	else
		ev.lost++;
}

void evrep_segment(const struct sched_segment *seg)
{
	put(&(struct rec){ REC_SEGMENT, 0, (uint8_t)seg->background,
			   (uint16_t)seg->cpu, seg->task, seg->from, seg->to, 0 });
}

void evrep_span(unsigned server, uint64_t from, uint64_t to)
{
	struct sched_measure *m = &ev.m[server];
	if (m->nspans == ev.jobs_cap) {
		ev.spans_lost[server]++;
		return;
	}
	/* A server stays on its CPU: its spans come in time order. */
	m->spans[m->nspans++] = (struct sched_span){ from, to };
}

void evrep_job(int done, uint64_t at, unsigned task, uint64_t job,
	       uint64_t arg)
{
	put(&(struct rec){ done ? REC_DONE : REC_ARRIVE, 0, 0, 0, (int32_t)task,
			   at, job, arg });
	if (!done || !ev.ts->task[task].server.kind)
		return;
	struct sched_measure *m = &ev.m[task];
	if (m->nresp < ev.jobs_cap)
		m->resp[m->nresp++] = arg;
	else
		ev.resp_lost[task]++;
}

void evrep_note(const struct sched_note *n)
{
	put(&(struct rec){ REC_NOTE, (uint8_t)n->kind, 0, (uint16_t)n->cpu,
			   (int32_t)n->task, n->at, n->amount, n->due });
}

static void print_text(void *ctx, const char *text)
{
	(void)ctx;
	kprintf("%s", text);
}

/* The summary line: printed, and kept without its newline. */
static void print_summary(void *ctx, const char *text)
{
	(void)ctx;
	kprintf("%s", text);
	for (; *text && ev.summary_len + 1 < SUMMARY_MAX; text++)
		if (*text != '\n')
			ev.summary[ev.summary_len++] = *text;
}

const char *evrep_summary(size_t *len)
{
	*len = ev.summary_len;
	return ev.summary;
}

static const struct sched_measure *measure(const void *ctx, unsigned task)
{
	(void)ctx;
	return &ev.m[task];
}

/* The schedule's lines (schedule=off: none, the count only). Returns the
 * number of segments kept. */
static uint64_t print_records(void)
{
	const struct taskset *ts = ev.ts;
	uint64_t segments = 0;
	for (uint64_t i = 0; i < ev.n; i++) {
		const struct rec *r = &ev.rec[i];
		segments += r->kind == REC_SEGMENT;
		if (!options.schedule)
			continue;
		if (r->kind == REC_SEGMENT) {
			struct sched_segment seg = { r->cpu, r->a, r->b, r->task,
						     r->bg, 0 };
			sched_report_segment(print_text, 0, ts, &seg);
		} else if (r->kind == REC_NOTE) {
			struct sched_note n = { (enum sched_note_kind)r->sub,
						(unsigned)r->task, r->cpu, r->a,
						r->b, r->c };
			sched_report_note(print_text, 0, ts, &n);
		} else {
			sched_report_job(print_text, 0, ts, r->kind == REC_DONE,
					 r->a, (unsigned)r->task, r->b, r->c);
		}
	}
	if (ev.lost)
		kprintf("events: %llu lines did not fit the %llu kept; the "
			"schedule above is cut short\n",
			(unsigned long long)ev.lost, (unsigned long long)ev.cap);
	return segments;
}

static const char *state_name(const struct task *t)
{
	return t->state == TASK_KILLED ? "killed" :
	       t->state == TASK_EXITED ? "exited" : "ok";
}

/* RESULT task (docs/formats.md, "`RESULT task`"), in the run's
 * microseconds. */
static void print_task(const struct sched_plugin *plugin, void *s,
		       unsigned i, const struct evrep_run *run)
{
	const struct task *t = &tasks[i];
	struct sched_task_stats st = { 0 };
	plugin->stats(s, i, &st);
	uint64_t self = tsc_to_us(t->control->self_cycles);
	kprintf("RESULT task name=%s state=%s jobs=%llu misses=%llu "
		"max_tardiness_us=%llu quanta=0 ran_us=%llu self_us=%llu "
		"faults=%u run_us=%llu work=%s\n", t->name, state_name(t),
		(unsigned long long)st.jobs, (unsigned long long)st.misses,
		(unsigned long long)st.max_tardiness_num,
		(unsigned long long)run->self_us[i], (unsigned long long)self,
		t->faults, (unsigned long long)st.run_us,
		t->spec->work);
}

/* RESULT server (the summary's words) and RESULT window. */
static void print_server(const struct sched_plugin *plugin, void *s,
			 unsigned i, const struct evrep_run *run)
{
	const struct task_spec *sp = &ev.ts->task[i];
	const struct sched_measure *m = &ev.m[i];
	struct sched_server_stats sv = { 0 };
	plugin->server_stats(s, i, &sv);
	uint64_t sum = 0;
	for (uint64_t j = 0; j < m->nresp; j++)
		sum += m->resp[j];
	char mean[40];
	if (m->nresp)
		sched_report_fraction(mean, sizeof mean, sum, m->nresp);
	else
		fmt_snprintf(mean, sizeof mean, "none");
	kprintf("RESULT server name=%s kind=%s arrivals=%llu jobs=%llu "
		"queued=%llu dropped=%llu response_mean_us=%s "
		"response_max_us=%llu demand_us=%llu consumed_us=%llu "
		"background_us=%llu tolls=%llu toll_us=%llu exhaustions=%llu "
		"replenishments=%llu coalesces=%llu max_pending=%llu\n",
		sp->name, taskset_server_kind_name(sp->server.kind),
		(unsigned long long)sv.arrivals, (unsigned long long)sv.jobs,
		(unsigned long long)run->queued[i],
		(unsigned long long)run->dropped[i], mean,
		(unsigned long long)(m->nresp ? m->resp[m->nresp - 1] : 0),
		(unsigned long long)sv.demand_us,
		(unsigned long long)sv.consumed_us,
		(unsigned long long)sv.background_us,
		(unsigned long long)sv.tolls, (unsigned long long)sv.toll_us,
		(unsigned long long)sv.exhaustions,
		(unsigned long long)sv.replenishments,
		(unsigned long long)sv.coalesces,
		(unsigned long long)sv.max_pending);
	const char *verdict = !m->top ? "not_applicable" :
			      ev.spans_lost[i] ? "incomplete" :
			      m->window.max_us <= sp->server.budget_us ? "ok"
								       : "over";
	kprintf("RESULT window server=%s verdict=%s max_us=%llu from_us=%llu "
		"bound_us=%u period_us=%u spans=%llu\n", sp->name, verdict,
		(unsigned long long)m->window.max_us,
		(unsigned long long)m->window.from_us, sp->server.budget_us,
		sp->server.period_us, (unsigned long long)m->nspans);
}

uint64_t evrep_print(const struct sched_plugin *plugin, void *s,
		     const struct taskset *ts, const struct evrep_run *run,
		     unsigned *window_bad)
{
	for (unsigned i = 0; i < ts->ntasks; i++) {
		struct sched_measure *m = &ev.m[i];
		m->self_us = run->self_us[i];
		m->top = sched_evsim_top(ts, i);
		if (!ts->task[i].server.kind)
			continue;
		m->queued = run->queued[i];
		sort_u64(m->resp, m->nresp);
		m->window = sched_window_max(m->spans, m->nspans,
					     ts->task[i].server.period_us);
	}
	uint64_t segments = print_records();
	struct sched_run_us r = { run->cpus, run->end_us, run->quantum_us, 0 };
	ev.summary = bootmem_alloc(SUMMARY_MAX);
	ev.summary_len = 0;
	uint64_t misses = sched_report_summary_us(print_summary, 0, plugin, s,
						  ts, &r, measure, 0,
						  window_bad);
	kprintf("\n");
	uint64_t wakes = 0, late_max = 0, late_sum = 0;
	for (unsigned k = 0; k < run->cpus; k++) {
		wakes += run->wakes[k];
		late_sum += run->late_sum_ns[k];
		if (run->late_max_ns[k] > late_max)
			late_max = run->late_max_ns[k];
	}
	kprintf("RESULT sched name=%s cpus=%u tasks=%u slots=%llu ticks=events "
		"misses=%llu boundary_missed=%llu time_us=%llu quantum_us=%llu "
		"timer_wakes=%llu timer_late_avg_ns=%llu timer_late_max_ns=%llu "
		"segments=%llu\n",
		plugin->name, run->cpus, ts->ntasks,
		(unsigned long long)(run->end_us / run->quantum_us),
		(unsigned long long)misses,
		(unsigned long long)run->boundary_missed,
		(unsigned long long)run->end_us,
		(unsigned long long)run->quantum_us, (unsigned long long)wakes,
		(unsigned long long)(wakes ? late_sum / wakes : 0),
		(unsigned long long)late_max, (unsigned long long)segments);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		if (ts->task[i].server.kind)
			print_server(plugin, s, i, run);
		else
			print_task(plugin, s, i, run);
	}
	return misses;
}

unsigned evrep_windows_over(uint64_t slack_us, const int *plan_over,
			    unsigned *checked, unsigned *within)
{
	unsigned over = 0;
	*checked = *within = 0;
	for (unsigned i = 0; i < ev.ts->ntasks; i++) {
		const struct sched_measure *m = &ev.m[i];
		const struct task_spec *sp = &ev.ts->task[i];
		if (!sp->server.kind || !m->top)
			continue;
		(*checked)++;
		if (m->window.max_us > sp->server.budget_us + slack_us &&
		    !(plan_over && plan_over[i]))
			over++;
		else if (m->window.max_us > sp->server.budget_us)
			(*within)++;
	}
	return over;
}
