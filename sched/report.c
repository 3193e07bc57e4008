/* sched/report: schedule JSON lines (docs/formats.md, "Schedules as JSON
 * lines"). */
#include "report.h"

#include <stdarg.h>

#include "../lib/fmt.h"
#include "../lib/sort.h"

void sched_report_fraction(char *buf, unsigned size, uint64_t num, uint64_t den)
{
	if (den == 0)
		den = 1;
	if (num % den == 0) {
		fmt_snprintf(buf, size, "%llu", (unsigned long long)(num / den));
		return;
	}
	/* Six decimals, rounded, in integers (the kernel has no floating
	 * point): whole part, then the remainder scaled by 10^6. */
	uint64_t whole = num / den, rem = num % den;
	uint64_t frac = (rem * 1000000 + den / 2) / den;
	if (frac == 1000000) {
		whole++;
		frac = 0;
	}
	fmt_snprintf(buf, size, "%llu.%06llu", (unsigned long long)whole,
		     (unsigned long long)frac);
}

void sched_report_line(sched_print_fn out, void *ctx, const char *format, ...)
{
	char buf[192];
	va_list ap;
	va_start(ap, format);
	fmt_vsnprintf(buf, sizeof buf, format, ap);
	va_end(ap);
	out(ctx, buf);
}

void sched_report_slot(sched_print_fn out, void *ctx, const struct taskset *ts,
		       uint64_t t, const int *choice, unsigned cpus)
{
	char buf[64];
	fmt_snprintf(buf, sizeof buf, "{\"t\": %llu, \"cpus\": [",
		     (unsigned long long)t);
	out(ctx, buf);
	for (unsigned k = 0; k < cpus; k++) {
		if (k)
			out(ctx, ", ");
		if (choice[k] == SCHED_IDLE) {
			out(ctx, "null");
		} else {
			fmt_snprintf(buf, sizeof buf, "\"%s\"",
				     ts->task[choice[k]].name);
			out(ctx, buf);
		}
	}
	out(ctx, "]}\n");
}

struct extra_ctx {
	sched_print_fn out;
	void *ctx;
};

static void put_extra(void *p, const char *key, int64_t num, int64_t den)
{
	struct extra_ctx *x = p;
	char val[48], buf[96];
	if (den <= 1) {
		fmt_snprintf(val, sizeof val, "%lld", (long long)num);
	} else {
		uint64_t mag = num < 0 ? (uint64_t)0 - (uint64_t)num : (uint64_t)num;
		char f[40];
		sched_report_fraction(f, sizeof f, mag, (uint64_t)den);
		fmt_snprintf(val, sizeof val, "%s%s", num < 0 ? "-" : "", f);
	}
	fmt_snprintf(buf, sizeof buf, ", \"%s\": %s", key, val);
	x->out(x->ctx, buf);
}

/* The plugin's own summary fields, and the end of the summary line. */
static void put_plugin_fields(sched_print_fn out, void *ctx,
			      const struct sched_plugin *plugin, void *s)
{
	if (plugin->summary) {
		struct extra_ctx x = { out, ctx };
		plugin->summary(s, put_extra, &x);
	}
	out(ctx, "}}\n");
}

