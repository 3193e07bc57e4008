/* arch/x86/phys: the boot identity map as the firmware parsers see it. */
#include "phys.h"

#define IDENTITY_LIMIT 0x100000000ull

const void *phys_map(uint64_t phys, uint64_t len)
{
	if (phys >= IDENTITY_LIMIT || len > IDENTITY_LIMIT - phys)
		return 0;
	return (const void *)(uintptr_t)phys;
}
