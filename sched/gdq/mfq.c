/* sched/gdq/mfq.c: MFQ (GDQ, Sec. 2.2.1). */
#include "mfq.h"

bool gdq_mfq_less(const struct gdq_mfq_client *a,
		  const struct gdq_mfq_client *b)
{
	/* m_a / hat_a < m_b / hat_b; both products stay below 2^128. */
	__extension__ typedef unsigned __int128 u128;
	return (u128)a->m * b->hatw < (u128)b->m * a->hatw;
}

int gdq_mfq_pick(struct gdq_mfq_client *c, unsigned n, int from)
{
	int best = -1;

	if (from >= 0)
		c[from].m++;                    /* MFQ line 3 */
	for (unsigned i = 0; i < n; i++) {      /* lines 5-7 */
		unsigned alloc = c[i].alloc - ((int)i == from);
		/*
		 * Line 6 reads "P^k = Pbar^k - 1" with k the leaving group; we
		 * take it as intended for the candidate G^i, and as "fewer than
		 * Pbar^i", since after arrivals and departures a group may be
		 * short by more than one (Sec. 2.4). A group with no fictitious
		 * weight, or none work for one more processor, is no candidate.
		 */
		if (alloc >= c[i].ceil || !c[i].hatw)
			continue;
		if (!c[i].ready && (int)i != from)
			continue;
		/* Strict "<" in index order: ties go to the lower order. */
		if (best < 0 || gdq_mfq_less(&c[i], &c[best]))
			best = (int)i;
	}
	return best;
}
