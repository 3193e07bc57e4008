/* sched/edf/partition: first-fit decreasing for P-EDF and C-EDF (see
 * partition.h). */
#include "partition.h"

#include "../../lib/fmt.h"
#include "../../lib/ratsum.h"

/* First-fit bookkeeping: what a bin holds, the sizes, each bin's sum, and
 * what an exact sum needs when lib/ratsum's bounds cannot tell. */
struct bins {
	const struct taskset *ts;
	int by_density;         /* sizes e / min(d, p); else e / p */
	unsigned capacity;      /* a bin's sum stays <= capacity */
	unsigned *bin_of;       /* nbins: not placed yet */
	struct ratsum *sum;
	uint64_t *terms, *scratch;
};

/* The denominator of task t's size: min(d, p) by density, else p. */
static uint32_t window(const struct bins *b, const struct task_spec *t)
{
	return b->by_density && t->d && t->d < t->p ? t->d : t->p;
}

/* Task a goes first: the greater size e/w (cross products below 2^62 are
 * exact), else the earlier line. */
static int before(const struct bins *b, unsigned a, unsigned c)
{
	const struct task_spec *x = &b->ts->task[a], *y = &b->ts->task[c];
	uint64_t l = (uint64_t)x->e * window(b, y);
	uint64_t r = (uint64_t)y->e * window(b, x);
	return l > r || (l == r && a < c);
}

/* Bottom-up merge sort of task indices into decreasing size. */
static void sort_decreasing(const struct bins *bs, unsigned *idx,
			    unsigned *tmp, unsigned n)
{
	for (unsigned w = 1; w < n; w *= 2) {
		for (unsigned lo = 0; lo < n; lo += 2 * w) {
			unsigned mid = lo + w < n ? lo + w : n;
			unsigned hi = lo + 2 * w < n ? lo + 2 * w : n;
			unsigned a = lo, b = mid, k = lo;
			while (a < mid || b < hi)
				tmp[k++] = b >= hi || (a < mid && !before(bs, idx[b],
									idx[a]))
					   ? idx[a++] : idx[b++];
		}
		for (unsigned k = 0; k < n; k++)
			idx[k] = tmp[k];
	}
}

/* Whether task i fits in bin c (sum <= capacity); if so, c takes it. */
static int fits(struct bins *b, unsigned c, unsigned i)
{
	const struct task_spec *t = &b->ts->task[i];
	enum ratsum_answer a = ratsum_bound(&b->sum[c], NULL, t->e,
					    window(b, t), b->capacity);
	if (a == RATSUM_UNSURE) {
		size_t n = 0;
		for (unsigned j = 0; j < b->ts->ntasks; j++) {
			const struct task_spec *x = &b->ts->task[j];
			if (b->bin_of[j] == c)
				b->terms[n++] = ratsum_term(x->e, window(b, x));
		}
		b->terms[n++] = ratsum_term(t->e, window(b, t));
		a = ratsum_exact_fits(b->terms, n, b->capacity, b->scratch) ?
		    RATSUM_FITS : RATSUM_EXCEEDS;
	}
	if (a == RATSUM_EXCEEDS)
		return 0;
	ratsum_add(&b->sum[c], t->e, window(b, t));
	b->bin_of[i] = c;
	return 1;
}

/* Fills bin_of[]; returns -1, or the task that fits in no bin. */
static int ffd(struct bins *b, unsigned nbins, const struct sched_env *env)
{
	const struct taskset *ts = b->ts;
	unsigned n = ts->ntasks;
	unsigned *idx = env->alloc(env->ctx, (n ? n : 1) * sizeof *idx);
	unsigned *tmp = env->alloc(env->ctx, (n ? n : 1) * sizeof *tmp);
	b->sum = env->alloc(env->ctx, nbins * sizeof *b->sum);
	b->terms = env->alloc(env->ctx, (n + 1) * sizeof *b->terms);
	b->scratch = env->alloc(env->ctx, ratsum_exact_words(n + 1) *
					  sizeof *b->scratch);
	for (unsigned i = 0; i < n; i++) {
		idx[i] = i;
		b->bin_of[i] = nbins;
	}
	sort_decreasing(b, idx, tmp, n);
	for (unsigned k = 0; k < n; k++) {
		unsigned i = idx[k];
		unsigned c = 0;
		while (c < nbins && !fits(b, c, i))
			c++;
		if (c == nbins)
			return (int)i;
	}
	return -1;
}

int edf_partition_ffd(const struct taskset *ts, unsigned cpus,
		      unsigned *cpu_of, const struct sched_env *env,
		      struct sched_error *err)
{
	struct bins b = { .ts = ts, .by_density = 1, .capacity = 1,
			  .bin_of = cpu_of };
	int i = ffd(&b, cpus, env);
	if (i < 0)
		return 0;
	const struct task_spec *t = &ts->task[i];
	fmt_snprintf(err->msg, sizeof err->msg,
		     "task %s (line %u, %s = %u/%u) fits on none of the %u CPUs "
		     "under first-fit decreasing", t->name, t->line,
		     window(&b, t) < t->p ? "density e/d" : "u", t->e,
		     window(&b, t), cpus);
	return -1;
}

int edf_cluster_ffd(const struct taskset *ts, unsigned clusters,
		    unsigned cluster, unsigned *cluster_of,
		    const struct sched_env *env, struct sched_error *err)
{
	struct bins b = { .ts = ts, .by_density = 0, .capacity = cluster,
			  .bin_of = cluster_of };
	int i = ffd(&b, clusters, env);
	if (i < 0)
		return 0;
	const struct task_spec *t = &ts->task[i];
	fmt_snprintf(err->msg, sizeof err->msg,
		     "task %s (line %u, u = %u/%u) fits in none of the %u "
		     "clusters of %u CPU%s under first-fit decreasing by "
		     "utilisation", t->name, t->line, t->e, t->p, clusters,
		     cluster, cluster == 1 ? "" : "s");
	return -1;
}
