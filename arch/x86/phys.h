/*
 * arch/x86/phys: firmware tables read by physical address. The firmware
 * parsers (acpi_tables.c, mptable_parse.c) reach memory only through
 * phys_map, so the same files build on the host: the host tests and fuzz
 * targets give their own phys_map over a buffer (tests/host/c/
 * phys_window.h), where every byte a parser reads is checked by
 * AddressSanitizer.
 */
#ifndef ARCH_X86_PHYS_H
#define ARCH_X86_PHYS_H

#include <stdint.h>

/*
 * A pointer to the len bytes at physical address phys, or NULL when they
 * are not all reachable. In the kernel: inside the first 4 GiB, which the
 * boot page tables map one to one (boot/boot.asm).
 */
const void *phys_map(uint64_t phys, uint64_t len);

#endif
