/*
 * lib/ratsum: exactly whether a sum of fractions e/p is at most an integer m.
 *
 * Admission asks it (Pfair and G-EDF: sum of e/p <= M; P-EDF: a CPU's
 * densities <= 1) for up to N terms with periods below 2^32, whose common
 * denominator can have 32 N bits: a number kept over it costs O(N) per term,
 * O(N^2) per admission. Instead a sum is kept as two bounds that cost O(1)
 * to update: B = sum of floor(e 2^64 / p), in 64.64 fixed point, and the
 * count c of terms that the floor rounded, so B <= sum <= B + c 2^-64. They
 * decide unless m lies in [B, B + c 2^-64) -- in practice when the sum is
 * exactly m and some period is not a power of two. Only then does the
 * caller list the terms for ratsum_exact_fits, which sums them exactly.
 * Undecided sums are within c 2^-64 < 2^-32 of m, and the prefix sums of one
 * task list grow by more than 2^-32 a term, so an admission in file order
 * sums exactly at most twice.
 */
#ifndef LIB_RATSUM_H
#define LIB_RATSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A sum of fewer than 2^32 terms e/p, each at most 2^32. Zeroed: empty. */
struct ratsum {
	uint64_t whole;      /* integer part of B */
	uint64_t frac;       /* fractional part of B, in units of 2^-64 */
	uint64_t inexact;    /* c: terms whose floor dropped a remainder */
};

enum ratsum_answer { RATSUM_EXCEEDS, RATSUM_FITS, RATSUM_UNSURE };

/* s += e/p, and s -= e/p for a term added before (0 < p). */
void ratsum_add(struct ratsum *s, uint32_t e, uint32_t p);
void ratsum_sub(struct ratsum *s, uint32_t e, uint32_t p);

/* Whether a - b + e/p <= m, from the bounds alone; b NULL means 0 and
 * otherwise holds terms that a holds too. */
enum ratsum_answer ratsum_bound(const struct ratsum *a, const struct ratsum *b,
				uint32_t e, uint32_t p, uint32_t m);

/* A term for ratsum_exact_fits. */
static inline uint64_t ratsum_term(uint32_t e, uint32_t p)
{
	return (uint64_t)p << 32 | e;
}

/* 64-bit words of scratch ratsum_exact_fits needs for up to n terms. */
static inline size_t ratsum_exact_words(size_t n) { return 12 * n + 1024; }

/*
 * Whether the sum of the n terms (ratsum_term, 0 < p; they are reordered)
 * is at most m, exactly: terms of one period merged, then the rest added
 * up as one fraction by a balanced tree of Karatsuba multiplications,
 * O(n log n) plus O(k^1.6) for k distinct periods.
 */
bool ratsum_exact_fits(uint64_t *term, size_t n, uint64_t m,
		       uint64_t *scratch);

#endif
