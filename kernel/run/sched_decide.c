/* kernel/run/sched_decide: the plugin's decisions in the order it needs. */
#include "sched_decide.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/percpu.h"
#include "../../arch/x86/trap.h"
#include "../../drivers/apic/lapic.h"
#include "../core/bootmem.h"
#include "coldcache.h"
#include "../core/cpu_wait.h"
#include "dumpstate.h"
#include "../core/options.h"
#include "../time/quantum_clock.h"
#include "../core/spinlock.h"
#include "../../lib/fmt.h"
#include "../trace/trace.h"
#include "verdict.h"

/* How many decisions each CPU keeps: a CPU that falls further behind
 * (missed boundaries) takes the newest, and the slots it passed are
 * charged from them (kernel/run/dispatch.c, dispatch_account). Under
 * plain TCG on a loaded host a virtual CPU was seen to stall 15 quanta. */
#define AHEAD 64
/* decided_or_lock's answer: the slot was decided by another CPU. */
#define DECIDED_ELSEWHERE (~0ull)

/* A CPU's latest decisions in slot order: entry n (of `head` written) at
 * n % AHEAD. A new slot's decision is appended; a replacement (a kernel
 * event's) is always for the newest slot decided, so it rewrites the
 * newest entry. */
struct answers {
	volatile uint64_t head;
	uint64_t slot[AHEAD];      /* slot + 1; 0: being written */
	int task[AHEAD];
	uint64_t given;            /* answers so far, under the lock */
} __attribute__((aligned(64)));

