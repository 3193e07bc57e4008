/*
 * Host test of arch/x86/acpi_tables.c: a firmware's tables are built in
 * an arena that phys_map shows at physical 0x30000000 (phys_window.h),
 * read, and then damaged one way at a time -- checksums, lengths,
 * signatures, entries running past a table's end, tables out of reach.
 * Each damaged table must be reported by name and not used at all, and
 * the undamaged ones still read.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../../arch/x86/acpi_tables.c"

#include "phys_window.h"
#include "unit.h"

#define ARENA 0x30000000ull
#define ARENA_SIZE 0x10000
#define RSDP_AT (ARENA + 0x0)
#define XSDT_AT (ARENA + 0x100)
#define RSDT_AT (ARENA + 0x200)
#define MADT_AT (ARENA + 0x300)
#define FADT_AT (ARENA + 0x500)
#define DSDT_AT (ARENA + 0x700)
#define HPET_AT (ARENA + 0x800)
#define BIG_MADT_AT (ARENA + 0x1000)
#define FADT_LEN 244
#define LAPIC_OVERRIDE 0xfed10000ull
#define HPET_BASE 0xfed00000ull

static uint8_t arena[ARENA_SIZE];

static uint8_t *at(uint64_t phys)
{
	return arena + (phys - ARENA);
}

static void put32(uint64_t phys, uint32_t v)
{
	memcpy(at(phys), &v, 4);
}

static void put64(uint64_t phys, uint64_t v)
{
	memcpy(at(phys), &v, 8);
}

static uint32_t length_of(uint64_t table)
{
	uint32_t len;
	memcpy(&len, at(table) + 4, 4);
	return len;
}

static void header(uint64_t phys, const char *sig, uint32_t len)
{
	memset(at(phys), 0, len);
	memcpy(at(phys), sig, 4);
	put32(phys + 4, len);
	at(phys)[8] = 2;
	memcpy(at(phys) + 10, "TESTOS", 6);
}

/* Byte 9 of a table, byte 8 and 32 of the RSDP: sums of 0. */
static void seal(uint64_t table)
{
	at(table)[9] = 0;
	at(table)[9] = (uint8_t)-acpi_sum(at(table), length_of(table));
}

static void seal_rsdp(void)
{
	at(RSDP_AT)[8] = 0;
	at(RSDP_AT)[8] = (uint8_t)-acpi_sum(at(RSDP_AT), 20);
	at(RSDP_AT)[32] = 0;
	at(RSDP_AT)[32] = (uint8_t)-acpi_sum(at(RSDP_AT), 36);
}

static void seal_all(void)
{
	const uint64_t tables[] = { XSDT_AT, RSDT_AT, MADT_AT, FADT_AT,
				    DSDT_AT, HPET_AT };
	for (unsigned i = 0; i < sizeof tables / sizeof *tables; i++)
		seal(tables[i]);
	seal_rsdp();
}

/* MADT entries (ACPI 6.4, 5.2.12.2-): returns the next free offset. */
static unsigned lapic_in(uint64_t madt, unsigned off, uint8_t uid,
			 uint8_t id, uint32_t flags)
{
	uint8_t *e = at(madt) + off;
	e[0] = 0, e[1] = 8, e[2] = uid, e[3] = id;
	memcpy(e + 4, &flags, 4);
	return off + 8;
}

static unsigned x2apic_in(uint64_t madt, unsigned off, uint32_t id,
			  uint32_t flags, uint32_t uid)
{
	uint8_t *e = at(madt) + off;
	e[0] = 9, e[1] = 16;
	memcpy(e + 4, &id, 4);
	memcpy(e + 8, &flags, 4);
	memcpy(e + 12, &uid, 4);
	return off + 16;
}

static unsigned lapic(unsigned off, uint8_t uid, uint8_t id, uint32_t flags)
{
	return lapic_in(MADT_AT, off, uid, id, flags);
}

static unsigned x2apic(unsigned off, uint32_t id, uint32_t flags, uint32_t uid)
{
	return x2apic_in(MADT_AT, off, id, flags, uid);
}

