/* kernel/run/hourglass: the idle thread's loop. */
#include "hourglass.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/percpu.h"
#include "../../lib/sort.h"
#include "../core/bootmem.h"
#include "../run/dispatch.h"
#include "../time/quantum_clock.h"
#include "../trace/trace.h"

/* Steps the calibration times; a gap is this many times its 99th
 * percentile step. */
#define CALIBRATION_STEPS 1024
#define GAP_STEPS 16

static int on;
static uint64_t threshold;
/* Per CPU of the run (hourglass_calibrate): CALIBRATION_STEPS steps each,
 * and their 99th percentile. */
static uint64_t *steps;
static volatile uint64_t *step_p99;
static unsigned calibrated_cpus;
/* What each CPU's loop got and lost, kept apart from the trace so that a
 * run without records (record=off) still has it. */
static struct hourglass_account account[MAX_CPUS];

void hourglass_setup(int enabled, uint64_t threshold_cycles)
{
	on = enabled;
	threshold = threshold_cycles;
	for (unsigned k = 0; k < MAX_CPUS; k++)
		account[k] = (struct hourglass_account){ 0 };
}

uint64_t hourglass_threshold(void)
{
	return threshold;
}

/* One CPU's loop step, as the loop below takes it (PAUSE included). */
static void calibrate_cpu(void *arg)
{
	(void)arg;
	unsigned k = this_cpu()->cpu;
	if (k >= calibrated_cpus)
		return;
	uint64_t *s = steps + (uint64_t)k * CALIBRATION_STEPS;
	uint64_t last = rdtsc();
	for (unsigned i = 0; i < CALIBRATION_STEPS; i++) {
		cpu_relax();
		uint64_t now = rdtsc();
		s[i] = now - last;
		last = now;
	}
	sort_u64(s, CALIBRATION_STEPS);
	step_p99[k] = percentile_u64(s, CALIBRATION_STEPS, 99);
}

uint64_t hourglass_calibrate(unsigned cpus,
			     unsigned (*run_on_all)(void (*)(void *), void *,
						    uint64_t))
{
	if (cpus > calibrated_cpus) {
		steps = bootmem_alloc((uint64_t)cpus * CALIBRATION_STEPS *
				      sizeof *steps);
		step_p99 = bootmem_alloc(cpus * sizeof *step_p99);
		calibrated_cpus = cpus;
	}
	run_on_all(calibrate_cpu, 0, 1000000);
	uint64_t worst = 0;
	for (unsigned k = 0; k < cpus; k++)
		if (step_p99[k] > worst)
			worst = step_p99[k];
	if (GAP_STEPS * worst > threshold)
		threshold = GAP_STEPS * worst;
	return threshold;
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
	/* Only the run counts: from the epoch to this CPU's last boundary. */
	uint64_t from = qclock_t0() + (uint64_t)offset;
	uint64_t got = 0;
	/* A gap is pure overhead when no switch happened here between the
	 * switch count read before its first TSC stamp and the one read after
	 * its last: an interrupt may come between a stamp and a read, so each
	 * stamp is bracketed by two. */
	struct hourglass_account *a = &account[this_cpu()->cpu];
	uint64_t seen = cs->switches;
	uint64_t last = rdtsc();
	irq_enable();
	while (!cs->over) {
		/* PAUSE: the spin-wait hint on hardware, and under QEMU's TCG
		 * the end of this virtual CPU's time slice (lib/rt_abi.h,
		 * RT_CONTROL_PAUSE). */
		cpu_relax();
		uint64_t before = cs->switches;
		uint64_t now = rdtsc();
		uint64_t after = cs->switches;
		uint64_t d = now - last;
		if (last >= from && d > threshold) {
			trace_emit_at(now - (uint64_t)offset, TRACE_HOURGLASS_GAP,
				      after == seen ? TRACE_F_GAP_PURE : 0,
				      TRACE_NO_TASK, 0, last - (uint64_t)offset);
			if (after == seen) {
				a->gaps++;
				if (d > a->gap_max_cycles)
					a->gap_max_cycles = d;
			}
		} else if (last >= from)
			got += d;
		seen = before;
		last = now;
	}
	irq_disable();
	a->got_cycles = got;
	trace_emit(TRACE_HOURGLASS_TOTAL, 0, TRACE_NO_TASK, 0, got);
}

void hourglass_account_of(unsigned cpu, struct hourglass_account *out)
{
	*out = cpu < MAX_CPUS ? account[cpu]
			       : (struct hourglass_account){ 0 };
}
