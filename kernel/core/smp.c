/*
 * kernel/core/smp: bringing up the application processors, and running work on
 * all of them.
 *
 * Every AP is started at once -- INIT to all, then SIPI to all -- and runs
 * the one trampoline, which finds its stack and index by its own APIC ID in
 * a table (boot/trampoline.asm). Under an emulator with more virtual CPUs
 * than host cores, a CPU that spins takes host time from the CPU doing the
 * work, so bring-up used to grow with the square of the CPU count: every
 * CPU that waits here halts and is woken by an IPI (VEC_SMP_WAKE). The one
 * spin left is the TSC handshake's, where a microsecond is what is
 * measured, and it is bounded by spin_us= as the scheduler's turns are.
 */
#include "smp.h"

#include "../../arch/x86/acpi.h"
#include "../../arch/x86/cpu.h"
#include "../../arch/x86/desc.h"
#include "../../arch/x86/percpu.h"
#include "../../arch/x86/trap.h"
#include "../../arch/x86/tsc.h"
#include "../../drivers/apic/lapic.h"
#include "bootmem.h"
#include "console.h"
#include "options.h"
#include "panic.h"

struct smp_info smp;

/* MP spec B.4.1: 10 ms after INIT; 200 us between the two SIPIs. Each is
 * waited once for all the APs together. */
#define INIT_DELAY_US 10000
#define SIPI_DELAY_US 200
/* How long the APs, all together, may take to check in. */
#define CHECKIN_TIMEOUT_US 2000000
/* How long the CPUs may take to move to their final records. */
#define MOVE_TIMEOUT_US 2000000
/* The TSC handshake: at least SKEW_ROUNDS round trips, and then more until
 * one takes under SKEW_GOOD_US -- which bounds the offset within half of
 * that, well inside the 7.8 us between staggered boundaries at M = 128 --
 * or SKEW_BUDGET_US have passed. On hardware the first rounds are far
 * shorter; under an emulator on a busy host the two CPUs run at the same
 * time only now and then. */
#define SKEW_ROUNDS 32
#define SKEW_GOOD_US 2
#define SKEW_BUDGET_US 5000
/* sync_round's value that ends a handshake. */
#define SKEW_DONE (~0ull)
/* A CPU waiting with a deadline is woken this often, in local APIC timer
 * ticks at divide-by-1, to look at the TSC: 1 ms on QEMU's 1 GHz timer,
 * tens of ms on a bus clock of tens of MHz. It bounds only how late a
 * timeout is noticed, so the timer needs no calibration here. */
#define POLL_TICKS 1000000u
#define NO_DEADLINE (~0ull)
/* The xAPIC ICR's destination field is 8 bits and 0xff broadcasts (SDM
 * vol. 3, 11.6.1): higher IDs need x2APIC mode. */
#define XAPIC_MAX_ID 0xfe

extern const uint8_t ap_trampoline_start[], ap_trampoline_end[];
extern const uint8_t trampoline[], trampoline_data[], ap_trampoline_page[];

/* boot/trampoline.asm's data block, written once before the first SIPI. */
struct trampoline_data {
	uint64_t cr3, entry;
	uint64_t table, count;    /* struct ap_start[count] */
};

/* One AP in the table the trampoline searches by APIC ID (it reads these
 * offsets). */
struct ap_start {
	uint64_t stack_top;
	uint32_t apic_id;
	uint32_t cpu;
};
_Static_assert(sizeof(struct ap_start) == 16,
	       "boot/trampoline.asm steps through the table by 16 bytes");

/*
 * An AP's way through bring-up. The AP claims its slot (STARTING ->
 * ARRIVED) and the BSP gives up on a late one (STARTING -> ABSENT) with
 * one compare-and-swap each, so an AP that comes after the timeout finds
 * itself given up and stays out of everything shared.
 */
