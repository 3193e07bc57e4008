/* kernel/time/clock_selftest: both quantum clocks, measured with nothing else. */
#include "clock_selftest.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/percpu.h"
#include "clock_stats.h"
#include "../core/console.h"
#include "quantum_clock.h"
#include "../core/smp.h"
#include "../trace/trace.h"

/* The epoch is this far after the start, so every CPU has armed its first
 * boundary before it comes. */
#define LEAD_US 20000

static uint64_t on_boundary(void *ctx, unsigned cpu, uint64_t slot,
			    int missed, uint64_t entry)
{
	(void)ctx;
	(void)cpu;
	trace_emit_at(entry, TRACE_TICK_START, missed ? TRACE_F_TICK_MISSED : 0,
		      TRACE_NO_TASK, 0, slot);
	return slot + 1;
}

static void cpu_run(void *arg)
{
	(void)arg;
	struct percpu *p = this_cpu();
	p->state = CPU_MEASURING;
	irq_disable();
	qclock_cpu_start(0);
	while (!qclock_cpu_done(p->cpu)) {
		cpu_wait_for_interrupt();
		irq_disable();
	}
	qclock_cpu_stop();
	p->state = CPU_DONE;
}

int clock_selftest(int staggered, uint64_t slots, uint64_t quantum_us,
		   int trace_lines, const char **reason)
{
	struct clock_stats r;
	return clock_selftest_stats(staggered, slots, quantum_us, trace_lines,
				    &r, reason);
}

int clock_selftest_stats(int staggered, uint64_t slots, uint64_t quantum_us,
			 int trace_lines, struct clock_stats *r,
			 const char **reason)
{
	static const struct qclock_client client = { on_boundary, 0, 0, 0 };
	unsigned m = smp.online;
	qclock_prepare(staggered, slots, quantum_us, m, LEAD_US, &client);
	if (clock_stats_begin()) {
		*reason = "memory";
		return -1;
	}
	*reason = "quantum_clock";
	uint64_t timeout_us = LEAD_US + slots * quantum_us * 2 + 2000000;
	trace_enable(1);
	unsigned late = smp_run_on_all(cpu_run, 0, timeout_us);
	trace_enable(0);
	if (late) {
		for (unsigned k = 0; k < m; k++)
			if (!qclock_cpu_done(k))
				kprintf("quantum clock: cpu %u (APIC ID %u) stopped at "
					"boundary %llu of %llu\n", k, percpu[k].apic_id,
					(unsigned long long)qclock_cpu_next(k),
					(unsigned long long)slots);
		return -1;
	}
	clock_stats_summarise(r);
	if (trace_lines)
		clock_stats_trace_lines();
	clock_stats_report(r);
	return 0;
}
