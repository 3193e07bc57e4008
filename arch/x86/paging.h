/* arch/x86/paging: additions to the boot page tables (boot/boot.asm),
 * which identity-map the first 4 GiB and put the kernel at -2 GiB. */
#ifndef ARCH_X86_PAGING_H
#define ARCH_X86_PAGING_H

#include <stdint.h>

/* A pointer to physical memory [phys, phys + size), mapped uncached when
 * above 4 GiB (a UEFI framebuffer can be); NULL if it cannot be mapped. */
void *paging_map_phys(uint64_t phys, uint64_t size);

#endif
