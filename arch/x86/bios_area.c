/* arch/x86/bios_area: the BIOS's table areas (see bios_area.h). */
#include "bios_area.h"

#define BDA_EBDA_SEGMENT 0x40e  /* BIOS data area: the EBDA's segment */
#define BASE_MEMORY_TOP 0xa0000

static const void *scan(uint64_t from, uint64_t to, int (*match)(const void *))
{
	for (uint64_t a = from; a + 16 <= to; a += 16)
		if (match((const void *)a))
			return (const void *)a;
	return 0;
}

const void *bios_area_find(int (*match)(const void *p), uint64_t rom_start,
			   int base_top)
{
	uint64_t ebda = (uint64_t)(*(const uint16_t *)BDA_EBDA_SEGMENT) << 4;
	const void *p = 0;
	if (ebda >= 0x80000 && ebda < BASE_MEMORY_TOP)
		p = scan(ebda, ebda + 1024, match);
	else if (base_top)
		p = scan(BASE_MEMORY_TOP - 1024, BASE_MEMORY_TOP, match);
	return p ? p : scan(rom_start, 0x100000, match);
}
