/* arch/x86/acpi_tables: the RSDT/XSDT, MADT, FADT, DSDT's \_S5 and HPET. */
#include "acpi_tables.h"

#include "log.h"
#include "phys.h"

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

/* No table of the ones read here comes near this; a larger length is a
 * corrupt header, not a table. */
#define TABLE_MAX (1u << 20)

/* ACPI 6.4: the least lengths with every field read here. */
#define MADT_MIN 44             /* 5.2.12: header, LAPIC address, flags */
#define FADT_MIN 116            /* 5.2.9: the ACPI 1.0 FADT, up to Flags */
#define HPET_MIN 56             /* IA-PC HPET 1.0a, 3.2.4 */
#define RSDP_V2_LEN 36

/* Table fields are unaligned as often as not. */
static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, sizeof v);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, sizeof v);
	return v;
}

uint8_t acpi_sum(const void *p, uint64_t n)
{
	uint8_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += ((const uint8_t *)p)[i];
	return s;
}

int acpi_sig_is(const char *s, const char *want, int n)
{
	for (int i = 0; i < n; i++)
		if (s[i] != want[i])
			return 0;
	return 1;
}

/*
 * The table at phys when its header, length and checksum hold; want: the
 * signature it must have, or NULL (any table an RSDT lists).
 */
static const struct sdt_header *table_at(uint64_t phys, const char *want)
{
	const char *what = want ? want : "listed";
	const struct sdt_header *h = phys ? phys_map(phys, sizeof *h) : 0;
	if (!h) {
		arch_log("acpi: the %s table at %#llx is outside the mapped "
			"4 GiB; ignored\n", what, (unsigned long long)phys);
		return 0;
	}
	if (want && !acpi_sig_is(h->signature, want, 4)) {
		arch_log("acpi: the %s table at %#llx is signed '%.4s'; not "
			"trusted\n", want, (unsigned long long)phys, h->signature);
		return 0;
	}
	if (h->length < sizeof *h || h->length > TABLE_MAX ||
	    !phys_map(phys, h->length)) {
		arch_log("acpi: %.4s table at %#llx has a bad length %u; not "
			"trusted\n", h->signature, (unsigned long long)phys,
			h->length);
		return 0;
	}
	if (acpi_sum(h, h->length) != 0) {
		arch_log("acpi: %.4s table at %#llx fails its checksum; not "
			"trusted\n", h->signature, (unsigned long long)phys);
		return 0;
	}
	return h;
}

/* A table shorter than the fields read from it is not trusted. */
static int long_enough(const struct sdt_header *h, uint32_t min)
{
	if (h->length >= min)
		return 1;
	arch_log("acpi: %.4s table is %u bytes, shorter than the %u its fields "
		"need; not trusted\n", h->signature, h->length, min);
	return 0;
}

int acpi_rsdp_valid(const void *p, int quiet)
{
	const struct rsdp *r = p;
	if (!r || !acpi_sig_is(r->signature, "RSD PTR ", 8))
		return 0;
	if (acpi_sum(r, 20) != 0) {
		if (!quiet)
			arch_log("acpi: RSDP at %p fails its checksum; not "
				"trusted\n", p);
		return 0;
	}
	/* A bad extended checksum only costs the XSDT: acpi_read_tables
	 * checks it and falls back to the RSDT. */
	return 1;
}

void acpi_name_dropped(void)
{
	uint32_t first = acpi.dropped_first;
	if (acpi.dropped_run == 1)
		arch_log("acpi: CPU with APIC ID %u left out: the kernel runs on "
			"at most %d CPUs\n", first, ACPI_MAX_CPUS);
	else if (acpi.dropped_run > 1)
		arch_log("acpi: CPUs with APIC IDs %u-%u left out: the kernel "
			"runs on at most %d CPUs\n", first,
			first + acpi.dropped_run - 1, ACPI_MAX_CPUS);
	acpi.dropped_run = 0;
}

