/* kernel/core/bootmem: a bump allocator over free RAM below 4 GiB. */
#include "bootmem.h"

#include "panic.h"

extern char kernel_phys_end[];

static uint64_t next, limit;

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void bootmem_init(const struct mb2_info *mb, uint64_t info_phys,
		  uint64_t info_size)
{
	/* Everything GRUB placed lies below the highest of these. */
	uint64_t used = max64((uint64_t)kernel_phys_end, info_phys + info_size);
	for (unsigned i = 0; i < mb->nmods; i++)
		used = max64(used, (uint64_t)mb->mods[i].start + mb->mods[i].len);
	uint64_t best = 0;
	for (unsigned i = 0; i < mb->nmmap; i++) {
		const struct mb2_mmap_entry *m = &mb->mmap[i];
		if (m->type != 1)
			continue;
		uint64_t lo = max64(m->base, used), hi = m->base + m->length;
		if (hi > 0x100000000ull)
			hi = 0x100000000ull;
		lo = (lo + 0xfff) & ~0xfffull;
		if (hi > lo && hi - lo > best) {
			best = hi - lo;
			next = lo;
			limit = hi;
		}
	}
}

void *bootmem_alloc(size_t size)
{
	uint64_t p = (next + 63) & ~63ull;
	if (p + size > limit || p + size < p)
		panic("memory", "bootmem: out of memory: %zu bytes asked, %llu "
		      "left", size, (unsigned long long)bootmem_free_bytes());
	next = p + size;
	for (uint64_t i = 0; i < size; i += 8)
		*(volatile uint64_t *)(p + i) = 0;
	return (void *)p;
}

void *bootmem_alloc_pages(uint64_t npages)
{
	next = (next + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);
	return bootmem_alloc(npages * PAGE_SIZE);
}

uint64_t bootmem_free_bytes(void)
{
	return limit > next ? limit - next : 0;
}
