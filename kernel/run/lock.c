/* kernel/run/lock: lock calls and lock events (lock.h). */
#include "lock.h"

#include "../../arch/x86/cpu.h"
#include "../../lib/fmt.h"
#include "../../lib/trace_rec.h"
#include "../core/bootmem.h"
#include "../core/console.h"
#include "../task/jobs.h"
#include "../trace/trace.h"
#include "dispatch.h"
#include "sched_decide.h"

#define LOCK_REFUSALS_KEPT 8

static struct {
	const struct taskset *ts;
	int quantum;
	lock_op_fn op;
	/* Per task: spinning now, and the first refusals and forced release
	 * to print after the run (printing as they happen would stall the
	 * run on the serial console). */
	uint8_t *spinning;
	char (*refusal)[LOCK_REFUSALS_KEPT][SCHED_ERROR_MAX];
	uint64_t *forced_at;
	uint32_t *forced_res, *forced_job;
	uint8_t *forced_killed;      /* it had been killed, or had exited */
} lk;

/* Quantum-driven runs: the slot in progress on this CPU. */
static int quantum_op(unsigned task, int unlock, unsigned res, char *why,
		      size_t size)
{
	return decide_lock(task, unlock, res, dispatch_slot_now(), why, size);
}

void lock_set_op(lock_op_fn fn)
{
	lk.op = fn;
}

void lock_on_event(void *ctx, const struct sched_lock_event *ev)
{
	(void)ctx;
	struct task *t = &tasks[ev->task];
	uint32_t job = (uint32_t)ev->job;
	if (ev->kind == SCHED_LOCK_BLOCKED) {
		trace_emit(TRACE_LOCK, SCHED_LOCK_BLOCKED, ev->task, job,
			   TRACE_LOCK_ARG(ev->at, 0));
		trace_emit(TRACE_BLOCKED, TRACE_F_BLOCKED_SPIN, ev->task, job,
			   ev->spin);
		trace_emit(TRACE_BLOCKED, TRACE_F_BLOCKED_WAIT, ev->task, job,
			   ev->wait);
		trace_emit(TRACE_BLOCKED, TRACE_F_BLOCKED_PI, ev->task, job,
			   ev->pi);
		trace_emit(TRACE_BLOCKED, TRACE_F_BLOCKED_INTF, ev->task, job,
			   ev->intf);
		/* A job that ends spinning spins no more. */
		if (lk.spinning[ev->task] && lk.quantum)
			jobs_spin_end(t, ev->at);
		lk.spinning[ev->task] = 0;
		return;
	}
	trace_emit(TRACE_LOCK, (uint8_t)ev->kind, ev->task, job,
		   TRACE_LOCK_ARG(ev->at, ev->res));
	switch (ev->kind) {
	case SCHED_LOCK_SPIN:
		lk.spinning[ev->task] = 1;
		if (lk.quantum)
			jobs_spin(t, ev->at);
		break;
	case SCHED_LOCK_ACQUIRE:
		if (lk.spinning[ev->task] && lk.quantum)
			jobs_spin_end(t, ev->at);
		lk.spinning[ev->task] = 0;
		__atomic_add_fetch(&t->lock_acquired[ev->res], 1,
				   __ATOMIC_RELEASE);
		break;
	case SCHED_LOCK_FORCED:
		if (!t->lock_forced++) {
			lk.forced_res[ev->task] = ev->res;
			lk.forced_job[ev->task] = job;
			lk.forced_at[ev->task] = ev->at;
			lk.forced_killed[ev->task] = t->state != TASK_OK;
		}
		break;
	default:
		break;
	}
}

void lock_run_setup(const struct taskset *ts, int quantum)
{
	lk.ts = ts;
	lk.quantum = quantum;
	lk.op = quantum_op;
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	lk.spinning = bootmem_alloc(n * sizeof *lk.spinning);
	lk.refusal = bootmem_alloc(n * sizeof *lk.refusal);
	lk.forced_at = bootmem_alloc(n * sizeof *lk.forced_at);
	lk.forced_res = bootmem_alloc(n * sizeof *lk.forced_res);
	lk.forced_job = bootmem_alloc(n * sizeof *lk.forced_job);
	lk.forced_killed = bootmem_alloc(n * sizeof *lk.forced_killed);
	for (unsigned i = 0; i < ntasks; i++) {
		tasks[i].lock_refused = 0;
		tasks[i].lock_forced = 0;
		for (unsigned r = 0; r < TASKSET_RES_MAX; r++)
			tasks[i].lock_acquired[r] = 0;
	}
}

