/*
 * lib/ratsum: exact sums of fractions e/p, compared with an integer.
 *
 * Pfair admission needs sum(e_i/p_i) <= M exactly. The common denominator
 * of N periods below 2^31 can have 31*N bits, so the sums are kept as
 * multi-word numerators over L = lcm of every period that will ever be
 * added (declared up front). No allocation: the caller gives the words.
 * Costs O(words) per operation, meant for admission, not for every slot.
 */
#ifndef LIB_RATSUM_H
#define LIB_RATSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ratsum {
	unsigned words;   /* per number, 32-bit little-endian words */
	uint32_t *lcm;    /* L */
	uint32_t *tmp;    /* scratch, 2 numbers */
};

/* Words per number for up to nperiods periods (and M, N below 2^32). */
static inline unsigned ratsum_words(unsigned nperiods) { return nperiods + 3; }

/* mem: 3 * words zeroed words for L and the scratch. */
void ratsum_init(struct ratsum *r, uint32_t *mem, unsigned words);
/* Makes L a multiple of p (0 < p < 2^32). Before any ratsum_add. */
void ratsum_add_period(struct ratsum *r, uint32_t p);

/* An accumulator is `words` zeroed words; acc += e/p or acc -= e/p. */
void ratsum_add(struct ratsum *r, uint32_t *acc, uint32_t e, uint32_t p);
void ratsum_sub(struct ratsum *r, uint32_t *acc, uint32_t e, uint32_t p);
/* Whether a + e/p - b <= m, with b NULL meaning 0. */
bool ratsum_fits(struct ratsum *r, const uint32_t *a, const uint32_t *b,
		 uint32_t e, uint32_t p, uint32_t m);

#endif
