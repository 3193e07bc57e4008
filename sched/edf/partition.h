/*
 * sched/edf/partition: first-fit decreasing by utilisation onto M CPUs,
 * for P-EDF. Tasks go in order of decreasing e/p (exact comparison; equal
 * utilisations keep file order), each to the lowest-numbered CPU whose
 * utilisation stays <= 1 with it (exact, usum.h).
 *
 * U <= 1 per CPU is exact for implicit deadlines (d = p). With d < p it is
 * necessary but not sufficient, so such a partition may still miss.
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
