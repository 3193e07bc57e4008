/* lib/cmdline: splitting a kernel command line into key=value words. */
#include "cmdline.h"

#include "str.h"

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int cmdline_next(const char **cursor, struct cmdline_word *w)
{
	const char *p = *cursor;
	if (!p)
		return 0;
	while (*p && is_space(*p))
		p++;
	if (!*p) {
		*cursor = p;
		return 0;
	}
	w->word = p;
	while (*p && !is_space(*p))
		p++;
	w->len = (size_t)(p - w->word);
	*cursor = p;
	w->key = w->word;
	w->key_len = 0;
	while (w->key_len < w->len && w->word[w->key_len] != '=')
		w->key_len++;
	if (w->key_len < w->len) {
		w->value = w->word + w->key_len + 1;
		w->value_len = w->len - w->key_len - 1;
	} else {
		w->value = 0;
		w->value_len = 0;
	}
	return 1;
}

int cmdline_key_is(const struct cmdline_word *w, const char *name)
{
	return str_eq_n(w->key, w->key_len, name);
}

int cmdline_value_is(const struct cmdline_word *w, const char *text)
{
	return w->value && str_eq_n(w->value, w->value_len, text);
}
