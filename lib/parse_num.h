/* lib/parse_num: checked parsing of unsigned decimal integers. */
#ifndef LIB_PARSE_NUM_H
#define LIB_PARSE_NUM_H

#include <stddef.h>
#include <stdint.h>

enum parse_num_status {
	PARSE_NUM_OK = 0,
	PARSE_NUM_EMPTY,     /* no characters */
	PARSE_NUM_SYNTAX,    /* a character that is not a decimal digit */
	PARSE_NUM_RANGE,     /* above the given maximum (or 2^64 - 1) */
};

/*
 * Parses exactly the n characters at s as a decimal number in [0, max]: no
 * sign, no spaces, no base prefix. Leading zeros are allowed. *out is
 * written only on PARSE_NUM_OK.
 */
enum parse_num_status parse_u64(const char *s, size_t n, uint64_t max,
				uint64_t *out);

/* A short phrase for a status, for error messages ("not a number"). */
const char *parse_num_reason(enum parse_num_status st);

#endif
