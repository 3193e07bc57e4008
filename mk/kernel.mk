# Kernel-side rules, included by the top Makefile.

# An x86_64-elf cross compiler when there is one, else the host gcc in
# freestanding mode (the flags below make it safe for kernel code).
CROSS ?= $(if $(shell command -v x86_64-elf-gcc 2>/dev/null),x86_64-elf-)
KCC   := $(CROSS)gcc
KLD   := $(CROSS)ld
NASM  ?= nasm

KCFLAGS := -std=c11 -ffreestanding -fno-pic -fno-pie -mno-red-zone \
           -mcmodel=kernel -mno-sse -mno-sse2 -mno-mmx -mno-80387 \
           -mgeneral-regs-only -fno-stack-protector -fno-omit-frame-pointer \
           -fno-asynchronous-unwind-tables -fno-strict-aliasing \
           -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -I. \
           -DKERNEL=1 --param=min-pagesize=0
KLDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
            --no-warn-rwx-segments

KDIR := $(BUILD)/kernel
KERNEL_ELF := $(KDIR)/kernel.elf
ISO_FILE := $(BUILD)/kernel.iso

K_C_SRC := $(sort $(wildcard arch/x86/*.c drivers/*/*.c lib/*.c) \
                  $(shell find kernel sched -name '*.c'))
K_ASM_SRC := $(sort $(wildcard boot/*.asm arch/x86/*.asm))
K_OBJ := $(K_C_SRC:%.c=$(KDIR)/%.o) $(K_ASM_SRC:%.asm=$(KDIR)/%.asm.o)

.PHONY: kernel iso run debug bochs
all: iso

kernel: $(KERNEL_ELF)

$(KDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC (kernel)         $<"
	$(Q)$(KCC) $(KCFLAGS) -MMD -MP -c $< -o $@

$(KDIR)/%.asm.o: %.asm
	@mkdir -p $(dir $@)
	@echo "  NASM  $<"
	$(Q)$(NASM) -f elf64 -M -MT $@ -MP $< > $(@:.o=.d)
	$(Q)$(NASM) -f elf64 -g -F dwarf -o $@ $<

# Two links: the first with an empty symbol table, whose function symbols
# become the table of the second (kernel/core/ksyms). The table is read-only
# data behind all code, so no function moves; the check proves it.
$(KDIR)/ksyms_%.o: $(KDIR)/ksyms_%.c
	@echo "  CC (kernel)         $<"
	$(Q)$(KCC) $(KCFLAGS) -c $< -o $@

$(KDIR)/ksyms_empty.c: scripts/ksyms.sh
	@mkdir -p $(dir $@)
	$(Q)scripts/ksyms.sh --empty > $@

$(KDIR)/kernel.pass1.elf: $(K_OBJ) $(KDIR)/ksyms_empty.o linker.ld
	@echo "  LD    $@"
	$(Q)$(KLD) $(KLDFLAGS) -T linker.ld -o $@ $(K_OBJ) $(KDIR)/ksyms_empty.o

$(KDIR)/ksyms_table.c: $(KDIR)/kernel.pass1.elf scripts/ksyms.sh
	$(Q)scripts/ksyms.sh $< > $@

$(KERNEL_ELF): $(KDIR)/kernel.pass1.elf $(KDIR)/ksyms_table.o
	@echo "  LD    $@"
	$(Q)$(KLD) $(KLDFLAGS) -T linker.ld -o $@ $(K_OBJ) $(KDIR)/ksyms_table.o
	$(Q)scripts/ksyms.sh --check $< $@ || { rm -f $@; exit 1; }

-include $(shell find $(KDIR) -name '*.d' 2>/dev/null)

iso: $(ISO_FILE)

$(ISO_FILE): $(KERNEL_ELF) $(USER_ELFS) $(UX_ELFS) boot/grub.cfg scripts/mkiso.sh
	scripts/mkiso.sh $@ $(UX_MKISO)

# ------------------------------------------------------------- make run etc.
# docs/running.md: the variables, the timing modes, what a run prints.
SMP      ?= 4
MACHINE  ?= pc
ACCEL    ?= tcg
FIRMWARE ?= bios
CMDLINE  ?=
# By default `make run` runs a scheduler over a default task set; SCHED=
# (empty) boots into the self-measurement of the quantum clocks instead.
SCHED    ?= spd2
TASKS    ?= $(if $(SCHED),tasks/default.tasks)
# SLOTS=N: the run lasts N quanta (the kernel word slots=N; default 1000).
SLOTS    ?=
# TIMING=virtual: QEMU -icount, time advances with the instructions run, so
# a scheduler's run is its plan every time, whatever the host's load;
# TIMING=real: plain TCG or KVM, the host's clock and its noise. Under
# Bochs: its clock without (virtual) or with (real) sync to the host's.
TIMING   ?= $(if $(filter kvm,$(ACCEL)),real,virtual)
ICOUNT   := shift=3,sleep=off
# make debug: STUB=qemu (QEMU's own stub) or STUB=kernel (the kernel's, on
# COM2: the boot then waits for GDB, gdb=wait).
STUB     ?= qemu
ifeq ($(filter qemu kernel,$(STUB)),)
$(error STUB must be qemu or kernel, not '$(STUB)')
endif
ifeq ($(filter virtual real,$(TIMING)),)
$(error TIMING must be virtual or real, not '$(TIMING)')
endif
ifeq ($(TIMING)-$(ACCEL),virtual-kvm)
$(error TIMING=virtual needs TCG (QEMU -icount); ACCEL=kvm runs on real time: give TIMING=real or leave TIMING out)
endif
# A whole number in [lo, hi] (make's arithmetic is the shell's).
in_range = $(shell [ "$(1)" -eq "$(1)" ] 2>/dev/null && [ "$(1)" -ge $(2) ] && [ "$(1)" -le $(3) ] && echo ok)
ifneq ($(call in_range,$(SMP),1,255),ok)
$(error SMP must be a number of CPUs from 1 to 255, not '$(SMP)')
endif
ifneq ($(SLOTS),)
ifneq ($(call in_range,$(SLOTS),1,1000000),ok)
$(error SLOTS must be a number of quanta from 1 to 1000000, not '$(SLOTS)')
endif
endif
ifneq ($(SCHED),)
ifeq ($(TASKS),)
$(error SCHED=$(SCHED) needs a task set: TASKS=file.tasks)
endif
endif
ifneq ($(TASKS),)
ifeq ($(wildcard $(TASKS)),)
$(error TASKS=$(TASKS): no such file)
endif
endif

# The goal being booted: the top-level make's, or the one it hands down.
RUN_GOAL ?= $(firstword $(filter run debug bochs,$(MAKECMDGOALS)))
RUN_WORDS := $(strip $(if $(SCHED),sched=$(SCHED)) $(if $(SLOTS),slots=$(SLOTS)) \
		timing=$(TIMING) $(CMDLINE) \
		$(if $(and $(filter debug,$(RUN_GOAL)),$(filter kernel,$(STUB))),gdb=wait))

# RUN_ISO_FILE=path: where `make run` writes its ISO (two runs at once
# need two).
RUN_ISO_FILE ?= $(BUILD)/run.iso
RUN_ISO := $(RUN_ISO_FILE)
RUN_ENV := SMP=$(SMP) MACHINE=$(MACHINE) ACCEL=$(ACCEL) FIRMWARE=$(FIRMWARE) \
	   ICOUNT=$(if $(filter virtual,$(TIMING)),$(ICOUNT)) \
	   TYPED=$(if $(filter arrivals=uart irqcheck=uart,$(RUN_WORDS)),1,0)

# With a task set the ISO holds the programs it names, and a name with no
# program fails here, before a boot (scripts/mkiso.sh). It is made for this
# one boot, so GRUB boots its entry at once: the menu's second (for a
# person choosing at a screen, kept by `make iso` and `make usb`) costs
# 2.5-5 s of host time under -icount.
.PHONY: $(RUN_ISO_FILE) boot-run boot-debug boot-bochs
$(RUN_ISO_FILE): $(KERNEL_ELF) $(USER_ELFS) $(UX_ELFS) $(BUILD)/host/taskset_check-fast
	scripts/mkiso.sh $@ $(if $(RUN_WORDS),--cmdline "$(RUN_WORDS)") \
		$(if $(TASKS),--tasks "$(TASKS)") $(UX_MKISO) --menu-wait 0

# In this order, each step done before the next begins: the packages
# (scripts/ensure-deps.sh), the scheduler's name against the simulator's
# registry (the same sched/ code the kernel has), then the build and the
# boot. The name is checked before the kernel is compiled.
run debug bochs: deps
	$(if $(SCHED),@$(MAKE) --no-print-directory -s $(BUILD)/host/schedsim-fast)
	$(if $(SCHED),@scripts/check-sched.sh $(BUILD)/host/schedsim-fast "$(SCHED)")
	@$(MAKE) --no-print-directory RUN_GOAL=$@ boot-$@

boot-run: $(RUN_ISO)
	@$(RUN_ENV) scripts/run-qemu.sh $(RUN_ISO)

boot-debug: $(RUN_ISO)
	@$(RUN_ENV) STUB=$(STUB) scripts/debug.sh $(RUN_ISO) $(KERNEL_ELF)

boot-bochs: $(RUN_ISO)
	@SMP=$(SMP) TIMING=$(TIMING) scripts/run-bochs.sh $(RUN_ISO)
