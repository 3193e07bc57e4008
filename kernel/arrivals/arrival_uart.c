/*
 * kernel/arrivals/arrival_uart: typed arrivals on COM1's receive interrupt.
 *
 * The receive trigger is one byte, so each byte interrupts; the handler
 * drains the FIFO into the line being typed, and a CR or LF ends it. The
 * TSC read at the entry of the interrupt that took the line's end is the
 * arrival's irq_tsc. Only the handler (on one CPU) touches the line.
 */
#include "arrival_uart.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/trap.h"
#include "../../drivers/apic/ioapic.h"
#include "../../drivers/apic/lapic.h"
#include "../../drivers/serial/uart.h"
#include "../../lib/arrival_line.h"
#include "../core/console.h"

/* The PC's COM1 interrupt (the ISA IRQ of I/O port 0x3f8). */
#define COM1_ISA_IRQ 4

static const struct taskset *set;
static arrival_irq_fn callback;
static char line[ARRIVAL_UART_LINE_MAX];
static unsigned len;
static int too_long;
static struct ioapic_wiring wiring;
static volatile unsigned ends, bad_lines;
static volatile int active, in_handler;

int arrival_uart_check(const char *word)
{
	if (!uart_console_present()) {
		kprintf("arrivals: %s needs a UART at COM1, and none answers\n",
			word);
		return -1;
	}
	struct ioapic_wiring w = ioapic_isa_wiring(COM1_ISA_IRQ);
	if (!ioapic_has_gsi(w.gsi)) {
		kprintf("arrivals: %s needs an I/O APIC input for COM1 (ISA "
			"IRQ %u, GSI %u), and %s\n", word, COM1_ISA_IRQ, w.gsi,
			ioapic_inputs() ? "no I/O APIC has it" :
			"the firmware lists no I/O APIC that answers");
		return -1;
	}
	wiring = w;
	return 0;
}

static void end_line(uint64_t tsc)
{
	unsigned server;
	uint32_t cost;
	char err[160];
	if (too_long) {
		kprintf("uart: bad line '%.*s...': longer than %u characters; "
			"ignored\n", (int)len, line, ARRIVAL_UART_LINE_MAX);
		bad_lines++;
	} else {
		switch (arrival_line_parse(set, line, len, &server, &cost, err,
					   sizeof err)) {
		case ARRIVAL_LINE_JOB: {
			struct arrival_irq_rec r = { .irq_tsc = tsc,
				.cost_us = cost, .server = server };
			arrival_irq_deliver(callback, &r);
			/* After the delivery, which it must not delay. A
			 * terminal in raw mode (QEMU's -serial stdio) does not
			 * echo: this line is what the person sees. */
			kprintf("uart: arrival %s cost_us=%u\n",
				set->task[server].name, cost);
			break;
		}
		case ARRIVAL_LINE_END:
			ends++;
			break;
		case ARRIVAL_LINE_BAD:
			kprintf("uart: bad line '%.*s': %s; ignored\n", (int)len,
				line, err);
			bad_lines++;
			break;
		case ARRIVAL_LINE_EMPTY:
			break;
		}
	}
	len = 0;
	too_long = 0;
}

static void on_uart(struct trap_frame *f)
{
	(void)f;
	uint64_t tsc = rdtsc_ordered();
	__atomic_store_n(&in_handler, 1, __ATOMIC_SEQ_CST);
	int c;
	while (active && (c = uart_get(UART_COM1)) >= 0) {
		if (c == '\r' || c == '\n')
			end_line(tsc);
		else if (len < sizeof line)
			/* A terminal's escape sequences must not reach the
			 * console through a message naming the line. */
			line[len++] = (c >= ' ' && c < 0x7f) || c == '\t' ?
				      (char)c : '?';
		else
			too_long = 1;
	}
	__atomic_store_n(&in_handler, 0, __ATOMIC_RELEASE);
	lapic_eoi();
}

int arrival_uart_start(const struct taskset *ts, unsigned cpu,
		       arrival_irq_fn fn)
{
	if (arrival_uart_check("arrivals=uart"))
		return -1;
	if (active) {
		kprintf("arrivals: the typed arrivals already run; stop "
			"them first\n");
		return -1;
	}
	if (ioapic_route(wiring, VEC_ARRIVAL_UART, arrival_irq_apic_id(cpu)))
		return -1;
	set = ts;
	callback = fn;
	len = 0;
	too_long = 0;
	ends = bad_lines = 0;
	trap_set_handler(VEC_ARRIVAL_UART, on_uart);
	__atomic_store_n(&active, 1, __ATOMIC_SEQ_CST);
	uart_rx_interrupt(UART_COM1, 1);
	ioapic_unmask(wiring.gsi);
	return 0;
}

void arrival_uart_stop(void)
{
	__atomic_store_n(&active, 0, __ATOMIC_SEQ_CST);
	uart_rx_interrupt(UART_COM1, 0);
	ioapic_mask(wiring.gsi);
	while (__atomic_load_n(&in_handler, __ATOMIC_ACQUIRE))
		cpu_relax();
}

unsigned arrival_uart_ends(void)
{
	return ends;
}

unsigned arrival_uart_bad_lines(void)
{
	return bad_lines;
}
