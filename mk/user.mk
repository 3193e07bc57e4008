# The ring-3 programs: user/NAME.c -> build/user/NAME.elf, linked with the
# objects of user/lib/ at RT_USER_BASE (user/user.ld). Built with the host
# gcc, freestanding: only gcc's own headers (stdint.h and the like), lib/
# rt_abi.h and user/lib/ are reachable, and no C library is linked. SSE is
# allowed (the kernel saves a task's FPU state). -mcmodel=large because the
# programs live at 512 GiB, out of reach of 32-bit absolute addresses; no
# stack protector, whose canary sits at %fs:0x28 and tasks have no FS base.

UCC := $(HOST_CC)
UDIR := $(BUILD)/user

# gcc's own header directory, asked of gcc when the first program is
# compiled and kept: not when make reads this file, which on a fresh
# machine comes before the dependency step has installed gcc.
UCC_INCLUDE = $(eval UCC_INCLUDE := $$(shell $$(UCC) -print-file-name=include))$(UCC_INCLUDE)
UCFLAGS = -std=c11 -ffreestanding -nostdinc \
           -isystem $(UCC_INCLUDE) \
           -fno-pic -fno-pie -mcmodel=large -fno-stack-protector \
           -fcf-protection=none -fno-asynchronous-unwind-tables \
           -fno-unwind-tables -ffunction-sections -fdata-sections \
           -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
# The base address comes from lib/rt_abi.h, so the header stays the one
# place that says where programs live.
RT_USER_BASE := $(shell sed -n 's/^\#define RT_USER_BASE[[:space:]]*\(0x[0-9a-fA-F]*\).*/\1/p' lib/rt_abi.h)
$(if $(RT_USER_BASE),,$(error mk/user.mk: no '#define RT_USER_BASE 0x...' in lib/rt_abi.h))
ULDFLAGS := -nostdlib -static -no-pie -Wl,-T,user/user.ld \
            -Wl,--defsym=RT_USER_BASE=$(RT_USER_BASE) -Wl,--gc-sections \
            -Wl,-z,noexecstack -Wl,-z,separate-code \
            -Wl,-z,max-page-size=0x1000 \
            -Wl,--build-id=none

USER_PROGS := $(patsubst user/%.c,%,$(wildcard user/*.c))
USER_ELFS := $(USER_PROGS:%=$(UDIR)/%.elf)
ULIB_OBJ := $(patsubst user/lib/%.c,$(UDIR)/lib/%.o,$(wildcard user/lib/*.c))

# USER_PROGS_DIR=DIR: the user's own programs, DIR/NAME.c each, built like
# user/'s (they include "lib/sys.h" and the like from user/) into a build
# directory of DIR's own, and given to the ISO as work=NAME
# (docs/user-programs.md, "Your own program").
USER_PROGS_DIR ?=
UX_DIR := $(if $(USER_PROGS_DIR),$(abspath $(USER_PROGS_DIR)))
UX_PROGS := $(if $(UX_DIR),$(patsubst $(UX_DIR)/%.c,%,$(wildcard $(UX_DIR)/*.c)))
$(if $(and $(UX_DIR),$(if $(wildcard $(UX_DIR)/.),,x)),$(error USER_PROGS_DIR=$(USER_PROGS_DIR): no such directory))
$(if $(and $(UX_DIR),$(if $(UX_PROGS),,x)),$(error USER_PROGS_DIR=$(USER_PROGS_DIR): no NAME.c in it))
# The build directory mirrors DIR's absolute path: one per directory.
UX_BUILD := $(if $(UX_DIR),$(BUILD)/user-dirs$(UX_DIR))
UX_ELFS := $(UX_PROGS:%=$(UX_BUILD)/%.elf)
# A program name is what lib/taskset takes for work=: 1 to 31 letters,
# digits, '_' and '-', the first a letter.
UX_BAD := $(shell printf '%s\n' $(USER_PROGS) $(UX_PROGS) | \
	grep -vE '^[A-Za-z][A-Za-z0-9_-]{0,30}$$')
$(if $(UX_BAD),$(error program names work= cannot name (1 to 31 letters, digits, _ and -, the first a letter): $(UX_BAD)))
UX_BOTH := $(filter $(USER_PROGS),$(UX_PROGS))
$(if $(UX_BOTH),$(error $(UX_BOTH): in user/ and in USER_PROGS_DIR=$(USER_PROGS_DIR); rename one))
# What mkiso packs besides user/'s programs.
UX_MKISO := $(foreach e,$(UX_ELFS),--program $(e))

.PHONY: user
user: $(USER_ELFS) $(UX_ELFS)
host: user

$(UDIR)/%.o: user/%.c
	@mkdir -p $(dir $@)
	@echo "  CC (user)           $<"
	$(Q)$(UCC) $(UCFLAGS) -MMD -MP -c $< -o $@

$(UDIR)/libuser.a: $(ULIB_OBJ)
	@echo "  AR    $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(UDIR)/%.elf: $(UDIR)/%.o $(UDIR)/libuser.a user/user.ld lib/rt_abi.h
	@echo "  LD    $@"
	$(Q)$(UCC) $(ULDFLAGS) $< $(UDIR)/libuser.a -o $@

$(UX_BUILD)/%.o: $(UX_DIR)/%.c
	@mkdir -p $(dir $@)
	@echo "  CC (user)           $<"
	$(Q)$(UCC) $(UCFLAGS) -iquote user -MMD -MP -c $< -o $@

$(UX_BUILD)/%.elf: $(UX_BUILD)/%.o $(UDIR)/libuser.a user/user.ld lib/rt_abi.h
	@echo "  LD    $@"
	$(Q)$(UCC) $(ULDFLAGS) $< $(UDIR)/libuser.a -o $@

-include $(shell find $(UDIR) $(if $(UX_DIR),$(UX_BUILD)) -name '*.d' 2>/dev/null)
