/* kernel/sched_decide: the plugin's decisions in the order it needs. */
#include "sched_decide.h"

#include "../arch/x86/cpu.h"
#include "bootmem.h"
#include "cpu_wait.h"
#include "dumpstate.h"
#include "spinlock.h"
#include "trace.h"

/* How many slots a CPU's decisions may run ahead of the CPU: a CPU that
 * falls further behind (missed boundaries) takes the newest. */
#define AHEAD 16

struct answers {
	uint64_t slot[AHEAD];      /* slot + 1; 0: empty */
	int task[AHEAD];
} __attribute__((aligned(64)));

static struct {
	struct sched_driver *d;
	int ordered;
	unsigned m;
	decide_changed_fn changed;
	struct answers *ans;         /* per CPU */
	struct spinlock lock;
	/* ordered: the next (slot * M + cpu) allowed to call. */
	volatile uint64_t ticket;
	/* aligned: slots [0, decided) are decided for every CPU. */
	volatile uint64_t decided;
	volatile int failed;
} dc;

void decide_setup(struct sched_driver *d, int ordered, unsigned cpus,
		  decide_changed_fn changed)
{
	dc.d = d;
	dc.ordered = ordered;
	dc.m = cpus;
	dc.changed = changed;
	dc.ans = bootmem_alloc(cpus * sizeof *dc.ans);
	dc.ticket = 0;
	dc.decided = 0;
	dc.failed = 0;
	dc.lock.locked = 0;
}

int decide_failed(void)
{
	return dc.failed;
}

static void remember(unsigned cpu, uint64_t slot, int task)
{
	struct answers *a = &dc.ans[cpu];
	a->task[slot % AHEAD] = task;
	__atomic_store_n(&a->slot[slot % AHEAD], slot + 1, __ATOMIC_RELEASE);
}

int decide_answer(unsigned cpu, uint64_t slot)
{
	struct answers *a = &dc.ans[cpu];
	if (__atomic_load_n(&a->slot[slot % AHEAD], __ATOMIC_ACQUIRE) != slot + 1)
		return SCHED_IDLE;
	return a->task[slot % AHEAD];
}

/* The driver's on_choice: every answer, first ones and replacements. A
 * replacement for a slot a CPU may already be running is passed on. */
void decide_on_choice(void *ctx, unsigned cpu, uint64_t t, int task)
{
	(void)ctx;
	struct answers *a = &dc.ans[cpu];
	int replaces = a->slot[t % AHEAD] == t + 1;
	remember(cpu, t, task);
	if (replaces && dc.changed)
		dc.changed(cpu, t, task);
}

static int my_turn(void *arg)
{
	return __atomic_load_n(&dc.ticket, __ATOMIC_ACQUIRE) ==
	       *(uint64_t *)arg || dc.failed;
}

static int got_lock(void *arg)
{
	(void)arg;
	return !dc.lock.locked &&
	       !__atomic_exchange_n(&dc.lock.locked, 1, __ATOMIC_ACQUIRE);
}

static void lock(void)
{
	cpu_wait_until(got_lock, 0);
}

static void unlock(void)
{
	spin_unlock(&dc.lock);
	cpu_wake_all();
}

static uint32_t rec_task(int task)
{
	return task == SCHED_IDLE ? TRACE_NO_TASK : (uint32_t)task;
}

static int call(unsigned cpu, uint64_t slot)
{
	if (dc.failed)
		return -1;
	if (sched_driver_boundary(dc.d, cpu, slot)) {
		dc.failed = 1;
		return -1;
	}
	return 0;
}

static void boundary_ordered(unsigned cpu, uint64_t slot)
{
	uint64_t mine = slot * dc.m + cpu;
	cpu_wait_until(my_turn, &mine);
	if (!dc.failed) {
		lock();
		trace_emit(TRACE_SCHED_START, 0, TRACE_NO_TASK, 0, slot);
		call(cpu, slot);
		trace_emit(TRACE_SCHED_END, 0, rec_task(decide_answer(cpu, slot)),
			   0, slot);
		dumpstate_boundary(dc.d, cpu, slot);
		spin_unlock(&dc.lock);
	}
	__atomic_store_n(&dc.ticket, mine + 1, __ATOMIC_RELEASE);
	if (dc.failed)
		cpu_wake_all();
	else
		cpu_wake(cpu + 1 == dc.m ? 0 : cpu + 1);
}

static void boundary_aligned(unsigned cpu, uint64_t slot)
{
	if (__atomic_load_n(&dc.decided, __ATOMIC_ACQUIRE) > slot || dc.failed)
		return;
	lock();
	if (dc.decided <= slot) {
		trace_emit(TRACE_SCHED_START, 0, TRACE_NO_TASK, 0, slot);
		for (uint64_t t = dc.decided; t <= slot && !dc.failed; t++) {
			for (unsigned c = 0; c < dc.m; c++)
				if (call(c, t))
					break;
			dumpstate_boundary(dc.d, dc.m - 1, t);
			__atomic_store_n(&dc.decided, t + 1, __ATOMIC_RELEASE);
		}
		trace_emit(TRACE_SCHED_END, 0,
			   rec_task(decide_answer(cpu, slot)), 0, slot);
	}
	unlock();
}

int decide_boundary(unsigned cpu, uint64_t slot, int *failed)
{
	if (dc.ordered)
		boundary_ordered(cpu, slot);
	else
		boundary_aligned(cpu, slot);
	*failed = dc.failed;
	return dc.failed ? SCHED_IDLE : decide_answer(cpu, slot);
}

int decide_event(enum sched_driver_event ev, unsigned task, uint64_t slot)
{
	uint64_t flags = irq_save();
	lock();
	/* The plugin's clock is the latest slot decided. */
	uint64_t t = slot;
	if (!dc.ordered && dc.decided && dc.decided - 1 > t)
		t = dc.decided - 1;
	int rc = 0;
	trace_emit(TRACE_SCHED_START, 0, task, 0, t);
	if (!dc.failed && sched_driver_event(dc.d, ev, task, t)) {
		dc.failed = 1;
		rc = -1;
	}
	trace_emit(TRACE_SCHED_END, 0, task, 0, t);
	unlock();
	irq_restore(flags);
	return rc;
}

void decide_abort(void)
{
	dc.failed = 1;
	cpu_wake_all();
}