enum ap_step {
	AP_STARTING,    /* INIT/SIPI sent */
	AP_ARRIVED,     /* in smp_ap_main */
	AP_READY,       /* set up; halted until the BSP measures its TSC */
	AP_MEASURE,     /* the BSP has started the handshake */
	AP_ABSENT,      /* not checked in within CHECKIN_TIMEOUT_US */
};

/* The CPUs being started: slot 0 is the BSP, slot s >= 1 the AP in
 * start[s - 1]; slots are the firmware's order. */
static struct {
	struct percpu *records;
	struct ap_start *start;
	volatile uint32_t *step;        /* enum ap_step per slot */
	unsigned slots;
	volatile unsigned ready;        /* APs that reached AP_READY */
} boot;

static uint32_t bsp_apic_id;

static void on_wake(struct trap_frame *f)
{
	(void)f;
	lapic_eoi();
}

/*
 * Halts until done(arg) or the deadline, woken by VEC_SMP_WAKE from the CPU
 * that makes done() true; with a deadline, also by the local APIC timer
 * every POLL_TICKS to look at the TSC. Returns with interrupts disabled.
 */
static void halt_until(int (*done)(const void *), const void *arg,
		       uint64_t deadline)
{
	irq_disable();
	int timed = deadline != NO_DEADLINE;
	if (timed)
		lapic_timer_setup(VEC_SMP_WAKE, 0);
	while (!done(arg) && rdtsc() < deadline) {
		if (timed)
			lapic_timer_arm_count(POLL_TICKS);
		/* A wake-up sent after done() was read is taken by the HLT
		 * itself, in STI's shadow: it cannot be lost. */
		cpu_wait_for_interrupt();
		irq_disable();
	}
	if (timed)
		lapic_timer_stop();
}

/*
 * TSC handshake, one AP at a time. Each side waits for the other spinning,
 * up to spin_us= -- on hardware a round trip takes well under that, and a
 * spin is what keeps it short -- and then halted until the other side,
 * seeing it parked, sends VEC_SMP_WAKE: on an emulator whose host is busy,
 * the CPU waited for may not be running at all, and spinning would keep it
 * off the host core longer. A round with a halt has a long round trip and
 * is not the one kept.
 */
static volatile uint64_t sync_round, sync_reply, sync_ap_tsc;
static volatile int bsp_parked, ap_parked;
static uint64_t spin_cycles;

/* Waits until *word is no longer old. */
static void spin_then_halt(volatile uint64_t *word, uint64_t old,
			   volatile int *parked)
{
	irq_disable();
	uint64_t spin_until = rdtsc() + spin_cycles;
	while (*word == old) {
		if (rdtsc() < spin_until) {
			cpu_relax();
			continue;
		}
		/* Announce, then look again: with the fences on both sides
		 * either the writer sees parked or this CPU sees the word. */
		*parked = 1;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (*word == old)
			cpu_wait_for_interrupt();
		irq_disable();
		*parked = 0;
	}
}

/* After writing what the other side waits for. */
static void wake_if_parked(volatile int *parked, uint32_t apic_id)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (*parked)
		lapic_send_ipi(apic_id, VEC_SMP_WAKE);
}

/* The AP's TSC minus the BSP's: the AP stamps its TSC between the BSP's
 * two stamps; the round with the shortest round trip bounds it best. */
static int64_t measure_offset(uint32_t ap_apic_id)
{
	int64_t best = 0;
	uint64_t best_rtt = ~0ull, good = tsc_from_us(SKEW_GOOD_US);
	uint64_t budget_end = rdtsc() + tsc_from_us(SKEW_BUDGET_US);
	for (uint64_t r = 1; r <= SKEW_ROUNDS ||
	     (best_rtt > good && rdtsc() < budget_end); r++) {
		uint64_t t0 = rdtsc_ordered();
		sync_round = r;
		wake_if_parked(&ap_parked, ap_apic_id);
		spin_then_halt(&sync_reply, r - 1, &bsp_parked);
		uint64_t t1 = rdtsc_ordered();
		if (t1 - t0 < best_rtt) {
			best_rtt = t1 - t0;
			best = (int64_t)(sync_ap_tsc - (t0 + (t1 - t0) / 2));
		}
	}
	sync_round = SKEW_DONE;
	wake_if_parked(&ap_parked, ap_apic_id);
	return best;
}

