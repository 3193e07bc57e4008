/* arch/x86/refclock: the fixed-frequency counters the TSC is calibrated
 * against: the PIT, the HPET and the ACPI PM timer. */
#ifndef ARCH_X86_REFCLOCK_H
#define ARCH_X86_REFCLOCK_H

#include <stdint.h>

struct refclock {
	const char *name;       /* "pit", "hpet", "pmtimer" */
	uint64_t hz;            /* at most 1 GHz */
	uint64_t mask;          /* read() wraps at mask + 1 */
	/* The hardware counter's period in ticks (0: it does not wrap in
	 * practice): reads further apart than that lose count. */
	uint64_t period;
	uint64_t (*read)(void); /* counts up */
};

/* Prepares the clocks that exist (from the ACPI tables) and returns how
 * many were put in out[] (at most 3), best resolution first -- which is
 * also longest period first. */
unsigned refclock_probe(struct refclock *out);

#endif