/* Counts an enabled CPU beyond ACPI_MAX_CPUS and names it, in runs of
 * consecutive APIC IDs: a large machine's are long, and a line names a run.
 * The kept CPUs are not searched for it, so an ID listed twice past the
 * limit counts twice, where within it it counts once. */
static void drop_cpu(uint32_t apic_id)
{
	acpi.ncpus_dropped++;
	if (acpi.dropped_run &&
	    apic_id == acpi.dropped_first + acpi.dropped_run) {
		acpi.dropped_run++;
		return;
	}
	acpi_name_dropped();
	acpi.dropped_first = apic_id;
	acpi.dropped_run = 1;
}

void acpi_add_cpu(uint32_t apic_id, uint32_t uid, uint32_t flags)
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
		drop_cpu(apic_id);
		return;
	}
	struct acpi_cpu *c = &acpi.cpu[acpi.ncpus++];
	c->apic_id = apic_id;
	c->uid = uid;
	c->enabled = 1;
	c->online_capable = (uint8_t)capable;
}

void acpi_add_override(uint32_t isa_irq, uint32_t gsi, uint16_t flags)
{
	if (isa_irq >= ACPI_MAX_OVERRIDES) {
		arch_log("acpi: an interrupt source override names ISA IRQ %u; "
			"ISA has 16, ignored\n", isa_irq);
		return;
	}
	unsigned i = 0;
	while (i < acpi.noverrides && acpi.override[i].isa_irq != isa_irq)
		i++;
	if (i == acpi.noverrides)
		acpi.noverrides++;
	acpi.override[i] = (struct acpi_override){
		.isa_irq = (uint8_t)isa_irq, .flags = flags, .gsi = gsi };
}

/*
 * ACPI 6.4, 5.2.12: every interrupt controller structure must lie inside
 * the MADT with a length of at least 2. Checked for the whole table before
 * any entry is used, so that a corrupt MADT adds no CPU at all rather than
 * the ones before the damage.
 */
static int madt_well_formed(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	const uint8_t *e = p + MADT_MIN, *end = p + h->length;
	for (unsigned n = 0; e < end; n++) {
		if (e + 2 > end || e[1] < 2 || e + e[1] > end) {
			arch_log("acpi: MADT entry %u (type %u at offset %u) "
				"runs past the table's end or has length %u; "
				"the MADT is not trusted\n", n, e[0],
				(unsigned)(e - p), e + 2 > end ? 0 : e[1]);
			return 0;
		}
		e += e[1];
	}
	return 1;
}

/* ACPI 6.4, 5.2.12.2 and 5.2.12.12: a local APIC entry's ID is 8 bits, and a
 * processor with ID 255 or more must be given by a local x2APIC entry; 0xFF
 * (xAPIC) and 0xFFFFFFFF (x2APIC) are the broadcast IDs (Intel SDM Vol.
 * 3A, the APIC chapter's physical destination mode, in xAPIC and x2APIC
 * mode), which no processor has. Firmware fills its unused slots with
 * them (an X299 board lists 36 such local APIC entries and 56 such x2APIC
 * ones, all disabled): they are not processors, not even disabled ones. */
#define LAPIC_BROADCAST 0xffu
#define X2APIC_BROADCAST 0xffffffffu

