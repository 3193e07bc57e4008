/*
 * tests/host/c/acpi_read: arch/x86/acpi_tables.c on the host. Reads a
 * firmware image -- the bytes of physical memory from FIRMWARE_IMAGE_BASE,
 * an RSDP first (tests/host/acpi_ref.py builds them from real machines'
 * tables) -- with the kernel's reader and prints what it found as one JSON
 * object, the reader's messages included, for tests/host/
 * test_acpi_machines.py to compare with an independent reading.
 *
 *   acpi_read IMAGE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../arch/x86/acpi_tables.h"
#include "../../../tools/read_file.h"
#include "phys_window.h"

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: acpi_read IMAGE\n");
		return 2;
	}
	size_t len;
	char *image = read_file(argv[1], &len);
	if (!image)
		return 1;
	window_set(image, len, FIRMWARE_IMAGE_BASE);
	acpi.source = "none";
	int read = acpi_read_tables(FIRMWARE_IMAGE_BASE);
	acpi_name_dropped();

	printf("{\"read\": %d, \"revision\": %u, \"lapic_addr\": %llu, "
	       "\"cpus\": [", read, acpi.revision,
	       (unsigned long long)acpi.lapic_addr);
	for (unsigned i = 0; i < acpi.ncpus; i++)
		printf("%s[%u, %u, %u]", i ? ", " : "", acpi.cpu[i].apic_id,
		       acpi.cpu[i].uid, acpi.cpu[i].online_capable);
	printf("], \"disabled\": %u, \"hotplug\": %u, \"dropped\": %u, "
	       "\"ioapics\": [", acpi.ncpus_disabled, acpi.ncpus_hotplug,
	       acpi.ncpus_dropped);
	for (unsigned i = 0; i < acpi.nioapics; i++)
		printf("%s[%u, %u, %u]", i ? ", " : "", acpi.ioapic[i].id,
		       acpi.ioapic[i].addr, acpi.ioapic[i].gsi_base);
	printf("], \"overrides\": [");
	for (unsigned i = 0; i < acpi.noverrides; i++)
		printf("%s[%u, %u, %u]", i ? ", " : "", acpi.override[i].isa_irq,
		       acpi.override[i].gsi, acpi.override[i].flags);
	printf("], \"madt_at\": %llu, \"fadt_at\": %llu, \"hpet_at\": %llu, "
	       "\"ignored\": %u, \"hw_reduced\": %u, \"pm_timer_port\": %u, "
	       "\"pm_timer_32bit\": %u, \"pm1a_cnt\": %u, \"pm1b_cnt\": %u, "
	       "\"smi_cmd\": %u, \"acpi_enable\": %u, \"have_s5\": %u, "
	       "\"hpet_addr\": %llu, \"log\": ",
	       (unsigned long long)acpi.madt_at,
	       (unsigned long long)acpi.fadt_at,
	       (unsigned long long)acpi.hpet_at, acpi.tables_ignored,
	       acpi.hw_reduced, acpi.pm_timer_port, acpi.pm_timer_32bit,
	       acpi.pm1a_cnt, acpi.pm1b_cnt, acpi.smi_cmd, acpi.acpi_enable,
	       acpi.have_s5, (unsigned long long)acpi.hpet_addr);
	json_string(log_text);
	printf("}\n");
	free(image);
	return 0;
}
