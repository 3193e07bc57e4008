/* arch/x86/mptable: the MP specification 1.4 tables, read for the CPUs and
 * I/O APICs when ACPI lists none. */
#ifndef ARCH_X86_MPTABLE_H
#define ARCH_X86_MPTABLE_H

#include <stdint.h>

/* Finds the floating pointer in the BIOS areas and adds the configuration
 * table's processors and I/O APICs to `acpi` (source "mptable"). */
void mptable_read(void);

/* MP spec 1.4, 4.1: the 16 bytes at p are a floating pointer structure
 * ("_MP_", length 1 paragraph, summing to 0). */
int mptable_is_floating(const void *p);

/*
 * mptable_parse.c, hardware-free (memory through phys_map): reads the
 * configuration table the floating pointer at physical address fp names,
 * adds its processors, I/O APICs and ISA interrupt assignments to `acpi`
 * and sets source "mptable"; sets in listed (a bit per 8-bit APIC ID) the
 * processors it lists. Returns 1 when the table was read, 0 when it was
 * refused (and named) or there is none.
 */
int mptable_parse(uint64_t fp, uint8_t listed[32]);

#endif
