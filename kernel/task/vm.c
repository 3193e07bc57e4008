/* kernel/task/vm: per-task page tables over the kernel's shared ones. */
#include "vm.h"

#include "../../arch/x86/cpu.h"
#include "../../lib/rt_abi.h"
#include "../core/bootmem.h"

/* SDM vol. 3, 4.5 (4-level paging). */
#define PTE_PRESENT (1ull << 0)
#define PTE_WRITE (1ull << 1)
#define PTE_USER (1ull << 2)
#define PTE_HUGE (1ull << 7)
#define PTE_NX (1ull << 63)
#define PTE_ADDR 0x000ffffffffff000ull
#define PAGE 4096ull
#define USER_SLOT 1     /* RT_USER_BASE's PML4 entry */

_Static_assert(RT_USER_BASE >> 39 == USER_SLOT &&
	       (RT_USER_LIMIT - 1) >> 39 == USER_SLOT,
	       "a task's pages fill PML4 slot 1");

extern uint64_t boot_pml4[512], boot_pd[4 * 512];

static uint64_t *table(uint64_t entry)
{
	return (uint64_t *)(entry & PTE_ADDR);
}

void vm_init(void)
{
	/* The first 2 MiB as 4 KiB pages, all but page 0, cached as before. */
	uint64_t *pt = bootmem_alloc_pages(1);
	for (unsigned i = 1; i < 512; i++)
		pt[i] = (uint64_t)i * PAGE | PTE_PRESENT | PTE_WRITE;
	boot_pd[0] = (uint64_t)pt | PTE_PRESENT | PTE_WRITE;
	write_cr3(read_cr3());
}

struct vm_space *vm_create(void)
{
	struct vm_space *s = bootmem_alloc(sizeof *s);
	s->pml4 = bootmem_alloc_pages(1);
	s->pages = 1;
	for (unsigned i = 0; i < 512; i++)
		if (i != USER_SLOT)
			s->pml4[i] = boot_pml4[i];
	return s;
}

/* The entry for va at the last level, tables made on the way. */
static uint64_t *walk_make(struct vm_space *s, uint64_t va)
{
	uint64_t *t = s->pml4;
	for (int shift = 39; shift > 12; shift -= 9) {
		uint64_t *e = &t[(va >> shift) & 511];
		if (!(*e & PTE_PRESENT)) {
			*e = (uint64_t)bootmem_alloc_pages(1) | PTE_PRESENT |
			     PTE_WRITE | PTE_USER;
			s->pages++;
		}
		t = table(*e);
	}
	return &t[(va >> 12) & 511];
}

void *vm_map_new(struct vm_space *s, uint64_t va, uint64_t bytes,
		 unsigned perm)
{
	uint64_t n = (bytes + PAGE - 1) / PAGE;
	uint8_t *mem = bootmem_alloc_pages(n);
	s->pages += n;
	uint64_t flags = PTE_PRESENT | PTE_USER |
			 (perm & VM_WRITE ? PTE_WRITE : 0) |
			 (perm & VM_EXEC ? 0 : PTE_NX);
	for (uint64_t i = 0; i < n; i++)
		*walk_make(s, va + i * PAGE) = ((uint64_t)mem + i * PAGE) | flags;
	return mem;
}

/* The last-level entry for va, or NULL; every level must allow a user
 * access (and a write when write). */
static uint64_t lookup(const struct vm_space *s, uint64_t va, int write)
{
	const uint64_t *t = s->pml4;
	uint64_t need = PTE_PRESENT | PTE_USER | (write ? PTE_WRITE : 0);
	for (int shift = 39; shift >= 12; shift -= 9) {
		uint64_t e = t[(va >> shift) & 511];
		if ((e & need) != need || (shift > 12 && (e & PTE_HUGE)))
			return 0;
		if (shift == 12)
			return e;
		t = table(e);
	}
	return 0;
}

void *vm_user_ptr(const struct vm_space *s, uint64_t va, uint64_t len,
		  int write)
{
	if (va < RT_USER_BASE || va >= RT_USER_LIMIT || len > PAGE ||
	    (len && (va & (PAGE - 1)) + len > PAGE))
		return 0;
	uint64_t e = lookup(s, va, write);
	if (!e)
		return 0;
	return (void *)((e & PTE_ADDR) + (va & (PAGE - 1)));
}

static int copy(const struct vm_space *s, uint8_t *k, uint64_t va,
		uint64_t len, int to_user)
{
	while (len) {
		uint64_t chunk = PAGE - (va & (PAGE - 1));
		if (chunk > len)
			chunk = len;
		uint8_t *u = vm_user_ptr(s, va, chunk, to_user);
		if (!u)
			return -1;
		for (uint64_t i = 0; i < chunk; i++) {
			if (to_user)
				u[i] = k[i];
			else
				k[i] = u[i];
		}
		k += chunk;
		va += chunk;
		len -= chunk;
	}
	return 0;
}

int vm_copy_from_user(const struct vm_space *s, void *dst, uint64_t va,
		      uint64_t len)
{
	return copy(s, dst, va, len, 0);
}

int vm_copy_to_user(const struct vm_space *s, uint64_t va, const void *src,
		    uint64_t len)
{
	return copy(s, (uint8_t *)src, va, len, 1);
}
