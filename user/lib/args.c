/* user/lib/args: decimal numbers and fractions from argument strings. */
#include "args.h"

#define ARGS_U64_LIMIT (1ull << 63)
#define FRACTION_MAX_WHOLE 1000u
#define FRACTION_DIGITS 6

/* Digits from *s up to the first non-digit; -1 when there are none or the
 * value reaches limit. */
static int digits(const char **s, uint64_t limit, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = *s;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v >= limit)
			return -1;
	}
	*s = p;
	*out = v;
	return 0;
}

int args_u64(const char *s, uint64_t *out)
{
	return digits(&s, ARGS_U64_LIMIT, out) || *s ? -1 : 0;
}

/* A fraction at the start of *s, which is moved past it. */
static int fraction(const char **s, uint64_t *out)
{
	uint64_t whole;
	if (digits(s, FRACTION_MAX_WHOLE + 1, &whole))
		return -1;
	uint64_t part = 0, scale = ARGS_ONE;
	if (**s == '.') {
		(*s)++;
		unsigned n = 0;
		for (; **s >= '0' && **s <= '9'; (*s)++, n++) {
			if (n == FRACTION_DIGITS)
				return -1;
			scale /= 10;
			part += (uint64_t)(**s - '0') * scale;
		}
		if (n == 0)
			return -1;
	}
	*out = whole * ARGS_ONE + part;
	return *out > (uint64_t)FRACTION_MAX_WHOLE * ARGS_ONE ? -1 : 0;
}

int args_fraction(const char *s, uint64_t *millionths)
{
	return fraction(&s, millionths) || *s ? -1 : 0;
}

int args_range(const char *s, uint64_t *lo, uint64_t *hi)
{
	if (fraction(&s, lo) || *s++ != '-' || fraction(&s, hi) || *s)
		return -1;
	return *lo <= *hi ? 0 : -1;
}
