/*
 * kernel/main: the boot sequence (docs/design.md, "A boot, in order"):
 * console -> multiboot2 information -> command line -> ACPI -> local and
 * I/O APICs -> paging, programs -> TSC -> quantum clock -> APs -> a run
 * (the interrupt self-check, a scheduler, or the clocks' self-measurement)
 * -> RESULT exit.
 */
#include <stdint.h>

#include "../arch/x86/acpi.h"
#include "../arch/x86/cpu.h"
#include "../arch/x86/log.h"
#include "../arch/x86/paging.h"
#include "../arch/x86/percpu.h"
#include "../arch/x86/pic.h"
#include "../arch/x86/power.h"
#include "../arch/x86/trap.h"
#include "../arch/x86/tsc.h"
#include "../drivers/apic/ioapic.h"
#include "../drivers/apic/lapic.h"
#include "../drivers/fb/fbcon.h"
#include "../drivers/serial/uart.h"
#include "arrivals/arrival_hpet.h"
#include "arrivals/arrivals.h"
#include "core/bootmem.h"
#include "time/clock_selftest.h"
#include "core/console.h"
#include "debug/gdbstub.h"
#include "events/event_run.h"
#include "report/hwreport.h"
#include "arrivals/irqcheck.h"
#include "core/mb2.h"
#include "core/options.h"
#include "core/panic.h"
#include "task/program.h"
#include "time/quantum_clock.h"
#include "run/sched_run.h"
#include "run/verdict.h"
#include "core/smp.h"
#include "task/vm.h"

void kernel_main(uint32_t magic, uint32_t info_phys) __attribute__((noreturn));

/* A page the identity map does not cover: touching it faults. */
#define SELFTEST_BAD_ADDRESS 0x0000700000000000ull

static struct mb2_info boot;


static void __attribute__((noreturn)) finish(int pass, const char *reason)
{
	if (pass)
		kprintf("RESULT exit status=pass\n");
	else
		kprintf("RESULT exit status=fail reason=%s\n", reason);
	power_exit(pass ? POWER_PASS : POWER_FAIL);
}

/* A scheduler run that completed ends with its verdict (kernel/run/
 * verdict.h): pass, late (the platform did not keep its time) or fail. */
static void __attribute__((noreturn)) finish_run(void)
{
	const char *reason = "";
	enum verdict_status v = verdict_report(&reason);
	if (v != VERDICT_LATE)
		finish(v != VERDICT_FAIL, reason);
	kprintf("RESULT exit status=late reason=%s late_max_us=%llu\n", reason,
		(unsigned long long)verdict_late_max_us());
	power_exit(POWER_LATE);
}

/* What the command line says the boot's clock is (make run's TIMING=). */
static void report_timing(void)
{
	if (options.timing == TIMING_VIRTUAL)
		kprintf("timing: virtual (timing=virtual: QEMU -icount, time "
			"advances with the instructions run; a scheduler's run is "
			"its plan every time, and durations are instruction "
			"counts, not this host's)\n");
	else if (options.timing == TIMING_REAL)
		kprintf("timing: real (timing=real: the emulator's or the "
			"machine's clock; under plain TCG a busy host makes timers "
			"late, and the run says so)\n");
}

/* The task set (the first module) under plugin: its threads first, then
 * the run that the plugin's kind takes -- at quantum boundaries or at
 * events. */
static int run_taskset(const struct sched_plugin *plugin, const char *file,
		       const char **reason)
{
	struct sched_run_setup run;
	if (sched_run_prepare(plugin, file, boot.module, boot.module_len,
			      options.slots, &run, reason))
		return -1;
	if (plugin->event_us)
		return event_run(plugin, file, run.ts, run.cpus, run.idle,
				 options.slots, options.quantum_us, reason);
	return sched_run_quanta(plugin, file, run.idle, options.slots,
				options.quantum_us, reason);
}

