/* tests/fuzz/shim/console_shim.h: what the console shim printed. */
#ifndef TESTS_FUZZ_SHIM_CONSOLE_SHIM_H
#define TESTS_FUZZ_SHIM_CONSOLE_SHIM_H

#include <stddef.h>

extern char console_text[1 << 20];
extern size_t console_len;

#endif
