/* arch/x86/paging: mapping physical ranges above the boot identity map. */
#include "paging.h"

#include "cpu.h"

#define PTE_PRESENT (1ull << 0)
#define PTE_WRITE (1ull << 1)
#define PTE_PWT (1ull << 3)
#define PTE_PCD (1ull << 4)
#define PTE_HUGE (1ull << 7)
#define PAGE_2M (1ull << 21)
#define EXTRA_PDS 4

extern uint64_t boot_pdpt_low[512];
static uint64_t extra_pd[EXTRA_PDS][512] __attribute__((aligned(4096)));
static unsigned extra_used;

/* Kernel virtual address (-2 GiB window) to physical. */
static uint64_t virt_to_phys(const void *p)
{
	return (uint64_t)p - 0xffffffff80000000ull;
}

void *paging_map_phys(uint64_t phys, uint64_t size)
{
	if (phys + size <= 0x100000000ull)
		return (void *)phys;
	/* Identity-map more of the low 512 GiB (PML4 slot 0), 2 MiB at a time. */
	if (phys + size > (512ull << 30))
		return 0;
	for (uint64_t a = phys & ~(PAGE_2M - 1); a < phys + size; a += PAGE_2M) {
		unsigned gi = (unsigned)(a >> 30), pi = (unsigned)(a >> 21) & 511;
		/* boot_pdpt_low lives in the identity-mapped .boot.bss. */
		uint64_t *pdpt = (uint64_t *)((uint64_t)boot_pdpt_low);
		if (!(pdpt[gi] & PTE_PRESENT)) {
			if (extra_used == EXTRA_PDS)
				return 0;
			pdpt[gi] = virt_to_phys(extra_pd[extra_used++]) |
				   PTE_PRESENT | PTE_WRITE;
		}
		uint64_t *pd = (uint64_t *)(pdpt[gi] & ~0xfffull);
		pd[pi] = a | PTE_PRESENT | PTE_WRITE | PTE_HUGE | PTE_PCD | PTE_PWT;
	}
	write_cr3(read_cr3());
	return (void *)phys;
}