static void start_framebuffer(void)
{
	if (!boot.have_fb || boot.fb.type != 1) {
		if (!boot.efi) {
			console_enable_vga_text();
			kprintf("fb: none from the loader; console on serial and "
				"VGA text\n");
		} else {
			kprintf("fb: no usable framebuffer; console on serial "
				"only\n");
		}
		return;
	}
	kprintf("fb: %ux%ux%u, pitch %u, at %#llx\n", boot.fb.width,
		boot.fb.height, boot.fb.bpp, boot.fb.pitch,
		(unsigned long long)boot.fb.addr);
	uint64_t size = (uint64_t)boot.fb.pitch * boot.fb.height;
	void *base = paging_map_phys(boot.fb.addr, size);
	if (!base) {
		kprintf("fb: cannot map the framebuffer at %#llx\n",
			(unsigned long long)boot.fb.addr);
		return;
	}
	/* GRUB derives the depth of a UEFI GOP mode from its colour masks, so
	 * a PixelBitMask mode without a reserved mask says 24 although GOP
	 * pixels are always 4 bytes (UEFI spec, EFI_GRAPHICS_OUTPUT_PROTOCOL
	 * frame buffer: one 32-bit word a pixel). Decided: a 24-bit
	 * mode whose pitch holds 4 bytes a pixel is stored as 32-bit; no
	 * 3-byte mode pads its lines by a third. */
	uint8_t bpp = boot.fb.bpp;
	if (bpp == 24 && boot.fb.pitch >= 4ull * boot.fb.width) {
		bpp = 32;
		kprintf("fb: 24-bit colour in 32-bit pixels (the pitch says "
			"so)\n");
	}
	struct fbcon_mode m = {
		.base = base, .pitch = boot.fb.pitch, .width = boot.fb.width,
		.height = boot.fb.height, .bpp = bpp,
		.red_pos = boot.fb.red_pos, .red_size = boot.fb.red_size,
		.green_pos = boot.fb.green_pos, .green_size = boot.fb.green_size,
		.blue_pos = boot.fb.blue_pos, .blue_size = boot.fb.blue_size,
	};
	if (fbcon_init(&m) == 0)
		console_enable_fb();
}

static void report_tsc(void)
{
	kprintf("tsc: %llu.%03llu MHz from %s (calibration %llu us, %u reads "
		"rejected), invariant %s\n",
		(unsigned long long)(tsc.khz / 1000),
		(unsigned long long)(tsc.khz % 1000), tsc.method,
		(unsigned long long)tsc.calib_us, tsc.rejected_reads,
		tsc.invariant ? "yes" : "no");
	for (unsigned i = 0; i < tsc.ntried; i++)
		kprintf("  %-8s %llu kHz%s\n", tsc.tried[i].name,
			(unsigned long long)tsc.tried[i].khz,
			tsc.tried[i].coarse ? " (whole MHz: shown, not used)" : "");
}

static void fault_on_ap(void *arg)
{
	(void)arg;
	if (this_cpu()->cpu == 1)
		*(volatile uint64_t *)SELFTEST_BAD_ADDRESS = 1;
}

