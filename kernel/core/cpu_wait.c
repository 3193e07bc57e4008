/* kernel/core/cpu_wait: spin, then halt until woken. */
#include "cpu_wait.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/percpu.h"
#include "../../arch/x86/trap.h"
#include "../../drivers/apic/lapic.h"

#define WORD_BITS 64

static uint64_t spin;
/* One bit per CPU halted in cpu_wait_until: a wake-up of every waiter reads
 * (M + 63) / 64 words instead of a byte per CPU, and sends IPIs to the
 * halted ones only. */
static volatile uint64_t parked[(MAX_CPUS + WORD_BITS - 1) / WORD_BITS];

static void set_parked(unsigned cpu, int on)
{
	uint64_t bit = 1ull << (cpu % WORD_BITS);
	if (on)
		__atomic_fetch_or(&parked[cpu / WORD_BITS], bit, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&parked[cpu / WORD_BITS], ~bit,
				   __ATOMIC_RELAXED);
}

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
		set_parked(cpu, 1);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		int ready = done(arg);
		if (!ready)
			cpu_wait_for_interrupt();  /* sti; hlt: no lost IPI */
		irq_disable();
		set_parked(cpu, 0);
		if (ready)
			return;
	}
}

void cpu_wake(unsigned cpu)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (parked[cpu / WORD_BITS] & (1ull << (cpu % WORD_BITS)))
		lapic_send_ipi(percpu[cpu].apic_id, VEC_RESCHED_IPI);
}

void cpu_wake_all(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned w = 0; w * WORD_BITS < cpu_count; w++)
		for (uint64_t m = parked[w]; m; m &= m - 1) {
			unsigned k = w * WORD_BITS + (unsigned)__builtin_ctzll(m);
			lapic_send_ipi(percpu[k].apic_id, VEC_RESCHED_IPI);
		}
}
