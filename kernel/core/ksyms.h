/* kernel/core/ksyms: function names for addresses, for the panic stack trace.
 * The table is generated from a first link (scripts/ksyms.sh, mk/kernel.mk).
 */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
};

/* Sorted by address, ended by { 0, 0 }. */
extern const struct ksym ksyms[];

/* The function that contains addr, and addr's offset into it; 0 when addr
 * is not in the kernel's higher-half text. */
const char *ksyms_lookup(uint64_t addr, uint64_t *offset);

#endif
