/*
 * kernel/task/task: threads. Every task of the set is a thread that runs its
 * program in ring 3 in an address space of its own; every CPU has an idle
 * thread (the CPU's own boot context during a run), which is also the
 * in-kernel hourglass.
 *
 * As in LITMUS^RT, what the plugin chose and what runs are kept apart: a
 * task is linked to the CPU the plugin chose it for (linked_on), and
 * scheduled on the CPU whose registers hold it (scheduled_on). They differ
 * for the moments between a decision and the switch, and when a task
 * chosen for one CPU is still running on another: the chooser runs its
 * idle thread until the other CPU lets the task go, then takes it.
 */
#ifndef KERNEL_TASK_H
#define KERNEL_TASK_H

#include <stdint.h>

#include "../../arch/x86/context.h"
#include "../../arch/x86/features.h"
#include "../../lib/rt_abi.h"
#include "../../lib/taskset.h"
#include "../../lib/heap.h"
#include "../core/spinlock.h"
#include "vm.h"

#define TASK_NONE (-1)
#define TASK_OUT_MAX 2048       /* a task's console buffer */
#define TASK_WHY_MAX 160
#define TASK_SPINS 8            /* spin intervals not yet charged past */

enum task_state {
	TASK_OK,
	TASK_KILLED,     /* a fault or a bad system call stopped it */
	TASK_EXITED,     /* it called exit */
};

/* A task's jobs as the kernel accounts them: kernel/task/jobs.h. */
struct task_jobs {
	struct spinlock lock;
	int periodic;             /* it has e and p */
	int present, blocked;
	uint64_t released;        /* jobs released so far */
	uint64_t done;            /* jobs completed or dropped: the current
				   * one is job `done` */
	uint64_t ran;             /* quanta job `done` has run */
	/* Job anchor_job is released at slot anchor_slot, later ones every p. */
	uint64_t anchor_job, anchor_slot;
	struct heap_node node;    /* in the release queue while releasing */
	int queued;
	/* Slots it spends spinning for a resource are no work (jobs.h,
	 * jobs_spin): [spin_from, spin_to) in a ring, oldest first. */
	uint64_t spin_from[TASK_SPINS], spin_to[TASK_SPINS];
	unsigned spin_first, spin_n;
};

struct task {
	/* What it is. */
	int index;                      /* in the task set; -1: an idle thread */
	const struct task_spec *spec;   /* NULL for an idle thread */
	const char *name;

	/* The two views of where it is (kernel/run/dispatch.c). */
	volatile int linked_on;         /* chosen for this CPU, or TASK_NONE */
	volatile int scheduled_on;      /* running, or switching, here */
	volatile enum task_state state;
	/* After sleep_next_period: runs again once chosen for a slot from
	 * slept_through on -- 1 + the latest slot in which a job of it ended
	 * by sleeping (0: none), which is never charged to it again. */
	volatile int sleeping;
	uint64_t slept_through;

	/* Its context. */
	uint64_t rsp;                   /* saved while it does not run */
	uint8_t *kstack_top;
	struct fpu_area *fpu;           /* NULL for a kernel thread */
	struct vm_space *vm;            /* NULL for a kernel thread */
	struct rt_control *control;     /* the kernel's view of its page */
	uint64_t entry;                 /* its program's first instruction */
	uint64_t user_rsp;              /* ... and stack pointer (argc) */
	uint32_t prog_flags;            /* its program's RT_PROG_* */

	/* CPU time (kernel/run/dispatch.c): stretches ended, in boot-CPU TSC
	 * cycles, and when the one in progress began. */
	uint64_t run_cycles, run_since;

	/* Jobs and budget, as the kernel accounts them (kernel/task/jobs.c). */
	struct task_jobs jobs;

	/* Its console: what it wrote, printed after the run. */
	char *out;
	uint32_t out_len, out_lost;

	uint32_t faults;
	char why[TASK_WHY_MAX];         /* why it was killed */

	/* Locks (kernel/run/lock.c): how many times it acquired each
	 * resource (a lock call waits for the count to move), its calls
	 * refused, and the resources released for it at its jobs' ends. */
	volatile uint32_t lock_acquired[TASKSET_RES_MAX];
	uint32_t lock_refused, lock_forced;
};

/* The tasks of the run and one idle thread per CPU. */
extern struct task *tasks;
extern unsigned ntasks;

/* A new task's thread, not yet started: its kernel stack set to enter
 * ring 3 at its program's entry (kernel/task/program.c maps it). Its first
 * switch-in runs first_run(prev, t) on that stack, which must end in the
 * return to ring 3 (the dispatcher's, kernel/run/dispatch.c). */
void task_init_user(struct task *t,
		    context_entry first_run);
/* The idle thread of the calling CPU: the context the CPU is in now. */
void task_init_idle(struct task *t, unsigned cpu);

#endif
