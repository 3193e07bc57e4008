/* kernel/time/clock_stats: the quantum clock's error over a run. */
#include "clock_stats.h"

#include "../../arch/x86/percpu.h"
#include "../../arch/x86/tsc.h"
#include "../../lib/sort.h"
#include "../core/bootmem.h"
#include "../core/console.h"
#include "quantum_clock.h"
#include "../trace/trace.h"

/* Sorting room, grown to the largest run's samples, and the per-CPU
 * cursors of spreads() (after a run, on one CPU). */
static struct {
	uint64_t *scratch;
	uint64_t capacity;
	struct ticks {
		const struct trace_buf *b;
		uint32_t i;
	} cursor[MAX_CPUS];
	uint64_t slot[MAX_CPUS], entry[MAX_CPUS];
} st;

int clock_stats_begin(void)
{
	/* A boundary record per slot, the end boundary, a few to spare. */
	uint64_t per_cpu = qclock_slots() + 16;
	if (per_cpu > UINT32_MAX || trace_setup(qclock_cpus(), (uint32_t)per_cpu))
		return -1;
	trace_reset();
	return 0;
}

/* A cursor (struct ticks) walks CPU k's boundary records of the run,
 * slot < slots. The next boundary CPU k took: its slot and entry time; 0 at the end.
 * A missed boundary has no entry time (*entry = 0). */
static int next_tick(struct ticks *c, uint64_t *slot, uint64_t *entry)
{
	uint32_t n = __atomic_load_n(&c->b->count, __ATOMIC_ACQUIRE);
	while (c->i < n) {
		const struct trace_rec *r = &c->b->rec[c->i++];
		if (r->event != TRACE_TICK_START || r->arg >= qclock_slots())
			continue;
		*slot = r->arg;
		*entry = (r->flags & TRACE_F_TICK_MISSED) ? 0 : r->tsc;
		return 1;
	}
	return 0;
}

static struct ticks ticks_of(unsigned k)
{
	return (struct ticks){ &trace_buf[k], 0 };
}

static uint64_t *scratch(uint64_t n)
{
	if (n > st.capacity) {
		st.scratch = bootmem_alloc(n * sizeof *st.scratch);
		st.capacity = n;
	}
	return st.scratch;
}

/* Aligned: how far apart the CPUs took each boundary every CPU took. The
 * records of each CPU come in slot order, so one cursor per CPU walks
 * them together. */
static uint64_t spreads(uint64_t *out)
{
	unsigned m = qclock_cpus();
	struct ticks *c = st.cursor;
	uint64_t *slot = st.slot, *entry = st.entry;
	int more = 1;
	for (unsigned k = 0; k < m; k++) {
		c[k] = ticks_of(k);
		more &= next_tick(&c[k], &slot[k], &entry[k]);
	}
	uint64_t n = 0;
	while (more) {
		uint64_t lo_slot = slot[0], hi_slot = slot[0];
		for (unsigned k = 1; k < m; k++) {
			lo_slot = slot[k] < lo_slot ? slot[k] : lo_slot;
			hi_slot = slot[k] > hi_slot ? slot[k] : hi_slot;
		}
		if (lo_slot == hi_slot) {
			uint64_t lo = ~0ull, hi = 0;
			unsigned k = 0;
			for (; k < m && entry[k]; k++) {
				lo = entry[k] < lo ? entry[k] : lo;
				hi = entry[k] > hi ? entry[k] : hi;
			}
			if (k == m)
				out[n++] = hi - lo;
		}
		for (unsigned k = 0; k < m && more; k++)
			if (slot[k] == lo_slot)
				more = next_tick(&c[k], &slot[k], &entry[k]);
	}
	return n;
}

/* Calls visit(ctx, k, slot, entry, ideal) for every boundary of the run
 * that CPU k serviced, CPU by CPU in slot order. */
static void each_serviced(void (*visit)(void *ctx, unsigned k, uint64_t slot,
					uint64_t entry, uint64_t ideal),
			  void *ctx)
{
	uint64_t slot, entry;
	for (unsigned k = 0; k < qclock_cpus(); k++) {
		struct ticks c = ticks_of(k);
		while (next_tick(&c, &slot, &entry))
			if (entry)
				visit(ctx, k, slot, entry, qclock_due(k, slot));
	}
}

struct samples {
	uint64_t *out, n;
};

static void deviation(void *ctx, unsigned k, uint64_t slot, uint64_t entry,
		      uint64_t want)
{
	(void)k;
	(void)slot;
	struct samples *s = ctx;
	s->out[s->n++] = entry > want ? entry - want : want - entry;
}

/* Staggered: how far each CPU's boundary is from its ideal time. */
static uint64_t deviations(uint64_t *out)
{
	struct samples s = { out, 0 };
	each_serviced(deviation, &s);
	return s.n;
}

void clock_stats_summarise(struct clock_stats *r)
{
	unsigned m = qclock_cpus();
	uint64_t slots = qclock_slots();
	*r = (struct clock_stats){ 0 };
	r->staggered = qclock_staggered();
	r->cpus = m;
	r->quantum_us = qclock_quantum_us();
	r->quanta = slots;
	r->seen_min = ~0ull;
	for (unsigned k = 0; k < m; k++) {
		r->missed += qclock_cpu_missed(k);
		uint64_t s = qclock_cpu_serviced(k);
		r->seen_min = s < r->seen_min ? s : r->seen_min;
		r->seen_max = s > r->seen_max ? s : r->seen_max;
	}
	uint64_t slot, entry;
	for (unsigned k = 0; k < m && !r->recorded; k++) {
		struct ticks c = ticks_of(k);
		r->recorded = next_tick(&c, &slot, &entry);
	}
	uint64_t *out = scratch(slots * m);
	uint64_t n = r->staggered ? deviations(out) : spreads(out);
	sort_u64(out, n);
	r->samples = n;
	if (n) {
		r->err_min_ns = tsc_to_ns(out[0]);
		r->err_p50_ns = tsc_to_ns(percentile_u64(out, n, 50));
		r->err_p99_ns = tsc_to_ns(percentile_u64(out, n, 99));
		r->err_max_ns = tsc_to_ns(out[n - 1]);
	}
}

