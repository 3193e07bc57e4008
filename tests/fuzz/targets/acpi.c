/*
 * Fuzz target `acpi`: arch/x86/acpi_tables.c, the kernel's reader of the
 * RSDP, RSDT/XSDT, MADT, FADT with the DSDT's \_S5, and HPET table, built
 * on the host over a firmware image (tests/host/c/phys_window.h): the
 * input's first byte is a flag, the rest is physical memory from
 * FIRMWARE_IMAGE_BASE, the RSDP first. With flag bit 0 set the target
 * first makes every checksum it can find hold (the RSDP's two, the root
 * table's, each listed table's and the DSDT's), so that mutations reach
 * the tables' contents rather than stop at their checksums. Every read is
 * checked by AddressSanitizer against the image's bounds; what the reader
 * keeps must be what acpi.h promises.
 */
#include "../../../arch/x86/acpi_tables.h"
#include "../../host/c/phys_window.h"
#include "../fuzz.h"

static uint8_t *img;
static size_t img_len;

static uint32_t get32(size_t off)
{
	uint32_t v;
	memcpy(&v, img + off, 4);
	return v;
}

static uint64_t get64(size_t off)
{
	uint64_t v;
	memcpy(&v, img + off, 8);
	return v;
}

/* Byte at of the len bytes at off made so that they sum to 0. */
static void seal_bytes(size_t off, size_t len, size_t at)
{
	if (off > img_len || len > img_len - off || at >= len)
		return;
	uint8_t sum = 0;
	img[off + at] = 0;
	for (size_t i = 0; i < len; i++)
		sum += img[off + i];
	img[off + at] = (uint8_t)-sum;
}

/* The table at phys (its length from its header), sealed; its offset in
 * the image, or SIZE_MAX when it is not all inside. */
static size_t seal_table(uint64_t phys)
{
	if (phys < FIRMWARE_IMAGE_BASE || phys - FIRMWARE_IMAGE_BASE > img_len ||
	    img_len - (phys - FIRMWARE_IMAGE_BASE) < 36)
		return SIZE_MAX;
	size_t off = phys - FIRMWARE_IMAGE_BASE;
	uint32_t len = get32(off + 4);
	if (len < 36 || len > img_len - off)
		return SIZE_MAX;
	seal_bytes(off, len, 9);
	return off;
}

static void seal_root(uint64_t phys, unsigned width)
{
	size_t root = seal_table(phys);
	if (root == SIZE_MAX)
		return;
	uint32_t n = (get32(root + 4) - 36) / width;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t at = width == 8 ? get64(root + 36 + 8 * i)
					 : get32(root + 36 + 4 * i);
		size_t t = seal_table(at);
		if (t == SIZE_MAX || memcmp(img + t, "FACP", 4))
			continue;
		uint32_t len = get32(t + 4);
		uint64_t dsdt = len >= 148 && get64(t + 140) ? get64(t + 140)
							     : get32(t + 40);
		seal_table(dsdt);
		seal_table(at);         /* the FADT again, if they overlap */
	}
	seal_table(phys);
}

static void seal_all(void)
{
	if (img_len < 20)
		return;
	if (img[15] >= 2 && img_len >= 36) {
		seal_root(get64(24), 8);
		uint32_t len = get32(20);
		if (len >= 36 && len <= 4096)
			seal_bytes(0, len, 32);
	}
	seal_root(get32(16), 4);
	seal_bytes(0, 20, 8);
	if (img[15] >= 2 && img_len >= 36 && get32(20) >= 36 &&
	    get32(20) <= 4096)
		seal_bytes(0, get32(20), 32);
}

static int inside(uint64_t phys)
{
	return phys == 0 || (phys >= FIRMWARE_IMAGE_BASE &&
			     phys - FIRMWARE_IMAGE_BASE < img_len);
}

static void check(void)
{
	FUZZ_CHECK(acpi.ncpus <= ACPI_MAX_CPUS, "%u CPUs", acpi.ncpus);
	for (unsigned i = 0; i < acpi.ncpus; i++) {
		const struct acpi_cpu *c = &acpi.cpu[i];
		FUZZ_CHECK(c->enabled && c->apic_id != 0xffffffffu,
			   "CPU %u: APIC ID %#x, enabled %u", i, c->apic_id,
			   c->enabled);
		for (unsigned j = 0; j < i; j++)
			FUZZ_CHECK(acpi.cpu[j].apic_id != c->apic_id,
				   "APIC ID %#x twice", c->apic_id);
	}
	FUZZ_CHECK(!acpi.ncpus_dropped || acpi.ncpus == ACPI_MAX_CPUS,
		   "%u dropped below the limit", acpi.ncpus_dropped);
	FUZZ_CHECK(acpi.nioapics <= ACPI_MAX_IOAPICS, "%u I/O APICs",
		   acpi.nioapics);
	FUZZ_CHECK(acpi.noverrides <= ACPI_MAX_OVERRIDES, "%u overrides",
		   acpi.noverrides);
	for (unsigned i = 0; i < acpi.noverrides; i++) {
		FUZZ_CHECK(acpi.override[i].isa_irq < 16, "IRQ %u",
			   acpi.override[i].isa_irq);
		for (unsigned j = 0; j < i; j++)
			FUZZ_CHECK(acpi.override[j].isa_irq !=
				   acpi.override[i].isa_irq, "IRQ %u twice",
				   acpi.override[i].isa_irq);
	}
	FUZZ_CHECK(inside(acpi.madt_at) && inside(acpi.fadt_at) &&
		   inside(acpi.hpet_at), "a table outside the image was used");
	FUZZ_CHECK(!acpi.hw_reduced || (!acpi.pm_timer_port &&
					 !acpi.pm1a_cnt && !acpi.smi_cmd),
		   "hardware-reduced with fixed hardware");
	FUZZ_CHECK(!acpi.ncpus || acpi.madt_at, "CPUs without a MADT");
	FUZZ_CHECK(log_len == 0 || log_text[log_len - 1] == '\n' ||
		   log_len >= sizeof log_text - 512, "a message without its "
		   "line end");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	img_len = size - 1;
	img = malloc(img_len ? img_len : 1);
	memcpy(img, data + 1, img_len);
	if (data[0] & 1)
		seal_all();
	window_set(img, img_len, FIRMWARE_IMAGE_BASE);
	memset(&acpi, 0, sizeof acpi);
	acpi.source = "none";
	log_clear();
	int rsdp_ok = img_len >= 20 && acpi_rsdp_valid(img, 1);
	int read = acpi_read_tables(FIRMWARE_IMAGE_BASE);
	acpi_name_dropped();
	FUZZ_CHECK(!read || rsdp_ok, "tables read behind an invalid RSDP");
	check();
	free(img);
	return 0;
}
