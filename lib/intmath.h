/* lib/intmath: small integer helpers for exact arithmetic. */
#ifndef LIB_INTMATH_H
#define LIB_INTMATH_H

#include <stdint.h>

/* Euclid's greatest common divisor; gcd(a, 0) = a, gcd(0, 0) = 0. */
static inline uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* ceil(a / b) for b > 0, without overflow for any a. */
static inline uint64_t ceil_div_u64(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* floor(a * b / c) for c > 0 without a 128-bit division (the kernel has
 * no libgcc): exact when (c - 1) * b fits 64 bits and so does the result. */
static inline uint64_t mul_div_u64(uint64_t a, uint64_t b, uint64_t c)
{
	return a / c * b + a % c * b / c;
}

#endif
