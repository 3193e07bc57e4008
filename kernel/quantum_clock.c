/* kernel/quantum_clock: aligned and staggered boundaries, and their error. */
#include "quantum_clock.h"

#include "../arch/x86/cpu.h"
#include "../arch/x86/percpu.h"
#include "../arch/x86/trap.h"
#include "../arch/x86/tsc.h"
#include "../drivers/apic/lapic.h"
#include "../lib/sort.h"
#include "bootmem.h"
#include "console.h"
#include "gdbstub.h"
#include "smp.h"

#define APIC_CALIBRATION_US 10000
/* The epoch is this far after the start, so every CPU has armed its first
 * boundary before it comes. */
#define LEAD_US 20000

static struct {
	int deadline;             /* TSC-deadline mode */
	uint64_t apic_per_tsc;    /* one-shot: APIC ticks per TSC cycle, 32.32 */
	int staggered;
	uint64_t t0, slots;
	/* Q/M in TSC cycles as a whole part and a remainder over 1000*M:
	 * Q/M = Q_us * kHz / (1000 * M) exactly, so boundary n*Q/M stays
	 * exact however far from T0 (a Q rounded to whole cycles would drift
	 * by up to half a cycle per quantum). */
	uint64_t sub_whole, sub_rem, sub_den;
	unsigned m;
	uint64_t *entry[MAX_CPUS];   /* BSP-time TSC at each boundary; 0: missed */
	uint64_t capacity;           /* slots the buffers hold */
	qclock_boundary_fn hook;
	void *hook_ctx;
	uint64_t *scratch;
} run;

int qclock_deadline_mode(void)
{
	return run.deadline;
}

void qclock_init(void)
{
	run.deadline = lapic_has_tsc_deadline();
	if (run.deadline)
		return;
	uint64_t flags = irq_save();
	lapic_timer_setup(VEC_CALIBRATION_TIMER, 0);
	lapic_timer_arm_count(0xffffffffu);
	uint64_t t0 = rdtsc_ordered();
	tsc_delay_us(APIC_CALIBRATION_US);
	uint32_t left = lapic_timer_current_count();
	uint64_t t1 = rdtsc_ordered();
	lapic_timer_stop();
	irq_restore(flags);
	run.apic_per_tsc = ((uint64_t)(0xffffffffu - left) << 32) / (t1 - t0);
}

/* CPU k's boundary i in the BSP's TSC time: T0 + n*Q/M with n = i*M
 * (aligned) or i*M + k (staggered), rounded down to a whole cycle. */
static uint64_t ideal(unsigned k, uint64_t i)
{
	uint64_t n = i * run.m + (run.staggered ? k : 0);
	return run.t0 + n * run.sub_whole + n * run.sub_rem / run.sub_den;
}

/* Arms CPU k's timer for the boundary due at `due` (BSP time). */
static void arm(unsigned k, uint64_t due)
{
	uint64_t local = due + (uint64_t)percpu[k].tsc_offset;
	if (run.deadline) {
		lapic_timer_arm_deadline(local);
		return;
	}
	uint64_t now = rdtsc();
	uint64_t delta = local > now ? local - now : 1;
	uint64_t count = (delta * run.apic_per_tsc) >> 32;
	if (count == 0)
		count = 1;
	if (count > 0xffffffffu)
		count = 0xffffffffu;
	lapic_timer_arm_count((uint32_t)count);
}

static void on_boundary(struct trap_frame *f)
{
	uint64_t now = rdtsc();
	gdbstub_poll(f);
	struct percpu *p = this_cpu();
	unsigned k = p->cpu;
	uint64_t i = p->clock_next;
	if (i < run.slots) {
		uint64_t bsp_now = now - (uint64_t)p->tsc_offset;
		run.entry[k][i] = bsp_now;
		p->quantum++;
		if (run.hook)
			run.hook(run.hook_ctx, k, i, 0);
		/* Boundaries that passed while this one waited were never
		 * serviced: count them, never skip them silently. */
		uint64_t due = 0;
		for (i++; i < run.slots && (due = ideal(k, i)) <= bsp_now; i++) {
			p->missed++;
			if (run.hook)
				run.hook(run.hook_ctx, k, i, 1);
		}
		p->clock_next = i;
		if (i < run.slots)
			arm(k, due);
		else
			p->clock_done = 1;
	}
	lapic_eoi();
}

static void cpu_run(void *arg)
{
	(void)arg;
	struct percpu *p = this_cpu();
	unsigned k = p->cpu;
	p->quantum = 0;
	p->missed = 0;
	p->clock_next = 0;
	p->clock_done = 0;
	lapic_timer_setup(VEC_QUANTUM_TIMER, run.deadline);
	p->state = CPU_MEASURING;
	irq_disable();
	arm(k, ideal(k, 0));
	while (!p->clock_done) {
		cpu_wait_for_interrupt();
		irq_disable();
	}
	lapic_timer_stop();
	p->state = CPU_DONE;
}

static int alloc_buffers(uint64_t slots)
{
	if (slots <= run.capacity)
		return 0;
	for (unsigned k = 0; k < cpu_count; k++) {
		run.entry[k] = bootmem_alloc(slots * sizeof(uint64_t));
		if (!run.entry[k])
			return -1;
	}
	run.scratch = bootmem_alloc(slots * cpu_count * sizeof(uint64_t));
	if (!run.scratch)
		return -1;
	run.capacity = slots;
	return 0;
}