/* A well-formed firmware: RSDP 2 -> XSDT and RSDT -> MADT, FADT, HPET. */
static void build(void)
{
	memset(at(ARENA), 0, ARENA_SIZE);
	memcpy(at(RSDP_AT), "RSD PTR ", 8);
	at(RSDP_AT)[15] = 2;
	put32(RSDP_AT + 16, (uint32_t)RSDT_AT);
	put32(RSDP_AT + 20, 36);
	put64(RSDP_AT + 24, XSDT_AT);

	const uint64_t listed[] = { MADT_AT, FADT_AT, HPET_AT };
	header(XSDT_AT, "XSDT", 36 + 8 * 3);
	header(RSDT_AT, "RSDT", 36 + 4 * 3);
	for (unsigned i = 0; i < 3; i++) {
		put64(XSDT_AT + 36 + 8 * i, listed[i]);
		put32(RSDT_AT + 36 + 4 * i, (uint32_t)listed[i]);
	}

	unsigned off = 44;
	uint8_t *m = at(MADT_AT);
	header(MADT_AT, "APIC", 0x100);
	put32(MADT_AT + 36, 0xfee00000);
	off = lapic(off, 0, 0, 1);
	off = lapic(off, 1, 1, 1);
	off = lapic(off, 2, 2, 0);                /* disabled */
	off = lapic(off, 3, 3, 2);                /* online capable */
	off = x2apic(off, 0x100, 1, 4);
	off = x2apic(off, 1, 1, 1);               /* CPU 1 again */
	m[off] = 1, m[off + 1] = 12, m[off + 2] = 9;   /* I/O APIC */
	put32(MADT_AT + off + 4, 0xfec00000);
	put32(MADT_AT + off + 8, 24);
	off += 12;
	/* Interrupt source overrides (5.2.12.5): ISA IRQ 0 at GSI 2, IRQ 9
	 * level and active high, IRQ 0 again (the later one counts), and
	 * one for bus 1, which is not ISA. */
	static const uint8_t iso[4][10] = {
		{ 2, 10, 0, 0, 2, 0, 0, 0, 0, 0 },
		{ 2, 10, 0, 9, 9, 0, 0, 0, 0x0d, 0 },
		{ 2, 10, 0, 0, 2, 0, 0, 0, 0x05, 0 },
		{ 2, 10, 1, 4, 20, 0, 0, 0, 0, 0 },
	};
	for (unsigned i = 0; i < 4; i++, off += 10)
		memcpy(m + off, iso[i], 10);
	m[off] = 5, m[off + 1] = 12;                   /* LAPIC override */
	put64(MADT_AT + off + 4, LAPIC_OVERRIDE);
	off += 12;
	put32(MADT_AT + 4, off);

	header(FADT_AT, "FACP", FADT_LEN);
	put32(FADT_AT + 40, (uint32_t)DSDT_AT);
	put32(FADT_AT + 64, 0x604);                    /* PM1a control */
	put32(FADT_AT + 76, 0x600);                    /* PM timer ... */
	put32(FADT_AT + 112, 1u << 8);                 /* ... 32 bits */
	at(FADT_AT)[208] = 1;                          /* X_PM_TMR: I/O */
	put64(FADT_AT + 212, 0x608);                   /* preferred */

	/* DSDT: Name(_S5, Package(2) { 5, Zero }) in AML. */
	static const uint8_t s5[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06,
				      0x02, 0x0a, 0x05, 0x00 };
	header(DSDT_AT, "DSDT", 36 + 40);
	memcpy(at(DSDT_AT) + 36 + 20, s5, sizeof s5);

	header(HPET_AT, "HPET", 56);
	put64(HPET_AT + 44, HPET_BASE);
	seal_all();
}

/* Reads the tables afresh; returns what acpi_read_tables returned. */
static int read_tables(void)
{
	memset(&acpi, 0, sizeof acpi);
	acpi.source = "none";
	log_clear();
	return acpi_read_tables(RSDP_AT);
}

static int said(const char *text)
{
	return strstr(log_text, text) != 0;
}

