/* drivers/serial/uart: the 16550 UART on COM1, polled. */
#ifndef DRIVERS_SERIAL_UART_H
#define DRIVERS_SERIAL_UART_H

#include <stddef.h>

void uart_init(void);
/* Writes n bytes, '\n' as "\r\n", each after the transmitter is empty. */
void uart_write(const char *s, size_t n);
/* Also copy every byte to port 0xE9 (Bochs's and QEMU's debug console). */
void uart_set_e9_echo(int on);

#endif