uint64_t sched_report_summary(sched_print_fn out, void *ctx,
			  const struct sched_plugin *plugin, void *s,
			  const struct taskset *ts, unsigned cpus, uint64_t slots,
			  int staggered)
{
	uint64_t misses = 0, tn = 0, td = 1;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		struct sched_task_stats st = { 0 };
		plugin->stats(s, i, &st);
		if (!st.tardiness_den)
			st.tardiness_den = 1;
		misses += st.misses;
		/* a/b > c/d iff a*d > c*b; tardiness and denominators are small. */
		if (st.max_tardiness_num * td > tn * st.tardiness_den) {
			tn = st.max_tardiness_num;
			td = st.tardiness_den;
		}
	}
	char buf[256], frac[40];
	sched_report_fraction(frac, sizeof frac, tn, td);
	fmt_snprintf(buf, sizeof buf,
		     "{\"summary\": {\"sched\": \"%s\", \"cpus\": %u, \"slots\": %llu, "
		     "\"ticks\": \"%s\", \"misses\": %llu, \"max_tardiness\": %s, "
		     "\"tasks\": {", plugin->name, cpus, (unsigned long long)slots,
		     staggered ? "staggered" : "aligned",
		     (unsigned long long)misses, frac);
	out(ctx, buf);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		struct sched_task_stats st = { 0 };
		plugin->stats(s, i, &st);
		sched_report_fraction(frac, sizeof frac, st.max_tardiness_num,
				      st.tardiness_den ? st.tardiness_den : 1);
		fmt_snprintf(buf, sizeof buf,
			     "%s\"%s\": {\"quanta\": %llu, \"jobs\": %llu, "
			     "\"misses\": %llu, \"max_tardiness\": %s",
			     i ? ", " : "", ts->task[i].name,
			     (unsigned long long)st.quanta,
			     (unsigned long long)st.jobs,
			     (unsigned long long)st.misses, frac);
		out(ctx, buf);
		sched_report_lock_stats(out, ctx, plugin, s, i);
		out(ctx, "}");
	}
	out(ctx, "}");
	put_plugin_fields(out, ctx, plugin, s);
	return misses;
}

void sched_report_lock_stats(sched_print_fn out, void *ctx,
			     const struct sched_plugin *plugin, void *s,
			     unsigned task)
{
	if (!plugin->lock_stats)
		return;
	struct sched_lock_stats ls = { 0 };
	plugin->lock_stats(s, task, &ls);
	char buf[256];
	fmt_snprintf(buf, sizeof buf, ", \"lock\": {\"requests\": %llu, "
		     "\"spin_max\": %llu, \"wait_max\": %llu, \"pi_max\": %llu, "
		     "\"intf_max\": %llu, \"blocked_max\": %llu, "
		     "\"forced\": %llu}", (unsigned long long)ls.requests,
		     (unsigned long long)ls.spin_max,
		     (unsigned long long)ls.wait_max,
		     (unsigned long long)ls.pi_max,
		     (unsigned long long)ls.intf_max,
		     (unsigned long long)ls.blocked_max,
		     (unsigned long long)ls.forced);
	out(ctx, buf);
}

static const char *const lock_kind_names[] = {
	[SCHED_LOCK_REQUEST] = "request", [SCHED_LOCK_ACQUIRE] = "acquire",
	[SCHED_LOCK_RELEASE] = "release", [SCHED_LOCK_FORCED] = "forced",
	[SCHED_LOCK_SPIN] = "spin", [SCHED_LOCK_SUSPEND] = "suspend",
	[SCHED_LOCK_BLOCKED] = "blocked",
};

const char *sched_lock_kind_name(enum sched_lock_kind k)
{
	return (unsigned)k < sizeof lock_kind_names / sizeof *lock_kind_names
	       ? lock_kind_names[k] : "?";
}

void sched_report_lock(sched_print_fn out, void *ctx, const struct taskset *ts,
		       const struct sched_lock_event *ev, const char *unit)
{
	char buf[256];
	if (ev->kind == SCHED_LOCK_BLOCKED)
		fmt_snprintf(buf, sizeof buf, "{\"lock\": \"blocked\", "
			     "\"at%s\": %llu, \"task\": \"%s\", \"job\": %llu, "
			     "\"spin\": %llu, \"wait\": %llu, \"pi\": %llu, "
			     "\"intf\": %llu}\n", unit, (unsigned long long)ev->at,
			     ts->task[ev->task].name,
			     (unsigned long long)ev->job,
			     (unsigned long long)ev->spin,
			     (unsigned long long)ev->wait,
			     (unsigned long long)ev->pi,
			     (unsigned long long)ev->intf);
	else
		fmt_snprintf(buf, sizeof buf, "{\"lock\": \"%s\", \"at%s\": "
			     "%llu, \"task\": \"%s\", \"job\": %llu, "
			     "\"res\": \"%s\"}\n", sched_lock_kind_name(ev->kind),
			     unit, (unsigned long long)ev->at,
			     ts->task[ev->task].name,
			     (unsigned long long)ev->job, ts->res[ev->res].name);
	out(ctx, buf);
}

/* A JSON line being built; what does not fit is cut. */
struct line {
	char buf[192];
	size_t n;
};