static void expect_madt_read(const char *when)
{
	EXPECT(acpi.ncpus == 3, "%s: %u CPUs", when, acpi.ncpus);
	EXPECT(acpi.ncpus_disabled == 1 && acpi.ncpus_hotplug == 1,
	       "%s: disabled %u, hotplug %u", when, acpi.ncpus_disabled,
	       acpi.ncpus_hotplug);
	EXPECT(acpi.nioapics == 1 && acpi.ioapic[0].id == 9 &&
	       acpi.ioapic[0].addr == 0xfec00000 &&
	       acpi.ioapic[0].gsi_base == 24, "%s: I/O APIC", when);
	EXPECT(acpi.lapic_addr == LAPIC_OVERRIDE, "%s: LAPIC at %#llx", when,
	       (unsigned long long)acpi.lapic_addr);
	EXPECT(acpi.noverrides == 2, "%s: %u overrides", when,
	       acpi.noverrides);
	EXPECT(acpi.override[0].isa_irq == 0 && acpi.override[0].gsi == 2 &&
	       acpi.override[0].flags == 0x05, "%s: IRQ 0 -> GSI %u flags %#x",
	       when, acpi.override[0].gsi, acpi.override[0].flags);
	EXPECT(acpi.override[1].isa_irq == 9 && acpi.override[1].gsi == 9 &&
	       ACPI_INTI_TRIGGER(acpi.override[1].flags) == ACPI_INTI_LEVEL &&
	       ACPI_INTI_POLARITY(acpi.override[1].flags) ==
	       ACPI_INTI_ACTIVE_HIGH, "%s: IRQ 9 flags %#x", when,
	       acpi.override[1].flags);
}

static void expect_fadt_read(const char *when)
{
	EXPECT(acpi.pm_timer_port == 0x608 && acpi.pm_timer_32bit,
	       "%s: PM timer %#x", when, acpi.pm_timer_port);
	EXPECT(acpi.pm1a_cnt == 0x604, "%s: PM1a %#x", when, acpi.pm1a_cnt);
	EXPECT(acpi.have_s5 && acpi.slp_typa == 5 && acpi.slp_typb == 0,
	       "%s: S5 %d %u %u", when, acpi.have_s5, acpi.slp_typa,
	       acpi.slp_typb);
}

static void test_well_formed(void)
{
	build();
	EXPECT(acpi_rsdp_valid(at(RSDP_AT), 0), "RSDP refused");
	CHECK(read_tables() == 1, "no root table read");
	expect_madt_read("well formed");
	static const uint32_t ids[] = { 0, 1, 0x100 };
	for (unsigned i = 0; i < 3 && i < acpi.ncpus; i++)
		EXPECT(acpi.cpu[i].apic_id == ids[i], "CPU %u has APIC ID %#x",
		       i, acpi.cpu[i].apic_id);
	expect_fadt_read("well formed");
	EXPECT(acpi.hpet_addr == HPET_BASE, "HPET at %#llx",
	       (unsigned long long)acpi.hpet_addr);
	EXPECT(log_len == 0, "messages for good tables: %s", log_text);
}

static void test_rsdp_checksum(void)
{
	build();
	at(RSDP_AT)[8] ^= 1;
	log_clear();
	EXPECT(!acpi_rsdp_valid(at(RSDP_AT), 0), "bad RSDP accepted");
	EXPECT(said("RSDP at") && said("fails its checksum"), "said: %s", log_text);
	log_clear();
	EXPECT(!acpi_rsdp_valid(at(RSDP_AT), 1) && log_len == 0,
	       "the quiet check spoke: %s", log_text);
	memcpy(at(RSDP_AT), "RSD PTX ", 8);
	EXPECT(!acpi_rsdp_valid(at(RSDP_AT), 0) && log_len == 0,
	       "an unsigned RSDP: %s", log_text);
}

