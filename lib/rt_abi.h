/*
 * lib/rt_abi.h: the contract between the kernel and the ring-3 programs of
 * user/ -- where a task's memory lies, the system calls, and the control
 * page the two share. docs/user-programs.md explains it; both sides include this
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
 *
 * A program starts at its ELF entry with rsp at its first frame (System V
 * AMD64 psABI 3.4.1, without environment or auxiliary vector): argc at
 * rsp, then argv[0..argc-1] and a NULL; argv[0] is its name (work=), the
 * others are its task's args="..." words (lib/task_args.h).
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
	RT_SYS_WAIT_RELEASE = 5,      /* (): waits for the synchronous release;
				       * 0 when released with the set, or
				       * RT_RELEASE_PASSED at once */
	RT_SYS_END_JOB = 6,           /* (uint64_t job): job `job` is done; 0
				       * when the task runs again, or
				       * RT_JOB_ENDED at once */
	RT_SYS_TASK_INFO = 7,         /* (struct rt_task_info *out): 0 */
	RT_SYS_LOCK = 8,              /* (uint64_t res): returns 0 once the task
				       * holds resource res (docs/locking.md) */
	RT_SYS_UNLOCK = 9,            /* (uint64_t res): 0; the task lets res
				       * go */
	RT_SYS_TRACE = 10,            /* (uint64_t job, uint64_t value): a
				       * `user` record in the run's trace
				       * (docs/trace-format.md) with the two
				       * as given; 0 */
	RT_SYS_COUNT
};

/* RT_SYS_WAIT_RELEASE: the run's release had come before the call (the
 * task came late, after the timeout, or its program declares no
 * RT_PROG_SYNC_RELEASE and so starts after T0): its jobs run from T0. */
#define RT_RELEASE_PASSED 1
/* RT_SYS_END_JOB: that job had already ended (the kernel ends a job when
 * its budget is used); the current one is a later job. */
#define RT_JOB_ENDED 1

/* Errors, returned negated. A pointer outside the task's own mapped pages
 * is not an error return: the task is killed for it, as for a fault. */
#define RT_EINVAL 22   /* a length or value out of range */
#define RT_ENOSYS 38   /* no such system call */
/* lock and unlock (the kernel prints why on its console): */
#define RT_ENOENT 2    /* no such resource, or not in the task's cs= */
#define RT_EPERM 1     /* unlock of a resource it does not hold, or not the
			* one it locked last */
#define RT_EDEADLK 35  /* lock of one it holds, or nesting the protocol
			* forbids */
#define RT_EBUSY 16    /* earlier calls have not taken effect yet */
#define RT_ETIME 62    /* the job that made the call had ended at its budget
			* before the call reached the scheduler (its CPU was
			* behind): nothing done */

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
	uint64_t ran_ns;        /* the CPU time the kernel has counted for
				 * this job: whole quanta in a quantum-driven
				 * run (charged at each quantum's end), the
				 * thread's time in an event-driven one */
};

#define RT_CS_MAX 8                    /* TASKSET_CS_MAX */

/* The task's own parameters (RT_SYS_TASK_INFO), from its task-set line. */
#define RT_NAME_MAX 32
#define RT_NOT_GIVEN 0xffffffffu  /* exec and prio when the line has none */
#define RT_TASK_EVENT_DRIVEN 1u   /* flags: the run is event-driven (pfp):
				   * the kernel ends every job */

