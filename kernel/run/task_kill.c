/* kernel/run/task_kill: stopping a task, and its own exit. */
#include "task_kill.h"

#include "../../arch/x86/cpu.h"
#include "../../lib/fmt.h"
#include "../../sched/driver.h"
#include "../core/console.h"
#include "../run/dispatch.h"
#include "../task/jobs.h"
#include "../core/panic.h"
#include "../run/sched_decide.h"
#include "../task/task.h"
#include "../trace/trace.h"

/* #PF error code bits (SDM vol. 3, 4.7). */
#define PF_PRESENT (1u << 0)
#define PF_WRITE (1u << 1)
#define PF_FETCH (1u << 4)

/* The task leaves the plugin and the kernel's job model; this CPU runs
 * something else and never comes back here. */
static void __attribute__((noreturn)) leave(struct task *t)
{
	struct cpu_sched *cs = dispatch_me();
	cs->in_kernel = 1;
	/* An event-driven run has no quantum job model: its plugin goes on
	 * choosing the task, and the CPU idles in its time (kernel/run/dispatch.c
	 * runs no killed thread). Before the synchronous release no job and
	 * no plugin run yet: the task leaves at slot 0 (kernel/run/release.h). */
	if (!dispatch_event_driven() && !dispatch_before_release()) {
		uint64_t slot = dispatch_slot_now();
		dispatch_account(slot);
		jobs_stop(t, slot);
		decide_event(SCHED_EV_LEAVE, (unsigned)t->index, slot, 0);
	}
	cs = dispatch_me();
	cs->in_kernel = 0;
	dispatch_now();
	panic("task", "task %s ran again after it ended", t->name);
}

void task_kill(struct task *t, const char *why, unsigned vector,
	       uint64_t addr)
{
	t->state = TASK_KILLED;
	t->faults++;
	fmt_snprintf(t->why, sizeof t->why, "%s", why);
	trace_emit(TRACE_FAULT, vector, (uint32_t)t->index,
		   (uint32_t)t->jobs.done, addr);
	kprintf("task %s killed: %s\n", t->name, why);
	leave(t);
}

void task_exit(struct task *t, int64_t code)
{
	t->state = TASK_EXITED;
	if (code)
		fmt_snprintf(t->why, sizeof t->why, "exit %lld", (long long)code);
	leave(t);
}

static const char *pf_kind(uint64_t error)
{
	if (error & PF_FETCH)
		return "executing";
	return error & PF_WRITE ? "writing" : "reading";
}

void task_on_user_fault(struct trap_frame *f)
{
	struct task *t = dispatch_current();
	if (t->index < 0)
		panic_frame(f);     /* a kernel thread in ring 3 cannot be */
	char why[TASK_WHY_MAX];
	unsigned v = (unsigned)f->vector;
	uint64_t addr = f->rip;
	switch (v) {
	case VEC_PAGE_FAULT:
		addr = read_cr2();
		fmt_snprintf(why, sizeof why, "page fault %s %#llx (%s) rip=%#llx",
			     pf_kind(f->error), (unsigned long long)addr,
			     f->error & PF_PRESENT ? "not allowed" : "not mapped",
			     (unsigned long long)f->rip);
		break;
	case VEC_GENERAL_PROTECTION:
		fmt_snprintf(why, sizeof why, "general protection fault "
			     "(error %#llx) rip=%#llx",
			     (unsigned long long)f->error,
			     (unsigned long long)f->rip);
		break;
	case VEC_DIVIDE_ERROR:
		fmt_snprintf(why, sizeof why, "divide error rip=%#llx",
			     (unsigned long long)f->rip);
		break;
	case VEC_INVALID_OPCODE:
		fmt_snprintf(why, sizeof why, "invalid opcode rip=%#llx",
			     (unsigned long long)f->rip);
		break;
	default:
		fmt_snprintf(why, sizeof why, "exception %u (%s) rip=%#llx", v,
			     trap_exception_name(v), (unsigned long long)f->rip);
		break;
	}
	task_kill(t, why, v, addr);
}
