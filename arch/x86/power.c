/* arch/x86/power: leaving the machine when the kernel is done. */
#include "power.h"

#include "acpi.h"
#include "cpu.h"
#include "../../lib/str.h"

#define QEMU_DEBUG_EXIT_PORT 0xf4   /* -device isa-debug-exit,iobase=0xf4 */
/* QEMU exits with (value << 1) | 1: 33 for a pass, 35 for a fail, 37 for
 * a late run. None is 0 or 1, so a pass cannot be mistaken for QEMU's own
 * exit codes (scripts/run-qemu.sh maps them to make run's). */
#define EXIT_QEMU_PASS 0x10
#define EXIT_QEMU_FAIL 0x11
#define EXIT_QEMU_LATE 0x12
#define BOCHS_SHUTDOWN_PORT 0x8900  /* Bochs: write "Shutdown" */

static char hv_name[13];
static int halt_at_end;

void power_halt_at_end(void)
{
	halt_at_end = 1;
}

const char *power_hypervisor(void)
{
	struct cpuid_regs r = cpuid(1, 0);
	if (!(r.ecx & (1u << 31)))  /* CPUID.1:ECX[31]: running under a hypervisor */
		return "";
	r = cpuid(0x40000000, 0);
	uint32_t w[3] = { r.ebx, r.ecx, r.edx };
	for (int i = 0; i < 12; i++)
		hv_name[i] = (char)(w[i / 4] >> (8 * (i % 4)));
	hv_name[12] = 0;
	return hv_name;
}

void power_exit(enum power_status status)
{
	irq_disable();
	const char *hv = power_hypervisor();
	if (halt_at_end)
		for (;;)
			cpu_halt();
	if (str_eq(hv, "TCGTCGTCGTCG") || str_eq(hv, "KVMKVMKVM"))
		outb(QEMU_DEBUG_EXIT_PORT, status == POWER_PASS ? EXIT_QEMU_PASS :
		     status == POWER_LATE ? EXIT_QEMU_LATE : EXIT_QEMU_FAIL);
	acpi_power_off();
	for (const char *s = "Shutdown"; *s; s++)
		outb(BOCHS_SHUTDOWN_PORT, (uint8_t)*s);
	for (;;)
		cpu_halt();
}
