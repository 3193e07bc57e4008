/*
 * sched/pfp/window: the sliding-window check of a server (the sporadic-
 * server paper, Sec. 3.3: in any window of one period the server may demand
 * no more than a periodic task with its budget), over the intervals in
 * which the server ran at its own priority -- the simulator's segments or
 * a kernel trace's. Time in microseconds, no hardware.
 *
 * What is checked: for every window [x, x + P), the server's foreground
 * time inside it is at most B. Its tolls are not added: a toll is budget
 * spent without running, so it only lowers the time checked, and adding
 * it as an instant charge would count the same budget twice when a chunk
 * that paid none is replenished into one that pays (docs/servers.md).
 *
 * The bound is the server's to keep when nothing of higher or equal
 * priority shares its CPU (the paper's set-up, Sec. 3: "assuming there are
 * no other higher-priority tasks"). Below other tasks a chunk delayed by
 * them may end within a period of the next one's start, exactly as the
 * back-to-back jobs of a periodic task, so the check does not apply.
 */
#ifndef SCHED_PFP_WINDOW_H
#define SCHED_PFP_WINDOW_H

#include <stddef.h>
#include <stdint.h>

struct sched_span {
	uint64_t from, to;          /* [from, to), from < to */
};

struct sched_window {
	uint64_t max_us;            /* the most run in any window */
	uint64_t from_us;           /* where such a window starts */
};

/*
 * The largest foreground time of spans[0..n) -- sorted by time, not
 * overlapping -- inside any window [x, x + period). O(n).
 */
struct sched_window sched_window_max(const struct sched_span *spans, size_t n,
				     uint64_t period);

/*
 * The verdict: 1 when the window's most is within the budget -- a server
 * that runs exactly its budget in some window keeps the bound (the paper's
 * "no more than"), one microsecond more breaks it. Every report of the
 * check (the simulator's summary and message, the kernel's RESULT window,
 * tools/window_check) asks this one function.
 */
int sched_window_within(const struct sched_window *w, uint64_t budget_us);

#endif
