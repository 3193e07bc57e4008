/* kernel/run/dispatch: making each CPU run what the plugin chose. */
#include "dispatch.h"

#include "../../arch/x86/context.h"
#include "../../arch/x86/cpu.h"
#include "../../arch/x86/desc.h"
#include "../../arch/x86/power.h"
#include "../../lib/str.h"
#include "../../drivers/apic/lapic.h"
#include "../../sched/sched.h"
#include "../core/bootmem.h"
#include "../task/jobs.h"
#include "../time/quantum_clock.h"
#include "sched_decide.h"
#include "../trace/trace.h"

struct cpu_sched *cpu_scheds;
static unsigned ncpus;
static const struct dispatch_source *source;
/*
 * Under QEMU's TCG each switch ends with PAUSE. With -icount the emulator
 * runs one virtual CPU at a time, in one thread, and moves to the next
 * only when the one running executes PAUSE or HLT or has used up its share
 * of the time to the next timer; the virtual clock counts the running
 * CPU's instructions, so the others' time passes without them executing
 * anything. A chain of short tasks (each killed, or exiting) switched one
 * after another on one CPU held the thread for 390 us while another CPU,
 * which had decided its task, could not switch to it: its job was counted
 * with a third of its quantum. System calls yield the same way
 * (dispatch_yield). On hardware, where PAUSE is only a hint, neither
 * pauses.
 */
static int yield_at_switch;

void dispatch_yield(void)
{
	if (yield_at_switch)
		cpu_relax();
}

static uint32_t idx(const struct task *t)
{
	return t && t->index >= 0 ? (uint32_t)t->index : TRACE_NO_TASK;
}

static uint32_t job_of(const struct task *t)
{
	return t && t->index >= 0 ? (uint32_t)t->jobs.done : 0;
}

/* A reschedule IPI: read the answer again (kernel/core/cpu_wait.c's wake-ups
 * share the vector; for them there is nothing new to switch to). */
static void on_resched_ipi(struct trap_frame *f)
{
	(void)f;
	lapic_eoi();
	if (source)
		source->on_ipi();
	else
		decide_rearm();
	struct cpu_sched *cs = dispatch_me();
	uint64_t sent = cs->ipi_sent_at;
	if (sent) {
		cs->ipi_sent_at = 0;
		trace_emit(TRACE_IPI_RECV, TRACE_F_IPI_RESCHED, idx(cs->current),
			   0, sent);
	}
	if (!cs->in_kernel)
		dispatch_now();
}

void dispatch_setup(unsigned cpus, struct task *idle_threads)
{
	ncpus = cpus;
	source = 0;
	yield_at_switch = str_eq(power_hypervisor(), "TCGTCGTCGTCG");
	cpu_scheds = bootmem_alloc(cpus * sizeof *cpu_scheds);
	for (unsigned k = 0; k < cpus; k++) {
		cpu_scheds[k].idle = &idle_threads[k];
		cpu_scheds[k].current = &idle_threads[k];
	}
	trap_set_handler(VEC_RESCHED_IPI, on_resched_ipi);
}

void dispatch_cpu_start(void)
{
	struct cpu_sched *cs = dispatch_me();
	cs->current = cs->idle;
	cs->idle->scheduled_on = (int)this_cpu()->cpu;
	cs->idle->run_since = qclock_now();
	cs->slot = 0;
	cs->charged_to = 0;
	cs->over = 0;
	cs->in_kernel = 0;
}

void dispatch_cpu_run(void (*idle)(void))
{
	struct percpu *p = this_cpu();
	p->state = CPU_MEASURING;
	irq_disable();
	dispatch_cpu_start();
	qclock_cpu_start(0);
	idle();
	qclock_cpu_stop();
	p->state = CPU_DONE;
}

struct task *dispatch_current(void)
{
	return dispatch_me()->current;
}

void dispatch_set_source(const struct dispatch_source *src)
{
	source = src;
}

int dispatch_event_driven(void)
{
	return source && source->event_driven;
}

int dispatch_before_release(void)
{
	return source && !source->event_driven;
}

int dispatch_job_info(unsigned task, struct rt_job_info *info)
{
	if (!source || !source->job)
		return 0;
	source->job(task, info);
	return 1;
}