void kernel_main(uint32_t magic, uint32_t info_phys)
{
	console_init();
	arch_log_set_sink(kvprintf);
	panic_init();
	kprintf("\nrtk: real-time SMP microkernel\n");
	if (mb2_parse(magic, info_phys, &boot) != 0) {
		kprintf("boot: not started by a multiboot2 loader (magic %#x)\n",
			magic);
		finish(0, "not_multiboot2");
	}
	pic_disable();
	smp_init_bsp();
	options_parse(boot.cmdline);
	if (options.end_halt)
		power_halt_at_end();
	if (options.e9)
		uart_set_e9_echo(1);
	kprintf("cmdline: %s\n", boot.cmdline ? boot.cmdline : "");
	report_timing();
	bootmem_init(&boot, info_phys, *(const uint32_t *)(uint64_t)info_phys);
	start_framebuffer();
	const char *hv = power_hypervisor();
	kprintf("boot: %s firmware, hypervisor '%s'\n", boot.efi ? "UEFI" : "BIOS",
		hv);

	unsigned found = acpi_init(boot.rsdp_v1, boot.rsdp_v2);
	kprintf("acpi: %u CPUs from %s (%u online-capable for later, %u "
		"disabled), %u I/O APICs, HPET %s, PM timer %s, S5 %s\n", found,
		acpi.source, acpi.ncpus_hotplug, acpi.ncpus_disabled,
		acpi.nioapics, acpi.hpet_addr ? "yes" : "no",
		acpi.pm_timer_port ? "yes" : "no", acpi.have_s5 ? "yes" : "no");
	if (options.fatal)
		finish(0, "cmdline");
	smp_init_bsp_apic(acpi.lapic_addr);
	/* The 8259s are masked (pic_disable); the I/O APICs too, until a
	 * source is routed (kernel/arrivals/arrival_irq.c). */
	if (acpi.nioapics)
		kprintf("ioapic: %u inputs, %u ISA overrides, all masked\n",
			ioapic_init(), acpi.noverrides);
	/* The firmware tables are read: page 0 (the BIOS data area) is done
	 * with, and becomes the hole that catches NULL pointers. */
	vm_init();
	program_setup(&boot);

	tsc_calibrate();
	if (!tsc.khz) {
		kprintf("tsc: every calibration method failed\n");
		finish(0, "tsc_calibration");
	}
	qclock_init();
	smp_boot_aps();
	report_tsc();
	kprintf("smp: %u of %u CPUs online in %llu us, %s, worst TSC offset %lld "
		"cycles\n", smp.online, smp.found,
		(unsigned long long)smp.bringup_us,
		lapic_is_x2apic() ? "x2APIC" : "xAPIC",
		(long long)smp.max_skew_cycles);
	kprintf("RESULT smp cpus_found=%u cpus_online=%u bringup_us=%llu apic=%s "
		"cpus_unsupported=%u\n", smp.found, smp.online,
		(unsigned long long)smp.bringup_us,
		lapic_is_x2apic() ? "x2apic" : "xapic", smp.unsupported);
	kprintf("RESULT tsc freq_mhz=%llu.%03llu method=%s disagree_ppm=%llu "
		"invariant=%d max_skew_cycles=%lld deadline=%d khz=%llu "
		"calib_us=%llu\n",
		(unsigned long long)(tsc.khz / 1000),
		(unsigned long long)(tsc.khz % 1000), tsc.method,
		(unsigned long long)tsc.disagree_ppm, tsc.invariant,
		(long long)smp.max_skew_cycles, qclock_deadline_mode(),
		(unsigned long long)tsc.khz, (unsigned long long)tsc.calib_us);
	const char *hw_reason = "";
	int hw = hwreport_boot(&hw_reason);     /* RESULT cpu; hwreport=on */
	if (hw >= 0)
		finish(hw, hw_reason);
	gdbstub_init();

	if (options.selftest == SELFTEST_PF_BSP)
		*(volatile uint64_t *)SELFTEST_BAD_ADDRESS = 1;
	if (options.selftest == SELFTEST_PF_AP) {
		if (smp.online < 2)
			kprintf("selftest: pf_ap needs an AP; there is none\n");
		else
			smp_run_on_all(fault_on_ap, 0, 1000000);
	}

	if (options.arrivals == ARRIVALS_HPET ||
	    options.arrivals == ARRIVALS_UART) {
		int hpet = options.arrivals == ARRIVALS_HPET;
		if (arrivals_check(hpet ? ARRIVALS_SOURCE_HPET : ARRIVALS_SOURCE_UART,
				      (unsigned)options.irq_cpu, hpet ?
				      "arrivals=hpet" : "arrivals=uart"))
			finish(0, "arrivals");
		if (hpet)
			kprintf("arrivals: HPET comparator 0 by %s to CPU %llu\n",
				arrival_hpet_route(),
				(unsigned long long)options.irq_cpu);
		else
			kprintf("arrivals: typed on COM1, to CPU %llu\n",
				(unsigned long long)options.irq_cpu);
	}
	if (options.irqcheck != IRQCHECK_OFF) {
		const char *reason = "";
		if (!boot.module_name) {
			kprintf("irqcheck: it needs a task set with servers: pass "
				"one as a multiboot2 module (make run "
				"TASKS=file.tasks)\n");
			finish(0, "no_taskset");
		}
		int rc = irqcheck_run(options.irqcheck, boot.module_name[0] ?
				      boot.module_name : "taskset", boot.module,
				      boot.module_len,
				      options.slots * options.quantum_us,
				      (unsigned)options.irq_cpu, &reason);
		kprintf("\n");
		finish(rc == 0, reason);
	}
	if (options.sched) {
		const char *reason = "";
		if (!boot.module_name) {
			kprintf("sched: sched=%s needs a task set: pass one as a "
				"multiboot2 module (make run TASKS=file.tasks)\n",
				options.sched->name);
			finish(0, "no_taskset");
		}
		int rc = run_taskset(options.sched, boot.module_name[0] ?
				     boot.module_name : "taskset", &reason);
		kprintf("\n");
		if (rc == 0)
			finish_run();
		finish(0, reason);
	}
	if (boot.module_name)
		kprintf("taskset: a module was given but no sched=; it is not "
			"used\n");

	int ok = 1;
	const char *reason = "quantum_clock";
	for (int staggered = 0; staggered <= 1 && ok; staggered++)
		if (options.ticks & (staggered ? TICKS_STAGGERED : TICKS_ALIGNED))
			ok = clock_selftest(staggered, options.slots,
					    options.quantum_us,
					    options.trace == TRACE_TICK_LINES,
					    &reason) == 0;
	kprintf("\n");
	finish(ok, reason);
}