static void summarise(struct qclock_result *r)
{
	uint64_t n = 0;
	if (!run.staggered) {
		/* Aligned: how far apart the CPUs took the same boundary. */
		for (uint64_t i = 0; i < run.slots; i++) {
			uint64_t lo = ~0ull, hi = 0;
			unsigned k = 0;
			for (; k < run.m; k++) {
				uint64_t e = run.entry[k][i];
				if (!e)
					break;
				lo = e < lo ? e : lo;
				hi = e > hi ? e : hi;
			}
			if (k == run.m)
				run.scratch[n++] = hi - lo;
		}
	} else {
		/* Staggered: how far each CPU's boundary is from its ideal time. */
		for (unsigned k = 0; k < run.m; k++)
			for (uint64_t i = 0; i < run.slots; i++) {
				uint64_t e = run.entry[k][i];
				if (!e)
					continue;
				uint64_t want = ideal(k, i);
				run.scratch[n++] = e > want ? e - want : want - e;
			}
	}
	sort_u64(run.scratch, n);
	r->samples = n;
	if (n) {
		r->err_min_ns = tsc_to_ns(run.scratch[0]);
		r->err_p50_ns = tsc_to_ns(percentile_u64(run.scratch, n, 50));
		r->err_p99_ns = tsc_to_ns(percentile_u64(run.scratch, n, 99));
		r->err_max_ns = tsc_to_ns(run.scratch[n - 1]);
	}
}

int qclock_measure(int staggered, uint64_t slots, uint64_t quantum_us,
		   qclock_boundary_fn hook, void *hook_ctx,
		   struct qclock_result *out)
{
	if (alloc_buffers(slots)) {
		kprintf("quantum clock: no memory for %llu slots on %u CPUs\n",
			(unsigned long long)slots, cpu_count);
		return -1;
	}
	for (unsigned k = 0; k < cpu_count; k++)
		for (uint64_t i = 0; i < slots; i++)
			run.entry[k][i] = 0;
	trap_set_handler(VEC_QUANTUM_TIMER, on_boundary);
	run.staggered = staggered;
	run.hook = hook;
	run.hook_ctx = hook_ctx;
	run.slots = slots;
	run.m = smp.online;
	run.sub_den = 1000ull * run.m;
	run.sub_whole = quantum_us * tsc.khz / run.sub_den;
	run.sub_rem = quantum_us * tsc.khz % run.sub_den;
	run.t0 = rdtsc() + tsc_from_us(LEAD_US);
	uint64_t timeout_us = LEAD_US + slots * quantum_us * 2 + 2000000;
	unsigned late = smp_run_on_all(cpu_run, 0, timeout_us);
	if (late) {
		for (unsigned k = 0; k < run.m; k++)
			if (!percpu[k].clock_done)
				kprintf("quantum clock: cpu %u (APIC ID %u) stopped at "
					"boundary %llu of %llu\n", k, percpu[k].apic_id,
					(unsigned long long)percpu[k].clock_next,
					(unsigned long long)slots);
		return -1;
	}
	struct qclock_result r = { 0 };
	r.staggered = staggered;
	r.cpus = run.m;
	r.quantum_us = quantum_us;
	r.quanta = slots;
	r.seen_min = ~0ull;
	for (unsigned k = 0; k < run.m; k++) {
		r.missed += percpu[k].missed;
		uint64_t s = percpu[k].quantum;
		r.seen_min = s < r.seen_min ? s : r.seen_min;
		r.seen_max = s > r.seen_max ? s : r.seen_max;
	}
	summarise(&r);
	*out = r;
	return 0;
}

/* a - b in nanoseconds as a sign and a magnitude, for printing. */
static unsigned long long ns_diff(uint64_t a, uint64_t b, const char **sign)
{
	*sign = a < b ? "-" : "";
	return (unsigned long long)tsc_to_ns(a < b ? b - a : a - b);
}

void qclock_trace(void)
{
	const char *mode = run.staggered ? "staggered" : "aligned";
	for (unsigned k = 0; k < run.m; k++)
		for (uint64_t i = 0; i < run.slots; i++) {
			uint64_t e = run.entry[k][i];
			if (!e) {
				kprintf("TRACE tick mode=%s cpu=%u slot=%llu "
					"late_ns=missed\n", mode, k,
					(unsigned long long)i);
				continue;
			}
			const char *at_sign, *late_sign;
			unsigned long long at = ns_diff(e, run.t0, &at_sign);
			unsigned long long late = ns_diff(e, ideal(k, i), &late_sign);
			kprintf("TRACE tick mode=%s cpu=%u slot=%llu at_ns=%s%llu "
				"late_ns=%s%llu\n", mode, k, (unsigned long long)i,
				at_sign, at, late_sign, late);
		}
}

/* Nanoseconds as microseconds with three decimals. */
#define US(ns) (unsigned long long)((ns) / 1000), (unsigned long long)((ns) % 1000)

void qclock_report(const struct qclock_result *r)
{
	const char *mode = r->staggered ? "staggered" : "aligned";
	kprintf("\nquantum clock, %s: %u CPUs, Q = %llu us, %llu quanta, timer "
		"in %s mode\n", mode, r->cpus, (unsigned long long)r->quantum_us,
		(unsigned long long)r->quanta,
		qclock_deadline_mode() ? "TSC-deadline" : "one-shot");
	kprintf("  %4s %6s %10s %8s\n", "cpu", "apic", "serviced", "missed");
	for (unsigned k = 0; k < r->cpus; k++)
		kprintf("  %4u %6u %10llu %8llu\n", k, percpu[k].apic_id,
			(unsigned long long)percpu[k].quantum,
			(unsigned long long)percpu[k].missed);
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
