/* lib/ratsum: schoolbook multi-word arithmetic on 32-bit words. */
#include "ratsum.h"

#include "intmath.h"

static void big_mul_small(uint32_t *a, unsigned n, uint32_t m)
{
	uint64_t carry = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = (uint64_t)a[i] * m + carry;
		a[i] = (uint32_t)v;
		carry = v >> 32;
	}
}

/* a /= d in place; returns a mod d. */
static uint32_t big_div_small(uint32_t *a, unsigned n, uint32_t d)
{
	uint64_t rem = 0;
	for (unsigned i = n; i-- > 0;) {
		uint64_t v = (rem << 32) | a[i];
		a[i] = (uint32_t)(v / d);
		rem = v % d;
	}
	return (uint32_t)rem;
}

static uint32_t big_mod_small(const uint32_t *a, unsigned n, uint32_t d)
{
	uint64_t rem = 0;
	for (unsigned i = n; i-- > 0;)
		rem = ((rem << 32) | a[i]) % d;
	return (uint32_t)rem;
}

static void big_add(uint32_t *a, const uint32_t *b, unsigned n)
{
	uint64_t carry = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = (uint64_t)a[i] + b[i] + carry;
		a[i] = (uint32_t)v;
		carry = v >> 32;
	}
}

static void big_sub(uint32_t *a, const uint32_t *b, unsigned n)
{
	uint64_t borrow = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = (uint64_t)a[i] - b[i] - borrow;
		a[i] = (uint32_t)v;
		borrow = (v >> 32) & 1;
	}
}

static int big_cmp(const uint32_t *a, const uint32_t *b, unsigned n)
{
	for (unsigned i = n; i-- > 0;)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static void big_copy(uint32_t *dst, const uint32_t *src, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		dst[i] = src[i];
}

void ratsum_init(struct ratsum *r, uint32_t *mem, unsigned words)
{
	r->words = words;
	r->lcm = mem;
	r->tmp = mem + words;
	r->lcm[0] = 1;
}

void ratsum_add_period(struct ratsum *r, uint32_t p)
{
	uint32_t g = (uint32_t)gcd_u64(p, big_mod_small(r->lcm, r->words, p));
	big_mul_small(r->lcm, r->words, p / g);
}

/* tmp = e * L / p, the numerator of e/p over L. */
static const uint32_t *share(struct ratsum *r, uint32_t e, uint32_t p)
{
	big_copy(r->tmp, r->lcm, r->words);
	big_div_small(r->tmp, r->words, p);
	big_mul_small(r->tmp, r->words, e);
	return r->tmp;
}

void ratsum_add(struct ratsum *r, uint32_t *acc, uint32_t e, uint32_t p)
{
	big_add(acc, share(r, e, p), r->words);
}

void ratsum_sub(struct ratsum *r, uint32_t *acc, uint32_t e, uint32_t p)
{
	big_sub(acc, share(r, e, p), r->words);
}

bool ratsum_fits(struct ratsum *r, const uint32_t *a, const uint32_t *b,
		 uint32_t e, uint32_t p, uint32_t m)
{
	uint32_t *lhs = r->tmp + r->words;
	big_copy(lhs, a, r->words);
	big_add(lhs, share(r, e, p), r->words);
	if (b)
		big_sub(lhs, b, r->words);
	big_copy(r->tmp, r->lcm, r->words);
	big_mul_small(r->tmp, r->words, m);
	return big_cmp(lhs, r->tmp, r->words) <= 0;
}
