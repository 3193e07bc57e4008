/*
 * kernel/arrivals/arrival_uart: arrivals typed on the console's serial port, COM1:
 * one line per job, `SERVER COST_US` (lib/arrival_line.h), delivered in the
 * UART's receive interrupt when the line ends (CR or LF). A bad line is
 * named on the console and ignored.
 */
#ifndef KERNEL_ARRIVAL_UART_H
#define KERNEL_ARRIVAL_UART_H

#include <stdint.h>

#include "../../lib/taskset.h"
#include "arrival_irq.h"

/* The longest line taken; a longer one is named and ignored. */
#define ARRIVAL_UART_LINE_MAX 80

/* 0 when COM1's receive interrupt can reach a CPU; else prints why not
 * (naming word) and returns -1. */
int arrival_uart_check(const char *word);

/* Starts taking lines: their interrupt goes to CPU cpu, which calls fn.
 * ts must stay valid until arrival_uart_stop. Returns 0 or -1. */
int arrival_uart_start(const struct taskset *ts, unsigned cpu,
		       arrival_irq_fn fn);
void arrival_uart_stop(void);
/* Lines seen so far: `!end` lines and bad ones. */
unsigned arrival_uart_ends(void);
unsigned arrival_uart_bad_lines(void);

#endif
