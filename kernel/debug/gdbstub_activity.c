/*
 * kernel/debug/gdbstub_activity: what each CPU runs, as GDB's thread names show
 * it -- the task whose registers are live on it during a run
 * (cpu_scheds[k].current), "idle" for its idle thread, and the CPU's own
 * state outside a run.
 */
#include "gdbstub.h"

#include "../../arch/x86/percpu.h"
#include "../run/dispatch.h"
#include "../run/sched_run.h"

/* The thread live on the CPU while it takes part in a run (the clock's
 * self-measurement has no threads, and the records outlive the run). */
static const struct task *running(unsigned cpu)
{
	if (!cpu_scheds || cpu >= sched_run_driver->cpus ||
	    percpu[cpu].state != CPU_MEASURING || cpu_scheds[cpu].over)
		return 0;
	return cpu_scheds[cpu].current;
}

const char *gdbstub_cpu_activity(unsigned cpu)
{
	static const char *const names[] = {
		[CPU_ABSENT] = "absent", [CPU_STARTING] = "starting",
		[CPU_ONLINE] = "online", [CPU_MEASURING] = "measuring",
		[CPU_DONE] = "done", [CPU_HALTED] = "halted",
	};
	const struct task *t = running(cpu);
	if (t)
		return t->index < 0 ? "idle" : t->name;
	unsigned s = percpu[cpu].state;
	return s < sizeof names / sizeof names[0] ? names[s] : "unknown";
}