/* The XSDT lost one way or another: the RSDT lists the same tables. */
static void test_xsdt_falls_back_to_rsdt(void)
{
	static const char *const why[] = {
		"the RSDP's extended part (length 36) fails its checks",
		"XSDT table at 0x30000100 fails its checksum",
		"the XSDT table at 0x30000100 is signed 'XSDX'",
		"XSDT table at 0x30000100 has a bad length 2097152",
	};
	for (unsigned k = 0; k < 4; k++) {
		build();
		if (k == 0)
			at(RSDP_AT)[32] ^= 1;
		else if (k == 1)
			at(XSDT_AT)[40] ^= 1;
		else if (k == 2)
			at(XSDT_AT)[3] = 'X';
		else
			put32(XSDT_AT + 4, 2u << 20);
		CHECK(read_tables() == 1, "case %u: nothing read", k);
		EXPECT(said(why[k]), "case %u said: %s", k, log_text);
		expect_madt_read("from the RSDT");
		expect_fadt_read("from the RSDT");
	}
	build();
	at(XSDT_AT)[40] ^= 1;
	at(RSDT_AT)[40] ^= 1;
	EXPECT(read_tables() == 0, "read with both roots corrupt");
	EXPECT(said("RSDT table at 0x30000200 fails its checksum"), "said: %s",
	       log_text);
	EXPECT(acpi.ncpus == 0 && !acpi.pm_timer_port, "used a corrupt root");
}

static void test_madt_damage(void)
{
	struct {
		const char *what, *said;
	} cases[] = {
		{ "checksum", "APIC table at 0x30000300 fails its checksum" },
		{ "entry overrun", "MADT entry 11 (type 5 at offset 160) runs "
				   "past the table's end or has length 40" },
		{ "entry length 0", "MADT entry 2 (type 0 at offset 60) runs "
				    "past the table's end or has length 0" },
		{ "table length", "APIC table at 0x30000300 has a bad length" },
		{ "too short", "APIC table is 40 bytes, shorter than the 44" },
	};
	for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++) {
		build();
		if (k == 0) {
			at(MADT_AT)[50] ^= 0x10;
		} else if (k == 1) {
			at(MADT_AT)[161] = 40;          /* the override */
			seal(MADT_AT);
		} else if (k == 2) {
			at(MADT_AT)[61] = 0;
			seal(MADT_AT);
		} else if (k == 3) {
			put32(MADT_AT + 4, 0xffffff00u);
		} else {
			put32(MADT_AT + 4, 40);
			seal(MADT_AT);
		}
		CHECK(read_tables() == 1, "%s: nothing read", cases[k].what);
		EXPECT(said(cases[k].said), "%s said: %s", cases[k].what, log_text);
		EXPECT(said("not trusted"), "%s said: %s", cases[k].what, log_text);
		/* Not one entry of a damaged MADT is used ... */
		EXPECT(acpi.ncpus == 0 && acpi.nioapics == 0 &&
		       acpi.ncpus_disabled == 0 && acpi.lapic_addr == 0,
		       "%s: %u CPUs, %u I/O APICs from a bad MADT",
		       cases[k].what, acpi.ncpus, acpi.nioapics);
		/* ... and the other tables still are. */
		expect_fadt_read(cases[k].what);
		EXPECT(acpi.hpet_addr == HPET_BASE, "%s: HPET lost",
		       cases[k].what);
	}
}

static void test_fadt_dsdt_hpet_damage(void)
{
	build();
	put32(FADT_AT + 4, 100);
	seal(FADT_AT);
	CHECK(read_tables() == 1, "short FADT: nothing read");
	EXPECT(said("FACP table is 100 bytes, shorter than the 116"),
	       "said: %s", log_text);
	EXPECT(!acpi.pm_timer_port && !acpi.pm1a_cnt && !acpi.have_s5,
	       "a short FADT was used");
	expect_madt_read("short FADT");

	build();
	at(DSDT_AT)[60] ^= 1;
	CHECK(read_tables() == 1, "bad DSDT: nothing read");
	EXPECT(said("DSDT table at 0x30000700 fails its checksum"), "said: %s",
	       log_text);
	EXPECT(!acpi.have_s5 && acpi.pm_timer_port == 0x608,
	       "bad DSDT: S5 %d, PM timer %#x", acpi.have_s5,
	       acpi.pm_timer_port);

	build();
	put32(FADT_AT + 40, (uint32_t)HPET_AT);        /* DSDT -> HPET */
	seal(FADT_AT);
	CHECK(read_tables() == 1, "misdirected DSDT: nothing read");
	EXPECT(said("the DSDT table at 0x30000800 is signed 'HPET'"),
	       "said: %s", log_text);
	EXPECT(!acpi.have_s5, "S5 from a table that is not the DSDT");

	build();
	put32(HPET_AT + 4, 50);
	seal(HPET_AT);
	CHECK(read_tables() == 1, "short HPET: nothing read");
	EXPECT(said("HPET table is 50 bytes, shorter than the 56"), "said: %s",
	       log_text);
	EXPECT(acpi.hpet_addr == 0, "a short HPET table was used");
}

