/* kernel/run/release: the phase before the synchronous release. */
#include "release.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/percpu.h"
#include "../../arch/x86/tsc.h"
#include "../../lib/rt_abi.h"
#include "../../sched/sched.h"
#include "../core/bootmem.h"
#include "../core/console.h"
#include "../core/smp.h"
#include "../core/spinlock.h"
#include "../task/task.h"
#include "../time/quantum_clock.h"
#include "dispatch.h"

/* The phase's clock starts this far ahead, as a run's does. */
#define LEAD_US 20000

static struct {
	struct spinlock lock;
	unsigned n;                /* tasks that take part */
	unsigned *part;            /* their indices */
	uint8_t *at;               /* per task: at the barrier */
	int *ans;                  /* per CPU: the task it runs */
	unsigned rr;               /* round robin: where the next look starts */
	uint64_t slots;            /* the phase's quanta: the timeout */
	uint64_t last_tsc;         /* when the last one reached the barrier */
	volatile int active;
} rl;

static int eligible(unsigned i)
{
	return tasks[i].state == TASK_OK && !rl.at[i];
}

static unsigned remaining(void)
{
	unsigned left = 0;
	for (unsigned j = 0; j < rl.n; j++)
		left += eligible(rl.part[j]);
	return left;
}

/* Another CPU than k runs task i. */
static int held(unsigned i, unsigned k)
{
	for (unsigned j = 0; j < qclock_cpus(); j++)
		if (j != k && rl.ans[j] == (int)i)
			return 1;
	return 0;
}

/* CPU k's next task, under the lock: at a boundary (turn) the next one
 * in round robin that no CPU runs, else it keeps its own while it can. */
static int pick(unsigned k, int turn)
{
	int cur = rl.ans[k];
	int keep = cur != SCHED_IDLE && eligible((unsigned)cur);
	if (keep && !turn)
		return cur;
	for (unsigned s = 0; s < rl.n; s++) {
		unsigned i = rl.part[(rl.rr + s) % rl.n];
		if ((int)i == cur || !eligible(i) || held(i, k))
			continue;
		rl.rr = (rl.rr + s + 1) % rl.n;
		return (int)i;
	}
	return keep ? cur : SCHED_IDLE;
}

static int answer(unsigned cpu)
{
	uint64_t flags = spin_lock_irqsave(&rl.lock);
	rl.ans[cpu] = pick(cpu, 0);
	int a = rl.ans[cpu];
	spin_unlock_irqrestore(&rl.lock, flags);
	return a;
}

static void on_ipi(void)
{
}

static uint64_t on_boundary(void *ctx, unsigned cpu, uint64_t slot,
			    int missed, uint64_t entry)
{
	(void)ctx;
	(void)missed;
	(void)entry;
	dispatch_me()->in_kernel = 1;
	spin_lock(&rl.lock);
	int over = remaining() == 0 || slot + 1 >= rl.slots;
	if (!over)
		rl.ans[cpu] = pick(cpu, 1);
	spin_unlock(&rl.lock);
	if (!over)
		return slot + 1;
	dispatch_end();
	return QCLOCK_NONE;
}

/* The idle thread of the phase: halts (the run's hourglass is not yet
 * measuring). */
static void halt_until_over(void)
{
	struct cpu_sched *cs = dispatch_me();
	while (!cs->over) {
		cpu_wait_for_interrupt();
		irq_disable();
	}
}

static void phase_cpu(void *arg)
{
	(void)arg;
	dispatch_cpu_run(halt_until_over);
}

int64_t release_wait(struct task *t)
{
	if (!rl.active || !rl.at || t->index < 0 || !eligible((unsigned)t->index))
		return RT_RELEASE_PASSED;
	int in_phase = 0;
	for (unsigned j = 0; j < rl.n; j++)
		in_phase |= rl.part[j] == (unsigned)t->index;
	if (!in_phase)
		return RT_RELEASE_PASSED;
	spin_lock(&rl.lock);
	rl.at[t->index] = 1;
	if (remaining() == 0)
		rl.last_tsc = qclock_now();
	spin_unlock(&rl.lock);
	/* Another task, or idle; back here when the run dispatches it. */
	dispatch_me()->in_kernel = 0;
	dispatch_now();
	return 0;
}

/* The tasks that take part; 0 when none does. */
static unsigned gather(void)
{
	rl.n = 0;
	for (unsigned i = 0; i < ntasks; i++)
		if (tasks[i].prog_flags & RT_PROG_SYNC_RELEASE)
			rl.n++;
	if (!rl.n)
		return 0;
	rl.part = bootmem_alloc(rl.n * sizeof *rl.part);
	rl.at = bootmem_alloc(ntasks);
	rl.n = 0;
	for (unsigned i = 0; i < ntasks; i++)
		if (tasks[i].prog_flags & RT_PROG_SYNC_RELEASE)
			rl.part[rl.n++] = i;
	return rl.n;
}

static void report(uint64_t timeout_ms)
{
	uint64_t t0 = qclock_t0();
	unsigned reached = 0;
	for (unsigned j = 0; j < rl.n; j++)
		reached += rl.at[rl.part[j]];
	int timed_out = reached < rl.n && remaining() > 0;
	uint64_t waited = rl.last_tsc > t0 ? tsc_to_us(rl.last_tsc - t0) : 0;
	if (timed_out) {
		waited = timeout_ms * 1000;
		kprintf("release: after %llu ms, %u of %u tasks at the barrier; "
			"released without:", (unsigned long long)timeout_ms,
			reached, rl.n);
		for (unsigned j = 0; j < rl.n; j++)
			if (eligible(rl.part[j]))
				kprintf(" %s", tasks[rl.part[j]].name);
		kprintf("\n");
	} else {
		kprintf("release: %u of %u tasks at the barrier after %llu us%s; "
			"T0 follows\n", reached, rl.n, (unsigned long long)waited,
			reached < rl.n ? " (the others ended before it)" : "");
	}
	kprintf("RESULT release tasks=%u reached=%u timeout=%d waited_us=%llu\n",
		rl.n, reached, timed_out, (unsigned long long)waited);
}

int release_phase(unsigned cpus, uint64_t quantum_us, uint64_t timeout_ms)
{
	if (!gather())
		return 0;
	rl.ans = bootmem_alloc(cpus * sizeof *rl.ans);
	for (unsigned k = 0; k < cpus; k++)
		rl.ans[k] = SCHED_IDLE;
	rl.lock.locked = 0;
	rl.rr = 0;
	rl.last_tsc = 0;
	rl.slots = (timeout_ms * 1000 + quantum_us - 1) / quantum_us;
	if (rl.slots < 2)
		rl.slots = 2;
	static const struct dispatch_source source = { answer, on_ipi, 0, 0,
						       0 };
	dispatch_set_source(&source);
	static const struct qclock_client client = { on_boundary,
						     dispatch_after_timer, 0, 0 };
	qclock_prepare(0, rl.slots, quantum_us, cpus, LEAD_US, &client);
	rl.active = 1;
	unsigned late = smp_run_on_all(phase_cpu, 0, LEAD_US + 2 * timeout_ms *
				       1000 + 2000000);
	rl.active = 0;
	dispatch_set_source(0);
	if (late) {
		qclock_say_stopped("release");
		return -1;
	}
	report(timeout_ms);
	/* The run starts afresh: CPU time from T0, no CPU chosen. */
	for (unsigned i = 0; i < ntasks; i++) {
		tasks[i].run_cycles = 0;
		tasks[i].linked_on = TASK_NONE;
	}
	return 0;
}
