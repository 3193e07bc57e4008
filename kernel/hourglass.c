/* kernel/hourglass: the idle thread's loop. */
#include "hourglass.h"

#include "../arch/x86/cpu.h"
#include "../arch/x86/percpu.h"
#include "dispatch.h"
#include "trace.h"

static int on;
static uint64_t threshold;

void hourglass_setup(int enabled, uint64_t threshold_cycles)
{
	on = enabled;
	threshold = threshold_cycles;
}

static void halt_until_over(struct cpu_sched *cs)
{
	while (!cs->over) {
		cpu_wait_for_interrupt();
		irq_disable();
	}
}

void hourglass_idle(void)
{
	struct cpu_sched *cs = dispatch_me();
	if (!on) {
		irq_disable();
		halt_until_over(cs);
		return;
	}
	int64_t offset = this_cpu()->tsc_offset;
	uint64_t got = 0, switches = cs->switches;
	uint64_t last = rdtsc();
	irq_enable();
	while (!cs->over) {
		uint64_t now = rdtsc();
		uint64_t d = now - last;
		if (d > threshold) {
			uint64_t sw = cs->switches;
			trace_emit_at(now - (uint64_t)offset, TRACE_HOURGLASS_GAP,
				      sw == switches ? TRACE_F_GAP_PURE : 0,
				      TRACE_NO_TASK, 0, last - (uint64_t)offset);
			switches = sw;
		} else {
			got += d;
		}
		last = now;
	}
	irq_disable();
	trace_emit(TRACE_HOURGLASS_TOTAL, 0, TRACE_NO_TASK, 0, got);
}
