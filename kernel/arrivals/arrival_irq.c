/* kernel/arrival_irq: what the interrupt sources of arrivals share. */
#include "arrival_irq.h"

#include "../../arch/x86/percpu.h"
#include "arrival_hpet.h"
#include "arrival_uart.h"
#include "../core/console.h"
#include "../core/smp.h"

static struct arrival_irq_rec *recs;
static unsigned recs_cap;
/* Slots taken, and deliveries finished (their records written). */
static volatile unsigned taken, finished;

int arrival_irq_check(enum arrival_irq_source src, unsigned cpu,
		      const char *word)
{
	if (cpu >= smp.online) {
		kprintf("arrivals: %s: interrupts go to CPU %u (irq_cpu=), "
			"and %u CPUs are online\n", word, cpu, smp.online);
		return -1;
	}
	return src == ARRIVAL_IRQ_HPET ? arrival_hpet_check(word)
				       : arrival_uart_check(word);
}

int arrival_irq_start(enum arrivals_mode mode, const struct taskset *ts,
		      uint64_t epoch_tsc, uint64_t end_us, unsigned cpu,
		      arrival_irq_fn fn)
{
	if (mode == ARRIVALS_HPET)
		return arrival_hpet_start(ts, epoch_tsc, end_us, cpu, fn);
	if (mode == ARRIVALS_UART)
		return arrival_uart_start(ts, cpu, fn);
	return 0;
}

void arrival_irq_stop(enum arrivals_mode mode)
{
	if (mode == ARRIVALS_HPET)
		arrival_hpet_stop();
	else if (mode == ARRIVALS_UART)
		arrival_uart_stop();
}

void arrival_irq_record_into(struct arrival_irq_rec *buf, unsigned cap)
{
	recs = buf;
	recs_cap = buf ? cap : 0;
	taken = finished = 0;
}

unsigned arrival_irq_delivered(void)
{
	return __atomic_load_n(&finished, __ATOMIC_ACQUIRE);
}

void arrival_irq_deliver(arrival_irq_fn fn, const struct arrival_irq_rec *r)
{
	/* Each source delivers on one CPU, but two may run at once. */
	unsigned n = __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
	if (n < recs_cap) {
		recs[n] = *r;
		recs[n].cpu = this_cpu()->cpu;
	}
	if (fn)
		fn(r->server, r->cost_us, r->irq_tsc);
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
}

uint32_t arrival_irq_apic_id(unsigned cpu)
{
	return percpu[cpu].apic_id;
}
