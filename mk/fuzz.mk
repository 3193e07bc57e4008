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

# ---------------------------------------------------------------- fuzzing
# Coverage-guided fuzz targets (libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer) of every parser that reads outside input:
# tests/fuzz/targets/NAME.c -> build/fuzz/NAME, linked with lib/ and what
# FUZZ_USES_NAME names, all built with clang's instrumentation. The trace
# decoder's target is Python (tests/fuzz/targets/trace.py, atheris).
#   make fuzz                  every target FUZZ_SECONDS (60) seconds each
#   make fuzz FUZZ_ONLY=acpi   one target
# make test runs each one briefly (tests/host/test_fuzz.py).
FUZZ_CC      ?= clang
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_ONLY    ?=
FUZZ_CFLAGS  := $(HOST_WARN) -O1 -g -fno-omit-frame-pointer \
                -fsanitize=address,undefined -fno-sanitize-recover=all \
                -fsanitize=fuzzer-no-link
FUZZ_C_TARGETS := $(patsubst tests/fuzz/targets/%.c,%,\
                    $(wildcard tests/fuzz/targets/*.c))

# What each target needs besides lib/.
FUZZ_USES_options := kernel/core/options.c tests/fuzz/shim/console.c \
                     $(shell find sched -name '*.c')
FUZZ_USES_mb2     := kernel/core/mb2.c
FUZZ_USES_acpi    := arch/x86/acpi_tables.c
FUZZ_USES_mptable := arch/x86/acpi_tables.c arch/x86/mptable_parse.c

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC (fuzz)           $<"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

define fuzz_target
$(FUZZ_DIR)/$(1): $(FUZZ_DIR)/obj/tests/fuzz/targets/$(1).o \
		$(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(wildcard lib/*.c) \
		$(FUZZ_USES_$(1)))
	@echo "  LD (fuzz)  $$@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $$^ -o $$@ -lm
endef
$(foreach t,$(FUZZ_C_TARGETS),$(eval $(call fuzz_target,$(t))))

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_C_TARGETS:%=$(FUZZ_DIR)/%)
host: fuzz-build

fuzz: host-deps
	@$(MAKE) --no-print-directory fuzz-build
	$(PYTHON) tests/fuzz/run.py --seconds $(FUZZ_SECONDS) \
		$(if $(FUZZ_ONLY),--only $(FUZZ_ONLY))

-include $(shell find $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null)
