/*
 * kernel/arrivals/arrival_hpet: lib/arrival's arrivals as HPET comparator interrupts.
 *
 * The comparator is programmed only by its own handler, on the CPU the
 * interrupt is routed to: the start sends that CPU the vector as an IPI,
 * and the handler delivers what is due and arms the next arrival. A count
 * already passed when it is armed would not interrupt until the counter
 * wraps (IA-PC HPET 1.0a, 2.3.9.2.1), so after arming the handler reads the
 * counter again and delivers such an arrival itself. An interrupt that finds
 * nothing due (an emulator firing for a passed count) re-arms and returns.
 */
#include "arrival_hpet.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/hpet.h"
#include "../../arch/x86/trap.h"
#include "../../arch/x86/tsc.h"
#include "../../drivers/apic/ioapic.h"
#include "../../drivers/apic/lapic.h"
#include "../../lib/arrival.h"
#include "../../lib/fmt.h"
#include "../../lib/intmath.h"
#include "../core/console.h"

/* Generated streams: one per server with an `arrivals` line, at most one
 * per task-set entry (kernel/run/sched_run.c takes 256). */
#define MAX_GENERATORS 256
/* PCI-side I/O APIC inputs, which no ISA device shares (ACPI 6.4,
 * 5.2.13: ISA IRQs are GSIs 0-15 unless overridden). */
#define FIRST_PCI_GSI 16
#define LAST_ROUTE_GSI 31
/* IA-PC HPET 1.0a, 2.3.5, LEG_RT_CNF: comparator 0 drives I/O APIC input
 * 2 in place of the PIT. */
#define LEGACY_GSI 2

static struct arrival_gen gens[MAX_GENERATORS];
static struct arrival_stream stream;
static struct arrival next;
static uint64_t next_count, end_us, hpet_t0, hz;
static arrival_irq_fn callback;
static int have_next, routed_legacy;
static uint32_t routed_gsi;
static char route_name[16];
static volatile int active, in_handler;

int arrival_hpet_check(const char *word)
{
	if (!ioapic_inputs()) {
		kprintf("arrivals: %s needs an I/O APIC, and the firmware "
			"lists none that answers\n", word);
		return -1;
	}
	hz = hpet_init();
	if (!hz) {
		kprintf("arrivals: %s needs an HPET, and this machine has "
			"none (no usable ACPI HPET table)\n", word);
		return -1;
	}
	uint32_t caps;
	int legacy;
	if (!hpet_counter_64() || hpet_comparator_routes(&caps, &legacy)) {
		kprintf("arrivals: %s needs a 64-bit HPET main counter and "
			"comparator 0; this HPET's are 32 bits\n", word);
		return -1;
	}
	for (uint32_t g = LAST_ROUTE_GSI; g >= FIRST_PCI_GSI; g--)
		if ((caps >> g & 1) && ioapic_has_gsi(g)) {
			routed_gsi = g;
			routed_legacy = 0;
			fmt_snprintf(route_name, sizeof route_name, "gsi%u", g);
			return 0;
		}
	if (legacy && ioapic_has_gsi(LEGACY_GSI)) {
		routed_gsi = LEGACY_GSI;
		routed_legacy = 1;
		fmt_snprintf(route_name, sizeof route_name, "legacy");
		return 0;
	}
	kprintf("arrivals: %s: HPET comparator 0 reaches no I/O APIC input "
		"from %u up (its route capabilities are %#x) and the HPET has "
		"no legacy replacement route\n", word, FIRST_PCI_GSI, caps);
	return -1;
}

const char *arrival_hpet_route(void)
{
	return route_name;
}

/* The main-counter value of stream time t_us, rounded up: the interrupt is
 * never before the arrival's time. */
static uint64_t count_of(uint64_t t_us)
{
	/* hz is at most 10^9 (arch/x86/hpet.c): the products fit. */
	return hpet_t0 + t_us / 1000000 * hz +
	       ceil_div_u64(t_us % 1000000 * hz, 1000000);
}

static void advance(void)
{
	have_next = arrival_next(&stream, &next) && next.t_us <= end_us;
	if (have_next)
		next_count = count_of(next.t_us);
}

