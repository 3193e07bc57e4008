/* kernel/smp: bringing up the application processors. */
#include "smp.h"

#include "../arch/x86/acpi.h"
#include "../arch/x86/cpu.h"
#include "../arch/x86/desc.h"
#include "../arch/x86/percpu.h"
#include "../arch/x86/tsc.h"
#include "../drivers/apic/lapic.h"
#include "console.h"

struct smp_info smp;

static uint8_t kstacks[MAX_CPUS][KSTACK_SIZE] __attribute__((aligned(16)));

/* The trampoline's page (boot/trampoline.asm): below 1 MiB, page-aligned,
 * in conventional memory that BIOS and UEFI leave free. */
#define SMP_TRAMPOLINE 0x8000
/* MP spec B.4.1: 10 ms after INIT; 200 us between the two SIPIs. */
#define INIT_DELAY_US 10000
#define SIPI_DELAY_US 200
/* How long an AP may take to check in. Generous: 32 emulated CPUs on two
 * host cores start slowly. */
#define CHECKIN_TIMEOUT_US 2000000
#define SKEW_ROUNDS 32

extern const uint8_t ap_trampoline_start[], ap_trampoline_end[];
extern uint8_t trampoline_data[], trampoline[];

struct trampoline_data {
	uint64_t cr3, stack, entry, cpu;
};

void smp_init_bsp(void)
{
	desc_init_idt();
	percpu_setup_cpu(0);
	/* The local APIC waits for ACPI's address: smp_init_bsp_apic(). */
	percpu[0].state = CPU_ONLINE;
	percpu[0].stack_top = 0;
	cpu_count = 1;
}

/* TSC handshake (BSP side of measure_offset). */
static volatile uint64_t sync_round, sync_reply, sync_ap_tsc;
static volatile int sync_active;

/* The AP's TSC minus the BSP's: the AP stamps its TSC between the BSP's
 * two stamps; the round with the shortest round trip bounds it best. */
static int64_t measure_offset(void)
{
	int64_t best = 0;
	uint64_t best_rtt = ~0ull;
	for (uint64_t r = 1; r <= SKEW_ROUNDS; r++) {
		uint64_t t0 = rdtsc_ordered();
		sync_round = r;
		while (sync_reply != r)
			cpu_relax();
		uint64_t t1 = rdtsc_ordered();
		if (t1 - t0 < best_rtt) {
			best_rtt = t1 - t0;
			best = (int64_t)(sync_ap_tsc - (t0 + (t1 - t0) / 2));
		}
	}
	sync_round = 0;
	return best;
}

static void answer_offset(void)
{
	for (uint64_t r = 1; r <= SKEW_ROUNDS; r++) {
		while (sync_round != r)
			cpu_relax();
		sync_ap_tsc = rdtsc_ordered();
		sync_reply = r;
	}
}

/* Work for all CPUs (smp_run_on_all). */
static void (*volatile work_fn)(void *);
static void *volatile work_arg;
static volatile uint64_t work_generation;
static volatile unsigned work_done;

void smp_init_bsp_apic(uint64_t mmio_base)
{
	lapic_init_bsp(mmio_base);
	lapic_init_cpu();
	percpu[0].apic_id = lapic_id();
}

void smp_ap_main(uint32_t cpu)
{
	percpu_setup_cpu(cpu);
	lapic_init_cpu();
	struct percpu *p = &percpu[cpu];
	if (lapic_id() != p->apic_id)
		kprintf("smp: cpu %u expected APIC ID %u, has %u\n", cpu,
			p->apic_id, lapic_id());
	sync_active = 1;
	answer_offset();
	p->state = CPU_ONLINE;
	uint64_t seen = 0;
	for (;;) {
		while (work_generation == seen)
			cpu_relax();
		seen = work_generation;
		work_fn(work_arg);
		__atomic_add_fetch(&work_done, 1, __ATOMIC_SEQ_CST);
	}
}

unsigned smp_run_on_all(void (*fn)(void *), void *arg, uint64_t timeout_us)
{
	work_fn = fn;
	work_arg = arg;
	work_done = 0;
	__atomic_add_fetch(&work_generation, 1, __ATOMIC_SEQ_CST);
	uint64_t deadline = rdtsc() + tsc_from_us(timeout_us);
	fn(arg);
	while (work_done + 1 < smp.online && rdtsc() < deadline)
		cpu_relax();
	return smp.online - 1 - work_done;
}

static int start_ap(unsigned cpu, uint32_t apic_id)
{
	struct percpu *p = &percpu[cpu];
	p->apic_id = apic_id;
	p->cpu = cpu;
	p->stack_top = kstacks[cpu] + KSTACK_SIZE;
	/* A fresh copy for each AP: the trampoline patches itself. */
	uint8_t *page = (uint8_t *)SMP_TRAMPOLINE;
	uint64_t size = (uint64_t)(ap_trampoline_end - ap_trampoline_start);
	for (uint64_t i = 0; i < size; i++)
		page[i] = ap_trampoline_start[i];
	struct trampoline_data *d =
		(struct trampoline_data *)(page + (trampoline_data - trampoline));
	d->cr3 = read_cr3();
	d->stack = (uint64_t)p->stack_top;
	d->entry = (uint64_t)smp_ap_main;
	d->cpu = cpu;
	p->state = CPU_STARTING;
	sync_active = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	lapic_error_status();
	lapic_send_init(apic_id);
	tsc_delay_us(INIT_DELAY_US);
	for (int sipi = 0; sipi < 2 && !sync_active; sipi++) {
		lapic_send_startup(apic_id, SMP_TRAMPOLINE >> 12);
		tsc_delay_us(SIPI_DELAY_US);
		uint32_t esr = lapic_error_status();
		if (esr)
			kprintf("smp: APIC error status %#x after SIPI to APIC ID "
				"%u\n", esr, apic_id);
	}
	uint64_t deadline = rdtsc() + tsc_from_us(CHECKIN_TIMEOUT_US);
	while (!sync_active && rdtsc() < deadline)
		cpu_relax();
	if (!sync_active) {
		p->state = CPU_ABSENT;
		return -1;
	}
	p->tsc_offset = measure_offset();
	while (p->state != CPU_ONLINE)
		cpu_relax();
	return 0;
}

void smp_boot_aps(void)
{
	uint64_t start = rdtsc();
	uint32_t bsp_id = percpu[0].apic_id;
	smp.found = acpi.ncpus ? acpi.ncpus : 1;
	smp.online = 1;
	unsigned next = 1;
	for (unsigned i = 0; i < acpi.ncpus && next < MAX_CPUS; i++) {
		uint32_t id = acpi.cpu[i].apic_id;
		if (id == bsp_id)
			continue;
		if (!lapic_is_x2apic() && id > 0xfe) {
			kprintf("smp: APIC ID %u needs x2APIC; skipped\n", id);
			continue;
		}
		cpu_count = next + 1;   /* GDB's `cpus` shows the CPU starting */
		if (start_ap(next, id) == 0) {
			int64_t off = percpu[next].tsc_offset;
			int64_t mag = off < 0 ? -off : off;
			if (mag > smp.max_skew_cycles)
				smp.max_skew_cycles = mag;
			smp.online++;
			next++;
		} else {
			kprintf("smp: CPU with APIC ID %u did not come up; going on "
				"without it\n", id);
			kprintf("RESULT smp_missing apic_id=%u\n", id);
			cpu_count = next;
		}
	}
	cpu_count = next;
	smp.bringup_us = tsc_to_us(rdtsc() - start);
}
