/* kernel/time/quantum_clock: aligned and staggered boundaries as a service. */
#include "quantum_clock.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/percpu.h"
#include "../../arch/x86/tsc.h"
#include "../../drivers/apic/lapic.h"
#include "../core/bootmem.h"
#include "../core/console.h"
#include "../core/options.h"

#define APIC_CALIBRATION_US 10000

/* One CPU's place in the run, in a cache line of its own: each CPU writes
 * only its own at each boundary. */
struct clock_cpu {
	volatile uint64_t next;        /* the next boundary's index */
	volatile uint64_t serviced, missed;
	uint64_t stalled;              /* late_mode=stall, syscall: 1 + the
					* boundary stalled for */
	/* Serviced boundaries entered half a quantum or more after their
	 * time; the latest any boundary was taken, missed ones (handled in
	 * an earlier one's interrupt) included, in cycles. */
	volatile uint64_t late, late_max;
	volatile int done;
} __attribute__((aligned(64)));

static struct {
	int deadline;             /* TSC-deadline mode */
	uint64_t apic_per_tsc;    /* one-shot: APIC ticks per TSC cycle, 32.32 */
	int staggered;
	uint64_t t0, slots, quantum_us;
	/* Q/M in TSC cycles as a whole part and a remainder over 1000*M:
	 * Q/M = Q_us * kHz / (1000 * M) exactly, so boundary n*Q/M stays
	 * exact however far from T0 (a Q rounded to whole cycles would drift
	 * by up to half a cycle per quantum). */
	uint64_t sub_whole, sub_rem, sub_den;
	unsigned m;
	uint64_t limit;           /* boundaries delivered: slots, + 1 with end */
	struct qclock_client client;
	struct clock_cpu *cpu;
	unsigned cpu_capacity;
	uint64_t late_cycles;     /* late_boundary=: 0, or its delay */
	uint64_t ahead;           /* qclock_ahead: cycles, 0 by default */
	uint64_t half_quantum;    /* cycles */
	void (*poll)(struct trap_frame *f);   /* qclock_set_poll */
} qclock;

void qclock_set_poll(void (*poll)(struct trap_frame *f))
{
	qclock.poll = poll;
}

int qclock_deadline_mode(void)
{
	return qclock.deadline;
}

void qclock_init(void)
{
	qclock.deadline = lapic_has_tsc_deadline();
	if (qclock.deadline)
		return;
	uint64_t flags = irq_save();
	lapic_timer_setup(VEC_CALIBRATION_TIMER, 0);
	lapic_timer_arm_count(0xffffffffu);
	uint64_t t0 = rdtsc_ordered();
	tsc_delay_us(APIC_CALIBRATION_US);
	uint32_t left = lapic_timer_current_count();
	uint64_t t1 = rdtsc_ordered();
	lapic_timer_stop();
	irq_restore(flags);
	qclock.apic_per_tsc = ((uint64_t)(0xffffffffu - left) << 32) / (t1 - t0);
}

uint64_t qclock_now(void)
{
	return rdtsc() - (uint64_t)this_cpu()->tsc_offset;
}

/* CPU k's boundary i: T0 + n*Q/M with n = i*M (aligned) or i*M + k
 * (staggered), rounded down to a whole cycle. docs/trace-format.md gives
 * the same formula to the decoder. */
uint64_t qclock_ideal(unsigned k, uint64_t i)
{
	uint64_t n = i * qclock.m + (qclock.staggered ? k : 0);
	return qclock.t0 + n * qclock.sub_whole + n * qclock.sub_rem / qclock.sub_den;
}

uint64_t qclock_due(unsigned k, uint64_t i)
{
	return qclock_ideal(k, i) - qclock.ahead;
}

void qclock_ahead(uint64_t us)
{
	qclock.ahead = tsc_from_us(us);
}

uint64_t qclock_slot_at(unsigned k, uint64_t when)
{
	uint64_t q = qclock_ideal(0, 1) - qclock_ideal(0, 0);
	if (when <= qclock.t0 || q == 0)
		return 0;
	uint64_t i = (when - qclock.t0) / q;
	while (i > 0 && qclock_ideal(k, i) > when)
		i--;
	while (qclock_ideal(k, i + 1) <= when)
		i++;
	return i;
}

uint64_t qclock_t0(void)
{
	return qclock.t0;
}