static void parse_madt(const struct sdt_header *h)
{
	if (!long_enough(h, MADT_MIN) || !madt_well_formed(h))
		return;
	const uint8_t *p = (const uint8_t *)h;
	acpi.lapic_addr = rd32(p + 36);
	for (const uint8_t *e = p + MADT_MIN; e < p + h->length; e += e[1]) {
		uint8_t len = e[1];
		switch (e[0]) {
		case 0: /* processor local APIC */
			if (len >= 8 && e[3] != LAPIC_BROADCAST)
				acpi_add_cpu(e[3], e[2], rd32(e + 4));
			break;
		case 1: /* I/O APIC */
			if (len >= 12 && acpi.nioapics < ACPI_MAX_IOAPICS) {
				struct acpi_ioapic *io = &acpi.ioapic[acpi.nioapics++];
				io->id = e[2];
				io->addr = rd32(e + 4);
				io->gsi_base = rd32(e + 8);
			}
			break;
		case 2: /* interrupt source override (5.2.12.5); bus 0 is
			 * ISA, the only bus defined */
			if (len >= 10 && e[2] == 0)
				acpi_add_override(e[3], rd32(e + 4),
						  (uint16_t)(e[8] | e[9] << 8));
			break;
		case 5: /* local APIC address override */
			if (len >= 12)
				acpi.lapic_addr = rd64(e + 4);
			break;
		case 9: /* processor local x2APIC */
			if (len >= 16 && rd32(e + 4) != X2APIC_BROADCAST)
				acpi_add_cpu(rd32(e + 4),
					     rd32(e + 12),
					     rd32(e + 8));
			break;
		}
	}
}

/* The \_S5 package in the DSDT's AML (ACPI 6.4, 7.4.2): the byte pattern
 * "_S5_" PackageOp PkgLength NumElements, then SLP_TYPa and SLP_TYPb as
 * BytePrefix constants or ZeroOp/OneOp. */