__attribute__((format(printf, 2, 3)))
static void add(struct line *l, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	int k = fmt_vsnprintf(l->buf + l->n, sizeof l->buf - l->n, format, ap);
	va_end(ap);
	if (k > 0)
		l->n += (size_t)k < sizeof l->buf - l->n ? (size_t)k
							  : sizeof l->buf - l->n - 1;
}

void sched_report_segment(sched_print_fn out, void *ctx,
			  const struct taskset *ts,
			  const struct sched_segment *seg)
{
	struct line l = { .n = 0 };
	add(&l, "{\"cpu\": %u, \"from_us\": %llu, \"to_us\": %llu, \"task\": "
	    "\"%s\"", seg->cpu, (unsigned long long)seg->from,
	    (unsigned long long)seg->to, ts->task[seg->task].name);
	if (seg->background)
		add(&l, ", \"background\": true");
	if (seg->overhead_us)
		add(&l, ", \"overhead_us\": %llu",
		    (unsigned long long)seg->overhead_us);
	add(&l, "}\n");
	out(ctx, l.buf);
}

void sched_report_note(sched_print_fn out, void *ctx, const struct taskset *ts,
		       const struct sched_note *n)
{
	static const char *const kind[] = {
		"exhausted", "replenished", "posted", "toll", "coalesced" };
	static const char *const amount[] = {
		"left_us", "amount_us", "amount_us", "amount_us", "pending" };
	struct line l = { .n = 0 };
	add(&l, "{\"at_us\": %llu, \"event\": \"%s\", \"task\": \"%s\", "
	    "\"%s\": %llu", (unsigned long long)n->at, kind[n->kind],
	    ts->task[n->task].name, amount[n->kind],
	    (unsigned long long)n->amount);
	if (n->kind == SCHED_NOTE_POSTED)
		add(&l, ", \"due_us\": %llu", (unsigned long long)n->due);
	add(&l, "}\n");
	out(ctx, l.buf);
}

void sched_report_job(sched_print_fn out, void *ctx, const struct taskset *ts,
		      int done, uint64_t at, unsigned task, uint64_t job,
		      uint64_t arg)
{
	int server = ts->task[task].server.kind != SERVER_NONE;
	struct line l = { .n = 0 };
	add(&l, "{\"at_us\": %llu, \"event\": \"%s\", \"task\": \"%s\", "
	    "\"job\": %llu", (unsigned long long)at, done ? "done" : "arrive",
	    ts->task[task].name, (unsigned long long)job);
	if (!done || server)
		add(&l, ", \"%s\": %llu", done ? "response_us" : "cost_us",
		    (unsigned long long)arg);
	add(&l, "}\n");
	out(ctx, l.buf);
}

static void put_u(sched_print_fn out, void *ctx, const char *key, uint64_t v)
{
	char buf[64];
	fmt_snprintf(buf, sizeof buf, ", \"%s\": %llu", key,
		     (unsigned long long)v);
	out(ctx, buf);
}

/* The response times of a server's jobs: mean, nearest-rank percentiles
 * (lib/sort) and maximum. */
static void put_responses(sched_print_fn out, void *ctx,
			  const struct sched_measure *m)
{
	if (!m->nresp) {
		out(ctx, ", \"response_mean_us\": null");
		return;
	}
	uint64_t sum = 0;
	for (uint64_t i = 0; i < m->nresp; i++)
		sum += m->resp[i];
	char frac[40], buf[80];
	sched_report_fraction(frac, sizeof frac, sum, m->nresp);
	fmt_snprintf(buf, sizeof buf, ", \"response_mean_us\": %s", frac);
	out(ctx, buf);
	put_u(out, ctx, "response_p50_us", percentile_u64(m->resp, m->nresp, 50));
	put_u(out, ctx, "response_p99_us", percentile_u64(m->resp, m->nresp, 99));
	put_u(out, ctx, "response_max_us", m->resp[m->nresp - 1]);
}

