/*
 * kernel/run/dispatch: what each CPU runs -- the switch from the thread that
 * runs to the one the plugin chose (kernel/run/sched_decide.c keeps the
 * answers; this makes them so).
 *
 * A CPU switches only at its own preemption points, with interrupts off:
 * after a quantum boundary (the clock's `after`), on a reschedule IPI that
 * interrupted ring 3 or the idle thread, and at the end of a system call
 * that changed a decision. A reschedule IPI that arrives while the CPU is
 * inside the kernel (waiting for its turn or a lock, interrupts briefly
 * on) only returns: the path it interrupted dispatches when it ends.
 *
 * Another CPU's answer that changes is never written into that CPU's
 * state: the changer sends it the IPI and it reads its own answer again.
 */
#ifndef KERNEL_DISPATCH_H
#define KERNEL_DISPATCH_H

#include <stdint.h>

#include "../../arch/x86/percpu.h"
#include "../../arch/x86/trap.h"
#include "../task/task.h"

struct cpu_sched {
	struct task *current;       /* the thread whose registers are live */
	struct task *idle;
	volatile uint64_t slot;     /* the slot whose answer runs here */
	uint64_t charged_to;        /* slots before it are charged */
	volatile int in_kernel;     /* inside a handler: no switch from IPIs */
	volatile int over;          /* the run's end has come here */
	volatile uint64_t switches;
	volatile uint64_t ipi_sent_at;  /* when another CPU last asked (BSP
					 * TSC), for the ipi_recv record */
} __attribute__((aligned(64)));

extern struct cpu_sched *cpu_scheds;

static inline struct cpu_sched *dispatch_me(void)
{
	return &cpu_scheds[this_cpu()->cpu];
}

/* Before the run: per-CPU records for cpus CPUs, their idle threads. */
void dispatch_setup(unsigned cpus, struct task *idle_threads);

/* On each CPU as the run starts: it runs its idle thread. */
void dispatch_cpu_start(void);

/* A CPU's whole part in a run (smp_run_on_all): it starts, its quantum
 * clock from boundary 0, runs idle() as its idle thread until the run's
 * end has come there, and stops its clock. */
void dispatch_cpu_run(void (*idle)(void));

/* CPU me enters its boundary `slot`: what runs from now is slot's answer. */
void dispatch_enter_slot(uint64_t slot);

/* The slot in progress here: the boundary's, or at events (where
 * boundaries are few) the quantum clock's. */
uint64_t dispatch_slot_now(void);

/* The slots since the last charge up to `upto` are charged to the tasks
 * the plugin decided for them on this CPU (kernel/task/jobs.h,
 * jobs_charge), whether or not the CPU got to run them. Interrupts off. */
void dispatch_account(uint64_t upto);

/* Switch to this CPU's current answer if it can run (interrupts off, not
 * in_kernel). */
void dispatch_now(void);

/* A quantum clock client's `after` (kernel/time/quantum_clock.h) for a
 * run: the CPU leaves its handler and runs its answer. */
void dispatch_after_timer(void *ctx, unsigned cpu, struct trap_frame *f);

/* The answer for CPU cpu's slot changed (decide's callback): cpu reads it
 * again -- now if it is this CPU (at its next preemption point), else
 * after the IPI this sends, if cpu has reached that slot (at events it
 * has: the slot is now, and becomes cpu's). A task chosen again in the
 * slot its job ended by sleeping may run at once. */
void dispatch_changed(unsigned cpu, uint64_t slot, int task);

/* Where t's job is, in its control page (lib/rt_abi.h: job_index,
 * job_work, work_slot), for a program that runs critical sections: done
 * at every dispatch and when a lock call returns. */
void dispatch_note_progress(struct task *t);

/* The thread running here (an idle thread, or a task). */
struct task *dispatch_current(void);

/*
 * Where the answers come from instead of kernel/run/sched_decide.c: in an
 * event-driven run (kernel/events/event_run.c), and in the phase before the
 * synchronous release (kernel/run/release.c). answer(cpu) is CPU cpu's
 * latest answer (a task index or SCHED_IDLE); on_ipi() runs first in the
 * reschedule IPI's handler (the CPU re-arms its timer there). job, when
 * set, fills info's job, release_ns, deadline_ns and ran_ns for task (the
 * event-driven run's own account of its jobs). NULL: sched_decide.
 */
struct rt_job_info;
struct dispatch_source {
	int (*answer)(unsigned cpu);
	void (*on_ipi)(void);
	int event_driven;          /* 0: the phase before the release */
	void (*job)(unsigned task, struct rt_job_info *info);
	/* Where t's job is, in its control page (dispatch_note_progress). */
	void (*progress)(struct task *t);
};
void dispatch_set_source(const struct dispatch_source *src);
/* 1 in an event-driven run: the kernel ends the jobs there, so there is
 * no quantum job model to charge, stop or complete. */
int dispatch_event_driven(void);
/* 1 in the phase before the synchronous release: no job has begun, and
 * no plugin runs. */
int dispatch_before_release(void);
/* The event-driven run's account of task's current job (its source's
 * job), or 0 when there is none. */
int dispatch_job_info(unsigned task, struct rt_job_info *info);

/* Under QEMU's TCG, PAUSE: the emulator runs its other virtual CPUs before
 * this one goes on (dispatch.c). Every switch does it; so does every
 * system call. Nothing on hardware. */
void dispatch_yield(void);

/* The run's end has come on this CPU: from now on it runs its idle
 * thread, whose loop then returns. */
void dispatch_end(void);

/* The CPU time thread t has had in this run, in boot-CPU TSC cycles: every
 * stretch it was the current thread of a CPU, the one in progress included
 * when that is the calling CPU's (interrupts off). */
uint64_t dispatch_cpu_cycles(const struct task *t);

/* The first run of a task's thread (its kernel stack starts here). */
void dispatch_first_run(void *prev, void *task) __attribute__((noreturn));

#endif