static void test_table_out_of_reach(void)
{
	build();
	put64(XSDT_AT + 36, 0x100000000ull);           /* the MADT's slot */
	seal(XSDT_AT);
	CHECK(read_tables() == 1, "nothing read");
	EXPECT(said("the listed table at 0x100000000 is outside the mapped "
		    "4 GiB; ignored"), "said: %s", log_text);
	EXPECT(acpi.ncpus == 0, "CPUs from beyond 4 GiB");
	expect_fadt_read("a table out of reach");
}

/*
 * More enabled CPUs than the kernel runs on: the first ACPI_MAX_CPUS in
 * the MADT's order are kept, every other one is counted and named, runs of
 * consecutive APIC IDs in one line. A CPU listed again (as x2APIC) past the
 * limit is still the kept one.
 */
static void test_more_cpus_than_supported(void)
{
	build();
	unsigned off = 44;
	header(BIG_MADT_AT, "APIC", 0x1000);
	put32(BIG_MADT_AT + 36, 0xfee00000);
	for (unsigned id = 0; id < 255; id++)
		off = lapic_in(BIG_MADT_AT, off, (uint8_t)id, (uint8_t)id, 1);
	static const uint32_t beyond[] = { 255, 256, 257, 258, 259, 5, 300,
					   301, 400, 0x10000 };
	for (unsigned i = 0; i < sizeof beyond / sizeof *beyond; i++)
		off = x2apic_in(BIG_MADT_AT, off, beyond[i], 1, 1000 + i);
	off = x2apic_in(BIG_MADT_AT, off, 500, 0, 2000);      /* disabled */
	put32(BIG_MADT_AT + 4, off);
	put64(XSDT_AT + 36, BIG_MADT_AT);
	seal(BIG_MADT_AT);
	seal(XSDT_AT);
	CHECK(read_tables() == 1, "nothing read");
	acpi_name_dropped();
	EXPECT(acpi.ncpus == ACPI_MAX_CPUS, "%u CPUs kept", acpi.ncpus);
	EXPECT(acpi.cpu[ACPI_MAX_CPUS - 1].apic_id == 255, "the last kept is "
	       "APIC ID %u", acpi.cpu[ACPI_MAX_CPUS - 1].apic_id);
	EXPECT(acpi.ncpus_dropped == 8, "%u dropped", acpi.ncpus_dropped);
	EXPECT(acpi.ncpus_disabled == 1, "%u disabled", acpi.ncpus_disabled);
	static const char *const named[] = {
		"acpi: CPUs with APIC IDs 256-259 left out: the kernel runs on "
		"at most 256 CPUs\n",
		"acpi: CPUs with APIC IDs 300-301 left out",
		"acpi: CPU with APIC ID 400 left out",
		"acpi: CPU with APIC ID 65536 left out",
	};
	for (unsigned i = 0; i < sizeof named / sizeof *named; i++)
		EXPECT(said(named[i]), "not said '%s': %s", named[i], log_text);
	EXPECT(!said("APIC ID 5 ") && !said("APIC IDs 5-"), "a kept CPU was "
	       "named: %s", log_text);
}

/* The XSDT lists these tables, in this order. */
static void xsdt_lists(const uint64_t *tables, unsigned n)
{
	header(XSDT_AT, "XSDT", 36 + 8 * n);
	for (unsigned i = 0; i < n; i++)
		put64(XSDT_AT + 36 + 8 * i, tables[i]);
	seal(XSDT_AT);
}

