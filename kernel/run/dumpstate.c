/* kernel/run/dumpstate: the plugin's state on the console, for the GDB tests. */
#include "dumpstate.h"

#include "../../arch/x86/percpu.h"
#include "../../lib/fmt.h"
#include "../core/console.h"
#include "../core/options.h"
#include "../time/quantum_clock.h"
#include "../task/jobs.h"
#include "../task/task.h"

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	kprintf("STATE %s\n", line);
}

/* A CPU number of task's two views, or "-". */
static const char *cpu_of(int cpu, char *buf, size_t size)
{
	if (cpu == TASK_NONE)
		return "-";
	fmt_snprintf(buf, size, "%d", cpu);
	return buf;
}

/* Each task's record (kernel/task/task.h) and its current job (kernel/task/jobs.h):
 * job `done`'s release and deadline slots, or "-" for a task without
 * periodic jobs. */
static void print_tasks(void)
{
	static const char *const states[] = {
		[TASK_OK] = "ok", [TASK_KILLED] = "killed",
		[TASK_EXITED] = "exited",
	};
	for (unsigned i = 0; i < ntasks; i++) {
		const struct task *t = &tasks[i];
		const struct task_jobs *j = &t->jobs;
		char linked[12], sched[12], rel[24] = "-", dl[24] = "-";
		if (j->periodic) {
			fmt_snprintf(rel, sizeof rel, "%llu", (unsigned long long)
				     jobs_release_slot(t, j->done));
			fmt_snprintf(dl, sizeof dl, "%llu", (unsigned long long)
				     jobs_deadline_slot(t, j->done));
		}
		kprintf("STATE task %s state=%s sleeping=%d linked=%s "
			"scheduled=%s released=%llu done=%llu ran=%llu "
			"release=%s deadline=%s\n", t->name, states[t->state],
			t->sleeping, cpu_of(t->linked_on, linked, sizeof linked),
			cpu_of(t->scheduled_on, sched, sizeof sched),
			(unsigned long long)j->released,
			(unsigned long long)j->done, (unsigned long long)j->ran,
			rel, dl);
	}
}

void dumpstate_print(const struct sched_driver *d, const char *when,
		     int with_clock)
{
	kprintf("STATE begin %s\n", when);
	if (d->plugin->dump)
		d->plugin->dump(d->s, print_line, 0);
	for (unsigned k = 0; with_clock && k < d->cpus; k++)
		kprintf("STATE clock cpu %u apic=%u serviced=%llu missed=%llu "
			"next=%llu done=%d\n", k, percpu[k].apic_id,
			(unsigned long long)qclock_cpu_serviced(k),
			(unsigned long long)qclock_cpu_missed(k),
			(unsigned long long)qclock_cpu_next(k), qclock_cpu_done(k));
	if (with_clock)
		print_tasks();
	kprintf("STATE end\n");
}

/* The last CPU's call closes the slot: every decision of it is made and,
 * in boundary order, no other CPU is inside the plugin. */
void dumpstate_boundary(const struct sched_driver *d, unsigned cpu,
			uint64_t slot)
{
	if (options.dumpstate != DUMPSTATE_SLOT ||
	    slot != options.dumpstate_slot || cpu + 1 != d->cpus)
		return;
	char when[32];
	fmt_snprintf(when, sizeof when, "slot %llu", (unsigned long long)slot);
	dumpstate_print(d, when, 0);
}

void dumpstate_end(const struct sched_driver *d)
{
	if (options.dumpstate == DUMPSTATE_END)
		dumpstate_print(d, "end", 1);
}
