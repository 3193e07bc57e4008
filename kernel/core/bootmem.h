/* kernel/core/bootmem: a bump allocator over free RAM, for buffers sized at
 * boot (the measurement records). Nothing is ever freed. */
#ifndef KERNEL_BOOTMEM_H
#define KERNEL_BOOTMEM_H

#include <stddef.h>
#include <stdint.h>

#include "mb2.h"

/* Picks the largest free region below 4 GiB that holds none of the kernel,
 * the boot information or the modules. */
void bootmem_init(const struct mb2_info *mb, uint64_t info_phys,
		  uint64_t info_size);
/* Zeroed, 64-byte aligned; never NULL: when it does not fit, the kernel
 * panics (reason=memory) naming the size asked and what was left, since
 * every caller sizes its buffers from the boot's own parameters and has
 * nothing smaller to fall back to. */
void *bootmem_alloc(size_t size);
/* Zeroed whole pages, page-aligned (page tables, a task's memory). */
#define PAGE_SIZE 4096
void *bootmem_alloc_pages(uint64_t npages);
uint64_t bootmem_free_bytes(void);

#endif
