/* arch/x86/refclock: the fixed-frequency counters the TSC is calibrated
 * against: the PIT, the HPET and the ACPI PM timer. */
#ifndef ARCH_X86_REFCLOCK_H
#define ARCH_X86_REFCLOCK_H

#include <stdint.h>

struct refclock {
	const char *name;       /* "pit", "hpet", "pmtimer" */
	uint64_t hz;
	uint64_t mask;          /* the counter wraps at mask + 1 */
	uint64_t (*read)(void); /* counts up */
};

/* Prepares the clocks that exist (from the ACPI tables) and returns how
 * many were put in out[] (at most 3), best resolution first. */
unsigned refclock_probe(struct refclock *out);

#endif
