/*
 * sched/gdq/mfq: Multiprocessor Fair Queuing, GDQ's inter-group allocator
 * (Caprita, Nieh & Stein, Sec. 2.2.1), over abstract clients (the groups).
 *
 * A client's fictitious weight is kept scaled by P, hatw = phi*P -
 * floor(phi*P/Phi_T)*Phi_T, so that it is an integer; its VFT is m/hat with
 * m counted in whole intervals, and two VFTs compare by cross products
 * (the common factor P cancels).
 */
#ifndef SCHED_GDQ_MFQ_H
#define SCHED_GDQ_MFQ_H

#include <stdbool.h>
#include <stdint.h>

struct gdq_mfq_client {
	uint64_t hatw;      /* fictitious weight times P; 0: no MFQ share */
	uint64_t m;         /* VFT = m / (hatw / P); starts at 1 */
	unsigned alloc;     /* processors it has now (P^k) */
	unsigned ceil;      /* Pbar^k */
	bool ready;         /* it could give work to one more processor */
};

/* VFT of a < VFT of b. */
bool gdq_mfq_less(const struct gdq_mfq_client *a,
		  const struct gdq_mfq_client *b);

/*
 * MFQ lines 3-7 for a processor leaving client from (or none: from < 0):
 * charges from one interval and returns the under-allocated client of least
 * VFT (ties to the lower index), counting from as if the processor had
 * already left it; -1 when no client can take it.
 */
int gdq_mfq_pick(struct gdq_mfq_client *c, unsigned n, int from);

#endif