static void put_server(sched_print_fn out, void *ctx,
		       const struct sched_plugin *plugin, void *s,
		       const struct task_spec *t, unsigned i,
		       const struct sched_task_stats *st,
		       const struct sched_measure *m, unsigned *window_bad)
{
	struct sched_server_stats sv = { 0 };
	plugin->server_stats(s, i, &sv);
	char buf[160];
	fmt_snprintf(buf, sizeof buf, "\"%s\": {\"kind\": \"%s\"", t->name,
		     taskset_server_kind_name(t->server.kind));
	out(ctx, buf);
	put_u(out, ctx, "arrivals", sv.arrivals);
	put_u(out, ctx, "jobs", sv.jobs);
	put_u(out, ctx, "queued", m->queued);
	put_responses(out, ctx, m);
	put_u(out, ctx, "run_us", st->run_us);
	put_u(out, ctx, "self_us", m->self_us);
	put_u(out, ctx, "demand_us", sv.demand_us);
	put_u(out, ctx, "consumed_us", sv.consumed_us);
	put_u(out, ctx, "background_us", sv.background_us);
	put_u(out, ctx, "tolls", sv.tolls);
	put_u(out, ctx, "toll_us", sv.toll_us);
	put_u(out, ctx, "exhaustions", sv.exhaustions);
	put_u(out, ctx, "replenishments", sv.replenishments);
	put_u(out, ctx, "coalesces", sv.coalesces);
	put_u(out, ctx, "max_pending", sv.max_pending);
	put_u(out, ctx, "window_max_us", m->window.max_us);
	put_u(out, ctx, "window_from_us", m->window.from_us);
	put_u(out, ctx, "window_bound_us", t->server.budget_us);
	int ok = m->window.max_us <= t->server.budget_us;
	if (m->top && !ok)
		(*window_bad)++;
	out(ctx, !m->top ? ", \"window_ok\": null}" :
		 ok ? ", \"window_ok\": true}" : ", \"window_ok\": false}");
}

uint64_t sched_report_summary_us(
	sched_print_fn out, void *ctx, const struct sched_plugin *plugin,
	void *s, const struct taskset *ts, const struct sched_run_us *run,
	const struct sched_measure *(*measure)(const void *mctx, unsigned task),
	const void *mctx, unsigned *window_bad)
{
	uint64_t misses = 0, tardiness = 0;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		struct sched_task_stats st = { 0 };
		plugin->stats(s, i, &st);
		misses += st.misses;
		if (st.max_tardiness_num > tardiness)
			tardiness = st.max_tardiness_num;
	}
	char buf[256];
	fmt_snprintf(buf, sizeof buf,
		     "{\"summary\": {\"sched\": \"%s\", \"cpus\": %u, "
		     "\"time_us\": %llu, \"quantum_us\": %llu, \"cxs_us\": %llu, "
		     "\"misses\": %llu, \"max_tardiness_us\": %llu, \"tasks\": {",
		     plugin->name, run->cpus, (unsigned long long)run->time_us,
		     (unsigned long long)run->quantum_us,
		     (unsigned long long)run->cxs_us, (unsigned long long)misses,
		     (unsigned long long)tardiness);
	out(ctx, buf);
	const char *sep = "";
	for (unsigned i = 0; i < ts->ntasks; i++) {
		if (ts->task[i].server.kind)
			continue;
		struct sched_task_stats st = { 0 };
		plugin->stats(s, i, &st);
		fmt_snprintf(buf, sizeof buf,
			     "%s\"%s\": {\"jobs\": %llu, \"misses\": %llu, "
			     "\"max_tardiness_us\": %llu, \"run_us\": %llu, "
			     "\"self_us\": %llu", sep, ts->task[i].name,
			     (unsigned long long)st.jobs,
			     (unsigned long long)st.misses,
			     (unsigned long long)st.max_tardiness_num,
			     (unsigned long long)st.run_us,
			     (unsigned long long)measure(mctx, i)->self_us);
		out(ctx, buf);
		sched_report_lock_stats(out, ctx, plugin, s, i);
		out(ctx, "}");
		sep = ", ";
	}
	out(ctx, "}, \"servers\": {");
	sep = "";
	*window_bad = 0;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		if (!ts->task[i].server.kind)
			continue;
		struct sched_task_stats st = { 0 };
		plugin->stats(s, i, &st);
		out(ctx, sep);
		put_server(out, ctx, plugin, s, &ts->task[i], i, &st,
			   measure(mctx, i), window_bad);
		sep = ", ";
	}
	out(ctx, "}");
	put_plugin_fields(out, ctx, plugin, s);
	return misses;
}
