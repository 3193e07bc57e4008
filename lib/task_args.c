/* lib/task_args: args="..." into words, and words into a first frame. */
#include "task_args.h"

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

static int control_byte(char c)
{
	unsigned char u = (unsigned char)c;
	return (u < 0x20 && c != '\t') || u == 0x7f;
}

int task_args_split(const char *s, size_t n, char *out, size_t outmax,
		    unsigned *nwords, size_t *outlen, const char **why)
{
	size_t o = 0;
	unsigned words = 0;
	int in_word = 0, in_single = 0;
	*nwords = 0;
	*outlen = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (control_byte(c)) {
			*why = "a control character (below 0x20, or 0x7f)";
			return -1;
		}
		if (c == '\\') {
			if (i + 1 == n || (s[i + 1] != '"' && s[i + 1] != '\\' &&
					   s[i + 1] != '\'')) {
				*why = "a backslash before something other than "
				       "\", ' or \\";
				return -1;
			}
			c = s[++i];
		} else if (c == '\'') {
			in_single = !in_single;
			if (!in_word) {
				in_word = 1;
				words++;
			}
			continue;
		} else if (blank(c) && !in_single) {
			if (in_word) {
				if (o == outmax)
					goto full;
				out[o++] = 0;
				in_word = 0;
			}
			continue;
		}
		if (!in_word) {
			in_word = 1;
			words++;
		}
		if (o == outmax)
			goto full;
		out[o++] = c;
	}
	if (in_single) {
		*why = "a single quote that is not closed";
		return -1;
	}
	if (in_word) {
		if (o == outmax)
			goto full;
		out[o++] = 0;
	}
	if (words > TASK_ARGS_MAX_WORDS) {
		*why = "more than 32 arguments";
		return -1;
	}
	*nwords = words;
	*outlen = o;
	return 0;
full:
	*why = "no room left for the arguments";
	return -1;
}

static size_t length(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

uint64_t task_args_frame(uint8_t *mem, size_t size, uint64_t top,
			 const char *name, const char *words, unsigned nwords)
{
	size_t strings = length(name) + 1;
	const char *w = words;
	for (unsigned i = 0; i < nwords; i++) {
		size_t k = length(w) + 1;
		strings += k;
		w += k;
	}
	uint64_t argc = (uint64_t)nwords + 1;
	/* argc, argv[], its NULL; the frame starts 16-byte aligned. */
	size_t table = 8 * (argc + 2);
	if (strings + table + 16 > size)
		return 0;
	uint64_t str_at = top - strings;
	uint64_t sp = (str_at - table) & ~(uint64_t)15;
	uint8_t *base = mem + size - (top - sp);  /* mem's byte for sp */
	uint64_t *slot = (uint64_t *)base;
	slot[0] = argc;
	uint64_t at = str_at;
	const char *src = name;
	for (uint64_t i = 0; i < argc; i++) {
		slot[1 + i] = at;
		size_t k = length(src) + 1;
		uint8_t *dst = mem + size - (top - at);
		for (size_t b = 0; b < k; b++)
			dst[b] = (uint8_t)src[b];
		at += k;
		src = i == 0 ? words : src + k;
	}
	slot[1 + argc] = 0;
	return sp;
}
