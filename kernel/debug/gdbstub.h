/*
 * kernel/gdbstub: the GDB remote protocol (lib/gdb_rsp) on COM2, all-stop
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

/* From the quantum timer's interrupt: a Ctrl-C or a packet on COM2 stops
 * the machine in frame f's context. */
void gdbstub_poll(struct trap_frame *f);

/* From the NMI handler: 1 when the NMI was the stub's (this CPU has been
 * stopped and resumed, or was already stopped), 0 when it was not. */
int gdbstub_nmi(struct trap_frame *f);

/* From the panic path under gdb=panic or wait: the machine stops for GDB
 * at the fault (f) or, for a panic() call, at the call (f = NULL); returns
 * when GDB continues or detaches, the other CPUs halted. */
void gdbstub_panic(const struct trap_frame *f);

/* What CPU cpu runs, for its thread's name ("cpu 2: <this>"); the kernel
 * says it in kernel/debug/gdbstub_activity.c. */
const char *gdbstub_cpu_activity(unsigned cpu);

#endif
