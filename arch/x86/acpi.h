/* arch/x86/acpi: the firmware's tables -- MADT, FADT, HPET -- and the MP
 * tables as the fallback. */
#ifndef ARCH_X86_ACPI_H
#define ARCH_X86_ACPI_H

#include <stdint.h>

#include "percpu.h"

/* The CPUs the kernel can run on; the firmware's others are named and
 * counted (ncpus_dropped). */
#define ACPI_MAX_CPUS MAX_CPUS
#define ACPI_MAX_IOAPICS 8
/* ISA has 16 IRQs; an override per IRQ at most. */
#define ACPI_MAX_OVERRIDES 16

struct acpi_cpu {
	uint32_t apic_id;
	uint32_t uid;
	uint8_t enabled;          /* MADT flags bit 0 */
	uint8_t online_capable;   /* MADT flags bit 1 (ACPI 6.3) */
};

struct acpi_ioapic {
	uint32_t id, addr, gsi_base;
};

/* An ISA IRQ wired to another I/O APIC input or with another polarity or
 * trigger than ISA's edge, active high (ACPI 6.4, 5.2.12.5; MP spec 1.4,
 * 4.3.4). flags: MPS INTI flags (ACPI 6.4, table 5.50): bits 0-1
 * polarity, bits 2-3 trigger mode, 0 in each meaning "as the bus is". */
struct acpi_override {
	uint8_t isa_irq;
	uint16_t flags;
	uint32_t gsi;
};
#define ACPI_INTI_POLARITY(f) ((f) & 3u)
#define ACPI_INTI_TRIGGER(f) (((f) >> 2) & 3u)
#define ACPI_INTI_ACTIVE_HIGH 1u
#define ACPI_INTI_ACTIVE_LOW 3u
#define ACPI_INTI_EDGE 1u
#define ACPI_INTI_LEVEL 3u

struct acpi_info {
	const char *source;       /* "acpi", "mptable" or "none" */
	unsigned revision;
	uint64_t lapic_addr;
	struct acpi_cpu cpu[ACPI_MAX_CPUS];
	unsigned ncpus;           /* entries kept (enabled ones) */
	unsigned ncpus_disabled;  /* present but neither enabled nor capable */
	unsigned ncpus_hotplug;   /* online-capable, not enabled at boot */
	unsigned ncpus_dropped;   /* enabled, beyond ACPI_MAX_CPUS */
	uint32_t dropped_first;   /* the run of consecutive dropped APIC IDs */
	unsigned dropped_run;     /* not yet named (acpi_name_dropped) */
	struct acpi_ioapic ioapic[ACPI_MAX_IOAPICS];
	unsigned nioapics;
	struct acpi_override override[ACPI_MAX_OVERRIDES];
	unsigned noverrides;
	/* The tables read: the first MADT, FADT and HPET table the root
	 * lists (0: none); a later one of the same kind is counted in
	 * tables_ignored (acpi_tables.c, first_of_its_kind). */
	uint64_t madt_at, fadt_at, hpet_at;
	unsigned tables_ignored;
	/* FADT (ACPI 6.4, 5.2.9). Under hardware-reduced ACPI the PM timer,
	 * PM1 control and SMI command fields stay 0. */
	uint8_t hw_reduced;
	uint16_t pm_timer_port;
	uint8_t pm_timer_32bit;
	uint16_t pm1a_cnt, pm1b_cnt;
	uint16_t smi_cmd;
	uint8_t acpi_enable;
	uint8_t have_s5;
	uint16_t slp_typa, slp_typb;
	/* HPET table (IA-PC HPET spec 1.0a, 3.2.4) */
	uint64_t hpet_addr;
};

extern struct acpi_info acpi;

/*
 * Finds the RSDP (the multiboot2 copies first, then the BIOS areas),
 * verifies every checksum, and reads the first MADT, FADT and HPET table
 * the root lists (acpi_tables.c); falls back to the MP tables for the CPUs (mptable.c). A
 * table that fails a check -- checksum, signature, length, an entry running
 * past its end -- is reported on the console and not used at all. Returns
 * the number of CPUs found.
 */
unsigned acpi_init(const void *rsdp_v1, const void *rsdp_v2);

/* S5 through PM1 control, when the FADT and the DSDT's \_S5 allow it. */
void acpi_power_off(void);

#endif
