/* arch/x86/acpi: RSDP, RSDT/XSDT, MADT, FADT, HPET; MP tables as fallback. */
#include "acpi.h"

#include "../../kernel/console.h"
#include "cpu.h"

struct acpi_info acpi = { .source = "none" };

/* ACPI 6.4, 5.2.6: the header every system description table starts with. */
struct sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));

/* ACPI 6.4, 5.2.5.3 */
struct rsdp {
	char signature[8];
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt_address;
	uint32_t length;          /* revision >= 2 from here */
	uint64_t xsdt_address;
	uint8_t extended_checksum;
	uint8_t reserved[3];
} __attribute__((packed));

/* Identity map of the boot page tables: physical below 4 GiB is usable as a
 * pointer (boot/boot.asm). */
#define IDENTITY_LIMIT 0x100000000ull

static uint8_t sum(const void *p, uint64_t n)
{
	uint8_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += ((const uint8_t *)p)[i];
	return s;
}

static int sig_is(const char *s, const char *want, int n)
{
	for (int i = 0; i < n; i++)
		if (s[i] != want[i])
			return 0;
	return 1;
}

static const struct sdt_header *table_at(uint64_t phys, const char *what)
{
	if (phys == 0 || phys + sizeof(struct sdt_header) > IDENTITY_LIMIT) {
		kprintf("acpi: %s table at %#llx is outside the mapped 4 GiB; "
			"ignored\n", what, (unsigned long long)phys);
		return 0;
	}
	const struct sdt_header *h = (const struct sdt_header *)phys;
	if (h->length < sizeof *h || h->length > (1u << 20) ||
	    phys + h->length > IDENTITY_LIMIT) {
		kprintf("acpi: %.4s table at %#llx has a bad length %u; not "
			"trusted\n", h->signature, (unsigned long long)phys,
			h->length);
		return 0;
	}
	if (sum(h, h->length) != 0) {
		kprintf("acpi: %.4s table at %#llx fails its checksum; not "
			"trusted\n", h->signature, (unsigned long long)phys);
		return 0;
	}
	return h;
}

static const struct rsdp *check_rsdp(const void *p)
{
	const struct rsdp *r = p;
	if (!r || !sig_is(r->signature, "RSD PTR ", 8))
		return 0;
	if (sum(r, 20) != 0) {
		kprintf("acpi: RSDP at %p fails its checksum; not trusted\n", p);
		return 0;
	}
	/* A bad extended checksum only costs the XSDT: acpi_init checks it
	 * again and falls back to the RSDT. */
	return r;
}

/* ACPI 6.4, 5.2.5.1: on BIOS machines the RSDP is on a 16-byte boundary in
 * the first KiB of the EBDA or in 0xE0000-0xFFFFF. */
static const struct rsdp *scan_bios_areas(void)
{
	uint64_t ebda = (uint64_t)(*(const uint16_t *)0x40e) << 4;
	if (ebda >= 0x80000 && ebda < 0xa0000)
		for (uint64_t a = ebda; a < ebda + 1024; a += 16)
			if (check_rsdp((const void *)a))
				return (const struct rsdp *)a;
	for (uint64_t a = 0xe0000; a < 0x100000; a += 16)
		if (sig_is((const char *)a, "RSD PTR ", 8) &&
		    check_rsdp((const void *)a))
			return (const struct rsdp *)a;
	return 0;
}

static void add_cpu(uint32_t apic_id, uint32_t uid, uint32_t flags)
{
	int enabled = flags & 1, capable = (flags >> 1) & 1;
	if (!enabled) {
		if (capable)
			acpi.ncpus_hotplug++;
		else
			acpi.ncpus_disabled++;
		return;
	}
	for (unsigned i = 0; i < acpi.ncpus; i++)
		if (acpi.cpu[i].apic_id == apic_id)
			return;         /* listed as both LAPIC and x2APIC */
	if (acpi.ncpus == ACPI_MAX_CPUS) {
		acpi.ncpus_dropped++;
		return;
	}
	struct acpi_cpu *c = &acpi.cpu[acpi.ncpus++];
	c->apic_id = apic_id;
	c->uid = uid;
	c->enabled = 1;
	c->online_capable = (uint8_t)capable;
}

