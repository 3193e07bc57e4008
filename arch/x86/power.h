/* arch/x86/power: leaving the machine when the kernel is done. */
#ifndef ARCH_X86_POWER_H
#define ARCH_X86_POWER_H

/* The hypervisor's name from CPUID 0x40000000 ("TCGTCGTCGTCG", ...), or ""
 * on bare metal. */
const char *power_hypervisor(void);

/* How the boot ended (the status of RESULT exit). */
enum power_status {
	POWER_FAIL = 0,
	POWER_PASS = 1,
	POWER_LATE = 2,     /* the run completed, but its time was not kept */
};

/*
 * Ends the run: under QEMU through isa-debug-exit with a code that tells
 * the statuses apart; elsewhere ACPI S5, then Bochs's shutdown port, then
 * every CPU halts. Never returns.
 */
void power_exit(enum power_status status) __attribute__((noreturn));

/* From now on power_exit halts every CPU instead: the last screen stays up
 * (the command-line word end=halt; tests take a screenshot then). */
void power_halt_at_end(void);

#endif
