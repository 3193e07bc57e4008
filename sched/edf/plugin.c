/*
 * sched/edf/plugin: the `gedf`, `pedf` and `cedf` plugins over the EDF
 * engine.
 *
 * gedf admits a set whose total utilisation is at most M (the bound under
 * which G-EDF's tardiness stays bounded; it may still miss deadlines) and
 * takes the parameter edf_cpudl = 0 (heap, default) | 1 (fmask) |
 * 2 (original) for the push structure (push.h). pedf partitions by
 * first-fit decreasing (partition.h) and runs uniprocessor EDF per CPU.
 * cedf splits the M CPUs into clusters of cluster=K, places the tasks on
 * clusters first-fit decreasing by utilisation (each cluster's total at
 * most K) and runs global EDF inside each cluster, with edf_cpudl's push
 * structure per cluster.
 */
#include "../../lib/fmt.h"
#include "../../lib/ratsum.h"
#include "../sched.h"
#include "partition.h"
#include "plugin.h"

int edf_admit_global(const struct taskset *ts, unsigned cpus,
		     const struct sched_env *env, struct sched_error *err)
{
	unsigned n = ts->ntasks;
	uint64_t *terms = env->alloc(env->ctx, (n + 1) * sizeof *terms);
	uint64_t *scratch = env->alloc(env->ctx, ratsum_exact_words(n) *
						 sizeof *scratch);
	struct ratsum u = { 0 };
	for (unsigned i = 0; i < n; i++) {
		const struct task_spec *t = &ts->task[i];
		enum ratsum_answer a = ratsum_bound(&u, NULL, t->e, t->p, cpus);
		if (a == RATSUM_UNSURE) {
			for (unsigned j = 0; j <= i; j++)
				terms[j] = ratsum_term(ts->task[j].e,
						       ts->task[j].p);
			a = ratsum_exact_fits(terms, i + 1, cpus, scratch) ?
			    RATSUM_FITS : RATSUM_EXCEEDS;
		}
		if (a == RATSUM_EXCEEDS) {
			fmt_snprintf(err->msg, sizeof err->msg,
				     "task %s (line %u): total utilisation "
				     "exceeds M = %u", t->name, t->line, cpus);
			return -1;
		}
		ratsum_add(&u, t->e, t->p);
	}
	return 0;
}

int edf_check_set(const struct sched_config *cfg, const char *name,
		  struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	if (cfg->staggered) {
		/* The job model charges whole aligned slots (edf.h); staggered
		 * slots would make completions fall between boundaries. */
		fmt_snprintf(err->msg, sizeof err->msg,
			     "%s runs on aligned quanta only, not staggered", name);
		return -1;
	}
	for (unsigned i = 0; i < ts->ntasks; i++)
		if (ts->task[i].p == 0) {
			fmt_snprintf(err->msg, sizeof err->msg,
				     "task %s (line %u) has only weight=: EDF "
				     "needs e= and p=", ts->task[i].name,
				     ts->task[i].line);
			return -1;
		}
	return 0;
}

/* edf_cpudl: the push structure (push.h); 0 with *mode set, or -1. */
static int push_mode(const struct sched_config *cfg, enum edf_push_mode *mode,
		     struct sched_error *err)
{
	uint64_t m = sched_param_get(cfg, "edf_cpudl", EDF_PUSH_HEAP);
	if (m >= EDF_PUSH_MODES) {
		fmt_snprintf(err->msg, sizeof err->msg,
			     "edf_cpudl=%llu: expected 0 (heap), 1 (fmask) or "
			     "2 (original)", (unsigned long long)m);
		return -1;
	}
	*mode = (enum edf_push_mode)m;
	return 0;
}

static void *create(const struct sched_config *cfg,
		    const struct sched_env *env, struct sched_error *err,
		    int global)
{
	const struct taskset *ts = cfg->tasks;
	enum edf_push_mode mode;
	if (edf_check_set(cfg, global ? "gedf" : "pedf", err) ||
	    push_mode(cfg, &mode, err))
		return 0;
	unsigned *cpu_of = 0;
	if (global) {
		if (edf_admit_global(ts, cfg->cpus, env, err))
			return 0;
	} else {
		cpu_of = env->alloc(env->ctx,
				    (ts->ntasks ? ts->ntasks : 1) * sizeof *cpu_of);
		if (edf_partition_ffd(ts, cfg->cpus, cpu_of, env, err))
			return 0;
	}
	return edf_create(cfg, env, mode, global ? cfg->cpus : 0, cpu_of, err);
}

static void *gedf_create(const struct sched_config *cfg,
			 const struct sched_env *env, struct sched_error *err)
{
	return create(cfg, env, err, 1);
}

static void *pedf_create(const struct sched_config *cfg,
			 const struct sched_env *env, struct sched_error *err)
{
	return create(cfg, env, err, 0);
}

/* cedf's cluster size when `cluster` is not given: two clusters of M/2
 * when M is even, else one cluster of M (G-EDF). */
static unsigned default_cluster(unsigned cpus)
{
	return cpus % 2 == 0 ? cpus / 2 : cpus;
}

/* cluster=K: 0 with *k set, or -1 naming the value and the ones that
 * would do (the divisors of M: "1, 2 or 4"). */