/* ACPI 6.4, 5.2.12: MADT. */
static void parse_madt(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	acpi.lapic_addr = *(const uint32_t *)(p + 36);
	const uint8_t *e = p + 44, *end = p + h->length;
	while (e + 2 <= end) {
		uint8_t type = e[0], len = e[1];
		if (len < 2 || e + len > end) {
			kprintf("acpi: MADT entry of type %u has a bad length %u; "
				"the rest of the MADT is ignored\n", type, len);
			break;
		}
		switch (type) {
		case 0: /* processor local APIC */
			if (len >= 8)
				add_cpu(e[3], e[2], *(const uint32_t *)(e + 4));
			break;
		case 1: /* I/O APIC */
			if (len >= 12 && acpi.nioapics < ACPI_MAX_IOAPICS) {
				struct acpi_ioapic *io = &acpi.ioapic[acpi.nioapics++];
				io->id = e[2];
				io->addr = *(const uint32_t *)(e + 4);
				io->gsi_base = *(const uint32_t *)(e + 8);
			}
			break;
		case 5: /* local APIC address override */
			if (len >= 12)
				acpi.lapic_addr = *(const uint64_t *)(e + 4);
			break;
		case 9: /* processor local x2APIC */
			if (len >= 16)
				add_cpu(*(const uint32_t *)(e + 4),
					*(const uint32_t *)(e + 12),
					*(const uint32_t *)(e + 8));
			break;
		}
		e += len;
	}
}

/* The \_S5 package in the DSDT's AML (ACPI 6.4, 7.4.2): the byte pattern
 * "_S5_" PackageOp PkgLength NumElements, then SLP_TYPa and SLP_TYPb as
 * BytePrefix constants or ZeroOp/OneOp. */
static void find_s5(const struct sdt_header *dsdt)
{
	const uint8_t *p = (const uint8_t *)dsdt + sizeof *dsdt;
	const uint8_t *end = (const uint8_t *)dsdt + dsdt->length;
	for (; p + 12 < end; p++) {
		if (!sig_is((const char *)p, "_S5_", 4) || p[4] != 0x12)
			continue;
		const uint8_t *q = p + 5;
		q += ((*q >> 6) & 3) + 1;       /* PkgLength */
		q++;                            /* NumElements */
		uint16_t v[2];
		for (int i = 0; i < 2; i++) {
			if (*q == 0x0a) {       /* BytePrefix */
				v[i] = q[1];
				q += 2;
			} else if (*q == 0x00 || *q == 0x01) {
				v[i] = *q;
				q++;
			} else {
				return;
			}
		}
		acpi.slp_typa = v[0];
		acpi.slp_typb = v[1];
		acpi.have_s5 = 1;
		return;
	}
}

/* ACPI 6.4, 5.2.9: FADT field offsets. */
#define FADT_DSDT 40
#define FADT_SMI_CMD 48
#define FADT_ACPI_ENABLE 52
#define FADT_PM1A_CNT 64
#define FADT_PM1B_CNT 68
#define FADT_PM_TMR 76
#define FADT_FLAGS 112
#define FADT_X_DSDT 140
#define FADT_X_PM_TMR 208
#define FADT_FLAG_TMR_VAL_EXT (1u << 8)

static void parse_fadt(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	uint32_t len = h->length;
	if (len > FADT_FLAGS + 4)
		acpi.pm_timer_32bit =
			(*(const uint32_t *)(p + FADT_FLAGS) & FADT_FLAG_TMR_VAL_EXT) != 0;
	uint32_t pm_tmr = *(const uint32_t *)(p + FADT_PM_TMR);
	/* X_PM_TMR_BLK is a GAS (5.2.3.2): space 1 = system I/O, address at +4. */
	if (len >= FADT_X_PM_TMR + 12 && p[FADT_X_PM_TMR] == 1 &&
	    *(const uint64_t *)(p + FADT_X_PM_TMR + 4))
		pm_tmr = (uint32_t)*(const uint64_t *)(p + FADT_X_PM_TMR + 4);
	acpi.pm_timer_port = (uint16_t)pm_tmr;
	acpi.pm1a_cnt = (uint16_t)*(const uint32_t *)(p + FADT_PM1A_CNT);
	acpi.pm1b_cnt = (uint16_t)*(const uint32_t *)(p + FADT_PM1B_CNT);
	acpi.smi_cmd = (uint16_t)*(const uint32_t *)(p + FADT_SMI_CMD);
	acpi.acpi_enable = p[FADT_ACPI_ENABLE];
	uint64_t dsdt = *(const uint32_t *)(p + FADT_DSDT);
	if (len >= FADT_X_DSDT + 8 && *(const uint64_t *)(p + FADT_X_DSDT))
		dsdt = *(const uint64_t *)(p + FADT_X_DSDT);
	const struct sdt_header *d = table_at(dsdt, "DSDT");
	if (d)
		find_s5(d);
}

