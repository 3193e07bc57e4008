/*
 * tools/cmdline_split: lib/cmdline on the host, for the property tests.
 * Reads command lines, one per input line, and prints one JSON array per
 * line: each word as [key, value], value null when the word has no '='.
 * Words are printed byte for byte; the tests keep them to printable ASCII
 * without '"' and '\\'.
 */
#include <stdio.h>
#include <string.h>

#include "../lib/cmdline.h"

static void put(const char *s, size_t n)
{
	fputc('"', stdout);
	fwrite(s, 1, n, stdout);
	fputc('"', stdout);
}

int main(void)
{
	static char line[1 << 16];
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = 0;
		const char *cur = line;
		struct cmdline_word w;
		int first = 1;
		fputc('[', stdout);
		while (cmdline_next(&cur, &w)) {
			fputs(first ? "[" : ", [", stdout);
			first = 0;
			put(w.key, w.key_len);
			fputs(", ", stdout);
			if (w.value)
				put(w.value, w.value_len);
			else
				fputs("null", stdout);
			fputc(']', stdout);
		}
		fputs("]\n", stdout);
	}
	return 0;
}
