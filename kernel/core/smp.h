/* kernel/core/smp: bringing up the application processors (INIT/SIPI through
 * the local APIC) and running work on all of them. */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdint.h>

struct smp_info {
	unsigned found;          /* enabled CPUs in the firmware tables */
	unsigned online;         /* CPUs that checked in (BSP included) */
	unsigned unsupported;    /* found, but beyond MAX_CPUS or needing
				    x2APIC mode where there is none */
	uint64_t bringup_us;
	int64_t max_skew_cycles; /* largest |TSC offset| of an AP */
};

extern struct smp_info smp;

/* The boot CPU's own descriptors and per-CPU record (before ACPI). */
void smp_init_bsp(void);
/* Its local APIC, at the address ACPI gave (xAPIC) or in x2APIC mode. */
void smp_init_bsp_apic(uint64_t mmio_base);

/*
 * Starts every enabled CPU the firmware lists at once (INIT to all, then
 * SIPI-SIPI, MP spec B.4), timed with the calibrated TSC; measures each
 * AP's TSC offset against the BSP as it checks in, names any that does not
 * and any the kernel cannot run, and sizes the per-CPU memory from the
 * CPUs found (CPU k is the k-th online in the firmware's order).
 */
void smp_boot_aps(void);

/*
 * Runs fn(arg) on every online CPU (the BSP too); called on the BSP.
 * Returns 0 when all have finished, or how many had not timeout_us after
 * the BSP's own fn returned. APs wait for such calls halted after checking
 * in; fn starts with interrupts disabled. Once its own fn returns, the BSP
 * waits halted, its local APIC timer waking it to watch the timeout.
 */
unsigned smp_run_on_all(void (*fn)(void *), void *arg, uint64_t timeout_us);

/*
 * Halts the calling CPU until done(arg) or the TSC reaches deadline, its
 * local APIC timer waking it every millisecond or so to look (so done may
 * be made true by another CPU without a wake-up). Other interrupts are
 * taken while halted. Returns with interrupts disabled.
 */
void smp_halt_until(int (*done)(const void *), const void *arg,
		    uint64_t deadline);

/* The first 64-bit C function an AP runs (GDB breaks here). */
void smp_ap_main(uint32_t cpu) __attribute__((noreturn));

#endif
