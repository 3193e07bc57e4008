/*
 * sched/lock/plugins: the lock variants of pedf, gedf and cedf (sched.h,
 * `locks`): the same names and parameters, admission and placement as the
 * plain plugins (sched/edf/plugin.c), scheduled by sched/lock/lcore with
 * the set's protocol. edf_cpudl is checked and has nothing to choose here
 * (lcore keeps no push structure).
 */
#include "../../lib/fmt.h"
#include "../edf/partition.h"
#include "../edf/plugin.h"
#include "lcore.h"

static int check(const struct sched_config *cfg, const char *name,
		 struct sched_error *err)
{
	uint64_t mode;
	if (edf_check_set(cfg, name, err) ||
	    sched_param_in(cfg, "edf_cpudl", 0, 0, 2, &mode, err))
		return -1;
	return 0;
}

static void *pedf_create(const struct sched_config *cfg,
			 const struct sched_env *env, struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	if (check(cfg, "pedf", err))
		return 0;
	unsigned *cpu_of = env->alloc(env->ctx, (ts->ntasks ? ts->ntasks : 1) *
						sizeof *cpu_of);
	if (edf_partition_ffd(ts, cfg->cpus, cpu_of, env, err))
		return 0;
	return lcore_create(cfg, env, LCORE_PARTITIONED, 1, cpu_of, "pedf",
			    err);
}

static void *gedf_create(const struct sched_config *cfg,
			 const struct sched_env *env, struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	if (check(cfg, "gedf", err) ||
	    edf_admit_global(ts, cfg->cpus, env, err))
		return 0;
	unsigned *home = env->alloc(env->ctx, (ts->ntasks ? ts->ntasks : 1) *
					      sizeof *home);
	return lcore_create(cfg, env, LCORE_GLOBAL, cfg->cpus, home, "gedf",
			    err);
}

static void *cedf_create(const struct sched_config *cfg,
			 const struct sched_env *env, struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	unsigned k;
	if (check(cfg, "cedf", err) || edf_cluster_size(cfg, &k, err))
		return 0;
	unsigned *home = env->alloc(env->ctx, (ts->ntasks ? ts->ntasks : 1) *
					      sizeof *home);
	if (edf_cluster_ffd(ts, cfg->cpus / k, k, home, env, err))
		return 0;
	return lcore_create(cfg, env, LCORE_GLOBAL, k, home, "cedf", err);
}

static int schedule(void *s, unsigned cpu, uint64_t t)
{
	return lcore_schedule(s, cpu, t);
}

static uint64_t next_event(void *s, uint64_t t)
{
	return lcore_next_event(s, t);
}

static void leave(void *s, unsigned task, uint64_t t)
{
	lcore_leave(s, task, t);
}

static void complete(void *s, unsigned task, uint64_t t)
{
	lcore_complete(s, task, t);
}

static void stats(void *s, unsigned task, struct sched_task_stats *out)
{
	lcore_stats(s, task, out);
}

static void lock_stats(void *s, unsigned task, struct sched_lock_stats *out)
{
	lcore_lock_stats(s, task, out);
}

static int lock_op(void *s, unsigned task, int unlock, unsigned res,
		   uint64_t t, struct sched_error *err)
{
	return lcore_lock_op(s, task, unlock, res, t, err);
}

static void summary(void *s, sched_put_fn put, void *ctx)
{
	lcore_summary(s, put, ctx);
}

static void dump(void *s, sched_print_fn print, void *ctx)
{
	lcore_dump(s, print, ctx);
}

static const char *const edf_params[] = { "edf_cpudl", 0 };
static const char *const cedf_params[] = { "cluster", "edf_cpudl", 0 };

#define LOCK_VARIANT_OPS                                                      \
	.schedule = schedule, .next_event = next_event, .leave = leave,      \
	.complete = complete, .stats = stats, .summary = summary,            \
	.dump = dump, .lock_stats = lock_stats, .lock_op = lock_op

const struct sched_plugin pedf_locks = {
	.name = "pedf",
	.description = "partitioned EDF with srp or msrp (sched/lock/lcore.h)",
	.create = pedf_create,
	.params = edf_params,
	.protocols = 1u << PROTO_SRP | 1u << PROTO_MSRP,
	LOCK_VARIANT_OPS,
};

const struct sched_plugin gedf_locks = {
	.name = "gedf",
	.description = "global EDF with omlp (sched/lock/lcore.h)",
	.create = gedf_create,
	.params = edf_params,
	.protocols = 1u << PROTO_OMLP,
	LOCK_VARIANT_OPS,
};

const struct sched_plugin cedf_locks = {
	.name = "cedf",
	.description = "clustered EDF with omlp inside each cluster "
		       "(sched/lock/lcore.h)",
	.create = cedf_create,
	.params = cedf_params,
	.protocols = 1u << PROTO_OMLP,
	LOCK_VARIANT_OPS,
};
