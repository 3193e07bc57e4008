/*
 * tests/fuzz/shim/console.c: kernel/core/console.h for the fuzz target
 * `options`, which builds kernel/core/options.c on the host. kprintf
 * formats with lib/fmt, as the kernel's does, into a buffer the target can
 * read; nothing is printed.
 */
#include <stdarg.h>

#include "../../../kernel/core/console.h"
#include "../../../lib/fmt.h"
#include "console_shim.h"

char console_text[1 << 20];
size_t console_len;

void kvprintf(const char *format, va_list ap)
{
	if (console_len >= sizeof console_text - 1)
		return;
	int n = fmt_vsnprintf(console_text + console_len,
			      sizeof console_text - console_len, format, ap);
	if (n > 0)
		console_len += (size_t)n < sizeof console_text - console_len
				       ? (size_t)n
				       : sizeof console_text - console_len - 1;
}

void kprintf(const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	kvprintf(format, ap);
	va_end(ap);
}
