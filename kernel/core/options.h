/* kernel/core/options: the kernel command line (docs/formats.md, "The
 * kernel command line"). */
#ifndef KERNEL_OPTIONS_H
#define KERNEL_OPTIONS_H

#include <stdint.h>

#include "../../sched/sched.h"

enum ticks_mode {
	TICKS_ALIGNED = 1,
	TICKS_STAGGERED = 2,
	TICKS_BOTH = 3,
};

/* trace= */
enum trace_mode {
	TRACE_OFF,
	TRACE_TICK_LINES,   /* on: a TRACE line per boundary */
	TRACE_EVENTS,       /* events: the event records, dumped after a run */
};

enum selftest {
	SELFTEST_NONE,
	SELFTEST_PF_AP,     /* a page fault on an AP after bring-up */
	SELFTEST_PF_BSP,    /* a page fault on the boot CPU */
	SELFTEST_MSR_GP,    /* an MSR no CPU has, read safely (kernel/report) */
	/* In a quantum-driven run, once, in the quantum interrupt of a CPU
	 * that interrupted a task in ring 3 (kernel/run/sched_run.c): */
	SELFTEST_PF_RUN,    /* a write to an unmapped address */
	SELFTEST_SMAP_RUN,  /* a read of the task's control page by its user
			     * address, which SMAP must stop */
};

/* gdb=: each level includes the ones before it (kernel/debug/gdbstub.h). */
enum gdb_mode {
	GDB_OFF,
	GDB_ON,         /* the stub listens on COM2 */
	GDB_PANIC,      /* and a panic stops in it */
	GDB_WAIT,       /* and the boot waits for GDB */
};

/* dumpstate=: when the plugin's state is printed (kernel/run/dumpstate.h). */
enum dumpstate_when {
	DUMPSTATE_NEVER,
	DUMPSTATE_SLOT,     /* after slot dumpstate_slot is decided */
	DUMPSTATE_END,      /* after the run, with the quantum clock's */
};

/* late_mode=: how a late boundary (late_boundary=) comes late. */
enum late_mode {
	LATE_HOLD,          /* held in the timer's handler, as an SMI would */
	LATE_STALL,         /* the CPU stalls before it takes the interrupt,
			     * as a virtual CPU whose host thread is
			     * descheduled: what came meanwhile goes first */
	LATE_SYSCALL,       /* the CPU stalls in the first system call it
			     * makes while the boundary is its next,
			     * interrupts off, until the boundary is late;
			     * the call then goes on, its slots passed, as in
			     * a virtual CPU descheduled in the kernel */
};

/* arrivals=: where a run's aperiodic arrivals come from (docs/interrupts.md). */
enum arrivals_mode {
	ARRIVALS_TIMER,     /* the run's own one-shot timers */
	ARRIVALS_HPET,      /* HPET comparator interrupts */
	ARRIVALS_UART,      /* lines typed on COM1, besides the set's own */
	/* the set's own, handed by CPU 0's timer to the last CPU by an
	 * interrupt that delivers them as a device's would */
	ARRIVALS_IRQ,
};

/* timing=: the clock the boot was started on, as `make run` says it
 * (TIMING=); the kernel cannot tell, and only reports it. */
enum timing_mode {
	TIMING_UNSTATED,
	TIMING_VIRTUAL,     /* QEMU -icount: time advances with instructions */
	TIMING_REAL,        /* plain TCG, KVM or hardware: the host's clock */
};

/* irqcheck=: the self-check of an interrupt source instead of a run. */
enum irqcheck_mode {
	IRQCHECK_OFF,
	IRQCHECK_HPET,
	IRQCHECK_UART,
};

struct kernel_options {
	uint64_t quantum_us;
	/* sched=, quantum-driven: each boundary's interrupt this long before
	 * the boundary, ring 3 held until it (kernel/time/quantum_clock.c);
	 * less than half the quantum. 0: at the boundary. */
	uint64_t ahead_us;
	enum ticks_mode ticks;
	uint64_t slots;
	const struct sched_plugin *sched;   /* sched=; NULL: none */
	uint64_t spin_us;   /* sched=: spin this long for a turn, then halt */
	int hourglass;      /* sched=: the idle threads are the hourglass */
	int events;         /* sched=: a plugin that can runs at events */
	uint64_t hourglass_ns;  /* a longer gap is time it did not get */
	/* sched=: the synchronous release comes this long after the phase
	 * before it began at the latest (kernel/run/release.h). */
	uint64_t release_timeout_ms;
	enum trace_mode trace;
	int record;         /* sched=: write trace records during the run */
	int optime;         /* sched=: the plugin times its own operations */
	int coldcache;      /* sched=: flush its memory before each decision */
	int schedule;       /* an event run prints its schedule's lines */
	enum selftest selftest;
	int e9;             /* echo the console to port 0xE9 (Bochs) */
	int end_halt;       /* end=halt: stay on the last screen, no exit */
	int hwreport;       /* hwreport=on: the hardware report, then end */
	enum gdb_mode gdb;
	enum dumpstate_when dumpstate;
	uint64_t dumpstate_slot;
	/* late_boundary=CPU:SLOT:US: CPU's (late_all: every CPU's) boundaries
	 * SLOT to SLOT + late_count - 1 are handled US microseconds late,
	 * held in the timer's handler or stalled before it (late_mode=;
	 * kernel/time/quantum_clock.c); late_us 0: none. */
	unsigned late_cpu;
	int late_all;
	uint64_t late_slot, late_us, late_count;
	enum late_mode late_mode;
	enum arrivals_mode arrivals;
	enum irqcheck_mode irqcheck;
	enum timing_mode timing;
	uint64_t irq_cpu;   /* the CPU the arrival interrupts go to */
	/* Scheduler parameters (gdq_T=40 ...), handed to the plugin. */
	struct sched_param params[8];
	unsigned nparams;
	/* A word whose default is not a lesser form of what was asked: a
	 * sched= naming no scheduler would fall back to the self-measurement
	 * and pass. The boot fails instead (reason=cmdline). */
	int fatal;
};

extern struct kernel_options options;

/* Applies every word it understands; an unknown word or a bad value is
 * named on the console and the default stays (or, for sched=, fatal is
 * set). */
void options_parse(const char *cmdline);

#endif
