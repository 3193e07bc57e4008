/* arch/x86/log: messages from arch/ through the sink the kernel installs. */
#include "log.h"

static arch_log_sink sink;

void arch_log_set_sink(arch_log_sink s)
{
	sink = s;
}

void arch_log(const char *format, ...)
{
	if (!sink)
		return;
	va_list ap;
	va_start(ap, format);
	sink(format, ap);
	va_end(ap);
}
