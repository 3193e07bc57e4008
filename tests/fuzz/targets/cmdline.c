/*
 * Fuzz target `cmdline`: lib/cmdline's word splitting of the kernel command
 * line (a C string from the boot loader). Every word must lie inside the
 * line, in order, without blanks; key, '=' and value must make up the word;
 * and the words must hold every non-blank byte of the line.
 */
#include "../../../lib/cmdline.h"
#include "../fuzz.h"

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_cstring(data, size);
	size_t n = strlen(line), nonblank = 0, words = 0;
	for (size_t i = 0; i < n; i++)
		nonblank += !blank(line[i]);
	const char *cur = line, *after = line;
	struct cmdline_word w;
	while (cmdline_next(&cur, &w)) {
		FUZZ_CHECK(w.word >= after && w.word + w.len <= line + n &&
			   w.len > 0, "word at %td+%zu", w.word - line, w.len);
		for (size_t i = 0; i < w.len; i++)
			FUZZ_CHECK(!blank(w.word[i]), "blank inside a word");
		const char *eq = memchr(w.word, '=', w.len);
		FUZZ_CHECK(w.key == w.word &&
			   w.key_len == (eq ? (size_t)(eq - w.word) : w.len),
			   "key of %zu bytes", w.key_len);
		FUZZ_CHECK(eq ? w.value == eq + 1 &&
				w.key_len + 1 + w.value_len == w.len
			      : !w.value && !w.value_len,
			   "value of %zu bytes", w.value_len);
		FUZZ_CHECK(cmdline_key_is(&w, "") == (w.key_len == 0),
			   "an empty key");
		nonblank -= w.len;
		after = w.word + w.len;
		words++;
	}
	FUZZ_CHECK(nonblank == 0, "%zu bytes in no word, %zu words", nonblank,
		   words);
	FUZZ_CHECK(!cmdline_next(&cur, &w), "a word after the end");
	free(line);
	return 0;
}