/* The plugin's refusal as the ABI's error number. */
static int64_t errno_of(int rc)
{
	switch (-rc) {
	case SCHED_LOCK_EUNDECLARED:
		return RT_ENOENT;
	case SCHED_LOCK_ENOTHELD:
	case SCHED_LOCK_EORDER:
		return RT_EPERM;
	case SCHED_LOCK_EDOUBLE:
	case SCHED_LOCK_ENESTING:
		return RT_EDEADLK;
	case SCHED_LOCK_EENDED:
		return RT_ETIME;
	default:
		return RT_EBUSY;
	}
}

static int64_t call(struct task *t, uint64_t res_arg, int unlock)
{
	/* The plugin names a resource that does not exist itself. */
	unsigned res = res_arg > TASKSET_RES_MAX ? TASKSET_RES_MAX
						 : (unsigned)res_arg;
	uint32_t seen = res < TASKSET_RES_MAX ? t->lock_acquired[res] : 0;
	char why[SCHED_ERROR_MAX];
	int rc = lk.op ? lk.op((unsigned)t->index, unlock, res, why, sizeof why)
		       : -SCHED_LOCK_EUNDECLARED;
	if (rc) {
		if (!lk.op)
			fmt_snprintf(why, sizeof why, "this run has no locks");
		if (t->lock_refused < LOCK_REFUSALS_KEPT)
			fmt_snprintf(lk.refusal[t->index][t->lock_refused],
				     SCHED_ERROR_MAX, "%s", why);
		t->lock_refused++;
		return -errno_of(rc);
	}
	/* An event-driven run takes the call at once: this CPU may run
	 * something else from now on (a lower job suspended, a waiter of
	 * higher priority given what was let go). */
	if (dispatch_event_driven()) {
		dispatch_me()->in_kernel = 0;
		dispatch_now();
		dispatch_me()->in_kernel = 1;
	}
	if (unlock)
		return 0;
	/* Until the plugin grants it: spinning, this thread stays on its
	 * CPU; suspended, the next boundary (or at once, event-driven)
	 * switches it away and the grant back. Either way the wait is here,
	 * interrupts on. */
	while (__atomic_load_n(&t->lock_acquired[res], __ATOMIC_ACQUIRE) ==
	       seen) {
		dispatch_me()->in_kernel = 0;
		cpu_wait_for_interrupt();
		irq_disable();
		dispatch_me()->in_kernel = 1;
	}
	/* The program goes on counting its work from here. */
	if (lk.quantum)
		dispatch_account(dispatch_slot_now());
	dispatch_note_progress(t);
	return 0;
}

int64_t lock_sys_lock(struct task *t, struct trap_frame *f)
{
	return call(t, f->rdi, 0);
}

int64_t lock_sys_unlock(struct task *t, struct trap_frame *f)
{
	return call(t, f->rdi, 1);
}

void lock_report(const struct sched_plugin *plugin, void *s)
{
	const struct taskset *ts = lk.ts;
	if (!ts || !ts->nres || !plugin->lock_stats)
		return;
	const char *proto = taskset_protocol_name(ts->res[0].protocol);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task *t = &tasks[i];
		for (unsigned k = 0; k < t->lock_refused &&
				     k < LOCK_REFUSALS_KEPT; k++)
			kprintf("lock: task %s: refused: %s\n", t->name,
				lk.refusal[i][k]);
		if (t->lock_refused > LOCK_REFUSALS_KEPT)
			kprintf("lock: task %s: %u more calls refused\n",
				t->name, t->lock_refused - LOCK_REFUSALS_KEPT);
		if (t->lock_forced)
			kprintf("lock: task %s: %u resource%s released for it; "
				"the first: %s, held as %s at %llu (job %u)\n",
				t->name, t->lock_forced,
				t->lock_forced == 1 ? "" : "s",
				ts->res[lk.forced_res[i]].name,
				lk.forced_killed[i] ? "it was stopped"
						    : "its job ended",
				(unsigned long long)lk.forced_at[i],
				lk.forced_job[i]);
	}
	for (unsigned i = 0; i < ts->ntasks; i++) {
		struct sched_lock_stats st = { 0 };
		plugin->lock_stats(s, i, &st);
		kprintf("RESULT lock name=%s protocol=%s requests=%llu "
			"spin_max=%llu wait_max=%llu pi_max=%llu intf_max=%llu "
			"blocked_max=%llu forced=%llu refused=%u unit=%s\n",
			ts->task[i].name, proto, (unsigned long long)st.requests,
			(unsigned long long)st.spin_max,
			(unsigned long long)st.wait_max,
			(unsigned long long)st.pi_max,
			(unsigned long long)st.intf_max,
			(unsigned long long)st.blocked_max,
			(unsigned long long)st.forced, tasks[i].lock_refused,
			lk.quantum ? "slots" : "us");
	}
}
