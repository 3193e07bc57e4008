/* kernel/core/console: everything people and scripts read: COM1 and the screen. */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>

void console_init(void);
/* The framebuffer joined the console (after paging can map it). */
void console_enable_fb(void);
/* No framebuffer on a BIOS machine: VGA text mode joins the console. */
void console_enable_vga_text(void);

/*
 * Prints formatted text. Each call's output goes out whole under the
 * console lock, so lines from different CPUs never interleave: print whole
 * lines per call.
 */
void kprintf(const char *format, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char *format, va_list ap);

/* For the panic path: takes the lock if it can within a bounded time. */
void console_panic_mode(void);

#endif