static void deliver(uint64_t irq_tsc, uint64_t now)
{
	struct arrival_irq_rec r = {
		.t_us = next.t_us, .irq_tsc = irq_tsc, .cost_us = next.cost_us,
		.server = next.server,
		.delay_ns = mul_div_u64(now - next_count, 1000000000u, hz),
	};
	arrival_irq_deliver(callback, &r);
}

static int passed(uint64_t now, uint64_t count)
{
	return (int64_t)(now - count) >= 0;
}

static void on_hpet(struct trap_frame *f)
{
	(void)f;
	uint64_t irq_tsc = rdtsc_ordered(), now = hpet_counter();
	/* Before active is read: a stop either sees this or is seen. */
	__atomic_store_n(&in_handler, 1, __ATOMIC_SEQ_CST);
	while (active && have_next) {
		while (have_next && passed(now, next_count)) {
			deliver(irq_tsc, now);
			advance();
		}
		if (!have_next)
			break;
		hpet_comparator_arm(next_count);
		now = hpet_counter();
		if (!passed(now, next_count))
			break;
		/* Passed while being armed: no interrupt will come for it. */
		irq_tsc = rdtsc_ordered();
		now = hpet_counter();
	}
	__atomic_store_n(&in_handler, 0, __ATOMIC_RELEASE);
	lapic_eoi();
}

/* Reads of both clocks hpet_at_tsc takes the tightest of. */
#define PAIR_READS 8

/* The main counter's value at TSC value t0_tsc, from the read of both
 * clocks that took the least time: an interrupt, or under emulation the
 * host taking the virtual CPU away, between the two TSC reads around the
 * counter's would put the counter's read anywhere in that gap (seen: 18
 * us early on a loaded host). */
static uint64_t hpet_at_tsc(uint64_t t0_tsc)
{
	uint64_t a = 0, b = UINT64_MAX, c = 0;
	for (unsigned i = 0; i < PAIR_READS; i++) {
		uint64_t a1 = rdtsc_ordered(), c1 = hpet_counter(),
			 b1 = rdtsc_ordered();
		if (b1 - a1 < b - a) {
			a = a1;
			b = b1;
			c = c1;
		}
	}
	uint64_t mid = a + (b - a) / 2;
	if (t0_tsc >= mid)
		return c + mul_div_u64(tsc_to_ns(t0_tsc - mid), hz, 1000000000u);
	return c - mul_div_u64(tsc_to_ns(mid - t0_tsc), hz, 1000000000u);
}

int arrival_hpet_start(const struct taskset *ts, uint64_t t0_tsc,
		       uint64_t end, unsigned cpu, arrival_irq_fn fn)
{
	if (arrival_hpet_check("arrivals=hpet"))
		return -1;
	if (active) {
		kprintf("arrivals: the HPET arrivals already run; stop "
			"them first\n");
		return -1;
	}
	if (arrival_generators(ts) > MAX_GENERATORS) {
		kprintf("arrivals: %u arrival streams; the HPET source takes "
			"%u\n", arrival_generators(ts), MAX_GENERATORS);
		return -1;
	}
	struct ioapic_wiring w = { .gsi = routed_gsi };
	if (ioapic_route(w, VEC_ARRIVAL_HPET, arrival_irq_apic_id(cpu)))
		return -1;
	arrival_init(&stream, ts, gens);
	callback = fn;
	end_us = end;
	hpet_t0 = hpet_at_tsc(t0_tsc);
	advance();
	trap_set_handler(VEC_ARRIVAL_HPET, on_hpet);
	hpet_comparator_setup(routed_legacy ? -1 : (int)routed_gsi);
	__atomic_store_n(&active, 1, __ATOMIC_RELEASE);
	ioapic_unmask(routed_gsi);
	/* The routed CPU arms the first arrival itself. */
	lapic_send_ipi(arrival_irq_apic_id(cpu), VEC_ARRIVAL_HPET);
	return 0;
}

int arrival_hpet_done(void)
{
	return !__atomic_load_n(&have_next, __ATOMIC_ACQUIRE);
}

void arrival_hpet_stop(void)
{
	__atomic_store_n(&active, 0, __ATOMIC_SEQ_CST);
	ioapic_mask(routed_gsi);
	while (__atomic_load_n(&in_handler, __ATOMIC_ACQUIRE))
		cpu_relax();
	hpet_comparator_stop();
}