static void answer_offset(void)
{
	uint64_t r = 0;
	for (;;) {
		/* The BSP moves on only once answered: the round read after
		 * the wait is the one to answer. */
		spin_then_halt(&sync_round, r, &ap_parked);
		r = sync_round;
		if (r == SKEW_DONE)
			return;
		sync_ap_tsc = rdtsc_ordered();
		sync_reply = r;
		wake_if_parked(&bsp_parked, bsp_apic_id);
	}
}

/* Work for all CPUs (smp_run_on_all). */
static void (*volatile work_fn)(void *);
static void *volatile work_arg;
static volatile uint64_t work_generation;
static volatile unsigned work_done;

static int new_work(const void *seen)
{
	return work_generation != *(const uint64_t *)seen;
}

static int all_done(const void *unused)
{
	(void)unused;
	return __atomic_load_n(&work_done, __ATOMIC_ACQUIRE) + 1 >= smp.online;
}

static void __attribute__((noreturn)) work_loop(void)
{
	uint64_t seen = 0;
	for (;;) {
		halt_until(new_work, &seen, NO_DEADLINE);
		seen = work_generation;
		work_fn(work_arg);
		if (__atomic_add_fetch(&work_done, 1, __ATOMIC_SEQ_CST) + 1 ==
		    smp.online)
			lapic_send_ipi(bsp_apic_id, VEC_SMP_WAKE);
	}
}

unsigned smp_run_on_all(void (*fn)(void *), void *arg, uint64_t timeout_us)
{
	work_fn = fn;
	work_arg = arg;
	work_done = 0;
	__atomic_add_fetch(&work_generation, 1, __ATOMIC_SEQ_CST);
	if (smp.online > 1)
		lapic_send_ipi_others(VEC_SMP_WAKE);
	fn(arg);
	/* From the end of this CPU's own call: a machine stopped in a
	 * debugger meanwhile does not count against the others. */
	uint64_t deadline = rdtsc() + tsc_from_us(timeout_us);
	halt_until(all_done, 0, deadline);
	return smp.online - 1 - work_done;
}

void smp_halt_until(int (*done)(const void *), const void *arg,
		    uint64_t deadline)
{
	halt_until(done, arg, deadline);
}

void smp_init_bsp(void)
{
	desc_init_idt();
	percpu_setup_boot_cpu();
	percpu[0].state = CPU_ONLINE;
	trap_set_handler(VEC_SMP_WAKE, on_wake);
}

void smp_init_bsp_apic(uint64_t mmio_base)
{
	lapic_init_bsp(mmio_base);
	lapic_init_cpu();
	bsp_apic_id = percpu[0].apic_id = lapic_id();
}

static void __attribute__((noreturn)) park(void)
{
	for (;;) {
		irq_disable();
		cpu_halt();
	}
}

static int measure_called(const void *cpu)
{
	return boot.step[*(const uint32_t *)cpu] == AP_MEASURE;
}

