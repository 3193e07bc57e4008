/* lib/parse_num: checked parsing of unsigned decimal integers. */
#include "parse_num.h"

enum parse_num_status parse_u64(const char *s, size_t n, uint64_t max,
				uint64_t *out)
{
	if (n == 0)
		return PARSE_NUM_EMPTY;
	uint64_t v = 0;
	int over = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return PARSE_NUM_SYNTAX;
		unsigned d = (unsigned)(s[i] - '0');
		/* Keep scanning after an overflow so that "99x" is a syntax error. */
		if (v > (UINT64_MAX - d) / 10)
			over = 1;
		else
			v = v * 10 + d;
	}
	if (over || v > max)
		return PARSE_NUM_RANGE;
	*out = v;
	return PARSE_NUM_OK;
}

const char *parse_num_reason(enum parse_num_status st)
{
	switch (st) {
	case PARSE_NUM_OK: return "ok";
	case PARSE_NUM_EMPTY: return "missing number";
	case PARSE_NUM_SYNTAX: return "not a decimal number";
	case PARSE_NUM_RANGE: return "out of range";
	}
	return "?";
}
