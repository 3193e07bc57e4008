/*
 * tools/json_str.h: a string as a JSON string literal on stdout, for the
 * host tools' JSON lines: quote and backslash escaped, control and non-ASCII
 * bytes as \u00XX.
 */
#ifndef TOOLS_JSON_STR_H
#define TOOLS_JSON_STR_H

#include <stddef.h>
#include <stdio.h>

static void json_string(const char *s, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

#endif
