/* arch/x86/mptable: the MP specification's tables, the fallback for CPUs. */
#include "mptable.h"

#include "acpi_tables.h"
#include "bios_area.h"
#include "cpu.h"
#include "log.h"

/* MP spec 1.4, 4.1: the floating pointer structure "_MP_", 16 bytes
 * (length 1 in paragraphs) summing to 0. */
static int is_mp_floating(const void *v)
{
	const uint8_t *p = v;
	return acpi_sig_is((const char *)p, "_MP_", 4) && p[8] == 1 &&
	       acpi_sum(p, 16) == 0;
}

static const uint8_t *find_mp_floating(void)
{
	return bios_area_find(is_mp_floating, 0xf0000, 1);
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

/* MP spec 1.4, 4.3: processor entries take 20 bytes, every other kind 8; all `count`
 * of them must lie inside the table, or none is used. */
static int mp_well_formed(const uint8_t *t, uint16_t len, uint16_t count)
{
	const uint8_t *e = t + 44, *end = t + len;
	for (unsigned i = 0; i < count; i++) {
		if (e >= end || e + (e[0] == 0 ? 20 : 8) > end) {
			arch_log("acpi: MP table entry %u of %u runs past the "
				"table's end; not trusted\n", i, count);
			return 0;
		}
		e += e[0] == 0 ? 20 : 8;
	}
	return 1;
}

/* MP spec 1.4, 4.2-4.3: the configuration table's processor, I/O APIC and
 * ISA interrupt entries. */
void mptable_read(void)
{
	const uint8_t *fp = find_mp_floating();
	if (!fp)
		return;
	uint32_t cfg = *(const uint32_t *)(fp + 4);
	if (!cfg) {
		arch_log("acpi: the MP tables use a default configuration; not "
			"supported\n");
		return;
	}
	const uint8_t *t = (const uint8_t *)(uint64_t)cfg;
	uint16_t len = *(const uint16_t *)(t + 4);
	if (!acpi_sig_is((const char *)t, "PCMP", 4) || len < 44 ||
	    acpi_sum(t, len) != 0) {
		arch_log("acpi: the MP configuration table fails its checks; not "
			"trusted\n");
		return;
	}
	uint16_t count = *(const uint16_t *)(t + 34);
	if (!mp_well_formed(t, len, count))
		return;
	acpi.lapic_addr = *(const uint32_t *)(t + 36);
	uint8_t listed[32] = { 0 }, isa_bus[32] = { 0 };
	const uint8_t *e = t + 44;
	for (unsigned i = 0; i < count; i++) {
		if (e[0] == 0) {        /* processor: 20 bytes (4.3.1) */
			listed[e[1] / 8] |= (uint8_t)(1u << (e[1] % 8));
			acpi_add_cpu(e[1], e[1], e[3] & 1);
			e += 20;
			continue;
		}
		/* I/O APIC (4.3.3): flags bit 0 = usable. The MP table gives
		 * no GSI base; decided: number them in table order from 0 as
		 * the ISA/PCI interrupt entries assume one I/O APIC. */
		if (e[0] == 2 && (e[3] & 1) && acpi.nioapics < ACPI_MAX_IOAPICS) {
			struct acpi_ioapic *io = &acpi.ioapic[acpi.nioapics++];
			io->id = e[1];
			io->addr = *(const uint32_t *)(e + 4);
			io->gsi_base = 0;
		}
		/* Bus (4.3.2): its type is a 6-byte string, "ISA   " for ISA. */
		if (e[0] == 1 && acpi_sig_is((const char *)e + 2, "ISA", 3))
			isa_bus[e[1] / 8] |= (uint8_t)(1u << (e[1] % 8));
		/* I/O interrupt assignment (4.3.4): a vectored interrupt (type
		 * 0) of an ISA bus, at INTIN e[7] of the I/O APIC with ID e[6]
		 * (its GSI base is 0, as above); flags as ACPI's MPS INTI. */
		if (e[0] == 3 && e[1] == 0 && (isa_bus[e[4] / 8] >> (e[4] % 8) & 1))
			acpi_add_override(e[5], e[7],
					  (uint16_t)(e[2] | e[3] << 8));
		e += 8;
	}
	acpi.source = "mptable";
	unsigned derived = add_package_siblings(listed);
	if (derived)
		arch_log("acpi: the MP table lists one CPU per package; %u more "
			"derived from CPUID leaf 0xB\n", derived);
}
