/* kernel/smp: bringing up the application processors (INIT/SIPI through
 * the local APIC) and running work on all of them. */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdint.h>

struct smp_info {
	unsigned found;          /* enabled CPUs in the firmware tables */
	unsigned online;         /* CPUs that checked in (BSP included) */
	uint64_t bringup_us;
	int64_t max_skew_cycles; /* largest |TSC offset| of an AP */
};

extern struct smp_info smp;

/* The boot CPU's own descriptors and per-CPU record (before ACPI). */
void smp_init_bsp(void);
/* Its local APIC, at the address ACPI gave (xAPIC) or in x2APIC mode. */
void smp_init_bsp_apic(uint64_t mmio_base);

/*
 * INIT-SIPI-SIPI to each enabled CPU in turn (MP spec B.4), timed with the
 * calibrated TSC; waits for each to check in, names any that does not, and
 * measures each AP's TSC offset against the BSP.
 */
void smp_boot_aps(void);

/*
 * Runs fn(arg) on every online CPU (the BSP too). Returns 0 when all have
 * finished, or how many had not after timeout_us. APs wait for such calls
 * after checking in.
 */
unsigned smp_run_on_all(void (*fn)(void *), void *arg, uint64_t timeout_us);

/* The first 64-bit C function an AP runs (GDB breaks here). */
void smp_ap_main(uint32_t cpu) __attribute__((noreturn));

#endif
