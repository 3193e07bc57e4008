# arch/x86's firmware parsers on the host, and the fuzz targets
# (docs/testing.md, "Fuzzing"). Included by the top Makefile.

# acpi_tables.c and mptable_parse.c reach memory only through phys_map
# (arch/x86/phys.h); tests/host/c/phys_window.h gives them a buffer instead.
ARCH_HOST_SRC := arch/x86/acpi_tables.c arch/x86/mptable_parse.c

# tests/host/c/acpi_read: the kernel's ACPI reader over a firmware image,
# for tests/host/test_acpi_machines.py.
$(BUILD)/host/acpi_read: tests/host/c/acpi_read.c $(ARCH_HOST_SRC) \
		tests/host/c/phys_window.h $(wildcard arch/x86/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC+LD (host, sanitized) $@"
	$(Q)$(HOST_CC) $(HOST_WARN) $(HOST_SAN) $(filter %.c,$^) -o $@

host: $(BUILD)/host/acpi_read
