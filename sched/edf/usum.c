/* sched/edf/usum: exact utilisation sums (see usum.h). */
#include "usum.h"

#include "../../lib/intmath.h"

void edf_usum_init(struct edf_usum *u)
{
	*u = (struct edf_usum){ .den = 1, .exact_ok = 1 };
}

/* num/den + e/p, reduced; clears exact_ok when it no longer fits. */
static void add_exact(struct edf_usum *u, uint64_t e, uint64_t p)
{
	uint64_t g = gcd_u64(u->den, p), den, a, b, num;
	if (__builtin_mul_overflow(u->den / g, p, &den) ||
	    __builtin_mul_overflow(u->num, p / g, &a) ||
	    __builtin_mul_overflow(e, u->den / g, &b) ||
	    __builtin_add_overflow(a, b, &num)) {
		u->exact_ok = 0;
		return;
	}
	g = gcd_u64(num, den);
	u->num = num / g;
	u->den = den / g;
}

void edf_usum_add(struct edf_usum *u, uint32_t e, uint32_t p)
{
	/* floor(e * 2^64 / p) in two 32-bit long-division steps: r < p < 2^31,
	 * so r << 32 fits in 64 bits. */
	uint64_t r = e % p, hi, lo;
	u->whole += e / p;
	hi = (r << 32) / p;
	r = (r << 32) % p;
	lo = (r << 32) / p;
	r = (r << 32) % p;
	uint64_t frac = hi << 32 | lo;
	if (__builtin_add_overflow(u->frac, frac, &u->frac))
		u->whole++;
	u->inexact += r != 0;
	if (u->exact_ok)
		add_exact(u, e, p);
}

int edf_usum_at_most(const struct edf_usum *u, uint64_t bound)
{
	uint64_t hi_frac, hi_whole = u->whole;
	if (__builtin_add_overflow(u->frac, u->inexact, &hi_frac))
		hi_whole++;
	if (hi_whole < bound || (hi_whole == bound && hi_frac == 0))
		return 1;
	if (u->whole > bound || (u->whole == bound && u->frac > 0))
		return 0;
	uint64_t lim;
	if (!u->exact_ok)
		return -1;
	if (__builtin_mul_overflow(bound, u->den, &lim))
		return 1;
	return u->num <= lim;
}

int edf_util_cmp(uint32_t e1, uint32_t p1, uint32_t e2, uint32_t p2)
{
	uint64_t a = (uint64_t)e1 * p2, b = (uint64_t)e2 * p1;
	return (a > b) - (a < b);
}
