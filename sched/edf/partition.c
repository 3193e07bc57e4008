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

/* First-fit bookkeeping: each CPU's density sum, and what an exact sum
 * needs when lib/ratsum's bounds cannot tell. */
struct bins {
	const struct taskset *ts;
	unsigned *cpu_of;       /* cpus: not placed yet */
	struct ratsum *sum;
	uint64_t *terms, *scratch;
};

/* Whether task i fits on CPU c (density sum <= 1); if so, c takes it. */
static int fits(struct bins *b, unsigned c, unsigned i)
{
	const struct task_spec *t = &b->ts->task[i];
	enum ratsum_answer a = ratsum_bound(&b->sum[c], NULL, t->e, window(t),
					    1);
	if (a == RATSUM_UNSURE) {
		size_t n = 0;
		for (unsigned j = 0; j < b->ts->ntasks; j++) {
			const struct task_spec *x = &b->ts->task[j];
			if (b->cpu_of[j] == c)
				b->terms[n++] = ratsum_term(x->e, window(x));
		}
		b->terms[n++] = ratsum_term(t->e, window(t));
		a = ratsum_exact_fits(b->terms, n, 1, b->scratch) ?
		    RATSUM_FITS : RATSUM_EXCEEDS;
	}
	if (a == RATSUM_EXCEEDS)
		return 0;
	ratsum_add(&b->sum[c], t->e, window(t));
	b->cpu_of[i] = c;
	return 1;
}

int edf_partition_ffd(const struct taskset *ts, unsigned cpus,
		      unsigned *cpu_of, const struct sched_env *env,
		      struct sched_error *err)
{
	unsigned n = ts->ntasks;
	unsigned *idx = env->alloc(env->ctx, (n ? n : 1) * sizeof *idx);
	unsigned *tmp = env->alloc(env->ctx, (n ? n : 1) * sizeof *tmp);
	struct bins b = {
		ts, cpu_of, env->alloc(env->ctx, cpus * sizeof *b.sum),
		env->alloc(env->ctx, (n + 1) * sizeof *b.terms),
		env->alloc(env->ctx, ratsum_exact_words(n + 1) *
				     sizeof *b.scratch),
	};
	for (unsigned i = 0; i < n; i++) {
		idx[i] = i;
		cpu_of[i] = cpus;
	}
	sort_decreasing(ts, idx, tmp, n);
	for (unsigned k = 0; k < n; k++) {
		unsigned i = idx[k];
		unsigned c = 0;
		while (c < cpus && !fits(&b, c, i))
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
	}
	return 0;
}
