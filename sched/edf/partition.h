/*
 * sched/edf/partition: first-fit decreasing, for P-EDF (onto CPUs) and
 * C-EDF (onto clusters). Tasks go in order of decreasing size (exact
 * comparison; equal sizes keep file order), each to the lowest-numbered
 * bin whose sum of sizes stays within its capacity with it (exact,
 * lib/ratsum).
 *
 * P-EDF: a task's size is its density e / min(d, p) (its utilisation e/p
 * when the deadline is implicit), a CPU's capacity 1. Density <= 1 is
 * sufficient for uniprocessor EDF with any deadlines, phases and sporadic
 * releases, so a partition found never misses; with implicit deadlines it
 * is U <= 1, which is also necessary. Decided: with constrained deadlines
 * (d < p) the test is the density one rather than an exact demand-bound
 * analysis: one exact sum per probe, always decidable, at the cost of
 * refusing some sets that would be schedulable.
 *
 * C-EDF: a task's size is its utilisation e/p, a cluster of K CPUs'
 * capacity K -- the condition under which global EDF inside the cluster
 * keeps tardiness bounded, as gedf admits U <= M (it may still miss
 * deadlines, as gedf may).
 */
#ifndef SCHED_EDF_PARTITION_H
#define SCHED_EDF_PARTITION_H

#include "../sched.h"

/*
 * Fills cpu_of[i] for every task of ts. Returns 0, or -1 with a message
 * naming the first task that fits on no CPU.
 */
int edf_partition_ffd(const struct taskset *ts, unsigned cpus,
		      unsigned *cpu_of, const struct sched_env *env,
		      struct sched_error *err);

/*
 * Fills cluster_of[i] (0 to clusters - 1) for every task of ts, clusters
 * of `cluster` CPUs each. Returns 0, or -1 with a message naming the first
 * task that fits in no cluster.
 */
int edf_cluster_ffd(const struct taskset *ts, unsigned clusters,
		    unsigned cluster, unsigned *cluster_of,
		    const struct sched_env *env, struct sched_error *err);

#endif