void dispatch_end(void)
{
	dispatch_me()->over = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

uint64_t dispatch_cpu_cycles(const struct task *t)
{
	uint64_t c = t->run_cycles;
	if (dispatch_me()->current == t)
		c += qclock_now() - t->run_since;
	return c;
}

void dispatch_enter_slot(uint64_t slot)
{
	struct cpu_sched *cs = dispatch_me();
	cs->slot = slot;
	if (slot >= qclock_slots())
		cs->over = 1;
	/* Against dispatch_changed: either it sees this slot, or we see its
	 * answer. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

uint64_t dispatch_slot_now(void)
{
	if (!decide_at_events())
		return dispatch_me()->slot;
	uint64_t now = qclock_slot_at(this_cpu()->cpu, qclock_now());
	uint64_t at = dispatch_me()->slot;
	return now > at ? now : at;
}

/*
 * Slots [charged_to, upto) of this CPU are charged to the tasks the plugin
 * decided for them, as the plugin counts them: in a run that keeps up that
 * is the thread that ran each (the CPU switched to the answer at once),
 * and where the CPU was late to act on a decision -- a boundary it passed
 * while still in an earlier one's handler, a reschedule IPI taken after
 * the slots it concerns had passed -- the slot still counts as the
 * plugin's task's quantum, so a job ends where the plugin's does and the
 * two job counts never drift apart (a drift of one made every later job
 * of the task a period late, docs/platform.md). A task is never charged
 * for slots before its slept_through, nor once stopped (unless it is the
 * thread that ran here: a kill charges its last slots).
 */
void dispatch_account(uint64_t upto)
{
	struct cpu_sched *cs = dispatch_me();
	if (upto <= cs->charged_to)
		return;
	unsigned me = this_cpu()->cpu;
	if (source) {
		/* An event run has no quantum job model (dispatch.h). */
		cs->charged_to = upto;
		return;
	}
	for (uint64_t s = cs->charged_to; s < upto;) {
		uint64_t until;
		int i = decide_answer_run(me, s, &until);
		if (until > upto)
			until = upto;
		if (i != SCHED_IDLE) {
			struct task *t = &tasks[i];
			uint64_t from = s > t->slept_through ? s : t->slept_through;
			if ((t->state == TASK_OK || t == cs->current) &&
			    from < until)
				jobs_charge(t, me, from, until);
		}
		s = until;
	}
	cs->charged_to = upto;
}

void dispatch_changed(unsigned cpu, uint64_t slot, int task)
{
	struct cpu_sched *cs = &cpu_scheds[cpu];
	/* Chosen anew after its job ended by sleeping in this slot: its next
	 * job is released (it was late) and the plugin counts the slot for
	 * it, so it may run now instead of idling to the slot's end. */
	if (task != SCHED_IDLE && tasks[task].sleeping &&
	    tasks[task].slept_through > slot)
		tasks[task].slept_through = slot;
	if (decide_at_events()) {
		uint64_t at = cs->slot;
		while (at < slot && !__atomic_compare_exchange_n(
			       &cs->slot, &at, slot, 0, __ATOMIC_ACQ_REL,
			       __ATOMIC_ACQUIRE))
			;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	unsigned me = this_cpu()->cpu;
	if (cpu == me || cs->slot < slot)
		return;     /* read at the next preemption point / boundary */
	/* Its timer is armed for this very slot and it has not finished
	 * that boundary's interrupt: it reads the answer at the end of it
	 * (dispatch_after_timer). An IPI would only be taken after. */
	if (qclock_cpu_next(cpu) == slot)
		return;
	uint64_t now = qclock_now();
	cs->ipi_sent_at = now;
	trace_emit_at(now, TRACE_IPI_SEND, TRACE_F_IPI_RESCHED, TRACE_NO_TASK, 0,
		      cpu);
	lapic_send_ipi(percpu[cpu].apic_id, VEC_RESCHED_IPI);
}

void dispatch_note_progress(struct task *t)
{
	if (source && source->progress) {
		source->progress(t);
		return;
	}
	struct rt_control *c = t->control;
	c->job_index = t->jobs.done;
	c->job_work = t->jobs.ran;
	c->work_slot = dispatch_slot_now();
}

/* After a switch, on the thread switched to: prev is off this CPU. A CPU
 * that chose prev while it ran here gets it now. */
static void finish_switch(struct task *prev)
{
	struct cpu_sched *cs = dispatch_me();
	trace_emit(TRACE_CXS_END, 0, idx(cs->current), job_of(cs->current),
		   idx(prev));
	if (prev->index < 0)
		return;     /* an idle thread stays with its CPU */
	__atomic_store_n(&prev->scheduled_on, TASK_NONE, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	int want = prev->linked_on;
	if (want != TASK_NONE && (unsigned)want != this_cpu()->cpu) {
		uint64_t now = qclock_now();
		cpu_scheds[want].ipi_sent_at = now;
		trace_emit_at(now, TRACE_IPI_SEND, TRACE_F_IPI_RESCHED,
			      idx(prev), 0, (uint64_t)want);
		lapic_send_ipi(percpu[want].apic_id, VEC_RESCHED_IPI);
	}
}

static void switch_to(struct cpu_sched *cs, struct task *next)
{
	/* Between boundaries (at events): prev ran until this slot. */
	dispatch_account(cs->slot);
	struct task *prev = cs->current;
	trace_emit(TRACE_CXS_START, 0, idx(next), 0, idx(prev));
	uint64_t now = qclock_now();
	prev->run_cycles += now - prev->run_since;
	next->run_since = now;
	if (prev->fpu)
		fpu_save(prev->fpu);
	if (next->vm) {
		struct percpu *p = this_cpu();
		uint64_t cr3 = (uint64_t)next->vm->pml4;
		if (read_cr3() != cr3)
			write_cr3(cr3);
		desc_set_kernel_stack(&p->tss, (uint64_t)next->kstack_top);
		p->syscall_rsp0 = (uint64_t)next->kstack_top;
		fpu_restore(next->fpu);
		/* For the task's own measurements (rt_abi.h): where it runs
		 * now, and that it was dispatched. */
		next->control->cpu = this_cpu()->cpu;
		dispatch_note_progress(next);
		next->control->dispatches++;
	}
	cs->current = next;
	cs->switches++;
	dispatch_yield();
	prev = context_switch(&prev->rsp, next->rsp, prev);
	/* Maybe on another CPU now: finish_switch looks afresh. */
	finish_switch(prev);
}

/* The task that should run here now, or NULL for the idle thread. */
static struct task *chosen(struct cpu_sched *cs, unsigned me)
{
	if (cs->over || (!source && decide_failed()))
		return 0;
	int i = source ? source->answer(me) : decide_answer(me, cs->slot);
	if (i == SCHED_IDLE)
		return 0;
	struct task *t = &tasks[i];
	if (t->state != TASK_OK)
		return 0;
	if (t->sleeping) {
		if (cs->slot < t->slept_through)
			return 0;       /* its job ended in this slot */
		t->sleeping = 0;
	}
	return t;
}

void dispatch_now(void)
{
	struct cpu_sched *cs = dispatch_me();
	unsigned me = this_cpu()->cpu;
	struct task *next = chosen(cs, me);
	if (next) {
		/* Against finish_switch on the CPU it may still run on: either
		 * it sees our link, or we see it free. */
		next->linked_on = (int)me;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (next != cs->current) {
			int free = TASK_NONE;
			if (!__atomic_compare_exchange_n(&next->scheduled_on, &free,
							 (int)me, 0,
							 __ATOMIC_ACQ_REL,
							 __ATOMIC_ACQUIRE))
				next = 0;   /* still elsewhere: wait idle */
		}
	}
	if (!next)
		next = cs->idle;
	if (next != cs->current)
		switch_to(cs, next);
}

void dispatch_after_timer(void *ctx, unsigned cpu, struct trap_frame *f)
{
	(void)ctx;
	(void)cpu;
	(void)f;
	dispatch_me()->in_kernel = 0;
	/* The quantum clock has moved this CPU's next boundary on; against
	 * dispatch_changed's test of it on the deciding CPU, either that
	 * CPU sees it moved (and sends its IPI) or we see its answer. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	dispatch_now();
}

void dispatch_first_run(void *prev, void *task)
{
	struct task *t = task;
	finish_switch(prev);
	struct trap_frame *f = (struct trap_frame *)t->kstack_top - 1;
	context_enter_user(f);
}
