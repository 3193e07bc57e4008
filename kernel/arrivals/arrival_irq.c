/* kernel/arrivals/arrival_irq: what the interrupt sources of arrivals share. */
#include "arrival_irq.h"

#include "../../arch/x86/percpu.h"

static struct arrival_irq_rec *recs;
static unsigned recs_cap;
/* Slots taken, and deliveries finished (their records written). */
static volatile unsigned taken, finished;

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
