/* drivers/serial/uart: the 16550 UART on COM1, polled. */
#include "uart.h"

#include "../../arch/x86/cpu.h"

#define COM1 0x3f8
/* Register offsets from the 16550 data sheet. */
#define UART_DATA 0     /* THR (write), RBR (read); DLL when DLAB=1 */
#define UART_IER  1     /* interrupt enable; DLM when DLAB=1 */
#define UART_FCR  2     /* FIFO control */
#define UART_LCR  3     /* line control: bit 7 = DLAB */
#define UART_MCR  4     /* modem control */
#define UART_LSR  5     /* line status */
#define LSR_THR_EMPTY 0x20
#define LCR_8N1 0x03
#define LCR_DLAB 0x80
#define BAUD_DIVISOR 1  /* 115200 = 1.8432 MHz / 16 / 1 */
#define DEBUG_PORT_E9 0xe9
/* Bound the wait so a machine without a UART does not hang the console. */
#define THR_SPINS 100000

static int present;
static int e9_echo;

void uart_init(void)
{
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DATA, BAUD_DIVISOR & 0xff);
	outb(COM1 + UART_IER, BAUD_DIVISOR >> 8);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, 0xc7); /* enable and clear FIFOs, 14-byte level */
	outb(COM1 + UART_MCR, 0x03); /* DTR, RTS */
	/* No UART answers 0xff on the line status register. */
	present = inb(COM1 + UART_LSR) != 0xff;
}

void uart_set_e9_echo(int on)
{
	e9_echo = on;
}

static void put_byte(char c)
{
	if (e9_echo)
		outb(DEBUG_PORT_E9, (uint8_t)c);
	if (!present)
		return;
	for (int i = 0; i < THR_SPINS; i++)
		if (inb(COM1 + UART_LSR) & LSR_THR_EMPTY)
			break;
	outb(COM1 + UART_DATA, (uint8_t)c);
}

void uart_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			put_byte('\r');
		put_byte(s[i]);
	}
}
