/*
 * arch/x86/bios_area: where a PC BIOS leaves its tables -- the first KiB of
 * the extended BIOS data area (EBDA), the last KiB of base memory, and the
 * BIOS ROM below 1 MiB -- searched on 16-byte boundaries.
 */
#ifndef ARCH_X86_BIOS_AREA_H
#define ARCH_X86_BIOS_AREA_H

#include <stdint.h>

/*
 * The first address that match() accepts: in the EBDA's first KiB (when the
 * BIOS data area names one in 0x80000-0x9FFFF); else, when base_top is set,
 * in the last KiB of base memory (MP spec 1.4, 4); then in [rom_start,
 * 0x100000). NULL when none does.
 */
const void *bios_area_find(int (*match)(const void *p), uint64_t rom_start,
			   int base_top);

#endif
