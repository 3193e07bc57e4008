/*
 * arch/x86/log: how arch/ reports what it finds. arch/ sits below the
 * kernel's console and may not call up into it, so the kernel installs a
 * sink at boot (kernel/main.c); until then messages are dropped.
 */
#ifndef ARCH_X86_LOG_H
#define ARCH_X86_LOG_H

#include <stdarg.h>

typedef void (*arch_log_sink)(const char *format, va_list ap);

void arch_log_set_sink(arch_log_sink sink);

/* One whole line per call, as the console wants it. */
void arch_log(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