int edf_cluster_size(const struct sched_config *cfg, unsigned *k,
			struct sched_error *err)
{
	unsigned m = cfg->cpus;
	uint64_t v = sched_param_get(cfg, "cluster", default_cluster(m));
	if (v >= 1 && v <= m && m % v == 0) {
		*k = (unsigned)v;
		return 0;
	}
	char *p = err->msg, *end = err->msg + sizeof err->msg;
	p += fmt_snprintf(p, (size_t)(end - p), "cluster=%llu: the cluster "
			  "size must divide M = %u, so be ",
			  (unsigned long long)v, m);
	for (unsigned d = 1; d <= m && p < end; d++)
		if (m % d == 0)
			p += fmt_snprintf(p, (size_t)(end - p), "%s%u",
					  d == 1 ? "" : d == m ? " or " : ", ",
					  d);
	return -1;
}

/*
 * C-EDF: clusters of K CPUs, tasks placed first-fit decreasing by
 * utilisation (partition.h), global EDF in each cluster. A task's jobs
 * start on CPU (its cluster's first) + (its index mod K), the way gedf
 * spreads them over M, so cluster=M is gedf and cluster=1 (M > 1) is
 * pedf's structure (with pedf's placement when the deadlines are
 * implicit).
 */
static void *cedf_create(const struct sched_config *cfg,
			 const struct sched_env *env, struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	enum edf_push_mode mode;
	unsigned k;
	if (edf_check_set(cfg, "cedf", err) || push_mode(cfg, &mode, err) ||
	    edf_cluster_size(cfg, &k, err))
		return 0;
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	unsigned *home = env->alloc(env->ctx, n * sizeof *home);
	if (edf_cluster_ffd(ts, cfg->cpus / k, k, home, env, err))
		return 0;
	for (unsigned i = 0; i < ts->ntasks; i++)
		home[i] = home[i] * k + i % k;
	/* Clusters of one CPU are partitions, without push structures --
	 * unless M = 1, where the one cluster is gedf's. */
	return edf_create(cfg, env, mode, k > 1 || k == cfg->cpus ? k : 0,
			  home, err);
}

/*
 * Admission counted every declared task, present or not, and P-EDF keeps a
 * leaving task's place on its CPU: so a join never breaks the bound, and a
 * P-EDF task comes back to the CPU it had.
 */
static int join(void *s, unsigned task, uint64_t t, struct sched_error *err)
{
	return edf_join(s, task, t, err);
}

static int schedule(void *s, unsigned cpu, uint64_t t)
{
	return edf_schedule(s, cpu, t);
}

static uint64_t next_event(void *s, uint64_t t)
{
	return edf_next_event(s, t);
}

static void leave(void *s, unsigned task, uint64_t t)
{
	edf_leave(s, task, t);
}

static void block(void *s, unsigned task, uint64_t t)
{
	edf_block(s, task, t);
}

static void wake(void *s, unsigned task, uint64_t t)
{
	edf_wake(s, task, t);
}

static void complete(void *s, unsigned task, uint64_t t)
{
	edf_complete(s, task, t);
}

static void stats(void *s, unsigned task, struct sched_task_stats *out)
{
	edf_stats(s, task, out);
}

static void summary(void *s, sched_put_fn put, void *ctx)
{
	edf_summary(s, put, ctx);
}

/* C-EDF's summary says the cluster size it ran with (the default's too). */
static void cedf_summary(void *s, sched_put_fn put, void *ctx)
{
	put(ctx, "cluster", (int64_t)edf_cluster(s), 1);
	edf_summary(s, put, ctx);
}

static void set_clock(void *s, uint64_t (*clock)(void))
{
	edf_set_clock(s, clock);
}

static void dump(void *s, sched_print_fn print, void *ctx)
{
	edf_dump(s, print, ctx);
}

struct edf *edf_plugin_engine(void *plugin_state)
{
	return plugin_state;
}

/* The plugins drive the same engine; only admission and clusters differ. */
static const char *const edf_params[] = { "edf_cpudl", 0 };
static const char *const cedf_params[] = { "cluster", "edf_cpudl", 0 };

#define EDF_PLUGIN_OPS                                                        \
	.schedule = schedule, .next_event = next_event, .join = join,        \
	.leave = leave, .block = block, .wake = wake, .complete = complete,  \
	.stats = stats, .dump = dump, .set_clock = set_clock

/* Their variants for sets with resources (sched/lock/plugins.c). */
extern const struct sched_plugin gedf_locks, pedf_locks, cedf_locks;

const struct sched_plugin gedf = {
	.locks = &gedf_locks,
	.name = "gedf",
	.description = "global EDF: per-CPU queues, push/pull, CPU deadline "
		       "heap (edf_cpudl=0 heap, 1 fmask, 2 original)",
	.create = gedf_create,
	.params = edf_params,
	.summary = summary,
	EDF_PLUGIN_OPS,
};

const struct sched_plugin pedf = {
	.locks = &pedf_locks,
	.name = "pedf",
	.description = "partitioned EDF, first-fit decreasing by density",
	.create = pedf_create,
	.params = edf_params,
	.summary = summary,
	EDF_PLUGIN_OPS,
};

const struct sched_plugin cedf = {
	.locks = &cedf_locks,
	.name = "cedf",
	.description = "clustered EDF: cluster=K CPUs per cluster (K divides "
		       "M; default M/2 for even M, else M), tasks first-fit "
		       "decreasing by utilisation onto clusters, global EDF "
		       "with push/pull inside each",
	.create = cedf_create,
	.params = cedf_params,
	.summary = cedf_summary,
	EDF_PLUGIN_OPS,
};
