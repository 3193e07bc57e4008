/*
 * kernel/task/program: the ring-3 programs on the boot medium (multiboot2
 * modules named "user:NAME", scripts/mkiso.sh) and loading one into a
 * task's address space: its segments (checked by lib/elf64 first), its
 * working set, stack and control page (lib/rt_abi.h).
 */
#ifndef KERNEL_PROGRAM_H
#define KERNEL_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "../core/mb2.h"

struct task;

/* The modules GRUB loaded (once, at boot). */
void program_setup(const struct mb2_info *boot);

/*
 * Whether a program of that name is there: 0 with its declaration's
 * RT_PROG_* flags (lib/rt_abi.h) in *flags; -1 when there is none, or
 * when lib/elf64 refuses it (why in err, empty for a missing one).
 */
int program_find(const char *name, uint32_t *flags, char *err,
		 size_t errlen);

/*
 * A new address space for t with its program (work=) mapped, and t's
 * entry, first stack pointer (its argc/argv frame, argv[1..] the nargs
 * words at args), vm, control and prog_flags set. Returns 0, or -1 with a
 * message in err (no such program, a program lib/elf64 refuses, a working
 * set too large, arguments that do not fit the stack).
 */
int program_load(struct task *t, const char *args, unsigned nargs, char *err,
		 size_t errlen);

#endif
