/*
 * arch/x86/acpi: finds the RSDP (the multiboot2 copies, then the BIOS
 * areas), has acpi_tables read what it lists, falls back to the MP tables
 * for the CPUs, and powers off through S5.
 */
#include "acpi.h"

#include "acpi_tables.h"
#include "bios_area.h"
#include "cpu.h"
#include "log.h"
#include "mptable.h"

static int is_rsdp(const void *p)
{
	return acpi_rsdp_valid(p, 1);
}

/* ACPI 6.4, 5.2.5.1: on BIOS machines the RSDP is on a 16-byte boundary in
 * the first KiB of the EBDA or in 0xE0000-0xFFFFF. */
static const void *scan_bios_areas(void)
{
	return bios_area_find(is_rsdp, 0xe0000, 0);
}

unsigned acpi_init(const void *rsdp_v1, const void *rsdp_v2)
{
	const void *r = 0;
	if (acpi_rsdp_valid(rsdp_v2, 0))
		r = rsdp_v2;
	else if (acpi_rsdp_valid(rsdp_v1, 0))
		r = rsdp_v1;
	else
		r = scan_bios_areas();
	if (!r)
		arch_log("acpi: no RSDP found\n");
	else if (acpi_read_tables((uint64_t)(uintptr_t)r) && acpi.ncpus)
		acpi.source = "acpi";
	if (acpi.ncpus == 0)
		mptable_read();
	acpi_name_dropped();
	return acpi.ncpus;
}

void acpi_power_off(void)
{
	if (!acpi.have_s5 || !acpi.pm1a_cnt)
		return;
	/* ACPI 6.4, 4.8.3.2.1: SCI_EN set means ACPI mode is on; else ask
	 * the firmware through SMI_CMD. */
	if (!(inw(acpi.pm1a_cnt) & 1) && acpi.smi_cmd && acpi.acpi_enable) {
		outb(acpi.smi_cmd, acpi.acpi_enable);
		for (int i = 0; i < 1000000 && !(inw(acpi.pm1a_cnt) & 1); i++)
			cpu_relax();
	}
	/* PM1 control: SLP_TYP in bits 10-12, SLP_EN bit 13 (4.8.3.2.1). */
	outw(acpi.pm1a_cnt, (uint16_t)(acpi.slp_typa << 10 | 1u << 13));
	if (acpi.pm1b_cnt)
		outw(acpi.pm1b_cnt, (uint16_t)(acpi.slp_typb << 10 | 1u << 13));
}
