/* sched/edf/partition: first-fit decreasing for P-EDF (see partition.h). */
#include "partition.h"

#include "../../lib/fmt.h"
#include "../../lib/ratsum.h"

/* The window a job must fit its budget in: min(d, p). */
static uint32_t window(const struct task_spec *t)
{
	return t->d && t->d < t->p ? t->d : t->p;
}

/* Task a goes first: the greater density e/w (cross products below 2^62
 * are exact), else the earlier line. */
static int before(const struct taskset *ts, unsigned a, unsigned b)
{
	const struct task_spec *x = &ts->task[a], *y = &ts->task[b];
	uint64_t l = (uint64_t)x->e * window(y), r = (uint64_t)y->e * window(x);
	return l > r || (l == r && a < b);
}

/* Bottom-up merge sort of task indices into decreasing density. */
static void sort_decreasing(const struct taskset *ts, unsigned *idx,
			    unsigned *tmp, unsigned n)
{
	for (unsigned w = 1; w < n; w *= 2) {
		for (unsigned lo = 0; lo < n; lo += 2 * w) {
			unsigned mid = lo + w < n ? lo + w : n;
			unsigned hi = lo + 2 * w < n ? lo + 2 * w : n;
			unsigned a = lo, b = mid, k = lo;
			while (a < mid || b < hi)
				tmp[k++] = b >= hi || (a < mid && !before(ts, idx[b],
									idx[a]))
					   ? idx[a++] : idx[b++];
		}
		for (unsigned k = 0; k < n; k++)
			idx[k] = tmp[k];
	}
}

/* Whether t fits on a CPU whose placed tasks' densities sum to bin (exact,
 * lib/ratsum); if so, bin takes it. */
static int fits(struct ratsum *r, uint32_t *bin, const struct task_spec *t)
{
	if (!ratsum_fits(r, bin, NULL, t->e, window(t), 1))
		return 0;
	ratsum_add(r, bin, t->e, window(t));
	return 1;
}

int edf_partition_ffd(const struct taskset *ts, unsigned cpus,
		      unsigned *cpu_of, const struct sched_env *env,
		      struct sched_error *err)
{
	unsigned n = ts->ntasks;
	unsigned *idx = env->alloc(env->ctx, (n ? n : 1) * sizeof *idx);
	unsigned *tmp = env->alloc(env->ctx, (n ? n : 1) * sizeof *tmp);
	/* L over every window, then one zeroed accumulator per CPU. */
	unsigned words = ratsum_words(n);
	uint32_t *mem = env->alloc(env->ctx,
				   (3 + (size_t)cpus) * words * sizeof *mem);
	struct ratsum r;
	ratsum_init(&r, mem, words);
	for (unsigned i = 0; i < n; i++)
		ratsum_add_period(&r, window(&ts->task[i]));
	for (unsigned i = 0; i < n; i++)
		idx[i] = i;
	sort_decreasing(ts, idx, tmp, n);
	for (unsigned k = 0; k < n; k++) {
		unsigned i = idx[k];
		unsigned c = 0;
		while (c < cpus &&
		       !fits(&r, mem + (3 + (size_t)c) * words, &ts->task[i]))
			c++;
		if (c == cpus) {
			const struct task_spec *t = &ts->task[i];
			fmt_snprintf(err->msg, sizeof err->msg,
				     "task %s (line %u, %s = %u/%u) fits on none "
				     "of the %u CPUs under first-fit decreasing",
				     t->name, t->line,
				     window(t) < t->p ? "density e/d" : "u",
				     t->e, window(t), cpus);
			return -1;
		}
		cpu_of[i] = c;
	}
	return 0;
}
