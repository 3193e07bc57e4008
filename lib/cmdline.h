/* lib/cmdline: splitting a kernel command line into key=value words. */
#ifndef LIB_CMDLINE_H
#define LIB_CMDLINE_H

#include <stddef.h>
#include <stdint.h>

struct cmdline_word {
	const char *word;       /* the whole word */
	size_t len;
	const char *key;        /* up to '=' (the whole word if none) */
	size_t key_len;
	const char *value;      /* after '=', or NULL when there is none */
	size_t value_len;
};

/* Reads the next word (separated by spaces or tabs) from *cursor and
 * advances it; returns 0 at the end of the line. */
int cmdline_next(const char **cursor, struct cmdline_word *w);

/* 1 when the key is exactly name. */
int cmdline_key_is(const struct cmdline_word *w, const char *name);
/* 1 when the value is exactly text. */
int cmdline_value_is(const struct cmdline_word *w, const char *text);

#endif
