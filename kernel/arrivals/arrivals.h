/*
 * kernel/arrivals/arrivals: which interrupt source delivers a run's
 * aperiodic arrivals (docs/interrupts.md): HPET comparator 0
 * (kernel/arrivals/arrival_hpet.c) or lines typed on COM1
 * (kernel/arrivals/arrival_uart.c), each delivering through
 * kernel/arrivals/arrival_irq.h.
 */
#ifndef KERNEL_ARRIVALS_H
#define KERNEL_ARRIVALS_H

#include <stdint.h>

#include "../../lib/taskset.h"
#include "../core/options.h"
#include "arrival_irq.h"

enum arrivals_source {
	ARRIVALS_SOURCE_HPET,
	ARRIVALS_SOURCE_UART,
};

/*
 * Whether this machine can deliver from src to CPU cpu: 0, or -1 after
 * printing why not, naming the kernel word that asked (e.g. "arrivals=hpet").
 */
int arrivals_check(enum arrivals_source src, unsigned cpu, const char *word);

/*
 * What a run calls (docs/interrupts.md, "Connecting a run"): starts the
 * source arrivals= names, its interrupts routed to CPU cpu, each arrival
 * calling fn. ARRIVALS_HPET: every arrival of ts up to end_us (inclusive,
 * as the simulator delivers them), time 0 at the TSC value epoch_tsc (now
 * or later); the run's timers then deliver none of the set's arrivals.
 * ARRIVALS_UART: typed lines, while the run's timers deliver the set's own.
 * ARRIVALS_TIMER: nothing to start. Returns 0, or -1 after saying why.
 */
int arrivals_start(enum arrivals_mode mode, const struct taskset *ts,
		   uint64_t epoch_tsc, uint64_t end_us, unsigned cpu,
		   arrival_irq_fn fn);
/* Masks the source's interrupt; a handler already running finishes
 * first. */
void arrivals_stop(enum arrivals_mode mode);

#endif
