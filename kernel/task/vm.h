/*
 * kernel/task/vm: address spaces. Every task's page tables hold the kernel's
 * mappings -- the identity map of low physical memory (PML4 slot 0) and
 * the kernel image at -2 GiB (slot 511), both supervisor-only, shared with
 * the boot tables -- and, in PML4 slot 1, the task's own pages with the
 * user bit: the program's segments, its working set, its stack and its
 * control page (lib/rt_abi.h). Pages that are not code are never
 * executable (NX). Nothing is ever unmapped: a run's tasks live until the
 * machine stops.
 */
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

#include <stdint.h>

#define VM_WRITE 1u     /* the task may write it */
#define VM_EXEC 2u      /* the task may execute it */

struct vm_space {
	uint64_t *pml4;     /* identity-mapped, so also its physical address */
	uint64_t pages;     /* pages of the task's own, tables included */
};

/* Once, after the firmware tables are read: page 0 becomes a hole, so a
 * NULL pointer in the kernel faults instead of reading low memory. */
void vm_init(void);

/* A new address space with the kernel's mappings and none of its own. */
struct vm_space *vm_create(void);

/* Maps bytes (rounded up to pages) of fresh zeroed memory at the
 * page-aligned user address va; returns the kernel's pointer to it. */
void *vm_map_new(struct vm_space *s, uint64_t va, uint64_t bytes,
		 unsigned perm);

/*
 * The kernel's pointer to the user byte at va if the whole range
 * [va, va + len) lies in the task's part and is mapped for a user access
 * (writable when write), and does not cross a page; else NULL.
 */
void *vm_user_ptr(const struct vm_space *s, uint64_t va, uint64_t len,
		  int write);

/* Copies between the kernel and the task's memory, page by page through
 * vm_user_ptr. Returns 0, or -1 (nothing or part copied) when some byte of
 * the range is not the task's to read (write). */
int vm_copy_from_user(const struct vm_space *s, void *dst, uint64_t va,
		      uint64_t len);
int vm_copy_to_user(const struct vm_space *s, uint64_t va, const void *src,
		    uint64_t len);

#endif
