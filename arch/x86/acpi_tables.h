/*
 * arch/x86/acpi_tables: reads ACPI's system description tables -- the
 * RSDT or XSDT, MADT, FADT with the DSDT's \_S5, HPET -- into `acpi`, with
 * every check made before anything in a table is used. A table that fails
 * one is reported on the console and ignored whole.
 *
 * Nothing here touches hardware: tables are reached only through phys_map
 * (phys.h), so the host tests and fuzz targets build this file with a
 * phys_map of their own over a buffer of tables.
 */
#ifndef ARCH_X86_ACPI_TABLES_H
#define ARCH_X86_ACPI_TABLES_H

#include <stdint.h>

#include "acpi.h"

/* The byte sum of n bytes (a valid table sums to 0). */
uint8_t acpi_sum(const void *p, uint64_t n);
int acpi_sig_is(const char *s, const char *want, int n);

/*
 * p holds a signed RSDP whose first 20 bytes sum to 0. quiet: a wrong
 * signature is not worth a message (the BIOS-area scan tries many places).
 */
int acpi_rsdp_valid(const void *p, int quiet);

/*
 * Reads the tables the RSDP at physical address rsdp lists (the XSDT when
 * the RSDP is revision 2 or later and its extended checksum holds and the
 * XSDT passes its checks, else the RSDT): the first MADT, FADT and HPET
 * table of the list, each named later one ignored. Returns 1 when a root
 * table was read, 0 when none could be trusted (or the RSDP is not valid).
 */
int acpi_read_tables(uint64_t rsdp);

/* Records one processor; flags as the MADT's: bit 0 Enabled, bit 1
 * Online Capable. A duplicate APIC ID is kept once. An enabled CPU beyond
 * ACPI_MAX_CPUS is counted in ncpus_dropped and named. */
void acpi_add_cpu(uint32_t apic_id, uint32_t uid, uint32_t flags);
/* Records that ISA IRQ isa_irq arrives at gsi with the MPS INTI flags;
 * a later entry for the same IRQ replaces an earlier one, an IRQ above 15
 * is named and ignored. */
void acpi_add_override(uint32_t isa_irq, uint32_t gsi, uint16_t flags);
/* Names the last run of dropped CPUs (the others are named as a run ends):
 * once every table is read. */
void acpi_name_dropped(void);

#endif
