/* lib/gcd: Euclid's greatest common divisor, for exact fractions. */
#ifndef LIB_GCD_H
#define LIB_GCD_H

#include <stdint.h>

/* gcd(a, 0) = a; gcd(0, 0) = 0. */
static inline uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

#endif
