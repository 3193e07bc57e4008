/* sched/edf/plugin: the gedf, pedf and cedf plugins (registered in
 * registry.c). */
#ifndef SCHED_EDF_PLUGIN_H
#define SCHED_EDF_PLUGIN_H

#include "edf.h"

/* The engine inside a gedf, pedf or cedf plugin state, for tools that
 * time it. */
struct edf *edf_plugin_engine(void *plugin_state);

/* What every EDF plugin (gedf, pedf, cedf, ngedf) and gfp require of a
 * set: aligned quanta and e/p tasks; -1 with a message naming the plugin
 * or task. */
int edf_check_set(const struct sched_config *cfg, const char *name,
		  struct sched_error *err);

/* Total utilisation at most M, summed exactly in file order (lib/ratsum);
 * -1 with a message naming the task that takes it above M. */
int edf_admit_global(const struct taskset *ts, unsigned cpus,
		     const struct sched_env *env, struct sched_error *err);

/* cedf's cluster=K (default M/2 for an even M, else M): 0 with *k set, or
 * -1 naming the value and the divisors of M that would do. */
int edf_cluster_size(const struct sched_config *cfg, unsigned *k,
		     struct sched_error *err);

#endif
