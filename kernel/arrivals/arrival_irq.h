/*
 * kernel/arrivals/arrival_irq: what the sources of aperiodic arrivals from
 * device interrupts share (docs/interrupts.md): the callback type, the
 * records and the delivery. Two sources use it:
 *   - HPET comparator 0 at the times lib/arrival draws for the task set
 *     (kernel/arrivals/arrival_hpet.c), and
 *   - lines typed on COM1, `SERVER COST_US` (kernel/arrivals/arrival_uart.c).
 * Each routes its interrupt through the I/O APIC to one chosen CPU, and in
 * the handler reads the TSC first and calls the callback with it.
 * kernel/arrivals/arrivals.h chooses among them for a run.
 */
#ifndef KERNEL_ARRIVAL_IRQ_H
#define KERNEL_ARRIVAL_IRQ_H

#include <stdint.h>


/* Called in the interrupt handler, on the CPU the source was routed to,
 * with interrupts disabled; irq_tsc: the TSC read first thing in it. */
typedef void (*arrival_irq_fn)(unsigned server, uint32_t cost_us,
			       uint64_t irq_tsc);

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

/* Every delivered arrival also goes into buf (cap entries; NULL: none),
 * counted from 0; set before a source starts. */
void arrival_irq_record_into(struct arrival_irq_rec *buf, unsigned cap);
/* Arrivals delivered since the last arrival_irq_record_into (also those
 * that did not fit the buffer). */
unsigned arrival_irq_delivered(void);

/* For the sources: records the arrival and calls fn. */
void arrival_irq_deliver(arrival_irq_fn fn, const struct arrival_irq_rec *r);

/* The local APIC ID of CPU cpu, for the I/O APIC's destination. */
uint32_t arrival_irq_apic_id(unsigned cpu);

#endif
