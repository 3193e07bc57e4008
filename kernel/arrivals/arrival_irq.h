/*
 * kernel/arrival_irq: aperiodic arrivals from device interrupts
 * (docs/interrupts.md). Two sources share one callback:
 *   - HPET comparator 0 at the times lib/arrival draws for the task set
 *     (kernel/arrivals/arrival_hpet.c), and
 *   - lines typed on COM1, `SERVER COST_US` (kernel/arrivals/arrival_uart.c).
 * Each routes its interrupt through the I/O APIC to one chosen CPU, and in
 * the handler reads the TSC first and calls the callback with it.
 */
#ifndef KERNEL_ARRIVAL_IRQ_H
#define KERNEL_ARRIVAL_IRQ_H

#include <stdint.h>

#include "../../lib/taskset.h"
#include "../core/options.h"

/* Called in the interrupt handler, on the CPU the source was routed to,
 * with interrupts disabled; irq_tsc: the TSC read first thing in it. */
typedef void (*arrival_irq_fn)(unsigned server, uint32_t cost_us,
			       uint64_t irq_tsc);

enum arrival_irq_source {
	ARRIVAL_IRQ_HPET,
	ARRIVAL_IRQ_UART,
};

/* What one delivered arrival was, when a record buffer is set. */
struct arrival_irq_rec {
	uint64_t t_us;          /* HPET: its time in the stream; UART: 0 */
	uint64_t irq_tsc;
	/* HPET: main-counter ticks from the comparator's count to the
	 * handler's read of the counter, in ns; UART: 0. */
	uint64_t delay_ns;
	uint32_t cost_us;
	uint32_t server;
	uint32_t cpu;           /* the CPU that took the interrupt */
};

/*
 * Whether this machine can deliver from src to CPU cpu: 0, or -1 after
 * printing why not, naming the kernel word that asked (e.g. "arrivals=hpet").
 */
int arrival_irq_check(enum arrival_irq_source src, unsigned cpu,
		      const char *word);

/* Every delivered arrival also goes into buf (cap entries; NULL: none),
 * counted from 0; set before a source starts. */
void arrival_irq_record_into(struct arrival_irq_rec *buf, unsigned cap);
/* Arrivals delivered since the last arrival_irq_record_into (also those
 * that did not fit the buffer). */
unsigned arrival_irq_delivered(void);

/*
 * What a run calls (docs/interrupts.md, "Connecting a run"): starts the
 * source arrivals= names, its interrupts routed to CPU cpu, each arrival
 * calling fn. ARRIVALS_HPET: every arrival of ts up to end_us (inclusive,
 * as the simulator delivers them), time 0 at the TSC value epoch_tsc (now
 * or later); the run's timers then deliver none of the set's arrivals.
 * ARRIVALS_UART: typed lines, while the run's timers deliver the set's own.
 * ARRIVALS_TIMER: nothing to start. Returns 0, or -1 after saying why.
 */
int arrival_irq_start(enum arrivals_mode mode, const struct taskset *ts,
		      uint64_t epoch_tsc, uint64_t end_us, unsigned cpu,
		      arrival_irq_fn fn);
/* Masks the source's interrupt; a handler already running finishes
 * first. */
void arrival_irq_stop(enum arrivals_mode mode);

/* For the sources: records the arrival and calls fn. */
void arrival_irq_deliver(arrival_irq_fn fn, const struct arrival_irq_rec *r);

/* The local APIC ID of CPU cpu, for the I/O APIC's destination. */
uint32_t arrival_irq_apic_id(unsigned cpu);

#endif