struct rt_task_info {
	uint32_t task;          /* index in the task set */
	uint32_t cpus;          /* CPUs of the run */
	uint32_t e, p, d, phase;   /* quanta; 0 for a weight-only task */
	uint32_t weight;        /* weight=, 0 if given as e/p */
	uint32_t exec;          /* exec= quanta, or RT_NOT_GIVEN */
	uint32_t ws_bytes;
	uint32_t prio;          /* prio=, or RT_NOT_GIVEN */
	uint32_t cpu;           /* cpu= (0 when not given) */
	uint32_t flags;         /* RT_TASK_* */
	uint64_t quantum_ns;
	uint64_t budget_ns, period_ns, deadline_ns, phase_ns; /* the quanta
				 * above in ns; deadline_ns is relative */
	uint64_t exec_ns;       /* exec= in ns, or budget_ns */
	char name[RT_NAME_MAX];    /* the task's name, NUL-ended */
	char work[RT_NAME_MAX];    /* its program's name */
	char sched[RT_NAME_MAX];   /* the scheduler's name */
};

/*
 * A program's declaration of what it needs: an ELF note (a PT_NOTE
 * segment) named RT_NOTE_NAME of type RT_NOTE_PROGRAM whose 4-byte
 * descriptor holds RT_PROG_* flags; user/lib/start.h's RT_PROGRAM(flags)
 * writes it, and a program without one declares nothing. The kernel reads
 * it before the run (lib/elf64) and refuses a task its program cannot
 * serve, naming both. Plain numbers: the assembler reads them too.
 */
#define RT_NOTE_NAME "rtk"
#define RT_NOTE_PROGRAM 1
/* It ends its own jobs (sleep_next_period, end_job): an event-driven run,
 * where the kernel ends every job, refuses it; and a task with exec= needs
 * such a program in a quantum-driven run. */
#define RT_PROG_ENDS_JOBS 0x1
/* Its jobs need e= and p=: a weight-only task is refused. */
#define RT_PROG_NEEDS_PERIODS 0x2
/* It calls RT_SYS_WAIT_RELEASE before its first job: the run's T0 waits
 * until every such task has (docs/user-programs.md, "The synchronous
 * release"). */
#define RT_PROG_SYNC_RELEASE 0x4
/* It wants another task's control page in ctl->other_page (bad_write_other,
 * which must be stopped writing it). */
#define RT_PROG_OTHER_PAGE 0x8
/* It times its reload after each dispatch (writer): the kernel prints
 * RESULT reload from its control page. */
#define RT_PROG_RELOAD 0x10
#define RT_PROG_KNOWN 0x1f

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
				    * max_skew_cycles); 0 before the
				    * synchronous release */
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
	/* Written when sleep_next_period or end_job returns 0, on the way
	 * back to the task: the job it runs now (as rt_job_info.job) and that
	 * job's release in ns since the epoch. They stay until the next such
	 * return, so a release latency measured from them belongs to the
	 * wake, even where the kernel ends jobs between the wake and a later
	 * job_info (a CPU stalled in that call while its slots passed). */
	uint64_t woke_job;
	uint64_t woke_release_ns;
	uint64_t reserved_k[1];

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

	/*
	 * Locks (docs/locking.md), written by the kernel. The task's critical
	 * sections (its cs=): resource cs_res[i] held from when cs_at[i]
	 * quanta of the job's work are done, for cs_len[i]. Where its job
	 * is, written at every dispatch and when lock returns: job_index
	 * (as rt_job_info.job), job_work quanta of work it has done, counted
	 * up to the start of slot work_slot -- every slot from then on that
	 * the task runs through is one more quantum of work.
	 */
	uint32_t ncs;
	uint32_t cs_res[RT_CS_MAX], cs_at[RT_CS_MAX], cs_len[RT_CS_MAX];
	uint64_t job_index, job_work, work_slot;
	/* In an event-driven run (flags & RT_CONTROL_EVENTS) instead of
	 * job_work and work_slot: the nanoseconds of work done, counted up to
	 * the moment this CPU's TSC read work_tsc -- from then on, while the
	 * task runs, its time is work. */
	uint64_t job_work_ns, work_tsc;
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
/* flags: an event-driven run (sched=pfp): the work fields are job_work_ns
 * and work_tsc, and a lock call takes effect when it is made. */
#define RT_CONTROL_EVENTS 2u

#endif
