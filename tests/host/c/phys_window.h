/*
 * tests/host/c/phys_window.h: what arch/x86's firmware parsers
 * (acpi_tables.c, mptable_parse.c) need from the kernel, on the host:
 *  - phys_map (arch/x86/phys.h) over one buffer: physical addresses
 *    [base, base + len) are its bytes, every other address is out of
 *    reach; the buffer is the caller's, so AddressSanitizer sees every read
 *    a parser makes past what it was given;
 *  - arch_log (arch/x86/log.h) into a text buffer, for tests to read.
 * Include it in one file of a program.
 */
#ifndef TESTS_HOST_C_PHYS_WINDOW_H
#define TESTS_HOST_C_PHYS_WINDOW_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../../arch/x86/log.h"
#include "../../../arch/x86/phys.h"

/* Where a firmware image (tests/host/acpi_ref.py, the fuzz targets) starts:
 * its first byte is this physical address, and the RSDP or the MP
 * floating pointer is there. */
#define FIRMWARE_IMAGE_BASE 0xe0000ull

static const uint8_t *window_bytes;
static uint64_t window_base;
static size_t window_len;

static inline void window_set(const void *bytes, size_t len, uint64_t base)
{
	window_bytes = bytes;
	window_len = len;
	window_base = base;
}

const void *phys_map(uint64_t phys, uint64_t len)
{
	if (!window_bytes || phys < window_base ||
	    phys - window_base > window_len ||
	    len > window_len - (phys - window_base))
		return NULL;
	return window_bytes + (phys - window_base);
}

/* Every message since log_clear, whole lines; the last ones are cut when
 * they do not fit. */
static char log_text[1 << 16];
static size_t log_len;

static inline void log_clear(void)
{
	log_len = 0;
	log_text[0] = 0;
}

void arch_log(const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	int n = vsnprintf(log_text + log_len, sizeof log_text - log_len,
			  format, ap);
	va_end(ap);
	if (n > 0 && log_len + (size_t)n < sizeof log_text)
		log_len += (size_t)n;
	else
		log_text[log_len] = 0;
}

#endif
