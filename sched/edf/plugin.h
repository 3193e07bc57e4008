/* sched/edf/plugin: the gedf and pedf plugins (registered in registry.c). */
#ifndef SCHED_EDF_PLUGIN_H
#define SCHED_EDF_PLUGIN_H

#include "edf.h"

/* The engine inside a gedf/pedf plugin state, for tools that time it. */
struct edf *edf_plugin_engine(void *plugin_state);

#endif
