/*
 * tests/fuzz/fuzz.h: what the C fuzz targets share. A target is
 * tests/fuzz/targets/NAME.c with LLVMFuzzerTestOneInput; besides the
 * sanitizers' findings, it states what must hold of the parser's answer
 * with FUZZ_CHECK, which aborts -- a crash to libFuzzer -- naming the
 * broken property (docs/testing.md, "Fuzzing").
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                               \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "%s:%d: property broken: %s: ",     \
				__FILE__, __LINE__, #cond);                 \
			fprintf(stderr, __VA_ARGS__);                       \
			fputc('\n', stderr);                                \
			abort();                                            \
		}                                                           \
	} while (0)

/* The input as a NUL-terminated string in a buffer of exactly size + 1
 * bytes (free it): text up to the first NUL byte, as a C string would be. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* A message buffer holds a terminated string that fills no more of it
 * than it has. */
static inline int fuzz_terminated(const char *buf, size_t size)
{
	return memchr(buf, 0, size) != NULL;
}

#endif