static void parse_table(uint64_t phys)
{
	const struct sdt_header *h = table_at(phys, "system description");
	if (!h)
		return;
	if (sig_is(h->signature, "APIC", 4))
		parse_madt(h);
	else if (sig_is(h->signature, "FACP", 4))
		parse_fadt(h);
	else if (sig_is(h->signature, "HPET", 4) && h->length >= 56)
		acpi.hpet_addr = *(const uint64_t *)((const uint8_t *)h + 44);
}

/* MP spec 1.4, 4.1: the floating pointer structure "_MP_". */
static const uint8_t *find_mp_floating(void)
{
	uint64_t ebda = (uint64_t)(*(const uint16_t *)0x40e) << 4;
	uint64_t areas[3][2] = { { ebda, ebda + 1024 }, { 0x9fc00, 0xa0000 },
				 { 0xf0000, 0x100000 } };
	for (int k = 0; k < 3; k++) {
		if (areas[k][0] < 0x80000)
			continue;
		for (uint64_t a = areas[k][0]; a + 16 <= areas[k][1]; a += 16) {
			const uint8_t *p = (const uint8_t *)a;
			if (sig_is((const char *)p, "_MP_", 4) && p[8] == 1 &&
			    sum(p, 16) == 0)
				return p;
		}
	}
	return 0;
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
					add_cpu(id, id, 1);
				added += acpi.ncpus - before;
			}
	}
	return added;
}

/* MP spec 1.4, 4.2-4.3: the configuration table's processor and I/O APIC
 * entries. */
static void parse_mp_tables(void)
{
	const uint8_t *fp = find_mp_floating();
	if (!fp)
		return;
	uint32_t cfg = *(const uint32_t *)(fp + 4);
	if (!cfg) {
		kprintf("acpi: the MP tables use a default configuration; not "
			"supported\n");
		return;
	}
	const uint8_t *t = (const uint8_t *)(uint64_t)cfg;
	uint16_t len = *(const uint16_t *)(t + 4);
	if (!sig_is((const char *)t, "PCMP", 4) || sum(t, len) != 0) {
		kprintf("acpi: the MP configuration table fails its checks; not "
			"trusted\n");
		return;
	}
	acpi.lapic_addr = *(const uint32_t *)(t + 36);
	uint16_t count = *(const uint16_t *)(t + 34);
	uint8_t listed[32] = { 0 };
	const uint8_t *e = t + 44, *end = t + len;
	for (unsigned i = 0; i < count && e < end; i++) {
		if (e[0] == 0) {        /* processor: 20 bytes (4.3.1) */
			listed[e[1] / 8] |= (uint8_t)(1u << (e[1] % 8));
			add_cpu(e[1], e[1], e[3] & 1);
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
		e += 8;
	}
	acpi.source = "mptable";
	unsigned derived = add_package_siblings(listed);
	if (derived)
		kprintf("acpi: the MP table lists one CPU per package; %u more "
			"derived from CPUID leaf 0xB\n", derived);
}

unsigned acpi_init(const void *rsdp_v1, const void *rsdp_v2)
{
	const struct rsdp *r = check_rsdp(rsdp_v2);
	if (!r)
		r = check_rsdp(rsdp_v1);
	if (!r)
		r = scan_bios_areas();
	if (r) {
		acpi.revision = r->revision;
		int use_xsdt = r->revision >= 2 && r->xsdt_address &&
			       sum(r, r->length) == 0;
		const struct sdt_header *root =
			use_xsdt ? table_at(r->xsdt_address, "XSDT")
				 : table_at(r->rsdt_address, "RSDT");
		if (!root && use_xsdt) {
			use_xsdt = 0;
			root = table_at(r->rsdt_address, "RSDT");
		}
		if (root) {
			unsigned width = use_xsdt ? 8 : 4;
			unsigned n = (root->length - sizeof *root) / width;
			const uint8_t *ent = (const uint8_t *)root + sizeof *root;
			for (unsigned i = 0; i < n; i++)
				parse_table(use_xsdt ? *(const uint64_t *)(ent + 8 * i)
						     : *(const uint32_t *)(ent + 4 * i));
			if (acpi.ncpus)
				acpi.source = "acpi";
		}
	} else {
		kprintf("acpi: no RSDP found\n");
	}
	if (acpi.ncpus == 0)
		parse_mp_tables();
	if (acpi.ncpus_dropped)
		kprintf("acpi: %u CPUs beyond the kernel's limit of %d are "
			"ignored\n", acpi.ncpus_dropped, ACPI_MAX_CPUS);
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
