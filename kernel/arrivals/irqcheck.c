/* kernel/arrivals/irqcheck: self-checks of the arrival interrupt sources. */
#include "irqcheck.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/tsc.h"
#include "../../lib/arrival.h"
#include "arrival_hpet.h"
#include "arrivals.h"
#include "arrival_uart.h"
#include "../core/bootmem.h"
#include "../core/console.h"
#include "../core/smp.h"

#define MAX_TASKS 256
#define MAX_EVENTS 256
/* More arrivals than this are not one self-check's business. */
#define MAX_ARRIVALS 100000
/* The first arrival's time 0 is this far after the start, so that the
 * routed CPU has armed the comparator before an arrival at 0 is due. */
#define LEAD_US 10000
/* How long after the last arrival's time the check waits for it. */
#define GRACE_US 1000000
/* Typed jobs a check records. */
#define MAX_TYPED 1024

static struct arrival_irq_rec *recs;

static int hpet_finished(const void *unused)
{
	(void)unused;
	return arrival_hpet_done();
}

static int uart_finished(const void *unused)
{
	(void)unused;
	return arrival_uart_ends() > 0;
}

/* How many arrivals of ts come up to end_us (as arrival_hpet delivers). */
static uint64_t count_arrivals(const struct taskset *ts, uint64_t end_us)
{
	struct arrival_stream st;
	struct arrival a;
	struct arrival_gen *gen =
		bootmem_alloc((arrival_generators(ts) + 1) * sizeof *gen);
	arrival_init(&st, ts, gen);
	uint64_t n = 0;
	while (n <= MAX_ARRIVALS && arrival_next(&st, &a) && a.t_us <= end_us)
		n++;
	return n;
}

static int check_hpet(const struct taskset *ts, uint64_t duration_us,
		      unsigned cpu, const char **reason)
{
	uint64_t expected = count_arrivals(ts, duration_us);
	if (expected > MAX_ARRIVALS) {
		kprintf("irqcheck: more than %u arrivals in %llu us; shorten "
			"the check (slots=) or lower the rates\n", MAX_ARRIVALS,
			(unsigned long long)duration_us);
		*reason = "irqcheck";
		return -1;
	}
	recs = bootmem_alloc((expected + 1) * sizeof *recs);
	arrival_irq_record_into(recs, (unsigned)expected + 1);
	uint64_t t0 = rdtsc_ordered() + tsc_from_us(LEAD_US);
	if (arrivals_start(ARRIVALS_HPET, ts, t0, duration_us, cpu, 0)) {
		*reason = "irqcheck";
		return -1;
	}
	kprintf("irqcheck: hpet: %llu arrivals in %llu us, comparator 0 by "
		"%s to CPU %u\n", (unsigned long long)expected,
		(unsigned long long)duration_us, arrival_hpet_route(), cpu);
	smp_halt_until(hpet_finished, 0, t0 + tsc_from_us(duration_us +
							   GRACE_US));
	arrivals_stop(ARRIVALS_HPET);
	unsigned got = arrival_irq_delivered();
	uint64_t max_delay = 0;
	for (unsigned i = 0; i < got && i < expected + 1; i++) {
		const struct arrival_irq_rec *r = &recs[i];
		if (r->delay_ns > max_delay)
			max_delay = r->delay_ns;
		kprintf("RESULT irqarrival n=%u server=%s t_us=%llu cost_us=%u "
			"cpu=%u delay_ns=%llu irq_ns=%llu\n", i,
			ts->task[r->server].name, (unsigned long long)r->t_us,
			r->cost_us, r->cpu, (unsigned long long)r->delay_ns,
			(unsigned long long)tsc_to_ns(r->irq_tsc - t0));
	}
	kprintf("RESULT irqcheck source=hpet route=%s cpu=%u arrivals=%u "
		"expected=%llu delay_max_ns=%llu\n", arrival_hpet_route(), cpu,
		got, (unsigned long long)expected,
		(unsigned long long)max_delay);
	if (got != expected) {
		kprintf("irqcheck: %u of %llu arrivals came\n", got,
			(unsigned long long)expected);
		*reason = "irqcheck";
		return -1;
	}
	return 0;
}

static int check_uart(const struct taskset *ts, uint64_t duration_us,
		      unsigned cpu, const char **reason)
{
	recs = bootmem_alloc(MAX_TYPED * sizeof *recs);
	arrival_irq_record_into(recs, MAX_TYPED);
	/* Before the ready line: the first line may follow it at once. */
	uint64_t t0 = rdtsc_ordered();
	if (arrivals_start(ARRIVALS_UART, ts, t0, 0, cpu, 0)) {
		*reason = "irqcheck";
		return -1;
	}
	/* The line a feeding program waits for before it types. */
	kprintf("irqcheck: uart ready: type 'SERVER COST_US' lines on COM1, "
		"'!end' to finish (CPU %u takes them, %llu us at most)\n", cpu,
		(unsigned long long)duration_us);
	smp_halt_until(uart_finished, 0, t0 + tsc_from_us(duration_us));
	arrivals_stop(ARRIVALS_UART);
	unsigned got = arrival_irq_delivered();
	for (unsigned i = 0; i < got && i < MAX_TYPED; i++)
		kprintf("RESULT irqtyped n=%u server=%s cost_us=%u cpu=%u "
			"irq_ns=%llu\n", i, ts->task[recs[i].server].name,
			recs[i].cost_us, recs[i].cpu,
			(unsigned long long)tsc_to_ns(recs[i].irq_tsc - t0));
	kprintf("RESULT irqcheck source=uart cpu=%u arrivals=%u bad_lines=%u "
		"ended=%s\n", cpu, got, arrival_uart_bad_lines(),
		arrival_uart_ends() ? "typed" : "time");
	return 0;
}

int irqcheck_run(enum irqcheck_mode mode, const char *file, const char *text,
		 size_t len, uint64_t duration_us, unsigned cpu,
		 const char **reason)
{
	static struct taskset ts;
	ts.task = bootmem_alloc(MAX_TASKS * sizeof *ts.task);
	ts.max_tasks = MAX_TASKS;
	ts.event = bootmem_alloc(MAX_EVENTS * sizeof *ts.event);
	ts.max_events = MAX_EVENTS;
	char err[256];
	if (taskset_parse(&ts, file, text, len, err, sizeof err)) {
		kprintf("taskset: %s\n", err);
		*reason = "taskset";
		return -1;
	}
	enum arrivals_source src = mode == IRQCHECK_HPET ? ARRIVALS_SOURCE_HPET
							    : ARRIVALS_SOURCE_UART;
	const char *word = mode == IRQCHECK_HPET ? "irqcheck=hpet"
						 : "irqcheck=uart";
	if (arrivals_check(src, cpu, word)) {
		*reason = "irqcheck";
		return -1;
	}
	if (mode == IRQCHECK_HPET)
		return check_hpet(&ts, duration_us, cpu, reason);
	return check_uart(&ts, duration_us, cpu, reason);
}
