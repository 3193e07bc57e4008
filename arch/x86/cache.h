/*
 * arch/x86/cache: writing memory back and out of every cache level, for
 * measurements that want a cold cache (coldcache=on).
 */
#ifndef ARCH_X86_CACHE_H
#define ARCH_X86_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The CLFLUSH line size in bytes (CPUID.01H:EBX[15:8] x 8), 64 where the
 * CPU gives none; 0 when the CPU has no CLFLUSH (CPUID.01H:EDX.CLFSH). */
uint32_t cache_line_bytes(void);

/*
 * CLFLUSHes every line that holds a byte of [p, p + len), then MFENCE so
 * that every flush is done before anything after the call. Returns the
 * number of lines flushed (0 without CLFLUSH).
 */
uint64_t cache_flush_range(const void *p, size_t len);

#endif