/* A second MADT: one enabled CPU (APIC ID 7), another I/O APIC, IRQ 0
 * overridden to GSI 5. */
static void second_madt(void)
{
	header(BIG_MADT_AT, "APIC", 44 + 8 + 12 + 10);
	put32(BIG_MADT_AT + 36, 0xfee00000);
	unsigned off = lapic_in(BIG_MADT_AT, 44, 7, 7, 1);
	uint8_t *m = at(BIG_MADT_AT);
	m[off] = 1, m[off + 1] = 12, m[off + 2] = 3;
	put32(BIG_MADT_AT + off + 8, 0);
	off += 12;
	static const uint8_t iso[10] = { 2, 10, 0, 0, 5, 0, 0, 0, 0, 0 };
	memcpy(m + off, iso, 10);
	seal(BIG_MADT_AT);
}

/*
 * Issue 24, item 1: a root that lists a kind of table twice. The first
 * MADT, FADT and HPET table are used; every later one is named and not
 * read. A first one that fails its checksum is not a table: the next one
 * is then the first.
 */
static void test_second_tables_ignored(void)
{
	build();
	second_madt();
	const uint64_t both[] = { MADT_AT, FADT_AT, BIG_MADT_AT, HPET_AT,
				  FADT_AT, HPET_AT };
	xsdt_lists(both, 6);
	CHECK(read_tables() == 1, "nothing read");
	expect_madt_read("two MADTs");
	expect_fadt_read("two FADTs");
	EXPECT(acpi.madt_at == MADT_AT && acpi.fadt_at == FADT_AT &&
	       acpi.hpet_at == HPET_AT && acpi.tables_ignored == 3,
	       "used %#llx %#llx %#llx, %u ignored",
	       (unsigned long long)acpi.madt_at,
	       (unsigned long long)acpi.fadt_at,
	       (unsigned long long)acpi.hpet_at, acpi.tables_ignored);
	static const char *const named[] = {
		"acpi: a second MADT (APIC table at 0x30001000) ignored: the "
		"first, at 0x30000300, is used\n",
		"acpi: a second FADT (FACP table at 0x30000500) ignored: the "
		"first, at 0x30000500, is used\n",
		"acpi: a second HPET table (HPET table at 0x30000800) ignored",
	};
	for (unsigned i = 0; i < 3; i++)
		EXPECT(said(named[i]), "not said '%s': %s", named[i], log_text);

	/* The first MADT fails its checksum: the second is the MADT. */
	build();
	second_madt();
	const uint64_t two[] = { MADT_AT, BIG_MADT_AT, FADT_AT };
	xsdt_lists(two, 3);
	at(MADT_AT)[50] ^= 1;
	CHECK(read_tables() == 1, "nothing read");
	EXPECT(acpi.ncpus == 1 && acpi.cpu[0].apic_id == 7 &&
	       acpi.nioapics == 1 && acpi.ioapic[0].id == 3 &&
	       acpi.noverrides == 1 && acpi.override[0].gsi == 5,
	       "the second MADT after a corrupt first: %u CPUs", acpi.ncpus);
	EXPECT(acpi.madt_at == BIG_MADT_AT && acpi.tables_ignored == 0 &&
	       !said("second"), "said: %s", log_text);

	/* A first MADT whose entries are damaged is refused whole, and the
	 * second is still not read. */
	build();
	second_madt();
	xsdt_lists(two, 3);
	at(MADT_AT)[61] = 0;
	seal(MADT_AT);
	CHECK(read_tables() == 1, "nothing read");
	EXPECT(acpi.ncpus == 0 && acpi.nioapics == 0 &&
	       said("the MADT is not trusted") &&
	       said("a second MADT (APIC table at 0x30001000) ignored"),
	       "%u CPUs; said: %s", acpi.ncpus, log_text);
}

/* Issue 24, item 2: HW_REDUCED_ACPI (FADT flags bit 20) set: the PM timer,
 * PM1 control and SMI command fields are not used, the DSDT still is. */
