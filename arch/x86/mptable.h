/* arch/x86/mptable: the MP specification 1.4 tables, read for the CPUs and
 * I/O APICs when ACPI lists none. */
#ifndef ARCH_X86_MPTABLE_H
#define ARCH_X86_MPTABLE_H

/* Finds the floating pointer in the BIOS areas and adds the configuration
 * table's processors and I/O APICs to `acpi` (source "mptable"). */
void mptable_read(void);

#endif
