/* arch/x86/cache: CLFLUSH over a range of memory. */
#include "cache.h"

#include "cpu.h"

/* CPUID.01H (SDM vol. 2A, CPUID, Table 3-8 and 3-10). */
#define CPUID1_EDX_CLFSH (1u << 19)
#define CPUID1_EBX_CLFLUSH_SHIFT 8   /* EBX[15:8]: line size in 8 bytes */
#define CLFLUSH_UNIT 8
#define DEFAULT_LINE 64

static uint32_t line_bytes;     /* 0: not read yet */
static int no_clflush;

uint32_t cache_line_bytes(void)
{
	if (!line_bytes && !no_clflush) {
		struct cpuid_regs r = cpuid(1, 0);
		if (!(r.edx & CPUID1_EDX_CLFSH)) {
			no_clflush = 1;
			return 0;
		}
		uint32_t b = (r.ebx >> CPUID1_EBX_CLFLUSH_SHIFT & 0xff) *
			     CLFLUSH_UNIT;
		line_bytes = b ? b : DEFAULT_LINE;
	}
	return line_bytes;
}

uint64_t cache_flush_range(const void *p, size_t len)
{
	uint64_t line = cache_line_bytes();
	if (!line || !len)
		return 0;
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(line - 1);
	uintptr_t end = (uintptr_t)p + len;
	uint64_t n = 0;
	/*
	 * CLFLUSH invalidates the line containing the address from every
	 * level of the cache hierarchy, writing it back if modified (SDM vol.
	 * 2A, CLFLUSH). Its executions are ordered only by fences, locked
	 * instructions and serialising ones, not by later loads; MFENCE
	 * orders every earlier CLFLUSH before every later load and store
	 * (SDM vol. 2B, MFENCE; vol. 3A, 9.2.2 memory ordering).
	 */
	for (; a < end; a += line, n++)
		__asm__ volatile("clflush (%0)" : : "r"(a) : "memory");
	__asm__ volatile("mfence" ::: "memory");
	return n;
}
