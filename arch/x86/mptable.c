/* arch/x86/mptable: the MP specification's tables, the fallback for CPUs:
 * finding them and completing their CPUs from CPUID (mptable_parse.c reads
 * them). */
#include "mptable.h"

#include "acpi_tables.h"
#include "bios_area.h"
#include "cpu.h"
#include "log.h"

static const uint8_t *find_mp_floating(void)
{
	return bios_area_find(mptable_is_floating, 0xf0000, 1);
}

/*
 * SeaBIOS lists only the first logical processor of each package in the MP
 * table (it predates multi-core parts; MP spec 1.4, 3.6.2 knows one processor
 * per socket), so QEMU's `-smp 4` (one socket, four cores) with ACPI off
 * shows one CPU. Decided: when a package's first APIC ID is listed and none
 * of the package's other IDs are (not even as disabled), derive the others
 * from the BSP's CPUID leaf 0xB topology (SDM Vol. 3A, 9.9.1: ID = package
 * bits | core << SMT width | thread), assuming every package is alike. An ID
 * derived wrongly is named by the SMP bring-up as not coming up; the boot
 * goes on. Without leaf 0xB nothing is derived.
 */
static unsigned add_package_siblings(const uint8_t listed[32])
{
	if (cpuid(0, 0).eax < 0xb)
		return 0;
	struct cpuid_regs smt = cpuid(0xb, 0), core = cpuid(0xb, 1);
	if ((smt.ecx >> 8 & 0xff) != 1 || (core.ecx >> 8 & 0xff) != 2)
		return 0;
	unsigned threads = smt.ebx & 0xffff, logical = core.ebx & 0xffff;
	unsigned smt_bits = smt.eax & 0x1f, pkg_bits = core.eax & 0x1f;
	if (threads == 0 || logical <= 1 || logical % threads ||
	    pkg_bits > 8 || (logical / threads) << smt_bits > 1u << pkg_bits)
		return 0;
	unsigned cores = logical / threads, added = 0, n = acpi.ncpus;
	uint32_t span = 1u << pkg_bits;
	for (unsigned i = 0; i < n; i++) {
		uint32_t base = acpi.cpu[i].apic_id;
		if (base & (span - 1))
			continue;
		int others = 0;
		for (uint32_t id = base + 1; id < base + span && id < 256; id++)
			others |= listed[id / 8] >> (id % 8) & 1;
		if (others)
			continue;
		for (unsigned c = 0; c < cores; c++)
			for (unsigned t = 0; t < threads; t++) {
				uint32_t id = base + (c << smt_bits) + t;
				unsigned before = acpi.ncpus;
				if (id != base)
					acpi_add_cpu(id, id, 1);
				added += acpi.ncpus - before;
			}
	}
	return added;
}

/* The table itself is read by mptable_parse.c, without hardware; what the
 * CPU tells of its topology fills in what SeaBIOS leaves out. */
void mptable_read(void)
{
	const uint8_t *fp = find_mp_floating();
	uint8_t listed[32] = { 0 };
	if (!fp || !mptable_parse((uint64_t)(uintptr_t)fp, listed))
		return;
	unsigned derived = add_package_siblings(listed);
	if (derived)
		arch_log("acpi: the MP table lists one CPU per package; %u more "
			"derived from CPUID leaf 0xB\n", derived);
}
