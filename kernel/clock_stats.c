/* kernel/clock_stats: the quantum clock's error over a run. */
#include "clock_stats.h"

#include "../arch/x86/percpu.h"
#include "../arch/x86/tsc.h"
#include "../lib/sort.h"
#include "bootmem.h"
#include "console.h"
#include "quantum_clock.h"

static struct {
	uint64_t **entry;        /* [cpu][slot]: BSP-time TSC; 0: missed */
	uint64_t *scratch;
	unsigned cpus_capacity;
	uint64_t slots_capacity;
} st;

void clock_stats_begin(void)
{
	unsigned m = qclock_cpus();
	uint64_t slots = qclock_slots();
	if (m > st.cpus_capacity || slots > st.slots_capacity) {
		st.entry = bootmem_alloc(m * sizeof *st.entry);
		for (unsigned k = 0; k < m; k++)
			st.entry[k] = bootmem_alloc(slots * sizeof(uint64_t));
		st.scratch = bootmem_alloc(slots * m * sizeof(uint64_t));
		st.cpus_capacity = m;
		st.slots_capacity = slots;
	}
	for (unsigned k = 0; k < m; k++)
		for (uint64_t i = 0; i < slots; i++)
			st.entry[k][i] = 0;
}

void clock_stats_record(unsigned cpu, uint64_t slot, uint64_t entry)
{
	st.entry[cpu][slot] = entry;
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
	uint64_t n = 0;
	if (!r->staggered) {
		/* Aligned: how far apart the CPUs took the same boundary. */
		for (uint64_t i = 0; i < slots; i++) {
			uint64_t lo = ~0ull, hi = 0;
			unsigned k = 0;
			for (; k < m; k++) {
				uint64_t e = st.entry[k][i];
				if (!e)
					break;
				lo = e < lo ? e : lo;
				hi = e > hi ? e : hi;
			}
			if (k == m)
				st.scratch[n++] = hi - lo;
		}
	} else {
		/* Staggered: how far each CPU's boundary is from its ideal time. */
		for (unsigned k = 0; k < m; k++)
			for (uint64_t i = 0; i < slots; i++) {
				uint64_t e = st.entry[k][i];
				if (!e)
					continue;
				uint64_t want = qclock_ideal(k, i);
				st.scratch[n++] = e > want ? e - want : want - e;
			}
	}
	sort_u64(st.scratch, n);
	r->samples = n;
	if (n) {
		r->err_min_ns = tsc_to_ns(st.scratch[0]);
		r->err_p50_ns = tsc_to_ns(percentile_u64(st.scratch, n, 50));
		r->err_p99_ns = tsc_to_ns(percentile_u64(st.scratch, n, 99));
		r->err_max_ns = tsc_to_ns(st.scratch[n - 1]);
	}
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
	for (unsigned k = 0; k < qclock_cpus(); k++)
		for (uint64_t i = 0; i < qclock_slots(); i++) {
			uint64_t e = st.entry[k][i];
			if (!e) {
				kprintf("TRACE tick mode=%s cpu=%u slot=%llu "
					"late_ns=missed\n", mode, k,
					(unsigned long long)i);
				continue;
			}
			const char *at_sign, *late_sign;
			unsigned long long at = ns_diff(e, qclock_t0(), &at_sign);
			unsigned long long late = ns_diff(e, qclock_ideal(k, i),
							  &late_sign);
			kprintf("TRACE tick mode=%s cpu=%u slot=%llu at_ns=%s%llu "
				"late_ns=%s%llu\n", mode, k, (unsigned long long)i,
				at_sign, at, late_sign, late);
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
