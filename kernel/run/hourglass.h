/*
 * kernel/run/hourglass: what each CPU's idle thread does -- the in-kernel
 * hourglass (the sporadic-server paper, Stanovich, Baker and Wang, 2011,
 * after Regehr): it reads the TSC in a tight loop, and a step longer than
 * the threshold is time it did not get. Each such gap is a trace record,
 * flagged pure overhead when no other thread ran in it (the interrupt, the
 * plugin's decision, the switch: each boundary's cost seen from outside
 * the kernel's own stamps). With hourglass=off the idle
 * thread halts instead.
 */
#ifndef KERNEL_HOURGLASS_H
#define KERNEL_HOURGLASS_H

#include <stdint.h>

/* Before the run: on or off, and the threshold in TSC cycles. */
void hourglass_setup(int on, uint64_t threshold_cycles);

/*
 * Times the loop's step on every CPU (run_on_all: smp_run_on_all) and
 * raises the threshold to GAP_STEPS times the slowest CPU's 99th
 * percentile step if that is larger: under an emulator one step can take
 * microseconds, and a threshold below it would call every step a gap. Returns the threshold
 * (cycles), which the tasks' own hourglass uses too.
 */
uint64_t hourglass_calibrate(unsigned cpus,
			     unsigned (*run_on_all)(void (*)(void *), void *,
						    uint64_t));
uint64_t hourglass_threshold(void);

/* The idle thread's loop on the calling CPU, interrupts on, until the
 * run's end has come here. Returns with interrupts off. */
void hourglass_idle(void);

/* CPU cpu's loop in the last run: the time it got, and its pure-overhead
 * gaps (no switch inside) -- the numbers RESULT hourglass gives from the
 * records, kept without them. */
struct hourglass_account {
	uint64_t got_cycles;
	uint64_t gaps;
	uint64_t gap_max_cycles;
};

void hourglass_account_of(unsigned cpu, struct hourglass_account *out);

#endif
