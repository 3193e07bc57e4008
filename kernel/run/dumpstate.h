/*
 * kernel/run/dumpstate: the kernel word dumpstate=SLOT|end prints the running
 * plugin's state (its dump(), sched/sched.h) as `STATE ...` lines -- after
 * every CPU has decided slot SLOT, or after the run together with the
 * quantum clock's per-CPU counters and each task's record and current job
 * (at a slot the other CPUs change those as GDB or the print reads them). The tests break on dumpstate_print
 * and compare GDB's `rtk` commands (tools/gdb) with what it then prints.
 */
#ifndef KERNEL_DUMPSTATE_H
#define KERNEL_DUMPSTATE_H

#include <stdint.h>

#include "../../sched/driver.h"

/* At CPU cpu's boundary of slot, after its decision, in boundary order. */
void dumpstate_boundary(const struct sched_driver *d, unsigned cpu,
			uint64_t slot);
/* After the run, every CPU done. */
void dumpstate_end(const struct sched_driver *d);

/* Prints the state; `when` is "slot N" or "end". Neither inlined nor
 * cloned (noipa), so that GDB can stop on it by name with the state as it
 * is printed. */
void dumpstate_print(const struct sched_driver *d, const char *when,
		     int with_clock) __attribute__((noipa));

#endif
