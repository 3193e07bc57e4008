/* kernel/cpu_wait: spin, then halt until woken. */
#include "cpu_wait.h"

#include "../arch/x86/cpu.h"
#include "../arch/x86/percpu.h"
#include "../arch/x86/trap.h"
#include "../drivers/apic/lapic.h"

static uint64_t spin;
static volatile uint8_t parked[MAX_CPUS];

void cpu_wait_setup(uint64_t spin_cycles)
{
	spin = spin_cycles;
}

void cpu_wait_until(int (*done)(void *arg), void *arg)
{
	irq_disable();
	unsigned cpu = this_cpu()->cpu;
	uint64_t spin_until = rdtsc() + spin;
	/* done() is called until it first returns true and never after: it
	 * may take what it tests for (a lock), and a second call would see
	 * it taken. */
	for (;;) {
		if (done(arg))
			return;
		if (rdtsc() < spin_until) {
			cpu_relax();
			continue;
		}
		/* Announce, then look again: with the fences on both sides
		 * either the waker sees parked or we see its change. */
		parked[cpu] = 1;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		int ready = done(arg);
		if (!ready)
			cpu_wait_for_interrupt();  /* sti; hlt: no lost IPI */
		irq_disable();
		parked[cpu] = 0;
		if (ready)
			return;
	}
}

void cpu_wake(unsigned cpu)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (parked[cpu])
		lapic_send_ipi(percpu[cpu].apic_id, VEC_RESCHED_IPI);
}

void cpu_wake_all(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned k = 0; k < cpu_count; k++)
		if (parked[k])
			lapic_send_ipi(percpu[k].apic_id, VEC_RESCHED_IPI);
}
