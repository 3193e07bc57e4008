/* kernel/core/ksyms: the lookup over the generated table. */
#include "ksyms.h"

extern char ksyms_text_end[];   /* linker.ld: the end of .text */

const char *ksyms_lookup(uint64_t addr, uint64_t *offset)
{
	unsigned n = 0;
	while (ksyms[n].name)
		n++;
	if (n == 0 || addr < ksyms[0].addr || addr >= (uint64_t)ksyms_text_end)
		return 0;
	/* The last entry at or below addr. */
	unsigned lo = 0, hi = n;
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;
		if (ksyms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - ksyms[lo].addr;
	return ksyms[lo].name;
}
