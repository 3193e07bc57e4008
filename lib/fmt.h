/* lib/fmt: freestanding formatted output into a bounded buffer. */
#ifndef LIB_FMT_H
#define LIB_FMT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Conversions: %d %i %u %x %X %o %c %s %p %%, with the flags '-', '0', ' ',
 * '+', '#' (for x and X), a width and a precision (either may be '*'), and the length
 * modifiers hh, h, l, ll, z, j, t. No floating point: the kernel has no SSE.
 * Returns the length the full output would have had, like C99 vsnprintf; the
 * buffer always ends in NUL when size > 0.
 */
int fmt_vsnprintf(char *buf, size_t size, const char *format, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Streaming form: each produced character goes to put(ctx, c). The console
 * uses it to print without an intermediate buffer.
 */
typedef void (*fmt_put_fn)(void *ctx, char c);
int fmt_vformat(fmt_put_fn put, void *ctx, const char *format, va_list ap);

#endif
