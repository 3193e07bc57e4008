/* lib/base64: RFC 4648 section 4 encoding. */
#include "base64.h"

#include <stdint.h>

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t base64_encode(char *dst, size_t dst_size, const void *src, size_t len)
{
	const uint8_t *s = src;
	size_t out = base64_encoded_len(len);
	if (out >= dst_size)
		return 0;
	char *d = dst;
	for (size_t i = 0; i < len; i += 3) {
		/* Three bytes, missing ones as zero, make four 6-bit groups;
		 * RFC 4648 section 4 pads the groups of missing bytes with '='. */
		size_t have = len - i < 3 ? len - i : 3;
		uint32_t v = (uint32_t)s[i] << 16;
		if (have > 1)
			v |= (uint32_t)s[i + 1] << 8;
		if (have > 2)
			v |= s[i + 2];
		*d++ = alphabet[v >> 18 & 63];
		*d++ = alphabet[v >> 12 & 63];
		*d++ = have > 1 ? alphabet[v >> 6 & 63] : '=';
		*d++ = have > 2 ? alphabet[v & 63] : '=';
	}
	*d = 0;
	return out;
}
