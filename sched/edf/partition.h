/*
 * sched/edf/partition: first-fit decreasing by density onto M CPUs, for
 * P-EDF. A task's density is e / min(d, p), its utilisation e/p when the
 * deadline is implicit. Tasks go in order of decreasing density (exact
 * comparison; equal densities keep file order), each to the lowest-numbered
 * CPU whose density sum stays <= 1 with it (exact, lib/ratsum).
 *
 * Density <= 1 is sufficient for uniprocessor EDF with any deadlines,
 * phases and sporadic releases, so a partition found never misses; with
 * implicit deadlines it is U <= 1, which is also necessary. Decided: with
 * constrained deadlines (d < p) the test is the density one rather than an
 * exact demand-bound analysis: one exact sum per probe, always decidable,
 * at the cost of refusing some sets that would be schedulable.
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

#endif