static void test_hardware_reduced(void)
{
	build();
	put32(FADT_AT + 112, 1u << 8 | 1u << 20);
	put32(FADT_AT + 48, 0xb2);                     /* SMI_CMD */
	at(FADT_AT)[52] = 0xa0;                        /* ACPI_ENABLE */
	seal(FADT_AT);
	CHECK(read_tables() == 1, "nothing read");
	EXPECT(acpi.hw_reduced == 1, "HW_REDUCED_ACPI not seen");
	EXPECT(!acpi.pm_timer_port && !acpi.pm_timer_32bit && !acpi.pm1a_cnt &&
	       !acpi.pm1b_cnt && !acpi.smi_cmd && !acpi.acpi_enable,
	       "fixed hardware used: PM timer %#x, PM1a %#x, SMI %#x",
	       acpi.pm_timer_port, acpi.pm1a_cnt, acpi.smi_cmd);
	EXPECT(acpi.have_s5 && acpi.slp_typa == 5, "the DSDT was not read");
	EXPECT(said("acpi: hardware-reduced ACPI (FADT flag HW_REDUCED_ACPI): "
		    "its PM timer, PM1 control and SMI command fields are "
		    "ignored\n"), "said: %s", log_text);
	expect_madt_read("hardware-reduced");

	/* Bit 20 clear, the neighbouring bits set: the fields count. */
	build();
	put32(FADT_AT + 112, 1u << 8 | 1u << 19 | 1u << 21);
	seal(FADT_AT);
	CHECK(read_tables() == 1, "nothing read");
	EXPECT(!acpi.hw_reduced && acpi.pm_timer_port == 0x608 &&
	       acpi.pm1a_cnt == 0x604, "bits 19 and 21 taken for bit 20");
}

/* The broadcast IDs, 0xFF in a local APIC entry and 0xFFFFFFFF in an
 * x2APIC one, name no processor, enabled or not; 0xFF in an x2APIC entry
 * is an ordinary ID. */
static void test_broadcast_ids_are_not_cpus(void)
{
	build();
	unsigned off = 44;
	header(BIG_MADT_AT, "APIC", 0x100);
	put32(BIG_MADT_AT + 36, 0xfee00000);
	off = lapic_in(BIG_MADT_AT, off, 0, 0, 1);
	off = lapic_in(BIG_MADT_AT, off, 1, 0xff, 0);
	off = lapic_in(BIG_MADT_AT, off, 2, 0xff, 1);
	off = x2apic_in(BIG_MADT_AT, off, 0xffffffffu, 0, 3);
	off = x2apic_in(BIG_MADT_AT, off, 0xffffffffu, 2, 4);
	off = x2apic_in(BIG_MADT_AT, off, 0xff, 1, 5);
	off = lapic_in(BIG_MADT_AT, off, 6, 6, 0);
	put32(BIG_MADT_AT + 4, off);
	seal(BIG_MADT_AT);
	const uint64_t one[] = { BIG_MADT_AT };
	xsdt_lists(one, 1);
	CHECK(read_tables() == 1, "nothing read");
	EXPECT(acpi.ncpus == 2 && acpi.cpu[0].apic_id == 0 &&
	       acpi.cpu[1].apic_id == 0xff && acpi.cpu[1].uid == 5,
	       "%u CPUs", acpi.ncpus);
	EXPECT(acpi.ncpus_disabled == 1 && acpi.ncpus_hotplug == 0,
	       "disabled %u, hotplug %u", acpi.ncpus_disabled,
	       acpi.ncpus_hotplug);
}

int main(void)
{
	window_set(arena, sizeof arena, ARENA);
	test_well_formed();
	test_rsdp_checksum();
	test_xsdt_falls_back_to_rsdt();
	test_madt_damage();
	test_fadt_dsdt_hpet_damage();
	test_table_out_of_reach();
	test_more_cpus_than_supported();
	test_second_tables_ignored();
	test_hardware_reduced();
	test_broadcast_ids_are_not_cpus();
	return unit_exit_status();
}
