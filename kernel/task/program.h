/*
 * kernel/task/program: the ring-3 programs on the boot medium (multiboot2
 * modules named "user:NAME", scripts/mkiso.sh) and loading one into a
 * task's address space: its segments (checked by lib/elf64 first), its
 * working set, stack and control page (lib/rt_abi.h).
 */
#ifndef KERNEL_PROGRAM_H
#define KERNEL_PROGRAM_H

#include <stddef.h>

#include "../core/mb2.h"

struct task;

/* The modules GRUB loaded (once, at boot). */
void program_setup(const struct mb2_info *boot);

/* Whether a program of that name is there. */
int program_exists(const char *name);

/*
 * A new address space for t with its program (work=) mapped, and t's
 * entry, vm and control set. Returns 0, or -1 with a message in err (no
 * such program, a program lib/elf64 refuses, a working set too large).
 */
int program_load(struct task *t, char *err, size_t errlen);

#endif
