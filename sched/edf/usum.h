/*
 * sched/edf/usum: exact "sum of e_i / p_i <= bound" for admission (G-EDF:
 * U <= M) and for first-fit bins (P-EDF: U <= 1), with no floating point and
 * no 128-bit division (the kernel links no libgcc).
 *
 * The sum is kept two ways: as 64.64 fixed point rounded down, with the
 * number of terms that were rounded (so the true sum lies in
 * [lo, lo + inexact * 2^-64]), which decides every case except sums within
 * n * 2^-64 of the bound; and as an exact reduced fraction num/den, valid
 * until its denominator overflows 64 bits, which decides those.
 */
#ifndef SCHED_EDF_USUM_H
#define SCHED_EDF_USUM_H

#include <stdint.h>

struct edf_usum {
	uint64_t whole, frac;   /* lower bound, 64.64 fixed point */
	uint64_t inexact;       /* terms rounded down */
	uint64_t num, den;      /* exact, while exact_ok */
	int exact_ok;
};

void edf_usum_init(struct edf_usum *u);
/* Adds e / p (p > 0, both below 2^31). */
void edf_usum_add(struct edf_usum *u, uint32_t e, uint32_t p);

/* 1 if the sum is <= bound, 0 if above, -1 if it cannot tell (see above). */
int edf_usum_at_most(const struct edf_usum *u, uint64_t bound);

/* Exact comparison of two utilisations: <0, 0, >0 as e1/p1 <, =, > e2/p2. */
int edf_util_cmp(uint32_t e1, uint32_t p1, uint32_t e2, uint32_t p2);

#endif
