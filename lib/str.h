/* lib/str: string equality for code without a C library (the kernel). */
#ifndef LIB_STR_H
#define LIB_STR_H

#include <stddef.h>

/* a and b, both NUL-terminated, are the same string. */
static inline int str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* The n bytes at s (not terminated) are exactly the string text. */
static inline int str_eq_n(const char *s, size_t n, const char *text)
{
	size_t i = 0;
	for (; i < n; i++)
		if (text[i] != s[i])
			return 0;
	return text[i] == 0;
}

#endif
