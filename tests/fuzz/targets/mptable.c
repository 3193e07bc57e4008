/*
 * Fuzz target `mptable`: arch/x86/mptable_parse.c, the MP specification
 * 1.4 configuration table (the CPUs' source when ACPI lists none), built on
 * the host over a firmware image (tests/host/c/phys_window.h): the input's
 * first byte is a flag, the rest is physical memory from
 * FIRMWARE_IMAGE_BASE with the floating pointer first. With flag bit 0 set
 * the target first makes the floating pointer's and the configuration
 * table's checksums hold. Every read is checked against the image's
 * bounds; what the reader keeps must be what acpi.h promises.
 */
#include "../../../arch/x86/acpi_tables.h"
#include "../../../arch/x86/mptable.h"
#include "../../host/c/phys_window.h"
#include "../fuzz.h"

static void seal(uint8_t *img, size_t len)
{
	if (len < 16)
		return;
	uint8_t sum = 0;
	img[10] = 0;
	for (unsigned i = 0; i < 16; i++)
		sum += img[i];
	img[10] = (uint8_t)-sum;
	uint32_t cfg;
	memcpy(&cfg, img + 4, 4);
	if (cfg < FIRMWARE_IMAGE_BASE || cfg - FIRMWARE_IMAGE_BASE > len ||
	    len - (cfg - FIRMWARE_IMAGE_BASE) < 44)
		return;
	uint8_t *t = img + (cfg - FIRMWARE_IMAGE_BASE);
	uint16_t tlen;
	memcpy(&tlen, t + 4, 2);
	if (tlen < 44 || tlen > len - (size_t)(t - img))
		return;
	sum = 0;
	t[7] = 0;
	for (unsigned i = 0; i < tlen; i++)
		sum += t[i];
	t[7] = (uint8_t)-sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t len = size - 1;
	uint8_t *img = malloc(len ? len : 1);
	memcpy(img, data + 1, len);
	if (data[0] & 1)
		seal(img, len);
	window_set(img, len, FIRMWARE_IMAGE_BASE);
	memset(&acpi, 0, sizeof acpi);
	acpi.source = "none";
	log_clear();
	uint8_t listed[32] = { 0 };
	int read = mptable_parse(FIRMWARE_IMAGE_BASE, listed);
	acpi_name_dropped();
	FUZZ_CHECK(read == !strcmp(acpi.source, "mptable"), "read %d, source "
		   "%s", read, acpi.source);
	FUZZ_CHECK(!read || (len >= 16 && mptable_is_floating(img)),
		   "read behind an invalid floating pointer");
	FUZZ_CHECK(acpi.ncpus <= ACPI_MAX_CPUS && acpi.nioapics <=
		   ACPI_MAX_IOAPICS && acpi.noverrides <= ACPI_MAX_OVERRIDES,
		   "%u CPUs, %u I/O APICs, %u overrides", acpi.ncpus,
		   acpi.nioapics, acpi.noverrides);
	for (unsigned i = 0; i < acpi.ncpus; i++) {
		uint32_t id = acpi.cpu[i].apic_id;
		FUZZ_CHECK(id < 256 && (listed[id / 8] >> (id % 8) & 1),
			   "CPU with APIC ID %u not marked as listed", id);
		for (unsigned j = 0; j < i; j++)
			FUZZ_CHECK(acpi.cpu[j].apic_id != id, "APIC ID %u twice",
				   id);
	}
	for (unsigned i = 0; i < acpi.noverrides; i++)
		FUZZ_CHECK(acpi.override[i].isa_irq < 16 &&
			   acpi.override[i].gsi < 256, "IRQ %u at GSI %u",
			   acpi.override[i].isa_irq, acpi.override[i].gsi);
	FUZZ_CHECK(read || (!acpi.ncpus && !acpi.nioapics &&
			    !acpi.noverrides), "a refused table was used");
	free(img);
	return 0;
}
