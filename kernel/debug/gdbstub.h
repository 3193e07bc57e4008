/*
 * kernel/debug/gdbstub: the GDB remote protocol (lib/gdb_rsp) on COM2, all-stop
 * across CPUs. The CPU that stops -- a breakpoint, a watchpoint, a single
 * step, Ctrl-C from GDB, a panic under gdb=panic, the boot under gdb=wait
 * -- halts the others with an NMI and talks to GDB; they resume together.
 * Each online CPU is a GDB thread (thread n is CPU n - 1).
 *
 * Kernel words (kernel/core/options.c): gdb=off (default), on (the stub
 * listens: breakpoints, and Ctrl-C or an attaching GDB at the next quantum
 * boundary), panic (on, and a panic stops in the stub before the machine
 * powers off), wait (panic, and the boot stops for GDB once every CPU is
 * online). docs/debugging.md tells how to use it.
 */
#ifndef KERNEL_GDBSTUB_H
#define KERNEL_GDBSTUB_H

#include "../../arch/x86/trap.h"

/* After the APs are online: opens COM2, takes #DB and #BP, and under
 * gdb=wait stops until GDB says continue. */
void gdbstub_init(void);

/* Once the stub is on, gdbstub_init installs its hooks below it: the
 * quantum timer's poll (a Ctrl-C or a packet on COM2 stops the machine),
 * and the panic path's debugger (kernel/core/panic.h: its own NMIs, and
 * under gdb=panic or wait a stop at the fault or the panic() call). */

/* What CPU cpu runs, for its thread's name ("cpu 2: <this>"); the kernel
 * says it in kernel/debug/gdbstub_activity.c. */
const char *gdbstub_cpu_activity(unsigned cpu);

#endif
