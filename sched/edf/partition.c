/* sched/edf/partition: first-fit decreasing for P-EDF (see partition.h). */
#include "partition.h"

#include "../../lib/fmt.h"
#include "usum.h"

/* The window a job must fit its budget in: min(d, p). */
static uint32_t window(const struct task_spec *t)
{
	return t->d && t->d < t->p ? t->d : t->p;
}

static int before(const struct taskset *ts, unsigned a, unsigned b)
{
	const struct task_spec *x = &ts->task[a], *y = &ts->task[b];
	int c = edf_util_cmp(x->e, window(x), y->e, window(y));
	return c > 0 || (c == 0 && a < b);
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

/* Whether t fits on a CPU whose placed tasks sum to *bin; if so, *bin
 * takes it. A sum too close to 1 to decide exactly (usum.h) counts as not
 * fitting. */
static int fits(struct edf_usum *bin, const struct task_spec *t)
{
	struct edf_usum u = *bin;
	edf_usum_add(&u, t->e, window(t));
	if (edf_usum_at_most(&u, 1) != 1)
		return 0;
	*bin = u;
	return 1;
}

int edf_partition_ffd(const struct taskset *ts, unsigned cpus,
		      unsigned *cpu_of, const struct sched_env *env,
		      struct sched_error *err)
{
	unsigned n = ts->ntasks;
	unsigned *idx = env->alloc(env->ctx, (n ? n : 1) * sizeof *idx);
	unsigned *tmp = env->alloc(env->ctx, (n ? n : 1) * sizeof *tmp);
	struct edf_usum *bin = env->alloc(env->ctx, cpus * sizeof *bin);
	for (unsigned c = 0; c < cpus; c++)
		edf_usum_init(&bin[c]);
	for (unsigned i = 0; i < n; i++)
		idx[i] = i;
	sort_decreasing(ts, idx, tmp, n);
	for (unsigned k = 0; k < n; k++) {
		unsigned i = idx[k];
		unsigned c = 0;
		while (c < cpus && !fits(&bin[c], &ts->task[i]))
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
