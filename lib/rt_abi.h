/*
 * lib/rt_abi.h: the contract between the kernel and the ring-3 programs of
 * user/ -- where a task's memory lies, the system calls, and the control
 * page the two share. docs/user-abi.md explains it; both sides include this
 * header, so it holds constants and layouts only.
 *
 * A task's address space: the kernel's mappings (supervisor-only) plus, in
 * PML4 slot 1, its own pages:
 *
 *   RT_USER_BASE   program text, rodata, data, bss (the ELF's PT_LOAD
 *                  segments; programs are linked here, -mcmodel=large)
 *   RT_WS_BASE     the working set: ws bytes, read-write (task file `ws=`)
 *   RT_STACK_TOP   the user stack grows down from here (RT_STACK_SIZE)
 *   RT_CONTROL     one page, read-write: struct rt_control
 *
 * System calls (SYSCALL): number in rax, arguments in rdi, rsi, rdx; the
 * result in rax, a negative RT_E* on error; rcx and r11 are clobbered.
 */
#ifndef LIB_RT_ABI_H
#define LIB_RT_ABI_H

#include <stdint.h>

#define RT_USER_BASE   0x0000008000000000ull  /* 512 GiB: PML4 slot 1 */
#define RT_USER_LIMIT  0x0000010000000000ull  /* end of slot 1 */
#define RT_WS_BASE     0x000000c000000000ull
#define RT_WS_MAX      (64ull << 20)          /* largest ws= the kernel maps */
#define RT_STACK_TOP   0x000000f000000000ull
#define RT_STACK_SIZE  (64ull << 10)
#define RT_CONTROL     0x000000f000100000ull

enum rt_syscall {
	RT_SYS_EXIT = 0,              /* (code): the task ends; never returns */
	RT_SYS_SLEEP_NEXT_PERIOD = 1, /* (): the job is complete; returns at
				       * the next job's release with 0 */
	RT_SYS_TIME = 2,              /* (): nanoseconds since the run's epoch */
	RT_SYS_JOB_INFO = 3,          /* (struct rt_job_info *out): 0 */
	RT_SYS_WRITE = 4,             /* (const char *buf, uint64_t len): bytes
				       * taken into the task's console buffer */
	RT_SYS_TRACE = 5,             /* (uint64_t job, uint64_t value): a
				       * `user` record in the run's trace
				       * (docs/trace-format.md) with the two
				       * as given; 0 */
	RT_SYS_COUNT
};

/* Errors, returned negated. A pointer outside the task's own mapped pages
 * is not an error return: the task is killed for it, as for a fault. */
#define RT_EINVAL 22   /* a length or value out of range */
#define RT_ENOSYS 38   /* no such system call */

#define RT_WRITE_MAX 4096   /* largest single write */

struct rt_job_info {
	uint64_t job;           /* 0 for the first job */
	uint64_t release_ns;    /* from the run's epoch */
	uint64_t deadline_ns;
	uint64_t budget_ns;     /* e quanta */
	uint64_t period_ns;     /* p quanta; 0 for a weight-only task */
	uint64_t now_ns;
	uint32_t task;          /* index in the task set */
	uint32_t cpu;           /* the CPU the call ran on */
};

#define RT_CONTROL_MAGIC 0x72746b63u   /* "rtkc" */
#define RT_CONTROL_VERSION 1

/*
 * The control page. The kernel fills the first part before the task's first
 * instruction; the task writes the second part whenever it likes, and the
 * kernel reads it after the run and prints it as the task's own measurements
 * (untrusted numbers: reported, never acted on).
 */
struct rt_control {
	/* Written by the kernel. */
	uint32_t magic, version;
	uint32_t task;             /* index in the task set */
	uint32_t e, p, d;          /* quanta; 0 for a weight-only task */
	uint32_t weight;           /* weight= value, 0 if given as e/p */
	uint32_t ws_bytes;         /* the working set at RT_WS_BASE */
	uint64_t quantum_ns;
	uint64_t tsc_khz;          /* TSC ticks per millisecond */
	uint64_t epoch_tsc;        /* the run's epoch T0 in the boot CPU's TSC
				    * (others differ by at most RESULT tsc
				    * max_skew_cycles) */
	uint64_t gap_threshold_cycles;  /* hourglass: a longer gap is a
					 * preemption, not loop time */
	uint64_t seed;             /* for workloads that draw numbers */
	uint64_t other_page;       /* bad_write_other only: the kernel
				    * address of another task's page */
	uint64_t flags;            /* RT_CONTROL_* */
	/* Updated at every dispatch of the task, before it runs: the CPU it
	 * now runs on and how many times it was dispatched, so a task can
	 * tell a preemption (same CPU) or a migration from an interrupt. */
	uint64_t cpu;
	uint64_t dispatches;
	uint64_t reserved_k[3];

	/* Written by the task. */
	uint64_t self_cycles;      /* time it saw itself run, hourglass style */
	uint64_t gaps;             /* gaps above the threshold it saw */
	uint64_t gap_max_cycles;
	uint64_t jobs_seen;        /* jobs it worked on (backtest) */
	uint64_t iterations;       /* work units done (passes, accesses) */
	uint64_t lat_count;        /* release latency: release to its first */
	uint64_t lat_sum_ns;       /* instruction after sleep_next_period */
	uint64_t lat_max_ns;
	uint64_t resp_count;       /* backtest: response times of its jobs */
	uint64_t resp_sum_ns;
	uint64_t resp_max_ns;
	/* writer: own cycles of the lines written without a gap, and of the
	 * first working set's worth of lines written after each dispatch,
	 * [0] back on the same CPU (a preemption), [1] on another (a
	 * migration) -- LITMUS^RT Sec. 4.1's reload cost, measured in place. */
	uint64_t steady_lines, steady_cycles;
	uint64_t resume_n[2], resume_cycles[2];
	uint64_t reserved_u[5];
};

_Static_assert(sizeof(struct rt_control) <= 4096, "one page");

/*
 * flags: busy loops should execute PAUSE at every step. The kernel asks
 * for it under QEMU's TCG, whose single-threaded round robin (with
 * -icount, QEMU 7) gives a virtual CPU that never leaves its translated
 * code the whole time slice up to the next timer, so the other CPUs' timer
 * interrupts wait for it; PAUSE ends the slice. On hardware it would only
 * slow the loop, so there the flag is clear.
 */
#define RT_CONTROL_PAUSE 1u

#endif
