/*
 * arch/x86/hpet: the High Precision Event Timer (IA-PC HPET specification
 * 1.0a): its main counter, which refclock.c calibrates the TSC against,
 * and comparator 0 in one-shot mode, an interrupt at a chosen count.
 */
#ifndef ARCH_X86_HPET_H
#define ARCH_X86_HPET_H

#include <stdint.h>

/*
 * Maps the HPET the ACPI table names, checks its period and starts the main
 * counter. Returns its frequency in Hz, or 0 when there is no usable HPET.
 * Idempotent.
 */
uint64_t hpet_init(void);
/* The main counter (hpet_init first). */
uint64_t hpet_counter(void);
/* The main counter is 64 bits wide (else 32, and it wraps). */
int hpet_counter_64(void);

/*
 * Comparator 0's interrupt routes (spec 2.3.8, Tn_INT_ROUTE_CAP): bit n
 * set when it can drive I/O APIC input n. legacy: the chip has the legacy
 * replacement route (spec 2.3.4, LEG_RT_CAP), which puts comparator 0 on
 * I/O APIC input 2 (ISA IRQ 0) in place of the PIT (spec 2.3.7, table 3).
 * Returns 0, or -1 when comparator 0 is not a 64-bit one (spec 2.3.8,
 * Tn_SIZE_CAP).
 */
int hpet_comparator_routes(uint32_t *route_caps, int *legacy);

/*
 * Comparator 0 in one-shot mode, edge-triggered, disarmed: to I/O APIC
 * input `input`, or with input < 0 through the legacy replacement route
 * (which also silences the PIT's IRQ 0). The main counter runs on.
 */
void hpet_comparator_setup(int input);
/* Interrupts when the main counter reaches count. A count already passed
 * is not reached again for 2^64 ticks: the caller looks after arming. */
void hpet_comparator_arm(uint64_t count);
/* No more interrupts from comparator 0; legacy replacement off. */
void hpet_comparator_stop(void);

#endif