static void find_s5(const struct sdt_header *dsdt)
{
	const uint8_t *p = (const uint8_t *)dsdt + sizeof *dsdt;
	const uint8_t *end = (const uint8_t *)dsdt + dsdt->length;
	/* 4 name bytes, PackageOp, up to 4 PkgLength bytes, NumElements and
	 * two 2-byte constants: 16 bytes at most. */
	for (; p + 16 <= end; p++) {
		if (!acpi_sig_is((const char *)p, "_S5_", 4) || p[4] != 0x12)
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
#define FADT_FLAG_HW_REDUCED_ACPI (1u << 20)

/* The fixed hardware registers: the PM timer, PM1 control, SMI_CMD. */
static void fadt_fixed_hardware(const uint8_t *p, uint32_t len)
{
	acpi.pm_timer_32bit =
		(rd32(p + FADT_FLAGS) & FADT_FLAG_TMR_VAL_EXT) != 0;
	uint32_t pm_tmr = rd32(p + FADT_PM_TMR);
	/* X_PM_TMR_BLK is a GAS (5.2.3.2): space 1 = system I/O, address at +4. */
	if (len >= FADT_X_PM_TMR + 12 && p[FADT_X_PM_TMR] == 1 &&
	    rd64(p + FADT_X_PM_TMR + 4))
		pm_tmr = (uint32_t)rd64(p + FADT_X_PM_TMR + 4);
	acpi.pm_timer_port = (uint16_t)pm_tmr;
	acpi.pm1a_cnt = (uint16_t)rd32(p + FADT_PM1A_CNT);
	acpi.pm1b_cnt = (uint16_t)rd32(p + FADT_PM1B_CNT);
	acpi.smi_cmd = (uint16_t)rd32(p + FADT_SMI_CMD);
	acpi.acpi_enable = p[FADT_ACPI_ENABLE];
}

static void parse_fadt(const struct sdt_header *h)
{
	if (!long_enough(h, FADT_MIN))
		return;
	const uint8_t *p = (const uint8_t *)h;
	uint32_t len = h->length;
	/* ACPI 6.4, 5.2.9, table 5.10: with HW_REDUCED_ACPI set, the fields
	 * of the fixed hardware interface (offsets 46-108 and 148-232, and
	 * flag TMR_VAL_EXT among others) are to be ignored: such a machine
	 * has no PM timer even where the fields name one. The other reference
	 * clocks (HPET, PIT) remain. */
	if (rd32(p + FADT_FLAGS) & FADT_FLAG_HW_REDUCED_ACPI) {
		acpi.hw_reduced = 1;
		arch_log("acpi: hardware-reduced ACPI (FADT flag "
			"HW_REDUCED_ACPI): its PM timer, PM1 control and SMI "
			"command fields are ignored\n");
	} else {
		fadt_fixed_hardware(p, len);
	}
	uint64_t dsdt = rd32(p + FADT_DSDT);
	if (len >= FADT_X_DSDT + 8 && rd64(p + FADT_X_DSDT))
		dsdt = rd64(p + FADT_X_DSDT);
	const struct sdt_header *d = table_at(dsdt, "DSDT");
	if (d)
		find_s5(d);
}

/*
 * A root table lists each of the MADT, FADT and HPET once; some firmware
 * lists one twice (two MADTs, seen on laptops and all-in-ones), and
 * reading both would set up an I/O APIC twice, count disabled CPUs twice
 * and let the second table's overrides replace the first's. Linux uses the
 * first MADT (acpi_apic_instance); so does this reader, for each of the
 * three: the first one the root lists that passes table_at's checks is
 * used, read or refused whole, and a later one is named and ignored.
 */
static int first_of_its_kind(uint64_t *used, const char *what,
			     const struct sdt_header *h, uint64_t phys)
{
	if (!*used) {
		*used = phys;
		return 1;
	}
	acpi.tables_ignored++;
	arch_log("acpi: a second %s (%.4s table at %#llx) ignored: the first, "
		"at %#llx, is used\n", what, h->signature,
		(unsigned long long)phys, (unsigned long long)*used);
	return 0;
}

static void parse_table(uint64_t phys)
{
	const struct sdt_header *h = table_at(phys, 0);
	if (!h)
		return;
	if (acpi_sig_is(h->signature, "APIC", 4)) {
		if (first_of_its_kind(&acpi.madt_at, "MADT", h, phys))
			parse_madt(h);
	} else if (acpi_sig_is(h->signature, "FACP", 4)) {
		if (first_of_its_kind(&acpi.fadt_at, "FADT", h, phys))
			parse_fadt(h);
	} else if (acpi_sig_is(h->signature, "HPET", 4)) {
		if (first_of_its_kind(&acpi.hpet_at, "HPET table", h, phys) &&
		    long_enough(h, HPET_MIN))
			acpi.hpet_addr = rd64((const uint8_t *)h + 44);
	}
}

/* ACPI 6.4, 5.2.5.3: the extended fields count when the revision is 2 or
 * later and the whole structure, of a sane length, sums to 0. */
static int xsdt_usable(uint64_t rsdp, const struct rsdp *r)
{
	if (r->revision < 2)
		return 0;
	r = phys_map(rsdp, RSDP_V2_LEN);
	if (!r || !r->xsdt_address)
		return 0;
	if (r->length < RSDP_V2_LEN || r->length > 4096 ||
	    !phys_map(rsdp, r->length) || acpi_sum(r, r->length) != 0) {
		arch_log("acpi: the RSDP's extended part (length %u) fails its "
			"checks; using the RSDT\n", r->length);
		return 0;
	}
	return 1;
}

int acpi_read_tables(uint64_t rsdp)
{
	const struct rsdp *r = phys_map(rsdp, 20);
	if (!r || !acpi_rsdp_valid(r, 1))
		return 0;
	acpi.revision = r->revision;
	int use_xsdt = xsdt_usable(rsdp, r);
	const struct sdt_header *root = 0;
	if (use_xsdt) {
		r = phys_map(rsdp, RSDP_V2_LEN);
		root = table_at(r->xsdt_address, "XSDT");
	}
	if (!root) {
		use_xsdt = 0;
		root = table_at(r->rsdt_address, "RSDT");
	}
	if (!root)
		return 0;
	unsigned width = use_xsdt ? 8 : 4;
	unsigned n = (root->length - sizeof *root) / width;
	const uint8_t *ent = (const uint8_t *)root + sizeof *root;
	for (unsigned i = 0; i < n; i++)
		parse_table(use_xsdt ? rd64(ent + 8 * i)
				     : rd32(ent + 4 * i));
	return 1;
}
