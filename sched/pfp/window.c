/* sched/pfp/window: the largest demand in a sliding window (window.h). */
#include "window.h"

/*
 * The time of spans inside [a, b), given the first span that ends after a
 * (*lo) and the first span that starts at or after b (*hi); both only move
 * forward as a and b do.
 */
static uint64_t inside(const struct sched_span *sp, size_t n, uint64_t a,
		       uint64_t b, size_t *lo, size_t *hi, uint64_t *sum_lo,
		       uint64_t *sum_hi)
{
	while (*lo < n && sp[*lo].to <= a)
		*sum_lo += sp[*lo].to - sp[*lo].from, (*lo)++;
	while (*hi < n && sp[*hi].from < b)
		*sum_hi += sp[*hi].to - sp[*hi].from, (*hi)++;
	if (*hi <= *lo)
		return 0;
	/* Spans lo .. hi-1 meet [a, b); cut the parts outside it. */
	uint64_t t = *sum_hi - *sum_lo;
	if (sp[*lo].from < a)
		t -= a - sp[*lo].from;
	if (sp[*hi - 1].to > b)
		t -= sp[*hi - 1].to - b;
	return t;
}

struct sched_window sched_window_max(const struct sched_span *sp, size_t n,
				     uint64_t period)
{
	/*
	 * Some window that starts where a span starts holds the most: from
	 * any other start x, moving x left to the start of the span it lies
	 * in loses nothing at the left edge that the right edge does not
	 * lose too, and moving x right through a gap to the next span's
	 * start only gains at the right edge.
	 */
	struct sched_window w = { 0, 0 };
	size_t lo = 0, hi = 0;
	uint64_t sum_lo = 0, sum_hi = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = inside(sp, n, sp[i].from, sp[i].from + period, &lo,
				    &hi, &sum_lo, &sum_hi);
		if (t > w.max_us)
			w = (struct sched_window){ t, sp[i].from };
	}
	return w;
}

int sched_window_within(const struct sched_window *w, uint64_t budget_us)
{
	return w->max_us <= budget_us;
}
