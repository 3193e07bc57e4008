/* arch/x86/debug: page-table probes and writes through write protection. */
#include "debug.h"

#include "cpu.h"

#define PTE_PRESENT (1ull << 0)
#define PTE_WRITE (1ull << 1)
#define PTE_LARGE (1ull << 7)   /* PS: 1 GiB in a PDPTE, 2 MiB in a PDE */
#define PTE_ADDR 0x000ffffffffff000ull  /* bits 51:12 */
#define CR0_WP (1ull << 16)
/* boot/boot.asm identity-maps the first 4 GiB, where every page table the
 * kernel builds lives; a table beyond it cannot be read, so it is no
 * access. */
#define IDENTITY_LIMIT 0x100000000ull

static uint64_t read_cr0(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static void write_cr0(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

/* Bits 63:47 all equal (SDM vol. 1, 3.3.7.1), else no page maps it. */
static int canonical(uint64_t addr)
{
	uint64_t top = addr >> 47;
	return top == 0 || top == 0x1ffff;
}

enum debug_access debug_probe(uint64_t addr)
{
	if (!canonical(addr))
		return DEBUG_NO_ACCESS;
	uint64_t table = read_cr3() & PTE_ADDR;
	int writable = 1;
	/* PML4, PDPT, PD, PT: 9 address bits each from bit 39 down. */
	for (int level = 3; level >= 0; level--) {
		if (table >= IDENTITY_LIMIT)
			return DEBUG_NO_ACCESS;
		unsigned idx = (unsigned)(addr >> (12 + 9 * level)) & 511;
		uint64_t e = ((const volatile uint64_t *)table)[idx];
		if (!(e & PTE_PRESENT))
			return DEBUG_NO_ACCESS;
		/* SDM 4.6: a supervisor write needs R/W at every level. */
		writable &= (e & PTE_WRITE) != 0;
		if (level == 0 || ((level == 1 || level == 2) && (e & PTE_LARGE)))
			return writable ? DEBUG_READ_WRITE : DEBUG_READ_ONLY;
		table = e & PTE_ADDR;
	}
	return DEBUG_NO_ACCESS;
}

void debug_write_protected(void *dst, const void *src, size_t n)
{
	uint64_t cr0 = read_cr0();
	write_cr0(cr0 & ~CR0_WP);
	volatile uint8_t *d = dst;
	const uint8_t *s = src;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	write_cr0(cr0);
}
