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

.PHONY: user
user: $(USER_ELFS)
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

-include $(shell find $(UDIR) -name '*.d' 2>/dev/null)