static struct {
	struct sched_driver *d;
	int ordered;
	/* The plugin runs at events: slots are decided only at those its
	 * next_event names, and every CPU's timer is armed for the next. */
	int at_events;
	volatile uint64_t next;
	/* At events, for each of the last slots decided (slot + 1; 0: none)
	 * the next slot to decide after it: a CPU that comes late through
	 * them takes each one, counted missed, instead of jumping to the
	 * newest decision's next. */
	volatile uint64_t chain_slot[AHEAD], chain_next[AHEAD];
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

void decide_setup(struct sched_driver *d, int ordered, int at_events,
		  unsigned cpus, decide_changed_fn changed)
{
	dc.d = d;
	dc.ordered = ordered;
	dc.at_events = !ordered && at_events;
	dc.next = 0;
	for (unsigned i = 0; i < AHEAD; i++)
		dc.chain_slot[i] = 0;
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

/* Entry n of CPU a's decisions: its slot + 1 (0: being written, or
 * overwritten under the read) and its task, read whole against a
 * concurrent remember(). */
static uint64_t entry(const struct answers *a, uint64_t n, int *task)
{
	unsigned i = (unsigned)(n % AHEAD);
	uint64_t s = __atomic_load_n(&a->slot[i], __ATOMIC_ACQUIRE);
	*task = __atomic_load_n(&a->task[i], __ATOMIC_ACQUIRE);
	return __atomic_load_n(&a->slot[i], __ATOMIC_ACQUIRE) == s ? s : 0;
}

/* The newest entry at or before slot, walking back from the newest; 0 and
 * SCHED_IDLE when none is kept. *until: the slot of the entry after it
 * (UINT64_MAX for the newest). */
static uint64_t find(const struct answers *a, uint64_t slot, int *task,
		     uint64_t *until)
{
	uint64_t head = __atomic_load_n(&a->head, __ATOMIC_ACQUIRE);
	uint64_t oldest = head > AHEAD ? head - AHEAD : 0;
	*until = UINT64_MAX;
	*task = SCHED_IDLE;
	for (uint64_t n = head; n > oldest; n--) {
		int t;
		uint64_t s = entry(a, n - 1, &t);
		if (s && s <= slot + 1) {
			*task = t;
			return s;
		}
		if (s)
			*until = s - 1;
	}
	return 0;
}

static void remember(unsigned cpu, uint64_t slot, int task)
{
	struct answers *a = &dc.ans[cpu];
	uint64_t head = a->head;
	unsigned newest = (unsigned)((head + AHEAD - 1) % AHEAD);
	if (head && a->slot[newest] >= slot + 1) {
		/* A replacement: the newest entry (or, never seen, an older
		 * one still kept). */
		for (uint64_t n = head; n > 0 && n + AHEAD > head; n--) {
			unsigned i = (unsigned)((n - 1) % AHEAD);
			if (a->slot[i] == slot + 1) {
				__atomic_store_n(&a->task[i], task,
						 __ATOMIC_RELEASE);
				return;
			}
		}
		return;
	}
	unsigned i = (unsigned)(head % AHEAD);
	__atomic_store_n(&a->slot[i], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&a->task[i], task, __ATOMIC_RELEASE);
	__atomic_store_n(&a->slot[i], slot + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&a->head, head + 1, __ATOMIC_RELEASE);
}

int decide_at_events(void)
{
	return dc.at_events;
}

/* A CPU runs the answer of the latest slot decided for it: at events the
 * latest at or before its slot; at every boundary that slot's own. */
int decide_answer(unsigned cpu, uint64_t slot)
{
	uint64_t until;
	return decide_answer_run(cpu, slot, &until);
}

int decide_answer_run(unsigned cpu, uint64_t slot, uint64_t *until)
{
	int task;
	uint64_t s = find(&dc.ans[cpu], slot, &task, until);
	if (!dc.at_events) {
		*until = slot + 1;
		return s == slot + 1 ? task : SCHED_IDLE;
	}
	return task;
}

/* The driver's on_choice: every answer, first ones and replacements. A
 * replacement for a slot a CPU may already be running is passed on. */
void decide_on_choice(void *ctx, unsigned cpu, uint64_t t, int task)
{
	(void)ctx;
	int old;
	uint64_t until;
	int replaces = find(&dc.ans[cpu], t, &old, &until) == t + 1;
	remember(cpu, t, task);
	dc.ans[cpu].given++;
	verdict_decided(cpu, t, task);
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

/* A timed call into the plugin begins (the trace's `sched` span); with
 * coldcache=on its memory leaves the cache first, outside the span. */
static void sched_span_start(uint32_t task, uint64_t slot)
{
	coldcache_flush();
	trace_emit(TRACE_SCHED_START, 0, task, 0, slot);
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
		sched_span_start(TRACE_NO_TASK, slot);
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

/* The next slot to decide after slot t: the plugin's next event, or the
 * slot dumpstate= wants or the run's end if that comes first. */
static uint64_t next_decision(uint64_t t)
{
	uint64_t next = sched_driver_next_event(dc.d, t);
	/* No later than the run's end boundary, which every CPU must take
	 * (it ends the idle threads' loop). */
	if (next > qclock_slots())
		next = qclock_slots();
	if (options.dumpstate == DUMPSTATE_SLOT &&
	    options.dumpstate_slot > t && options.dumpstate_slot < next)
		next = options.dumpstate_slot;
	return next;
}

/* At events: the first CPU at slot decides it alone (the plugin catches
 * up on the slots between), and sets the slot every CPU arms for next. */
static void boundary_at_events(uint64_t slot)
{
	if (dc.decided <= slot && !dc.failed) {
		for (unsigned c = 0; c < dc.m; c++)
			if (call(c, slot))
				break;
		dumpstate_boundary(dc.d, dc.m - 1, slot);
		dc.next = next_decision(slot);
		dc.chain_next[slot % AHEAD] = dc.next;
		__atomic_store_n(&dc.chain_slot[slot % AHEAD], slot + 1,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&dc.decided, slot + 1, __ATOMIC_RELEASE);
	}
}

/* Slot *arg is decided (by another CPU), or the lock is ours. */
static int decided_or_lock(void *arg)
{
	uint64_t slot = *(uint64_t *)arg;
	if (__atomic_load_n(&dc.decided, __ATOMIC_ACQUIRE) > slot || dc.failed) {
		*(uint64_t *)arg = DECIDED_ELSEWHERE;
		return 1;
	}
	return got_lock(0);
}

/*
 * The CPUs that reach slot t while another decides it wait for `decided`,
 * not for the lock: at M = 128 each of them taking the lock in turn only
 * to find its answer there, and waking every halted CPU at each unlock,
 * cost O(M^2) wake-ups per slot. The decider wakes them all once.
 */
static void boundary_aligned(unsigned cpu, uint64_t slot)
{
	uint64_t wait = slot;
	cpu_wait_until(decided_or_lock, &wait);
	if (wait == DECIDED_ELSEWHERE)
		return;
	if (dc.decided <= slot && dc.at_events) {
		sched_span_start(TRACE_NO_TASK, slot);
		boundary_at_events(slot);
		trace_emit(TRACE_SCHED_END, 0,
			   rec_task(decide_answer(cpu, slot)), 0, slot);
	} else if (dc.decided <= slot) {
		sched_span_start(TRACE_NO_TASK, slot);
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

uint64_t decide_next(uint64_t slot)
{
	if (!dc.at_events)
		return slot + 1;
	uint64_t next = __atomic_load_n(&dc.next, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&dc.chain_slot[slot % AHEAD], __ATOMIC_ACQUIRE) ==
	    slot + 1)
		next = dc.chain_next[slot % AHEAD];
	return next > slot ? next : slot + 1;
}

void decide_rearm(void)
{
	if (dc.at_events)
		qclock_cpu_arm(__atomic_load_n(&dc.next, __ATOMIC_ACQUIRE));
}

/* After a kernel event under the lock at plugin time t: at events, what
 * runs now may end before the slot every CPU is armed for, so the next
 * decision comes sooner. Returns 1 when the next decision is now sooner
 * than `armed` (dc.next before the event): each CPU must re-arm
 * (finish_sooner). */
static int bring_forward(uint64_t t, uint64_t armed)
{
	if (!dc.at_events || dc.failed)
		return 0;
	uint64_t next = next_decision(t);
	if (next < dc.next) {
		dc.next = next;
		uint64_t d = dc.decided ? dc.decided - 1 : 0;
		if (dc.chain_slot[d % AHEAD] == d + 1 &&
		    next < dc.chain_next[d % AHEAD])
			dc.chain_next[d % AHEAD] = next;
	}
	return dc.next < armed;
}

/* After the plugin lock is let go: every other CPU re-arms (decide_rearm)
 * on the IPI, this one now. */
static void finish_sooner(void)
{
	unsigned me = this_cpu()->cpu;
	for (unsigned k = 0; k < dc.m; k++)
		if (k != me)
			lapic_send_ipi(percpu[k].apic_id, VEC_RESCHED_IPI);
	decide_rearm();
}

/* The plugin's clock for a kernel event at CPU time `slot`: the latest
 * slot decided. */
static uint64_t plugin_time(uint64_t slot)
{
	if (!dc.ordered && dc.decided && dc.decided - 1 > slot)
		return dc.decided - 1;
	return slot;
}

/* At events, slot t may not be decided (nothing was due in it): a call at
 * every boundary would have decided it before the event, and the event's
 * reschedules replace those answers. Returns dc.next before that (for
 * bring_forward). */
static uint64_t decided_to(uint64_t t)
{
	uint64_t armed = dc.next;
	if (dc.at_events && dc.decided <= t)
		boundary_at_events(t);
	return armed;
}

/* The plugin counts `done` jobs of task or more as completed (it has no
 * jobs: never). */
static int plugin_counted(unsigned task, uint64_t done)
{
	struct sched_task_stats st = { 0 };
	if (!dc.d->plugin->stats || dc.d->plugin->no_deadlines)
		return 0;
	dc.d->plugin->stats(dc.d->s, task, &st);
	return st.jobs >= done;
}

/* decide_event, and decide_complete when done is not UINT64_MAX. */
static int event(enum sched_driver_event ev, unsigned task, uint64_t slot,
		 int *again, uint64_t done)
{
	uint64_t flags = irq_save();
	lock();
	uint64_t t = plugin_time(slot);
	int rc = 0;
	sched_span_start(task, t);
	uint64_t armed = decided_to(t);
	struct answers *mine = &dc.ans[this_cpu()->cpu];
	uint64_t given = mine->given;
	if (!dc.failed && done != UINT64_MAX && plugin_counted(task, done)) {
		rc = 1;
	} else if (!dc.failed && sched_driver_event(dc.d, ev, task, t)) {
		dc.failed = 1;
		rc = -1;
	}
	if (again)
		*again = mine->given != given;
	int sooner = bring_forward(t, armed);
	trace_emit(TRACE_SCHED_END, 0, task, 0, t);
	unlock();
	if (sooner)
		finish_sooner();
	irq_restore(flags);
	return rc;
}

int decide_event(enum sched_driver_event ev, unsigned task, uint64_t slot,
		 int *again)
{
	return event(ev, task, slot, again, UINT64_MAX);
}

int decide_complete(unsigned task, uint64_t slot, uint64_t done, int *again)
{
	return event(SCHED_EV_COMPLETE, task, slot, again, done);
}

int decide_lock(unsigned task, int release, unsigned res, uint64_t slot,
		char *why, size_t size)
{
	uint64_t flags = irq_save();
	lock();
	uint64_t t = plugin_time(slot);
	int rc = -SCHED_LOCK_EBUSY;
	sched_span_start(task, t);
	uint64_t armed = decided_to(t);
	if (!dc.failed) {
		rc = sched_driver_lock_op(dc.d, task, release, res, t);
		if (rc)
			fmt_snprintf(why, size, "%s", dc.d->err.msg);
	}
	int sooner = bring_forward(t, armed);
	trace_emit(TRACE_SCHED_END, 0, task, 0, t);
	unlock();
	if (sooner)
		finish_sooner();
	irq_restore(flags);
	return rc;
}

void decide_abort(void)
{
	dc.failed = 1;
	cpu_wake_all();
}
