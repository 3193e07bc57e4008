/*
 * kernel/gdbstub_activity: what each CPU runs, as GDB's thread names show
 * it. Today a CPU runs no task, so this is its state; once CPUs run tasks
 * it names the current one.
 */
#include "gdbstub.h"

#include "../arch/x86/percpu.h"

const char *gdbstub_cpu_activity(unsigned cpu)
{
	static const char *const names[] = {
		[CPU_ABSENT] = "absent", [CPU_STARTING] = "starting",
		[CPU_ONLINE] = "online", [CPU_MEASURING] = "measuring",
		[CPU_DONE] = "done", [CPU_HALTED] = "halted",
	};
	unsigned s = percpu[cpu].state;
	return s < sizeof names / sizeof names[0] ? names[s] : "unknown";
}
