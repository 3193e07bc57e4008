/*
 * arch/x86/debug: what a debugger needs from the CPU -- the debug
 * registers (SDM vol. 3, 17.2), whether the current page tables let the
 * kernel read or write an address, and writing through write protection.
 */
#ifndef ARCH_X86_DEBUG_H
#define ARCH_X86_DEBUG_H

#include <stddef.h>
#include <stdint.h>

#define RFLAGS_TF (1ull << 8)           /* SDM vol. 1, 3.4.3.3 */
#define RFLAGS_RF (1ull << 16)

/* DR6 (SDM vol. 3, 17.2.3). The processor never clears it: a handler
 * writes the value it has at reset, which clears the status bits. */
#define DR6_B(i) (1ull << (i))          /* breakpoint i's condition met */
#define DR6_BS (1ull << 14)             /* single step */
#define DR6_CLEAR 0xffff0ff0ull

/* DR7 (SDM vol. 3, 17.2.4): G_i enables breakpoint i on every task; R/W_i
 * at bits 16 + 4i and LEN_i at bits 18 + 4i; LE and GE ask for exact data
 * breakpoints, which the SDM recommends setting; bit 10 reads as 1. */
#define DR7_G(i) (1ull << (2 * (i) + 1))
#define DR7_LE (1ull << 8)
#define DR7_GE (1ull << 9)
#define DR7_RESERVED_ONE (1ull << 10)
#define DR7_RW_SHIFT(i) (16 + 4 * (i))
#define DR7_LEN_SHIFT(i) (18 + 4 * (i))
/* R/W_i values (17.2.5). */
#define DR7_RW_EXEC 0u
#define DR7_RW_WRITE 1u
#define DR7_RW_ACCESS 3u
#define DEBUG_SLOTS 4

/* LEN_i for a 1, 2, 4 or 8-byte range (17.2.5: 8 bytes is 10b). */
static inline unsigned dr7_len_bits(unsigned bytes)
{
	return bytes == 1 ? 0u : bytes == 2 ? 1u : bytes == 8 ? 2u : 3u;
}

static inline uint64_t dr6_read(void)
{
	uint64_t v;
	__asm__ volatile("mov %%dr6, %0" : "=r"(v));
	return v;
}

static inline void dr6_write(uint64_t v)
{
	__asm__ volatile("mov %0, %%dr6" : : "r"(v));
}

static inline void dr7_write(uint64_t v)
{
	__asm__ volatile("mov %0, %%dr7" : : "r"(v));
}

/* DR0-DR3: the register number is part of the instruction. */
static inline void dr_addr_write(unsigned i, uint64_t v)
{
	switch (i) {
	case 0:
		__asm__ volatile("mov %0, %%dr0" : : "r"(v));
		break;
	case 1:
		__asm__ volatile("mov %0, %%dr1" : : "r"(v));
		break;
	case 2:
		__asm__ volatile("mov %0, %%dr2" : : "r"(v));
		break;
	default:
		__asm__ volatile("mov %0, %%dr3" : : "r"(v));
		break;
	}
}

enum debug_access {
	DEBUG_NO_ACCESS,
	DEBUG_READ_ONLY,
	DEBUG_READ_WRITE,
};

/* What the page tables of the current CR3 allow the kernel at addr
 * (4-level paging, SDM vol. 3, 4.5; 1 GiB and 2 MiB pages included). */
enum debug_access debug_probe(uint64_t addr);

/* Copies n bytes to dst with CR0.WP clear, so that a read-only kernel
 * page can take a breakpoint (SDM vol. 3, 2.5: with WP clear, supervisor
 * writes ignore R/W). Interrupts must be off. */
void debug_write_protected(void *dst, const void *src, size_t n);

#endif
