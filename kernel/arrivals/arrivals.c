/* kernel/arrivals/arrivals: the source a run's arrivals= names. */
#include "arrivals.h"

#include "../core/console.h"
#include "../core/smp.h"
#include "arrival_hpet.h"
#include "arrival_uart.h"

int arrivals_check(enum arrivals_source src, unsigned cpu,
		   const char *word)
{
	if (cpu >= smp.online) {
		kprintf("arrivals: %s: interrupts go to CPU %u (irq_cpu=), "
			"and %u CPUs are online\n", word, cpu, smp.online);
		return -1;
	}
	return src == ARRIVALS_SOURCE_HPET ? arrival_hpet_check(word)
				       : arrival_uart_check(word);
}

int arrivals_start(enum arrivals_mode mode, const struct taskset *ts,
		   uint64_t epoch_tsc, uint64_t end_us, unsigned cpu,
		   arrival_irq_fn fn)
{
	if (mode == ARRIVALS_HPET)
		return arrival_hpet_start(ts, epoch_tsc, end_us, cpu, fn);
	if (mode == ARRIVALS_UART)
		return arrival_uart_start(ts, cpu, fn);
	return 0;
}

void arrivals_stop(enum arrivals_mode mode)
{
	if (mode == ARRIVALS_HPET)
		arrival_hpet_stop();
	else if (mode == ARRIVALS_UART)
		arrival_uart_stop();
}
