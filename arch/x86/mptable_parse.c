/* arch/x86/mptable_parse: the MP configuration table (see mptable.h). */
#include "acpi_tables.h"
#include "log.h"
#include "mptable.h"
#include "phys.h"

#define MP_HEADER 44            /* MP spec 1.4, 4.2: the table's header */

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int mptable_is_floating(const void *v)
{
	const uint8_t *p = v;
	return acpi_sig_is((const char *)p, "_MP_", 4) && p[8] == 1 &&
	       acpi_sum(p, 16) == 0;
}

/* MP spec 1.4, 4.3: processor entries take 20 bytes, every other kind 8; all `count`
 * of them must lie inside the table, or none is used. */
static int mp_well_formed(const uint8_t *t, uint16_t len, uint16_t count)
{
	const uint8_t *e = t + MP_HEADER, *end = t + len;
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
int mptable_parse(uint64_t fp_phys, uint8_t listed[32])
{
	const uint8_t *fp = phys_map(fp_phys, 16);
	if (!fp || !mptable_is_floating(fp))
		return 0;
	uint32_t cfg = rd32(fp + 4);
	if (!cfg) {
		arch_log("acpi: the MP tables use a default configuration; not "
			"supported\n");
		return 0;
	}
	const uint8_t *t = phys_map(cfg, MP_HEADER);
	uint16_t len = t ? rd16(t + 4) : 0;
	if (!t || !acpi_sig_is((const char *)t, "PCMP", 4) ||
	    len < MP_HEADER || !phys_map(cfg, len) || acpi_sum(t, len) != 0) {
		arch_log("acpi: the MP configuration table fails its checks; not "
			"trusted\n");
		return 0;
	}
	uint16_t count = rd16(t + 34);
	if (!mp_well_formed(t, len, count))
		return 0;
	acpi.lapic_addr = rd32(t + 36);
	uint8_t isa_bus[32] = { 0 };
	const uint8_t *e = t + MP_HEADER;
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
			io->addr = rd32(e + 4);
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
	return 1;
}
