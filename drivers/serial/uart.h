/* drivers/serial/uart: 16550 UARTs, polled: COM1 is the console, COM2
 * carries the GDB stub (kernel/debug/gdbstub.c). */
#ifndef DRIVERS_SERIAL_UART_H
#define DRIVERS_SERIAL_UART_H

#include <stddef.h>
#include <stdint.h>

/* The standard PC I/O bases. */
#define UART_COM1 0x3f8
#define UART_COM2 0x2f8

/* The console on COM1. */
void uart_init(void);
/* A UART answered at COM1. */
int uart_console_present(void);
/* Writes n bytes, '\n' as "\r\n", each after the transmitter is empty. */
void uart_write(const char *s, size_t n);
/* Also copy every byte to port 0xE9 (Bochs's and QEMU's debug console). */
void uart_set_e9_echo(int on);

/* Any port, raw bytes: 115200 baud 8N1, FIFOs on. Returns 0 when a UART
 * answers at base, -1 when none does. */
int uart_open(uint16_t base);
void uart_put(uint16_t base, uint8_t c);
/* The next received byte, or -1 when none is waiting. */
int uart_get(uint16_t base);
/* The receive interrupt on (after every byte) or off; the UART's IRQ line
 * is the ISA one of its port (COM1: IRQ 4). */
void uart_rx_interrupt(uint16_t base, int on);

#endif
