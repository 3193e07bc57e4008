/* sched/pfair/pfair_task: PD2 windows and priorities in integers. */
#include "pfair_task.h"

#include <stddef.h>

#include "../../lib/intmath.h"

void pfair_task_update(struct pfair_task *t, bool early_release)
{
	uint64_t e = t->e, p = t->p, k = t->k;
	uint64_t base = t->theta + t->job * p;
	uint64_t d_in_job = ceil_div_u64(k * p, e);

	t->release = base + (k - 1) * p / e;
	t->deadline = base + d_in_job;
	/* b(T_i) = ceil(i/w) - floor(i/w): 1 iff T_i's window overlaps T_i+1's. */
	t->b = (k * p) % e != 0;
	/*
	 * Heavy tasks (1/2 <= w < 1): D(T_i) = ceil(ceil(ceil(i/w)(1-w))/(1-w)),
	 * with 1 - w = (p-e)/p. The formula is invariant under shifting i by
	 * whole jobs (i -> i + e moves it by exactly p), so it is applied to the
	 * subtask's index within its job and shifted by base. Light tasks get 0;
	 * weight-1 tasks have b = 0 always, so theirs is never compared.
	 */
	if (2 * e >= p && e < p) {
		uint64_t c = ceil_div_u64(d_in_job * (p - e), p);
		t->group_deadline = base + ceil_div_u64(c * p, p - e);
	} else {
		t->group_deadline = 0;
	}
	uint64_t elig = early_release ? base : t->release;
	t->elig = elig > t->not_before ? elig : t->not_before;
	/* pfair_task.h, pfair_higher */
	uint64_t gd_rank = !t->b ? 0 : t->group_deadline
		? ((uint64_t)1 << 31) - 2 - (t->group_deadline - t->deadline)
		: ((uint64_t)1 << 31) - 1;
	t->tie = (uint64_t)!t->b << 63 | gd_rank << 32 | t->id;
}

struct pfair_task *pfair_task_of(const struct heap_node *n)
{
	return (struct pfair_task *)((const char *)n -
				     offsetof(struct pfair_task, node));
}

bool pfair_before_max(const struct heap_node *a, const struct heap_node *b)
{
	return pfair_higher(pfair_task_of(a), pfair_task_of(b));
}

bool pfair_before_min(const struct heap_node *a, const struct heap_node *b)
{
	return pfair_higher(pfair_task_of(b), pfair_task_of(a));
}

/* p * |lag| at time `at` with `done` subtasks completed since theta. */
static uint64_t abs_lag(const struct pfair_task *t, uint64_t at, uint64_t done)
{
	int64_t lag = ((int64_t)at - (int64_t)t->theta) * (int64_t)t->e -
		      (int64_t)(done * t->p);
	return (uint64_t)(lag < 0 ? -lag : lag);
}

static void note_lag(struct pfair_task *t, uint64_t slot)
{
	uint64_t done = t->job * t->e + t->k - 1;
	uint64_t before = abs_lag(t, slot, done);
	uint64_t after = abs_lag(t, slot + 1, done + 1);
	if (before > t->max_abs_lag)
		t->max_abs_lag = before;
	if (after > t->max_abs_lag)
		t->max_abs_lag = after;
}

void pfair_task_charge(struct pfair_task *t, uint64_t slot, bool ran,
		       uint64_t offset, uint64_t den, bool early_release)
{
	if (ran) {
		note_lag(t, slot);
		uint64_t done = (slot + 1) * den + offset;
		t->quanta++;
		if (done > t->deadline * den) {
			t->misses++;
			if (done - t->deadline * den > t->max_tardiness)
				t->max_tardiness = done - t->deadline * den;
		}
	} else {
		t->wasted++;
	}
	/*
	 * Leaving (Srinivasan and Anderson, cited as [13] in Sec. 2.2): with
	 * T_i its last-scheduled subtask, a light task may leave at
	 * d(T_i) + b(T_i), a heavy one at its group deadline D(T_i).
	 */
	if (t->group_deadline)
		t->leave_ok = t->group_deadline;
	else
		t->leave_ok = t->deadline + t->b;
	if (t->k == t->e) {
		t->k = 1;
		t->job++;
		t->jobs_done++;
	} else {
		t->k++;
	}
	pfair_task_update(t, early_release);
}