unsigned qclock_cpus(void)
{
	return qclock.m;
}

uint64_t qclock_slots(void)
{
	return qclock.slots;
}

uint64_t qclock_quantum_us(void)
{
	return qclock.quantum_us;
}

int qclock_staggered(void)
{
	return qclock.staggered;
}

int qclock_cpu_done(unsigned cpu)
{
	return qclock.cpu[cpu].done;
}

uint64_t qclock_cpu_serviced(unsigned cpu)
{
	return qclock.cpu[cpu].serviced;
}

uint64_t qclock_cpu_missed(unsigned cpu)
{
	return qclock.cpu[cpu].missed;
}

uint64_t qclock_cpu_late(unsigned cpu)
{
	return qclock.cpu[cpu].late;
}

uint64_t qclock_cpu_late_max(unsigned cpu)
{
	return qclock.cpu[cpu].late_max;
}

uint64_t qclock_cpu_next(unsigned cpu)
{
	return qclock.cpu[cpu].next;
}

void qclock_say_stopped(const char *who)
{
	for (unsigned k = 0; k < qclock.m; k++)
		if (!qclock.cpu[k].done)
			kprintf("%s: cpu %u stopped at boundary %llu of %llu\n",
				who, k, (unsigned long long)qclock.cpu[k].next,
				(unsigned long long)qclock.slots);
}

/* Arms CPU k's timer for the boundary due at `due` (BSP time). */
static void arm(unsigned k, uint64_t due)
{
	uint64_t local = due + (uint64_t)percpu[k].tsc_offset;
	if (qclock.deadline) {
		lapic_timer_arm_deadline(local);
		return;
	}
	uint64_t now = rdtsc();
	uint64_t delta = local > now ? local - now : 1;
	uint64_t count = (delta * qclock.apic_per_tsc) >> 32;
	if (count == 0)
		count = 1;
	if (count > 0xffffffffu)
		count = 0xffffffffu;
	lapic_timer_arm_count((uint32_t)count);
}

/* A CPU whose run is done is never armed again: a reschedule IPI sent
 * before the end may be taken after it (decide_rearm), and would otherwise
 * bring back a boundary the CPU has already serviced. */
void qclock_cpu_arm(uint64_t slot)
{
	unsigned k = this_cpu()->cpu;
	if (qclock.cpu[k].done || slot >= qclock.limit ||
	    slot >= qclock.cpu[k].next)
		return;
	qclock.cpu[k].next = slot;
	arm(k, qclock_due(k, slot));
}

static uint64_t want(uint64_t slot, uint64_t asked)
{
	if (asked <= slot)
		asked = slot + 1;
	return asked < qclock.limit ? asked : qclock.limit;
}

/* late_boundary=: boundary i of CPU k is one of the late ones. */
static int is_late(unsigned k, uint64_t i)
{
	return qclock.late_cycles && (options.late_all || k == options.late_cpu) &&
	       i >= options.late_slot && i - options.late_slot < options.late_count;
}

/* late_boundary=: this boundary is handled as if an SMI or a long interrupt
 * held the CPU; PAUSE keeps an emulator's round robin going meanwhile. */
static void handle_late(uint64_t entry)
{
	while (rdtsc() - entry < qclock.late_cycles)
		cpu_relax();
}

void qclock_late_syscall(void)
{
	if (!qclock.late_cycles || !qclock.m)
		return;
	unsigned k = this_cpu()->cpu;
	struct clock_cpu *c = &qclock.cpu[k];
	uint64_t i = c->next;
	if (i >= qclock.slots || !is_late(k, i) || c->stalled == i + 1)
		return;
	/* late_mode=syscall: the first call made while boundary i is this
	 * CPU's next stops, interrupts off (SYSCALL cleared IF), until the
	 * boundary is late_cycles past; then it goes on, the boundaries
	 * passed meanwhile waiting for it (a CPU making no call then is not
	 * late at all). */
	c->stalled = i + 1;
	uint64_t until = qclock_due(k, i) + qclock.late_cycles;
	while (qclock_now() < until)
		cpu_relax();
}

