/*
 * drivers/apic/ioapic: the I/O APICs the firmware lists (arch/x86/acpi.h),
 * which carry the interrupts of devices -- the HPET's comparators, the
 * UART -- to a vector on a chosen CPU. Global system interrupts (GSIs)
 * number the inputs of all of them in a row (ACPI 6.4, 5.2.13); an ISA IRQ
 * is the GSI of the same number unless the firmware overrides it.
 */
#ifndef DRIVERS_APIC_IOAPIC_H
#define DRIVERS_APIC_IOAPIC_H

#include <stdint.h>

/* How a GSI is wired: its polarity and trigger mode. */
struct ioapic_wiring {
	uint32_t gsi;
	uint8_t level;          /* 1: level-triggered, 0: edge */
	uint8_t active_low;
};

/*
 * Maps every I/O APIC of `acpi`, reads how many inputs each has and masks
 * all of them (the firmware may have left some routed). Returns the number
 * of inputs in all; 0 when there is no I/O APIC (each one that does not
 * answer is named).
 */
unsigned ioapic_init(void);
/* Inputs in all, as ioapic_init counted them (0: none). */
unsigned ioapic_inputs(void);
/* The GSI an I/O APIC input answers for exists. */
int ioapic_has_gsi(uint32_t gsi);

/* Where ISA IRQ irq arrives: its override, else GSI irq, edge, active high
 * (the ISA bus's own conventions). */
struct ioapic_wiring ioapic_isa_wiring(unsigned irq);

/*
 * Routes a GSI to vector on the CPU whose local APIC ID is apic_id: fixed
 * delivery, physical destination, polarity and trigger mode from w; the
 * entry stays masked. Returns 0, or -1 (and says why on the console) when
 * no I/O APIC has the GSI or the APIC ID does not fit the 8-bit
 * destination field.
 */
int ioapic_route(struct ioapic_wiring w, uint8_t vector, uint32_t apic_id);
void ioapic_unmask(uint32_t gsi);
void ioapic_mask(uint32_t gsi);
/* The raw redirection entry of a GSI (for tests and the debugger). */
uint64_t ioapic_entry(uint32_t gsi);

#endif