struct latest {
	struct clock_late *out;
	unsigned n, have;
};

/* Keeps the n latest boundaries, latest first (by insertion). */
static void keep_latest(void *ctx, unsigned k, uint64_t slot, uint64_t entry,
			uint64_t want)
{
	struct latest *l = ctx;
	uint64_t late = entry > want ? entry - want : 0;
	unsigned i = l->have < l->n ? l->have++ : l->n;
	while (i > 0 && l->out[i - 1].ns < late) {
		if (i < l->n)
			l->out[i] = l->out[i - 1];
		i--;
	}
	if (i < l->n)
		l->out[i] = (struct clock_late){ late, k, slot };
}

unsigned clock_stats_latest(struct clock_late *out, unsigned n)
{
	struct latest l = { out, n, 0 };
	each_serviced(keep_latest, &l);
	for (unsigned i = 0; i < l.have; i++)
		out[i].ns = tsc_to_ns(out[i].ns);
	return l.have;
}

/* a - b in nanoseconds as a sign and a magnitude, for printing. */
static unsigned long long ns_diff(uint64_t a, uint64_t b, const char **sign)
{
	*sign = a < b ? "-" : "";
	return (unsigned long long)tsc_to_ns(a < b ? b - a : a - b);
}

void clock_stats_trace_lines(void)
{
	const char *mode = qclock_staggered() ? "staggered" : "aligned";
	uint64_t i, e;
	for (unsigned k = 0; k < qclock_cpus(); k++) {
		struct ticks c = ticks_of(k);
		while (next_tick(&c, &i, &e)) {
			if (!e) {
				kprintf("TRACE tick mode=%s cpu=%u slot=%llu "
					"late_ns=missed\n", mode, k,
					(unsigned long long)i);
				continue;
			}
			const char *at_sign, *late_sign;
			unsigned long long at = ns_diff(e, qclock_t0(), &at_sign);
			unsigned long long late = ns_diff(e, qclock_due(k, i),
							  &late_sign);
			kprintf("TRACE tick mode=%s cpu=%u slot=%llu at_ns=%s%llu "
				"late_ns=%s%llu\n", mode, k, (unsigned long long)i,
				at_sign, at, late_sign, late);
		}
	}
}

/* Nanoseconds as microseconds with three decimals. */
#define US(ns) (unsigned long long)((ns) / 1000), (unsigned long long)((ns) % 1000)

void clock_stats_report(const struct clock_stats *r)
{
	const char *mode = r->staggered ? "staggered" : "aligned";
	kprintf("\nquantum clock, %s: %u CPUs, Q = %llu us, %llu quanta, timer "
		"in %s mode\n", mode, r->cpus, (unsigned long long)r->quantum_us,
		(unsigned long long)r->quanta,
		qclock_deadline_mode() ? "TSC-deadline" : "one-shot");
	kprintf("  %4s %6s %10s %8s\n", "cpu", "apic", "serviced", "missed");
	for (unsigned k = 0; k < r->cpus; k++)
		kprintf("  %4u %6u %10llu %8llu\n", k, percpu[k].apic_id,
			(unsigned long long)qclock_cpu_serviced(k),
			(unsigned long long)qclock_cpu_missed(k));
	if (!r->recorded) {
		/* Nothing to measure the error from: the counts alone. */
		kprintf("  no boundary records (record=off): no error figures\n");
		kprintf("RESULT ticks mode=%s cpus=%u quantum_us=%llu quanta=%llu "
			"missed=%llu seen_min=%llu seen_max=%llu\n", mode, r->cpus,
			(unsigned long long)r->quantum_us,
			(unsigned long long)r->quanta,
			(unsigned long long)r->missed,
			(unsigned long long)r->seen_min,
			(unsigned long long)r->seen_max);
		return;
	}
	kprintf("  %s (us): min %llu.%03llu  p50 %llu.%03llu  p99 %llu.%03llu  "
		"max %llu.%03llu  over %llu samples\n",
		r->staggered ? "deviation from the ideal boundary"
			     : "spread of a boundary across CPUs",
		US(r->err_min_ns), US(r->err_p50_ns), US(r->err_p99_ns),
		US(r->err_max_ns), (unsigned long long)r->samples);
	kprintf("RESULT ticks mode=%s cpus=%u quantum_us=%llu quanta=%llu "
		"missed=%llu seen_min=%llu seen_max=%llu err_min_us=%llu.%03llu "
		"err_p50_us=%llu.%03llu err_p99_us=%llu.%03llu "
		"err_max_us=%llu.%03llu\n",
		mode, r->cpus, (unsigned long long)r->quantum_us,
		(unsigned long long)r->quanta, (unsigned long long)r->missed,
		(unsigned long long)r->seen_min, (unsigned long long)r->seen_max,
		US(r->err_min_ns), US(r->err_p50_ns), US(r->err_p99_ns),
		US(r->err_max_ns));
}
