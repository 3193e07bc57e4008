/* drivers/serial/uart: 16550 UARTs, polled. */
#include "uart.h"

#include "../../arch/x86/cpu.h"

/* Register offsets from the 16550 data sheet. */
#define UART_DATA 0     /* THR (write), RBR (read); DLL when DLAB=1 */
#define UART_IER  1     /* interrupt enable; DLM when DLAB=1 */
#define UART_FCR  2     /* FIFO control */
#define UART_LCR  3     /* line control: bit 7 = DLAB */
#define UART_MCR  4     /* modem control */
#define UART_LSR  5     /* line status */
#define IER_RX_DATA 0x01
/* OUT2 gates the UART's interrupt onto the ISA IRQ line on PCs. */
#define MCR_DTR_RTS 0x03
#define MCR_OUT2 0x08
/* FIFOs on, the receive one cleared (the transmit one may hold console
 * output), receive trigger level 1 byte (16550 FCR bits 7-6 = 00): an
 * interrupt for every byte, not after 14 or a timeout. */
#define FCR_ENABLE_CLEAR_RX_TRIGGER_1 0x03
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY 0x20
#define LCR_8N1 0x03
#define LCR_DLAB 0x80
#define BAUD_DIVISOR 1  /* 115200 = 1.8432 MHz / 16 / 1 */
#define DEBUG_PORT_E9 0xe9
/* Bound the wait so a machine without a UART does not hang the console. */
#define THR_SPINS 100000

static int present;
static int e9_echo;

int uart_open(uint16_t base)
{
	outb(base + UART_IER, 0);
	outb(base + UART_LCR, LCR_DLAB);
	outb(base + UART_DATA, BAUD_DIVISOR & 0xff);
	outb(base + UART_IER, BAUD_DIVISOR >> 8);
	outb(base + UART_LCR, LCR_8N1);
	outb(base + UART_FCR, 0xc7); /* enable and clear FIFOs, 14-byte level */
	outb(base + UART_MCR, MCR_DTR_RTS);
	/* No UART answers 0xff on the line status register. */
	return inb(base + UART_LSR) != 0xff ? 0 : -1;
}

void uart_put(uint16_t base, uint8_t c)
{
	for (int i = 0; i < THR_SPINS; i++)
		if (inb(base + UART_LSR) & LSR_THR_EMPTY)
			break;
	outb(base + UART_DATA, c);
}

int uart_get(uint16_t base)
{
	if (!(inb(base + UART_LSR) & LSR_DATA_READY))
		return -1;
	return inb(base + UART_DATA);
}

void uart_init(void)
{
	present = uart_open(UART_COM1) == 0;
}

int uart_console_present(void)
{
	return present;
}

void uart_set_e9_echo(int on)
{
	e9_echo = on;
}

static void put_byte(char c)
{
	if (e9_echo)
		outb(DEBUG_PORT_E9, (uint8_t)c);
	if (present)
		uart_put(UART_COM1, (uint8_t)c);
}

void uart_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			put_byte('\r');
		put_byte(s[i]);
	}
}

void uart_rx_interrupt(uint16_t base, int on)
{
	if (on) {
		outb(base + UART_FCR, FCR_ENABLE_CLEAR_RX_TRIGGER_1);
		outb(base + UART_MCR, MCR_DTR_RTS | MCR_OUT2);
		outb(base + UART_IER, IER_RX_DATA);
	} else {
		outb(base + UART_IER, 0);
		outb(base + UART_MCR, MCR_DTR_RTS);
	}
}
