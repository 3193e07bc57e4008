/* lib/base64: the base64 encoding of RFC 4648 section 4 (the standard
 * alphabet, '=' padding, no line breaks), for binary data on a text console. */
#ifndef LIB_BASE64_H
#define LIB_BASE64_H

#include <stddef.h>

/* Characters base64 makes of len bytes (without the terminating NUL). */
static inline size_t base64_encoded_len(size_t len)
{
	return (len + 2) / 3 * 4;
}

/*
 * Writes the encoding of src[0..len) and a NUL into dst. Returns its length,
 * or 0 (and writes nothing) when dst_size cannot hold it and the NUL.
 */
size_t base64_encode(char *dst, size_t dst_size, const void *src, size_t len);

#endif
