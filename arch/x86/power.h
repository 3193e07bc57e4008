/* arch/x86/power: leaving the machine when the kernel is done. */
#ifndef ARCH_X86_POWER_H
#define ARCH_X86_POWER_H

/* The hypervisor's name from CPUID 0x40000000 ("TCGTCGTCGTCG", ...), or ""
 * on bare metal. */
const char *power_hypervisor(void);

/*
 * Ends the run: under QEMU through isa-debug-exit with a code that tells
 * pass from fail; elsewhere ACPI S5, then Bochs's shutdown port, then every
 * CPU halts. Never returns.
 */
void power_exit(int pass) __attribute__((noreturn));

/* From now on power_exit halts every CPU instead: the last screen stays up
 * (the command-line word end=halt; tests take a screenshot then). */
void power_halt_at_end(void);

#endif