static void on_timer(struct trap_frame *f)
{
	uint64_t now = rdtsc();
	if (qclock.poll)
		qclock.poll(f);
	unsigned k = this_cpu()->cpu;
	struct clock_cpu *c = &qclock.cpu[k];
	uint64_t i = c->next;
	if (i >= qclock.limit) {       /* a stray one after the run's end */
		lapic_eoi();
		return;
	}
	if (is_late(k, i) && options.late_mode == LATE_STALL &&
	    c->stalled != i + 1) {
		/* late_mode=stall: the CPU stops before it takes this
		 * interrupt, interrupts off. The boundary is armed again, due
		 * at once: when the CPU goes on, the interrupts that came
		 * meanwhile (a reschedule IPI is of a higher class) are taken
		 * first, as for a virtual CPU whose host thread did not run. */
		c->stalled = i + 1;
		lapic_eoi();
		handle_late(now);
		arm(k, qclock_due(k, i));
		return;
	}
	uint64_t bsp_now = now - (uint64_t)percpu[k].tsc_offset;
	if (i < qclock.slots) {
		c->serviced++;
		uint64_t due_at = qclock_due(k, i);
		uint64_t late = bsp_now > due_at ? bsp_now - due_at : 0;
		if (late > c->late_max)
			c->late_max = late;
		if (late >= qclock.half_quantum)
			c->late++;
	}
	if (is_late(k, i) && options.late_mode == LATE_HOLD)
		handle_late(now);
	uint64_t last = i;
	i = want(i, qclock.client.boundary(qclock.client.ctx, k, i, 0, bsp_now));
	/* Boundaries that passed while this one was handled were never
	 * serviced: count them, never skip them silently. */
	uint64_t due = 0, at;
	while (i < qclock.limit &&
	       (due = qclock_due(k, i)) <= (at = qclock_now())) {
		if (i < qclock.slots) {
			c->missed++;
			if (at - due > c->late_max)
				c->late_max = at - due;
		}
		last = i;
		i = want(i, qclock.client.boundary(qclock.client.ctx, k, i, 1, bsp_now));
	}
	/* ahead_us=: the interrupt came early and the boundary's work is
	 * done; whatever returns to ring 3 next waits for the latest boundary
	 * handled (arch/x86/hold.inc). */
	if (qclock.ahead)
		this_cpu()->hold_tsc = qclock_ideal(k, last) +
				       (uint64_t)percpu[k].tsc_offset;
	c->next = i;
	if (i < qclock.limit)
		arm(k, due);
	else
		c->done = 1;
	lapic_eoi();
	if (qclock.client.after)
		qclock.client.after(qclock.client.ctx, k, f);
}

void qclock_prepare(int staggered, uint64_t slots, uint64_t quantum_us,
		    unsigned cpus, uint64_t lead_us,
		    const struct qclock_client *client)
{
	if (cpus > qclock.cpu_capacity) {
		qclock.cpu = bootmem_alloc(cpus * sizeof *qclock.cpu);
		qclock.cpu_capacity = cpus;
	}
	for (unsigned k = 0; k < cpus; k++)
		qclock.cpu[k] = (struct clock_cpu){ 0 };
	trap_set_handler(VEC_QUANTUM_TIMER, on_timer);
	qclock.client = *client;
	qclock.staggered = staggered;
	qclock.slots = slots;
	qclock.limit = slots + (client->end ? 1 : 0);
	qclock.quantum_us = quantum_us;
	qclock.m = cpus;
	qclock.sub_den = 1000ull * cpus;
	qclock.sub_whole = quantum_us * tsc.khz / qclock.sub_den;
	qclock.sub_rem = quantum_us * tsc.khz % qclock.sub_den;
	qclock.t0 = qclock_now() + tsc_from_us(lead_us);
	qclock.late_cycles = tsc_from_us(options.late_us);
	qclock.ahead = 0;
	qclock.half_quantum = (quantum_us * tsc.khz + 1999) / 2000;
	if (options.late_us && !options.late_all && options.late_cpu >= cpus)
		kprintf("quantum clock: late_boundary=%u:...: there is no CPU %u "
			"(%u CPUs); no boundary is late\n", options.late_cpu,
			options.late_cpu, cpus);
}

void qclock_cpu_start(uint64_t first)
{
	unsigned k = this_cpu()->cpu;
	qclock.cpu[k].next = first;
	lapic_timer_setup(VEC_QUANTUM_TIMER, qclock.deadline);
	if (first < qclock.limit)
		arm(k, qclock_due(k, first));
	else
		qclock.cpu[k].done = 1;
}

void qclock_cpu_stop(void)
{
	lapic_timer_stop();
}
