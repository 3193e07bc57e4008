/* sched/report: schedule JSON lines (FORMATS.md section 2). */
#include "report.h"

#include "../lib/fmt.h"

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
			     "\"misses\": %llu, \"max_tardiness\": %s}",
			     i ? ", " : "", ts->task[i].name,
			     (unsigned long long)st.quanta,
			     (unsigned long long)st.jobs,
			     (unsigned long long)st.misses, frac);
		out(ctx, buf);
	}
	out(ctx, "}");
	if (plugin->summary) {
		struct extra_ctx x = { out, ctx };
		plugin->summary(s, put_extra, &x);
	}
	out(ctx, "}}\n");
	return misses;
}