void smp_ap_main(uint32_t cpu)
{
	struct percpu *p = &boot.records[cpu];
	/* Descriptors first, so that even a CPU given up for lost has
	 * somewhere to take an NMI (a panic stops every CPU with one). Its
	 * record is its own either way. */
	percpu_setup(p);
	uint32_t expect = AP_STARTING;
	if (!__atomic_compare_exchange_n(&boot.step[cpu], &expect, AP_ARRIVED,
					 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		park();
	lapic_init_cpu();
	if (lapic_id() != p->apic_id)
		kprintf("smp: cpu %u expected APIC ID %u, has %u\n", cpu,
			p->apic_id, lapic_id());
	__atomic_store_n(&boot.step[cpu], AP_READY, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&boot.ready, 1, __ATOMIC_SEQ_CST);
	lapic_send_ipi(bsp_apic_id, VEC_SMP_WAKE);
	halt_until(measure_called, &cpu, NO_DEADLINE);
	answer_offset();
	work_loop();
}

/* Whether the AP with this APIC ID can be started, after n others; names
 * the ones that cannot. */
static int can_start(uint32_t id, unsigned n)
{
	if (!lapic_is_x2apic() && id > XAPIC_MAX_ID) {
		kprintf("smp: CPU with APIC ID %u needs x2APIC mode, which the "
			"boot CPU does not offer; left out\n", id);
		return 0;
	}
	if (n + 1 >= MAX_CPUS) {
		kprintf("smp: CPU with APIC ID %u is beyond the kernel's %d "
			"CPUs; left out\n", id, MAX_CPUS);
		return 0;
	}
	return 1;
}

/* The slots: memory for as many CPUs as the firmware lists, the BSP moved
 * onto slot 0, and every AP's record, stacks and table entry. */
static void prepare_slots(void)
{
	unsigned most = acpi.ncpus + 1;
	boot.records = bootmem_alloc(most * sizeof *boot.records);
	boot.start = bootmem_alloc(most * sizeof *boot.start);
	boot.step = bootmem_alloc(most * sizeof *boot.step);
	percpu_move(&boot.records[0], 0);
	unsigned n = 0;
	for (unsigned i = 0; i < acpi.ncpus; i++) {
		uint32_t id = acpi.cpu[i].apic_id;
		if (id == bsp_apic_id)
			continue;
		if (!can_start(id, n)) {
			smp.unsupported++;
			continue;
		}
		boot.start[n].apic_id = id;
		boot.start[n].cpu = n + 1;
		n++;
	}
	boot.slots = n + 1;
	uint8_t *mem = bootmem_alloc((uint64_t)n *
				     (KSTACK_SIZE + PERCPU_IST_BYTES));
	for (unsigned s = 1; s <= n; s++) {
		struct percpu *p = &boot.records[s];
		uint8_t *own = mem + (uint64_t)(s - 1) *
					     (KSTACK_SIZE + PERCPU_IST_BYTES);
		p->cpu = s;
		p->apic_id = boot.start[s - 1].apic_id;
		p->ist_stacks = own;
		p->stack_top = own + PERCPU_IST_BYTES + KSTACK_SIZE;
		p->state = CPU_STARTING;
		boot.start[s - 1].stack_top = (uint64_t)p->stack_top;
		boot.step[s] = AP_STARTING;
	}
	percpu = boot.records;
	cpu_count = boot.slots;     /* GDB's `cpus` shows them starting */
}

/* INIT to every AP, then SIPI to every AP, then again to those not yet
 * arrived (MP spec B.4: a second SIPI if the first was not taken; an AP
 * already running ignores it). */
static void start_all(void)
{
	uint8_t *page = (uint8_t *)(uint64_t)ap_trampoline_page;
	uint64_t size = (uint64_t)(ap_trampoline_end - ap_trampoline_start);
	for (uint64_t i = 0; i < size; i++)
		page[i] = ap_trampoline_start[i];
	struct trampoline_data *d =
		(struct trampoline_data *)(page + (trampoline_data - trampoline));
	d->cr3 = read_cr3();
	d->entry = (uint64_t)smp_ap_main;
	d->table = (uint64_t)boot.start;
	d->count = boot.slots - 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	lapic_error_status();
	for (unsigned s = 1; s < boot.slots; s++)
		lapic_send_init(boot.records[s].apic_id);
	tsc_delay_us(INIT_DELAY_US);
	for (int sipi = 0; sipi < 2; sipi++) {
		if (sipi)
			tsc_delay_us(SIPI_DELAY_US);
		for (unsigned s = 1; s < boot.slots; s++) {
			if (boot.step[s] != AP_STARTING)
				continue;
			uint32_t id = boot.records[s].apic_id;
			lapic_send_startup(id, (uint8_t)((uint64_t)page >> 12));
			uint32_t esr = lapic_error_status();
			if (esr)
				kprintf("smp: APIC error status %#x after SIPI to "
					"APIC ID %u\n", esr, id);
		}
	}
}

/* Measures the TSC of the AP in slot s, which is halted in AP_READY. */
static void measure(unsigned s)
{
	struct percpu *p = &boot.records[s];
	sync_round = 0;
	sync_reply = 0;
	__atomic_store_n(&boot.step[s], AP_MEASURE, __ATOMIC_SEQ_CST);
	lapic_send_ipi(p->apic_id, VEC_SMP_WAKE);
	p->tsc_offset = measure_offset(p->apic_id);
	p->state = CPU_ONLINE;
	int64_t mag = p->tsc_offset < 0 ? -p->tsc_offset : p->tsc_offset;
	if (mag > smp.max_skew_cycles)
		smp.max_skew_cycles = mag;
	smp.online++;
}

static int more_ready(const void *taken)
{
	return boot.ready != *(const unsigned *)taken;
}

/* Gives up on every AP that has not arrived; returns how many. */
static unsigned give_up_on_late(void)
{
	unsigned n = 0;
	for (unsigned s = 1; s < boot.slots; s++) {
		uint32_t expect = AP_STARTING;
		if (!__atomic_compare_exchange_n(&boot.step[s], &expect,
						 AP_ABSENT, 0, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			continue;
		uint32_t id = boot.records[s].apic_id;
		boot.records[s].state = CPU_ABSENT;
		kprintf("smp: CPU with APIC ID %u did not come up; going on "
			"without it\n", id);
		kprintf("RESULT smp_missing apic_id=%u\n", id);
		n++;
	}
	return n;
}

/* Measures each AP as it becomes ready, in the order they come, until
 * every one is online or given up for lost. */
static void check_in_all(void)
{
	unsigned taken = 0, left = boot.slots - 1;
	uint64_t deadline = rdtsc() + tsc_from_us(CHECKIN_TIMEOUT_US);
	while (left) {
		if (boot.ready != taken) {
			unsigned s = 1;
			while (boot.step[s] != AP_READY)
				s++;
			taken++;
			left--;
			measure(s);
		} else if (deadline != NO_DEADLINE && rdtsc() >= deadline) {
			left -= give_up_on_late();
			/* The ones that arrived are setting up: microseconds. */
			deadline = NO_DEADLINE;
		} else {
			halt_until(more_ready, &taken, deadline);
		}
	}
}

/*
 * CPU k is the k-th online CPU in the firmware's order, without holes (the
 * quantum clock staggers CPU k by k*Q/M): when bring-up ends, every online
 * CPU moves from its start-up slot to record k of a table for the CPUs
 * online. Every boot with an AP takes this path, whether or not one was
 * given up for lost.
 */
static struct percpu *numbered;

static void move_record(void *unused)
{
	(void)unused;
	unsigned slot = this_cpu()->cpu, k = 0;
	for (unsigned s = 0; s < slot; s++)
		k += boot.records[s].state == CPU_ONLINE;
	percpu_move(&numbered[k], k);
}

static void number_online_cpus(void)
{
	numbered = bootmem_alloc(smp.online * sizeof *numbered);
	unsigned late = smp_run_on_all(move_record, 0, MOVE_TIMEOUT_US);
	if (late)
		panic("smp_renumber", "%u CPUs did not move to their records",
		      late);
	percpu = numbered;
	cpu_count = smp.online;
}

void smp_boot_aps(void)
{
	uint64_t start = rdtsc();
	smp.found = acpi.ncpus + acpi.ncpus_dropped;
	if (smp.found == 0)
		smp.found = 1;
	smp.unsupported = acpi.ncpus_dropped;
	smp.online = 1;
	spin_cycles = tsc_from_us(options.spin_us);
	prepare_slots();
	if (boot.slots > 1) {
		start_all();
		check_in_all();
		number_online_cpus();
	}
	smp.bringup_us = tsc_to_us(rdtsc() - start);
}
