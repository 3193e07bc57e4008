/*
 * kernel/arrivals/arrival_hpet: the task set's generated and scripted arrivals
 * (lib/arrival; docs/formats.md, "`arrivals` lines") as HPET comparator interrupts: the
 * comparator is armed at each next arrival's main-counter value in turn,
 * and its handler delivers every arrival that is due.
 */
#ifndef KERNEL_ARRIVAL_HPET_H
#define KERNEL_ARRIVAL_HPET_H

#include <stdint.h>

#include "../../lib/taskset.h"
#include "arrival_irq.h"

/* 0 when the HPET can interrupt through an I/O APIC; else prints why not
 * (naming word) and returns -1. */
int arrival_hpet_check(const char *word);

/*
 * Starts the arrivals of ts: time 0 of the stream is the TSC value t0_tsc
 * (now or later), and every arrival up to end_us (included, as the
 * simulator delivers them) interrupts CPU cpu, which calls fn. ts must stay
 * valid until arrival_hpet_stop. Returns 0, or -1 after saying why.
 */
int arrival_hpet_start(const struct taskset *ts, uint64_t t0_tsc,
		       uint64_t end_us, unsigned cpu, arrival_irq_fn fn);
/* Every arrival up to end_us has been delivered. */
int arrival_hpet_done(void);
/* Masks the interrupt and stops the comparator; a handler running on the
 * routed CPU finishes first. */
void arrival_hpet_stop(void);
/* How the comparator reaches the I/O APIC: "gsi23", "legacy" ... */
const char *arrival_hpet_route(void);

#endif
